package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
)

// Skill names one of the server's skills, as in the agent card and in
// {"skill": ...} requests; its JSON form is the name.
type Skill string

// The skills a {"skill": ...} request can ask for.
const (
	// SkillRunEvaluation evaluates an agent on a domain's tasks, as a
	// long-running task that ends with the Result artifact.
	SkillRunEvaluation Skill = "run_evaluation"
	// SkillListDomains lists the domains agents can be evaluated on.
	SkillListDomains Skill = "list_domains"
	// SkillGetResults reads one stored evaluation, or a page of them.
	SkillGetResults Skill = "get_results"
	// SkillCheckConformance checks an agent against the A2A specification
	// (package conformance), as a long-running task that ends with the
	// ConformanceReport artifact.
	SkillCheckConformance Skill = "check_conformance"
	// SkillRunEvalSet plays an inline eval set (tRPC-Agent-Go, ADK or YAML
	// cases) against an agent and scores it, as a long-running task that
	// ends with the Result artifact.
	SkillRunEvalSet Skill = "run_evalset"
)

// freeText is the kind of a request that asks for no skill.
const freeText Skill = ""

// request is what a message asks for.
type request struct {
	kind    Skill // freeText, or the skill asked for
	run     *runParams
	results *skills.ResultsRequest
	// conformance is check_conformance's parameters.
	conformance *skills.ConformanceRequest
	// evalSet is run_evalset's parameters.
	evalSet *evalSetParams
	text    string // the free text
}

// runParams are run_evaluation's parameters: an evaluation request plus
// what only the server decides.
type runParams struct {
	skills.EvaluationRequest
	// IncludeTranscripts keeps the simulations' messages in the Result
	// artifact (default true).
	IncludeTranscripts *bool `json:"include_transcripts,omitempty"`
}

// assessment is the AgentBeats assessment request.
type assessment struct {
	Participants map[string]string `json:"participants"`
	Config       json.RawMessage   `json:"config"`
}

// assessmentConfig is what an AgentBeats config may hold; other keys are
// ignored, as AgentBeats scenarios carry settings for other parties too.
type assessmentConfig struct {
	Domain             string            `json:"domain"`
	NumTasks           int               `json:"num_tasks"`
	TaskIDs            []string          `json:"task_ids"`
	NumTrials          int               `json:"num_trials"`
	ShardIndex         int               `json:"shard_index"`
	NumShards          int               `json:"num_shards"`
	MaxSteps           int               `json:"max_steps"`
	Concurrency        int               `json:"concurrency"`
	Profile            string            `json:"profile"`
	User               string            `json:"user"`
	Transport          string            `json:"transport"`
	Protocol           string            `json:"protocol"`
	Timeout            result.Duration   `json:"timeout"`
	Headers            map[string]string `json:"headers"`
	IncludeTranscripts *bool             `json:"include_transcripts"`
}

// maxRequestJSON bounds the JSON read from one message (the HTTP layer
// bounds the request body too), but for run_evalset's, which may be up to
// maxEvalSetRequestJSON.
const maxRequestJSON = 1 << 20

// parseRequest reads what a message asks for: a {"skill", "params"} object
// or an AgentBeats assessment, as a data part or as text holding the JSON;
// anything else is free text. A request that is recognisable but wrong is a
// *skills.InvalidRequestError.
func parseRequest(msg *a2a.Message) (request, error) {
	var texts []string
	var objects []map[string]any
	if msg != nil {
		for _, p := range msg.Parts {
			if p == nil {
				continue
			}
			if d, ok := p.Data().(map[string]any); ok {
				objects = append(objects, d)
				continue
			}
			if t := strings.TrimSpace(p.Text()); t != "" {
				texts = append(texts, t)
			}
		}
	}
	text := strings.Join(texts, "\n")
	var raw []byte
	switch {
	case len(objects) > 0:
		b, err := json.Marshal(objects[0])
		if err != nil {
			return request{}, invalid("the data part is not JSON: %v", err)
		}
		raw = b
	case strings.HasPrefix(text, "{"):
		raw = []byte(text)
	default:
		return request{text: text}, nil
	}
	if len(raw) > maxEvalSetRequestJSON {
		return request{}, invalid("the request is %d bytes; at most %d", len(raw), maxEvalSetRequestJSON)
	}
	var head map[string]json.RawMessage
	if err := json.Unmarshal(raw, &head); err != nil {
		if len(objects) == 0 {
			return request{text: text}, nil // text that merely starts with a brace
		}
		return request{}, invalid("the request is not a JSON object: %v", err)
	}
	if len(raw) > maxRequestJSON && !isEvalSetRequest(head) {
		return request{}, invalid("the request is %d bytes; at most %d (%s requests may be up to %d)", len(raw), maxRequestJSON, SkillRunEvalSet, maxEvalSetRequestJSON)
	}
	switch {
	case head["skill"] != nil:
		return parseSkill(head)
	case head["participants"] != nil:
		return parseAssessment(raw)
	}
	if len(objects) > 0 {
		return request{}, invalid(`a data part must hold {"skill": ..., "params": {...}} or an assessment {"participants": ..., "config": ...}`)
	}
	return request{text: text}, nil
}

