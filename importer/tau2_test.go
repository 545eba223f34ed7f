package importer

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
)

// sampleEvaluation is an evaluation of tasks x trials whose simulations
// have the fields proctor's tau2 export carries: reward checks of every
// kind, the agent's and the user's tool calls, an error, a context.
func sampleEvaluation(tasks, trials int) *result.Evaluation {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	eval := &result.Evaluation{ID: "ev1", Status: result.StatusCompleted, Domain: "tau2-mock",
		Agent:     result.AgentInfo{URL: "http://127.0.0.1:9019", Name: "Helper"},
		Config:    result.Config{User: "scripted", NumTrials: trials, MaxSteps: 30, MaxErrors: 5},
		CreatedAt: start}
	for task := range tasks {
		id := fmt.Sprintf("t%03d", task)
		eval.Config.TaskIDs = append(eval.Config.TaskIDs, id)
		for trial := range trials {
			eval.Simulations = append(eval.Simulations, sampleSimulation(id, trial, (task*7+trial*3)%4 != 0, start))
		}
	}
	eval.Config.NumTasks = tasks
	eval.Summary = scoring.Summarize(eval.Simulations, eval.Config.TaskIDs)
	return eval
}

func sampleSimulation(task string, trial int, passed bool, start time.Time) result.Simulation {
	reward := 0.0
	if passed {
		reward = 1
	}
	s := result.Simulation{ID: result.SimulationID(task, trial), TaskID: task, Trial: trial, Reward: reward,
		TerminationReason: result.TermUserStop, StartedAt: start.Add(time.Duration(trial) * time.Minute), DurationMS: 1500, ContextID: "ctx-" + task,
		Metrics: result.Metrics{Requests: 3, StatusCodes: map[string]int{"200": 3}, InputTokens: 40},
		RewardInfo: result.RewardInfo{Reward: reward, RewardBasis: []domains.Basis{"DB", "COMMUNICATE", "NL_ASSERTION"},
			RewardBreakdown:   map[domains.Basis]float64{"DB": reward, "COMMUNICATE": 1, "NL_ASSERTION": 1},
			DBCheck:           &result.DBCheck{DBMatch: passed, DBReward: reward, ExpectedHash: "gold", ActualHash: "got"},
			CommunicateChecks: []result.CommunicateCheck{{Info: "42", Met: true}},
			NLAssertions:      []result.NLAssertionCheck{{Assertion: "polite", Met: true, Reasoning: "it was"}},
			ActionChecks: []result.ActionCheck{{Action: domains.Action{ActionID: "a1", Requestor: "assistant", Name: "lookup",
				Arguments: map[string]any{"id": "7"}}, ActionMatch: passed, ActionReward: reward}},
			EnvAssertions: []result.EnvAssertionCheck{{EnvType: "user", FuncName: "is_on", Arguments: map[string]any{}, Expected: true, Met: true}},
			Note:          "a note", DoNothingPasses: task == "t000", AddedByStrict: []domains.Basis{"ACTION"},
			PolicyViolations: []result.PolicyViolation{{Tool: "delete", CallID: "c9", Turn: 4}}},
		Messages: []result.Message{
			{Role: result.RoleUser, Content: "hi", Turn: 0},
			{Role: result.RoleAssistant, ToolCalls: []domains.ToolCall{{ID: "c1", Name: "lookup", Arguments: map[string]any{"id": "7"}}}, Turn: 1},
			{Role: result.RoleTool, Content: `{"n":42}`, ToolCallID: "c1", Name: "lookup", Turn: 2},
			{Role: result.RoleUser, ToolCalls: []domains.ToolCall{{ID: "u1", Name: "toggle", Arguments: map[string]any{}, Requestor: "user"}}, Turn: 3},
			{Role: result.RoleTool, Content: "no such tool", ToolCallID: "u1", Name: "toggle", Requestor: "user", Error: true, Turn: 4},
			{Role: result.RoleAssistant, Content: "It is 42.", Turn: 5},
		}}
	if !passed {
		s.TerminationReason, s.Error = result.TermSafetyViolation, "refused"
		s.NonConformant = []string{"no final status"}
	}
	return s
}

