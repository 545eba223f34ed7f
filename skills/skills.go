package skills

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// DomainInfo describes a domain: the result of list_domains.
type DomainInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// NumTasks counts the tasks an evaluation runs by default: for a domain
	// with task splits, those of DefaultSplit.
	NumTasks int      `json:"num_tasks"`
	Tools    []string `json:"tools"`
	TaskIDs  []string `json:"task_ids,omitempty"`
	// DefaultSplit and Splits describe a domain whose tasks come in splits
	// (tau2's: base, train, test); absent for a domain without splits.
	DefaultSplit string      `json:"default_split,omitempty"`
	Splits       []SplitInfo `json:"splits,omitempty"`
	// RetrievalConfigs are the retrieval configurations a domain with a
	// knowledge base takes (run_evaluation's retrieval_config).
	RetrievalConfigs []string `json:"retrieval_configs,omitempty"`
}

// SplitInfo is a task split's name and size.
type SplitInfo struct {
	Name     string `json:"name"`
	NumTasks int    `json:"num_tasks"`
}

// Describe describes one domain; withTasks adds its task ids.
func Describe(d *domains.Domain, withTasks bool) DomainInfo {
	info := DomainInfo{Name: d.Name, Description: d.Description, NumTasks: len(d.Tasks), Tools: d.ToolNames()}
	if withTasks {
		for _, t := range d.Tasks {
			info.TaskIDs = append(info.TaskIDs, t.ID)
		}
	}
	return info
}

// DescribeSummary describes a domain from its summary; withTasks adds the
// ids of the tasks NumTasks counts.
func DescribeSummary(s catalog.Summary, withTasks bool) DomainInfo {
	info := DomainInfo{Name: s.Name, Description: s.Description, NumTasks: s.NumTasks, Tools: s.Tools, DefaultSplit: s.DefaultSplit,
		RetrievalConfigs: s.RetrievalConfigs}
	for _, sp := range s.Splits {
		info.Splits = append(info.Splits, SplitInfo{Name: sp.Name, NumTasks: sp.NumTasks})
	}
	if withTasks {
		info.TaskIDs = s.TaskIDs
	}
	return info
}

// ListDomains is the list_domains skill: every available domain, in name
// order. A source that can describe its domains without loading them
// (Summarizer) is asked to; a domain whose data does not read is left out.
func (s *Service) ListDomains() []DomainInfo {
	out := []DomainInfo{}
	if src, ok := s.Domains.(Summarizer); ok {
		sums, _ := src.Summaries()
		for _, sum := range sums {
			out = append(out, DescribeSummary(sum, false))
		}
		return out
	}
	for _, name := range s.Domains.Names() {
		if d, err := s.Domains.Get(name); err == nil {
			out = append(out, Describe(d, false))
		}
	}
	return out
}

// ResultsRequest is the get_results skill's parameters: one evaluation by
// id (or short id: a unique prefix or suffix), or a page of recent ones.
type ResultsRequest struct {
	ID       string `json:"id,omitempty" validate:"omitempty,max=100"`
	Domain   string `json:"domain,omitempty" validate:"omitempty,max=100"`
	AgentURL string `json:"agent_url,omitempty" validate:"omitempty,max=2048"`
	Status   string `json:"status,omitempty" validate:"omitempty,oneof=running completed interrupted failed canceled"`
	Limit    int    `json:"limit,omitempty" validate:"gte=0,lte=500"`
	// Before pages: evaluations older than this id.
	Before string `json:"before,omitempty" validate:"omitempty,max=100"`
	// IncludeTranscripts (default true) returns one evaluation with its
	// simulations in full, transcripts included; false returns its summary,
	// metrics and per-task scores only: a small answer however large the
	// evaluation.
	IncludeTranscripts *bool `json:"include_transcripts,omitempty"`
	// IncludeRows adds, to an answer without transcripts, a row per
	// simulation (simulation_rows: id, reward, termination_reason).
	IncludeRows bool `json:"include_rows,omitempty"`
}

// ResultsPage is a page of evaluations, newest first, without simulations.
type ResultsPage struct {
	Evaluations []result.Evaluation `json:"evaluations"`
	// Next is the Before value of the next page, "" on the last one.
	Next string `json:"next,omitempty"`
}

// GetResults is the get_results skill. With an id it returns that
// evaluation; otherwise a page of recent ones.
func (s *Service) GetResults(ctx context.Context, req ResultsRequest) (*result.Evaluation, *ResultsPage, error) {
	if err := s.validator().Struct(&req); err != nil {
		return nil, nil, validationError(err)
	}
	if req.ID != "" {
		results := s.results()
		load := results.Evaluation
		if req.IncludeTranscripts != nil && !*req.IncludeTranscripts {
			load = func(ctx context.Context, id string) (*result.Evaluation, error) {
				return results.EvaluationBrief(ctx, id, req.IncludeRows)
			}
		}
		eval, err := load(ctx, req.ID)
		if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAmbiguous) {
			return nil, nil, invalid("id: %v", err)
		}
		if err != nil {
			return nil, nil, err
		}
		return eval, nil, nil
	}
	page, err := s.results().Evaluations(ctx, req)
	return nil, page, err
}

// results is the repository of the service's stored evaluations.
func (s *Service) results() *Results { return NewResults(s.Store) }

// DefaultResultsLimit is how many evaluations a listing shows when not told.
const DefaultResultsLimit = 20

// UnreadableRecord begins the Error of a listed evaluation whose stored
// record proctor cannot decode; its id, domain, agent and status come from
// the record's index.
const UnreadableRecord = "stored record is unreadable"

// StripTranscripts drops the messages of an evaluation's simulations, which
// are most of its size.
func StripTranscripts(eval *result.Evaluation) {
	for i := range eval.Simulations {
		eval.Simulations[i].Messages = nil
	}
}

// SameAgent reports whether what a user typed names the stored agent: the
// URL it was evaluated at as typed (such as "builtin"), or as resolved (the
// URL of the interface used, the card's URL). URLs compare by what they
// reach: the scheme and host in any case, http:// when no scheme is typed,
// a default port or none, with or without a trailing slash or the
// well-known card path, and localhost, 127.0.0.1 and ::1 as the same host.
func SameAgent(typed, storedURL string, e result.Evaluation) bool {
	t := agentKey(typed)
	for _, c := range []string{storedURL, e.Agent.URL, e.Agent.CardURL, e.Config.Agent} {
		if c != "" && agentKey(c) == t {
			return true
		}
	}
	return false
}

// agentKey is the form of an agent's URL that SameAgent compares.
func agentKey(s string) string {
	s = strings.TrimSpace(s)
	if s == BuiltinAgent || ecp.IsTarget(s) {
		return s
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return strings.TrimRight(s, "/")
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		host = "loopback"
	}
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	path := strings.TrimRight(u.EscapedPath(), "/")
	for _, card := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
		path = strings.TrimSuffix(path, card)
	}
	key := scheme + "://" + net.JoinHostPort(host, port) + path
	if u.RawQuery != "" {
		key += "?" + u.RawQuery
	}
	return key
}