// isEvalSetRequest reports whether a request asks for run_evalset.
func isEvalSetRequest(head map[string]json.RawMessage) bool {
	var skill Skill
	return json.Unmarshal(head["skill"], &skill) == nil && skill == SkillRunEvalSet
}

func parseSkill(head map[string]json.RawMessage) (request, error) {
	var skill Skill
	if err := json.Unmarshal(head["skill"], &skill); err != nil {
		return request{}, invalid("skill must be a string")
	}
	for k := range head {
		if k != "skill" && k != "params" {
			return request{}, invalid("unknown key %q: a request holds \"skill\" and \"params\"", k)
		}
	}
	params := head["params"]
	if len(params) == 0 || string(params) == "null" {
		params = []byte("{}")
	}
	switch skill {
	case SkillRunEvaluation:
		var p runParams
		if err := strictDecode(params, &p); err != nil {
			return request{}, invalid("params: %v", err)
		}
		return request{kind: skill, run: &p}, nil
	case SkillGetResults:
		var p skills.ResultsRequest
		if err := strictDecode(params, &p); err != nil {
			return request{}, invalid("params: %v", err)
		}
		return request{kind: skill, results: &p}, nil
	case SkillListDomains:
		if err := strictDecode(params, &struct{}{}); err != nil {
			return request{}, invalid("params: list_domains takes none: %v", err)
		}
		return request{kind: skill}, nil
	case SkillCheckConformance:
		var p skills.ConformanceRequest
		if err := strictDecode(params, &p); err != nil {
			return request{}, invalid("params: %v", err)
		}
		return request{kind: skill, conformance: &p}, nil
	case SkillRunEvalSet:
		var p evalSetParams
		if err := strictDecode(params, &p); err != nil {
			return request{}, invalid("params: %v", err)
		}
		return request{kind: skill, evalSet: &p}, nil
	}
	return request{}, invalid("unknown skill %q: want %s, %s, %s, %s or %s", truncate(string(skill), 60),
		SkillRunEvaluation, SkillRunEvalSet, SkillListDomains, SkillGetResults, SkillCheckConformance)
}

func parseAssessment(raw []byte) (request, error) {
	var a assessment
	if err := json.Unmarshal(raw, &a); err != nil {
		return request{}, invalid("assessment request: %v", err)
	}
	url := a.Participants["agent"]
	if url == "" && len(a.Participants) == 1 {
		for _, u := range a.Participants {
			url = u
		}
	}
	if url == "" {
		roles := make([]string, 0, len(a.Participants))
		for r := range a.Participants {
			roles = append(roles, r)
		}
		sort.Strings(roles)
		return request{}, invalid("participants: want the agent to evaluate under \"agent\" (got roles: %s)", strings.Join(roles, ", "))
	}
	var c assessmentConfig
	if len(a.Config) > 0 && string(a.Config) != "null" {
		if err := json.Unmarshal(a.Config, &c); err != nil {
			return request{}, invalid("config: %v", err)
		}
	}
	return request{kind: SkillRunEvaluation, run: &runParams{
		EvaluationRequest: skills.EvaluationRequest{
			Domain: c.Domain, AgentURL: url, NumTasks: c.NumTasks, TaskIDs: c.TaskIDs, NumTrials: c.NumTrials,
			ShardIndex: c.ShardIndex, NumShards: c.NumShards, MaxSteps: c.MaxSteps, Concurrency: c.Concurrency,
			Profile: c.Profile, User: c.User, Transport: c.Transport, Protocol: c.Protocol, Timeout: c.Timeout,
			Headers: c.Headers,
		},
		IncludeTranscripts: c.IncludeTranscripts,
	}}, nil
}

func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typ):
			return fmt.Errorf("%s: want a %s, got a JSON %s", typ.Field, typ.Type, typ.Value)
		case errors.As(err, &syn):
			return fmt.Errorf("not valid JSON at byte %d", syn.Offset)
		}
		return err
	}
	return nil
}

func invalid(format string, a ...any) error {
	return &skills.InvalidRequestError{Violations: []string{fmt.Sprintf(format, a...)}}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
