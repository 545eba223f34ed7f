package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/knowledge/kbresult"
	"github.com/proctor-eval/proctor/result"
)

// Text is the rendering of a transcript for terminals (proctor show): the
// conversation turn by turn, then the checks.
const Text Format = "text"

// TurnRole says who a turn of a shown conversation is from.
type TurnRole string

// Roles of turns: the user simulator, the evaluated agent, and a tool
// result not matched to a call.
const (
	TurnUser  TurnRole = "user"
	TurnAgent TurnRole = "agent"
	TurnTool  TurnRole = "tool"
)

// SimulationReport is one simulation made readable: the conversation with
// tool results folded into their calls, and every check of the reward with
// why it failed. It is the model of proctor show (and of the viewer's
// simulation page).
type SimulationReport struct {
	EvaluationID      string                   `json:"evaluation_id"`
	Domain            string                   `json:"domain"`
	Agent             string                   `json:"agent"`
	SimulationID      string                   `json:"simulation_id"`
	TaskID            string                   `json:"task_id"`
	Trial             int                      `json:"trial"`
	Reward            float64                  `json:"reward"`
	Passed            bool                     `json:"passed"`
	TerminationReason result.TerminationReason `json:"termination_reason"`
	Error             string                   `json:"error,omitempty"`
	// Note says why the reward is what it is when no check explains it
	// (a conversation that ended without being scored).
	Note   string  `json:"note,omitempty"`
	Turns  []Turn  `json:"turns"`
	Checks []Check `json:"checks"`
}

// Turn is one message of the conversation.
type Turn struct {
	Role TurnRole `json:"role"`
	// Requestor is "user" on tool calls the user simulator made itself.
	Requestor string `json:"requestor,omitempty"`
	Text      string `json:"text,omitempty"`
	// PrivateThought is the agent's private reasoning, never shown to the
	// user simulator or the judge.
	PrivateThought string `json:"private_thought,omitempty"`
	// History marks the turns the task started with.
	History   bool           `json:"history,omitempty"`
	Error     bool           `json:"error,omitempty"`
	ToolCalls []ToolCallView `json:"tool_calls,omitempty"`
}

// ToolCallView is a tool call with its result folded in.
type ToolCallView struct {
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Result    string         `json:"result"`
	// ResultError marks a failed call; NoResult one whose result is not in
	// the transcript.
	ResultError bool `json:"result_error,omitempty"`
	NoResult    bool `json:"no_result,omitempty"`
	// Fault says proctor corrupted the result the agent saw (Result) in
	// this way (--tool-faults).
	Fault result.FaultKind `json:"fault,omitempty"`
	// Retrieved is the documents a knowledge-base retrieval result lists
	// (KB_search, grep), read back from Result; empty for other results.
	Retrieved []kbresult.Hit `json:"retrieved,omitempty"`
}