func exportTau2(t testing.TB, eval *result.Evaluation) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := report.WriteTau2(&buf, eval, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestTau2RoundTrip exports an evaluation as tau2's results.json, imports
// it, and finds the same simulations, and the same file when the import
// is exported again.
func TestTau2RoundTrip(t *testing.T) {
	orig := sampleEvaluation(3, 2)
	exported := exportTau2(t, orig)
	got, err := ReadTau2(exported, nil, Options{Source: "results.json"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(orig.Simulations, got.Simulations); diff != "" {
		t.Errorf("imported simulations (-exported +imported):\n%s", diff)
	}
	if diff := cmp.Diff(orig.Summary, got.Summary); diff != "" {
		t.Errorf("imported summary (-exported +imported):\n%s", diff)
	}
	head := []any{got.Domain, got.Agent.Address(), got.Origin(), got.ImportedFrom, got.Config.NumTrials, got.Config.MaxSteps, got.Config.TaskIDs}
	want := []any{"tau2-mock", "tau2-bench:Helper", result.OriginImport, "tau2: results.json", 2, 30, orig.Config.TaskIDs}
	if diff := cmp.Diff(want, head); diff != "" {
		t.Errorf("imported evaluation (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(string(exported), string(exportTau2(t, got))); diff != "" {
		t.Errorf("export of the import (-first export +second):\n%s", diff)
	}
}

// TestTau2DirectoryLayout: tau2's directory layout keeps the simulations
// in files of their own; a trial that is null is numbered in order.
func TestTau2DirectoryLayout(t *testing.T) {
	meta := `{"timestamp": "2026-06-30T11:17:32.561540", "info": {"num_trials": 2, "agent_info": {"implementation": "llm_agent", "llm": "gpt-4.1"},
		"user_info": {"implementation": "user_simulator", "llm": "gpt-4.1"}, "environment_info": {"domain_name": "airline"}}, "tasks": [{"id": "5"}]}`
	sim := `{"id": "%s", "task_id": "5", "trial": null, "start_time": "2026-06-30T11:17:32.561540", "duration": 2.5,
		"termination_reason": "user_stop", "reward_info": {"reward": %d, "reward_basis": ["DB"]}, "messages": [{"role": "user", "content": "hi", "turn_idx": 0}]}`
	got, err := ReadTau2([]byte(meta), [][]byte{[]byte(fmt.Sprintf(sim, "uuid-1", 1)), []byte(fmt.Sprintf(sim, "uuid-2", 0))}, Options{Agent: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID     string
		Reward float64
		Start  time.Time
	}
	var rows []row
	for _, s := range got.Simulations {
		rows = append(rows, row{s.ID, s.Reward, s.StartedAt})
	}
	at := time.Date(2026, 6, 30, 11, 17, 32, 561540000, time.UTC)
	want := []row{{"5#0", 1, at}, {"5#1", 0, at}}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("simulations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"airline", "tau2-bench:mine", "gpt-4.1", at}, []any{got.Domain, got.Agent.Address(), got.Config.UserModel, got.CreatedAt}); diff != "" {
		t.Errorf("evaluation (-want +got):\n%s", diff)
	}
}

// TestImportThousandSimulations imports a tau2 results.json of 1,000
// simulations (200 tasks x 5 trials) and renders its summary with the
// noise floor, in under 2 s (checked without the race detector), and
// logs the time beside that of exporting the same evaluation.
func TestImportThousandSimulations(t *testing.T) {
	orig := sampleEvaluation(200, 5)
	began := time.Now()
	data := exportTau2(t, orig)
	exportTook := time.Since(began)
	began = time.Now()
	got, err := ReadTau2(data, nil, Options{Source: "results.json"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.Write(&out, report.Table, got); err != nil {
		t.Fatal(err)
	}
	importTook := time.Since(began)
	t.Logf("1,000 simulations (%d bytes): export %v, import with reliability report %v", len(data), exportTook, importTook)
	if got.Summary.NumSimulations != 1000 || got.Summary.Reliability == nil {
		t.Fatalf("imported %d simulations, reliability %v", got.Summary.NumSimulations, got.Summary.Reliability)
	}
	if !raceEnabled && importTook > 2*time.Second {
		t.Errorf("import of 1,000 simulations took %v, want under 2 s", importTook)
	}
}
