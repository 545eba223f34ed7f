package conformance

import (
	"slices"
	"sort"
	"time"
)

// Status is a check's outcome.
type Status string

// Check outcomes.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	// Skip means the check did not apply (the card does not declare the
	// feature) or could not be made (the agent never produced a running
	// task to cancel); Message says which.
	Skip Status = "skip"
)

// Level is the verdict of a run.
type Level string

// Conformance levels, best first. LevelRule says how one is chosen.
const (
	LevelFull          Level = "full"
	LevelPartial       Level = "partial"
	LevelMinimal       Level = "minimal"
	LevelNonConformant Level = "non-conformant"
)

// LevelRule is how a report's Level follows from its results; every
// report carries it.
const LevelRule = "full: no check failed; partial: every MUST and SHOULD check passed, some MAY check failed; " +
	"minimal: every MUST check passed, some SHOULD check failed; non-conformant: some MUST check failed. " +
	"Skipped checks (a feature the card does not declare, or a situation the agent never produced) count neither way."

// Result is the outcome of checking one requirement on one interface (or
// on the agent as a whole).
type Result struct {
	Requirement
	// Transports are the interfaces the check ran on, as "JSONRPC 1.0",
	// "HTTP+JSON 0.3", "GRPC 1.0"; "HTTP" for the agent card.
	Transports []string `json:"transports"`
	Status     Status   `json:"status"`
	// Message says what was seen; on failure, what was expected instead.
	Message string `json:"message"`
	// Expected and Received are set on failures: "error code -32601" and
	// "a result", say.
	Expected string `json:"expected,omitempty"`
	Received string `json:"received,omitempty"`
	// Exchanges are the requests and answers that show a failure, as sent
	// and received on the wire (bodies truncated).
	Exchanges []Exchange `json:"exchanges,omitempty"`
}

// Exchange is one request and what came back.
type Exchange struct {
	Transport string `json:"transport"`
	// Request is the method and URL (or gRPC method) and the body sent.
	Request string `json:"request"`
	// Status is "HTTP 200", "gRPC NotFound", or "no answer: <why>".
	Status      string `json:"status"`
	ContentType string `json:"content_type,omitempty"`
	// Response is the body (for a stream, its events), at most
	// maxExchangeText bytes.
	Response string `json:"response,omitempty"`
}

// Summary counts a run's results.
type Summary struct {
	Total   int `json:"total"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	// Failures by level.
	MustFailed   int `json:"must_failed"`
	ShouldFailed int `json:"should_failed"`
	MayFailed    int `json:"may_failed"`
}

// CategorySummary counts one category's results.
type CategorySummary struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
}

// Interface is an interface the agent card declares, and whether the run
// checked it.
type Interface struct {
	// Name is "<binding> <version>", as results' Transports name it.
	Name            string `json:"name"`
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocol_binding"`
	ProtocolVersion string `json:"protocol_version"`
	Checked         bool   `json:"checked"`
	// Note says why an interface was not checked.
	Note string `json:"note,omitempty"`
}

// Report is the outcome of a conformance run.
type Report struct {
	// ID identifies the run in the results database (a UUIDv7, set by the
	// caller that stores it).
	ID       string `json:"id,omitempty"`
	AgentURL string `json:"agent_url"`
	// AgentProtocol is AgentProtocolECP for an ECP agent's report (RunECP);
	// empty for an A2A agent's.
	AgentProtocol string    `json:"agent_protocol,omitempty"`
	CardURL       string    `json:"card_url,omitempty"`
	AgentName     string    `json:"agent_name,omitempty"`
	AgentVersion  string    `json:"agent_version,omitempty"`
	StartedAt     time.Time `json:"started_at"`
	DurationMS    float64   `json:"duration_ms"`
	// Protocol and Transport are what the run was asked to check ("auto"
	// and "" mean all).
	Protocol   Protocol    `json:"protocol"`
	Transport  Transport   `json:"transport,omitempty"`
	Interfaces []Interface `json:"interfaces"`

	Level     Level   `json:"level"`
	LevelRule string  `json:"level_rule"`
	Summary   Summary `json:"summary"`
	// Categories counts results per category.
	Categories map[Category]CategorySummary `json:"categories"`
	// Requests counts every HTTP request and gRPC call the run made.
	Requests int `json:"requests"`

	Results []Result `json:"results"`
}

// Failed returns the results that failed.
func (r *Report) Failed() []Result { return r.withStatus(Fail) }

// Skipped returns the checks that did not apply, with why (their
// Message), in report order.
func (r *Report) Skipped() []Result { return r.withStatus(Skip) }

// withStatus returns the results of one status, in report order.
func (r *Report) withStatus(s Status) []Result {
	var out []Result
	for _, res := range r.Results {
		if res.Status == s {
			out = append(out, res)
		}
	}
	return out
}

// FailedIDs returns the sorted, distinct requirement ids that failed.
func (r *Report) FailedIDs() []string {
	var ids []string
	for _, res := range r.Results {
		if res.Status == Fail && !slices.Contains(ids, res.ID) {
			ids = append(ids, res.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// finish computes the summary, the category counts and the level.
func (r *Report) finish() {
	r.Summary = Summary{}
	r.Categories = map[Category]CategorySummary{}
	for _, res := range r.Results {
		cs := r.Categories[res.Category]
		r.Summary.Total++
		switch res.Status {
		case Pass:
			r.Summary.Passed++
			cs.Passed++
		case Fail:
			r.Summary.Failed++
			cs.Failed++
			switch res.Level {
			case Must:
				r.Summary.MustFailed++
			case Should:
				r.Summary.ShouldFailed++
			default:
				r.Summary.MayFailed++
			}
		default:
			r.Summary.Skipped++
			cs.Skipped++
		}
		r.Categories[res.Category] = cs
	}
	r.Level = LevelOf(r.Summary)
	r.LevelRule = LevelRule
}

// LevelOf applies LevelRule to a summary.
func LevelOf(s Summary) Level {
	switch {
	case s.MustFailed > 0:
		return LevelNonConformant
	case s.ShouldFailed > 0:
		return LevelMinimal
	case s.MayFailed > 0:
		return LevelPartial
	}
	return LevelFull
}