// Check is one check of a simulation's reward.
type Check struct {
	Basis  domains.Basis `json:"basis"`
	Passed bool          `json:"passed"`
	// Subject is what was checked, Why why it failed (empty when it
	// passed).
	Subject string `json:"subject"`
	Why     string `json:"why,omitempty"`
	// DB: the differing records, when the domain could replay the
	// conversation (RecordsNote says why not otherwise).
	Records          []domains.RecordDiff `json:"records,omitempty"`
	RecordsTruncated bool                 `json:"records_truncated,omitempty"`
	RecordsNote      string               `json:"records_note,omitempty"`
	// ACTION: the expected call, and the calls of that tool the
	// conversation made, closest first, with the arguments that differ.
	Expected *domains.ToolCall `json:"expected,omitempty"`
	Calls    []ActualCall      `json:"calls,omitempty"`
	// NL_ASSERTION: the judge's votes and reasoning.
	MetVotes  int    `json:"met_votes,omitempty"`
	Samples   int    `json:"samples,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
}

// ActualCall is a call the conversation made of an expected action's tool.
type ActualCall struct {
	Requestor string         `json:"requestor,omitempty"`
	Arguments map[string]any `json:"arguments"`
	Differs   []ArgDiff      `json:"differs,omitempty"`
}

// ArgDiff is an argument whose value differs from the expected one.
type ArgDiff struct {
	Name     string `json:"name"`
	Expected any    `json:"expected,omitempty"`
	Actual   any    `json:"actual,omitempty"`
	Missing  bool   `json:"missing,omitempty"`
}

// DBDiffFunc explains a failed DB check record by record (scoring.DBDiff
// with the simulation's domain and task), or says why it cannot.
type DBDiffFunc func(sim *result.Simulation) ([]domains.RecordDiff, bool, error)

// NewSimulationReport makes sim, of eval, readable. dbDiff, when not nil,
// lists the differing records of a failed DB check.
func NewSimulationReport(eval *result.Evaluation, sim *result.Simulation, dbDiff DBDiffFunc) SimulationReport {
	r := SimulationReport{EvaluationID: eval.ID, Domain: eval.Domain, Agent: AgentLabel(eval.Agent),
		SimulationID: sim.ID, TaskID: sim.TaskID, Trial: sim.Trial, Reward: sim.Reward, Passed: sim.Passed(),
		TerminationReason: sim.TerminationReason, Error: sim.Error, Note: sim.RewardInfo.Note,
		Turns: turnsOf(sim.Messages), Checks: checksOf(sim, dbDiff)}
	if r.Note == "" && !sim.TerminationReason.Rewardable() {
		r.Note = fmt.Sprintf("ended as %s: only a conversation the user or the agent stopped earns reward", sim.TerminationReason)
	}
	return r
}

// turnsOf folds tool results into the calls they answer.
func turnsOf(msgs []result.Message) []Turn {
	turns := make([]Turn, 0, len(msgs))
	where := map[string][2]int{} // call id -> turn, call
	for _, m := range msgs {
		if m.Role == result.RoleTool {
			if at, ok := where[m.ToolCallID]; ok && m.ToolCallID != "" {
				c := &turns[at[0]].ToolCalls[at[1]]
				c.Result, c.ResultError, c.NoResult, c.Fault = m.Content, m.Error, false, m.Fault
				c.Retrieved = retrieved(m.Content, m.Error)
				delete(where, m.ToolCallID)
				continue
			}
			turns = append(turns, Turn{Role: TurnTool, Requestor: m.Requestor, Text: m.Content, Error: m.Error, History: m.History})
			continue
		}
		t := Turn{Role: TurnAgent, Requestor: m.Requestor, Text: m.Content, PrivateThought: m.PrivateThought, History: m.History, Error: m.Error}
		if m.Role == result.RoleUser {
			t.Role = TurnUser
		}
		for _, c := range m.ToolCalls {
			if t.Requestor == "" {
				t.Requestor = c.Requestor
			}
			t.ToolCalls = append(t.ToolCalls, ToolCallView{ID: c.ID, Name: c.Name, Arguments: c.Arguments, NoResult: true})
		}
		turns = append(turns, t)
		for i, c := range m.ToolCalls {
			if c.ID != "" {
				where[c.ID] = [2]int{len(turns) - 1, i}
			}
		}
	}
	return turns
}

func checksOf(sim *result.Simulation, dbDiff DBDiffFunc) []Check {
	ri := sim.RewardInfo
	checks := []Check{}
	if ri.DBCheck != nil {
		checks = append(checks, dbCheck(sim, ri.DBCheck, dbDiff))
	}
	for _, a := range ri.ActionChecks {
		checks = append(checks, actionCheck(a, sim.Messages))
	}
	for _, c := range ri.CommunicateChecks {
		ch := Check{Basis: domains.BasisCommunicate, Passed: c.Met, Subject: fmt.Sprintf("tell the user %q", c.Info)}
		if !c.Met {
			ch.Why = "no message of the agent contains it"
		}
		checks = append(checks, ch)
	}
	for _, n := range ri.NLAssertions {
		ch := Check{Basis: domains.BasisNLAssertion, Passed: n.Met, Subject: n.Assertion, MetVotes: n.MetVotes, Samples: n.Samples, Reasoning: n.Reasoning}
		if !n.Met {
			ch.Why = "the judge found it not met"
			if n.Samples > 0 {
				ch.Why = fmt.Sprintf("the judge found it met in %d of %d samples (a majority is needed)", n.MetVotes, n.Samples)
			}
		}
		checks = append(checks, ch)
	}
	for _, e := range ri.EnvAssertions {
		checks = append(checks, envCheck(e))
	}
	return checks
}

func dbCheck(sim *result.Simulation, c *result.DBCheck, dbDiff DBDiffFunc) Check {
	ch := Check{Basis: domains.BasisDB, Passed: c.DBMatch, Subject: "final database equals the expected one"}
	if c.DBMatch {
		return ch
	}
	ch.Why = fmt.Sprintf("database differs from the expected state (hash %s, expected %s)", short(c.ActualHash), short(c.ExpectedHash))
	if dbDiff == nil {
		ch.RecordsNote = "the domain is not available here: records not compared"
		return ch
	}
	recs, truncated, err := dbDiff(sim)
	switch {
	case err != nil:
		ch.RecordsNote = "records not compared: " + err.Error()
	case len(recs) == 0:
		ch.RecordsNote = "replaying the conversation gives the expected records: the recorded state came from elsewhere (a tool that is not deterministic?)"
	}
	ch.Records, ch.RecordsTruncated = recs, truncated
	return ch
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

func actionCheck(a result.ActionCheck, msgs []result.Message) Check {
	want := domains.ToolCall{Name: a.Action.Name, Arguments: a.Action.Arguments, Requestor: a.Action.Requestor}
	ch := Check{Basis: domains.BasisAction, Passed: a.ActionMatch, Subject: "call " + callText(want), Expected: &want}
	if a.ActionMatch {
		return ch
	}
	compared := a.Action.CompareArgs
	if compared == nil {
		compared = slices.Sorted(maps.Keys(a.Action.Arguments))
	}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.Name != a.Action.Name {
				continue
			}
			ac := ActualCall{Requestor: c.Requestor, Arguments: c.Arguments}
			for _, name := range compared {
				got, ok := c.Arguments[name]
				if !ok {
					ac.Differs = append(ac.Differs, ArgDiff{Name: name, Expected: a.Action.Arguments[name], Missing: true})
				} else if !reflect.DeepEqual(jsonValue(got), jsonValue(a.Action.Arguments[name])) {
					ac.Differs = append(ac.Differs, ArgDiff{Name: name, Expected: a.Action.Arguments[name], Actual: got})
				}
			}
			ch.Calls = append(ch.Calls, ac)
		}
	}
	slices.SortStableFunc(ch.Calls, func(x, y ActualCall) int { return len(x.Differs) - len(y.Differs) })
	switch {
	case len(ch.Calls) == 0:
		ch.Why = fmt.Sprintf("%s was never called", a.Action.Name)
	case len(ch.Calls[0].Differs) == 0:
		ch.Why = fmt.Sprintf("%s was called with these arguments, but not as expected (by whom, or with arguments the action lacks)", a.Action.Name)
	default:
		ch.Why = fmt.Sprintf("%s was called %d time(s), never with the expected arguments", a.Action.Name, len(ch.Calls))
	}
	return ch
}

// jsonValue is v as JSON decodes it, so that 1 and 1.0 compare equal.
func jsonValue(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(raw, &out) != nil {
		return v
	}
	return out
}

func envCheck(e result.EnvAssertionCheck) Check {
	subject := callText(domains.ToolCall{Name: e.FuncName, Arguments: e.Arguments, Requestor: e.EnvType}) + fmt.Sprintf(" is %v", e.Expected)
	ch := Check{Basis: domains.BasisEnvAssertion, Passed: e.Met, Subject: subject}
	switch {
	case e.Met:
	case e.Error != "":
		ch.Why = "it failed: " + e.Error
	case e.Got != nil:
		ch.Why = fmt.Sprintf("it is %v", *e.Got)
	default:
		ch.Why = "it gave no answer"
	}
	return ch
}

// callText renders a call as name(arg=value, ...), arguments in key order.
func callText(c domains.ToolCall) string {
	var b strings.Builder
	if c.Requestor == domains.RequestorUser {
		b.WriteString("user: ")
	}
	b.WriteString(c.Name)
	b.WriteString("(")
	for i, k := range slices.Sorted(maps.Keys(c.Arguments)) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k + "=" + compactJSON(c.Arguments[k]))
	}
	b.WriteString(")")
	return b.String()
}

func compactJSON(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(raw)
}

// EvaluationOverview is an evaluation's summary and a line per
// simulation: what proctor show prints for an evaluation id alone.
type EvaluationOverview struct {
	// Evaluation is the evaluation without its simulations.
	Evaluation  *result.Evaluation `json:"evaluation"`
	Simulations []SimulationLine   `json:"simulations"`
}

// SimulationLine is one simulation in an overview.
type SimulationLine struct {
	ID                string                   `json:"id"`
	TaskID            string                   `json:"task_id"`
	Trial             int                      `json:"trial"`
	Reward            float64                  `json:"reward"`
	Passed            bool                     `json:"passed"`
	TerminationReason result.TerminationReason `json:"termination_reason"`
	// Why says in one line which check failed; empty when it passed.
	Why string `json:"why,omitempty"`
}

// NewEvaluationOverview summarizes eval and lists its simulations.
func NewEvaluationOverview(eval *result.Evaluation) EvaluationOverview {
	head := *eval
	head.Simulations = nil
	o := EvaluationOverview{Evaluation: &head, Simulations: make([]SimulationLine, 0, len(eval.Simulations))}
	for _, s := range eval.Simulations {
		l := SimulationLine{ID: s.ID, TaskID: s.TaskID, Trial: s.Trial, Reward: s.Reward, Passed: s.Passed(), TerminationReason: s.TerminationReason}
		if !l.Passed {
			l.Why = WhyFailed(s)
		}
		o.Simulations = append(o.Simulations, l)
	}
	return o
}
