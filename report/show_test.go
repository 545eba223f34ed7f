package report

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

func TestNewSimulationReport(t *testing.T) {
	eval := &result.Evaluation{ID: "e1", Domain: "mock", Agent: result.AgentInfo{URL: "http://agent"}}
	create := domains.Action{Name: "create_task", Arguments: map[string]any{"title": "Order catering", "user_id": "u-1"}}
	sim := &result.Simulation{ID: "mock-02#0", TaskID: "mock-02", Reward: 0, TerminationReason: result.TermUserStop,
		Messages: []result.Message{
			{Role: result.RoleUser, Content: "Add a task"},
			{Role: result.RoleAssistant, PrivateThought: "they want a task",
				ToolCalls: []domains.ToolCall{{ID: "c1", Name: "create_task", Arguments: map[string]any{"title": "Order food", "user_id": "u-1"}}}},
			{Role: result.RoleTool, ToolCallID: "c1", Name: "create_task", Content: `{"task_id":"T-1"}`},
			{Role: result.RoleUser, Requestor: "user", ToolCalls: []domains.ToolCall{{ID: "u1", Name: "check_phone", Arguments: map[string]any{}}}},
			{Role: result.RoleTool, ToolCallID: "u1", Requestor: "user", Content: "no signal", Error: true},
			{Role: result.RoleTool, ToolCallID: "lost", Content: "orphan"},
			{Role: result.RoleAssistant, Content: "Done."},
		},
		RewardInfo: result.RewardInfo{
			DBCheck:           &result.DBCheck{ExpectedHash: "aaaaaaaaaaaaaaaa", ActualHash: "bbbbbbbbbbbbbbbb"},
			ActionChecks:      []result.ActionCheck{{Action: create}},
			CommunicateChecks: []result.CommunicateCheck{{Info: "3", Met: false}, {Info: "Done", Met: true}},
			NLAssertions:      []result.NLAssertionCheck{{Assertion: "polite", Met: false, MetVotes: 1, Samples: 3, Reasoning: "curt"}},
		}}
	records := []domains.RecordDiff{{Path: "tasks/T-1/title", Kind: domains.DiffChanged, Expected: "Order catering", Actual: "Order food"}}
	want := SimulationReport{EvaluationID: "e1", Domain: "mock", Agent: "http://agent", SimulationID: "mock-02#0", TaskID: "mock-02",
		TerminationReason: result.TermUserStop,
		Turns: []Turn{
			{Role: TurnUser, Text: "Add a task"},
			{Role: TurnAgent, PrivateThought: "they want a task", ToolCalls: []ToolCallView{{ID: "c1", Name: "create_task",
				Arguments: map[string]any{"title": "Order food", "user_id": "u-1"}, Result: `{"task_id":"T-1"}`}}},
			{Role: TurnUser, Requestor: "user", ToolCalls: []ToolCallView{{ID: "u1", Name: "check_phone", Arguments: map[string]any{}, Result: "no signal", ResultError: true}}},
			{Role: TurnTool, Text: "orphan"},
			{Role: TurnAgent, Text: "Done."},
		},
		Checks: []Check{
			{Basis: domains.BasisDB, Subject: "final database equals the expected one",
				Why: "database differs from the expected state (hash bbbbbbbbbbbb, expected aaaaaaaaaaaa)", Records: records},
			{Basis: domains.BasisAction, Subject: `call create_task(title="Order catering", user_id="u-1")`,
				Expected: &domains.ToolCall{Name: "create_task", Arguments: create.Arguments},
				Calls: []ActualCall{{Arguments: map[string]any{"title": "Order food", "user_id": "u-1"},
					Differs: []ArgDiff{{Name: "title", Expected: "Order catering", Actual: "Order food"}}}},
				Why: "create_task was called 1 time(s), never with the expected arguments"},
			{Basis: domains.BasisCommunicate, Subject: `tell the user "3"`, Why: "no message of the agent contains it"},
			{Basis: domains.BasisCommunicate, Passed: true, Subject: `tell the user "Done"`},
			{Basis: domains.BasisNLAssertion, Subject: "polite", MetVotes: 1, Samples: 3, Reasoning: "curt",
				Why: "the judge found it met in 1 of 3 samples (a majority is needed)"},
		}}
	tests := []struct {
		name   string
		dbDiff DBDiffFunc
		want   func(SimulationReport) SimulationReport
	}{
		{"records", func(*result.Simulation) ([]domains.RecordDiff, bool, error) { return records, false, nil },
			func(r SimulationReport) SimulationReport { return r }},
		{"no domain", nil, func(r SimulationReport) SimulationReport {
			r.Checks = append([]Check{}, r.Checks...)
			r.Checks[0].Records, r.Checks[0].RecordsNote = nil, "the domain is not available here: records not compared"
			return r
		}},
		{"replay failed", func(*result.Simulation) ([]domains.RecordDiff, bool, error) { return nil, false, errors.New("boom") },
			func(r SimulationReport) SimulationReport {
				r.Checks = append([]Check{}, r.Checks...)
				r.Checks[0].Records, r.Checks[0].RecordsNote = nil, "records not compared: boom"
				return r
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewSimulationReport(eval, sim, tt.dbDiff)
			if diff := cmp.Diff(tt.want(want), got); diff != "" {
				t.Errorf("NewSimulationReport (-want +got):\n%s", diff)
			}
		})
	}
	var b strings.Builder
	if err := WriteSimulationReports(&b, Text, []SimulationReport{want}); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"reward 0.000 FAIL, ended user_stop",
		"  (private thought, not shown to the user) they want a task",
		`  -> create_task(title="Order food", user_id="u-1")`,
		`  -> user: check_phone()`,
		"     = error: no signal",
		"[tool] orphan",
		`       changed    tasks/T-1/title  expected "Order catering", actual "Order food"`,
		`         title: expected "Order catering", actual "Order food"`,
		"       judge: met in 1 of 3 samples",
		"  PASS COMMUNICATE   tell the user \"Done\"",
	} {
		if !strings.Contains(b.String(), line+"\n") {
			t.Errorf("text has no line %q:\n%s", line, b.String())
		}
	}
}
