package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
)

// xss is hostile text put in agent names, messages and tool results: every
// page must show it as text.
const xss = `<script>alert("pwned")</script><img src=x onerror=alert(1)>`

// Fixture values the tests look for on the pages.
const (
	fixtureAgentName = "Hostile " + xss
	betterAgentName  = "Better agent"
	failingTask      = "task-fail"
	failingSim       = failingTask + "#1"
	passingSim       = "task-pass#0"
	expectedFlight   = "HAT001"
	actualFlight     = "HAT999"
	missingInfo      = "refund of 42 dollars"
	judgeReasoning   = "The agent never confirmed the cancellation with the user."
	caseQuestion     = "What is 10 divided by 4?"
	caseWant         = "2.5"
	caseGot          = "3.33 " + xss
)

// openStore returns a writable store in a temporary directory.
func openStore(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "results.db"), store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// fixtureEval returns a completed evaluation with two tasks over trials
// trials: task-pass passes always; task-fail fails on every trial but the
// first, with every kind of failing check, tool calls (one by the user)
// and a private thought. turns sets the conversation's length.
func fixtureEval(id string, trials, turns int) *result.Evaluation {
	eval := &result.Evaluation{
		ID: id, Status: result.StatusCompleted, Domain: "airline",
		Agent:     result.AgentInfo{URL: "http://127.0.0.1:9/agent?x=" + xss, Name: fixtureAgentName, Transport: "JSONRPC", ProtocolVersion: "1.0"},
		Config:    result.Config{Domain: "airline", Agent: "http://127.0.0.1:9/agent", Profile: "agentbeats", User: "llm", UserModel: "openai:gpt-4.1", JudgeModel: "openai:gpt-4.1", NumTrials: trials, MaxSteps: 100, MaxErrors: 10},
		CreatedAt: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC),
	}
	for trial := range trials {
		eval.Simulations = append(eval.Simulations, passingSimulation(trial), failingSimulation(trial, turns))
	}
	eval.Summary = scoring.Summarize(eval.Simulations, nil)
	eval.Metrics = result.MergeMetrics(eval.Simulations, RequestLatencies(eval.Simulations))
	return eval
}

func passingSimulation(trial int) result.Simulation {
	s := result.Simulation{
		ID: result.SimulationID("task-pass", trial), TaskID: "task-pass", Trial: trial, Reward: 1, TerminationReason: result.TermUserStop,
		RewardInfo: result.RewardInfo{Reward: 1, RewardBasis: []domains.Basis{domains.BasisDB}, RewardBreakdown: map[domains.Basis]float64{domains.BasisDB: 1},
			DBCheck: &result.DBCheck{DBMatch: true, DBReward: 1, ExpectedHash: "aaa", ActualHash: "aaa"}},
		Messages: []result.Message{{Role: result.RoleUser, Content: "hello", Turn: 0}, {Role: result.RoleAssistant, Content: "done", Turn: 1}},
	}
	s.Requests = requests(trial, 3)
	s.Metrics = result.AggregateRequests(s.Requests)
	return s
}

// failingSimulation fails every check on trials after the first; the
// first passes, so that pass@k exceeds pass^k.
func failingSimulation(trial, turns int) result.Simulation {
	s := result.Simulation{
		ID: result.SimulationID(failingTask, trial), TaskID: failingTask, Trial: trial, TerminationReason: result.TermUserStop,
		StartedAt: time.Date(2026, 11, 24, 10, 0, trial, 0, time.UTC), DurationMS: 1234,
		Messages: conversation(turns),
	}
	if trial == 0 {
		s.Reward = 1
		s.RewardInfo = result.RewardInfo{Reward: 1, RewardBasis: []domains.Basis{domains.BasisDB}, RewardBreakdown: map[domains.Basis]float64{domains.BasisDB: 1},
			DBCheck: &result.DBCheck{DBMatch: true, DBReward: 1}}
	} else {
		s.RewardInfo = failingInfo()
	}
	s.Requests = requests(trial, turns)
	s.Metrics = result.AggregateRequests(s.Requests)
	s.LLMCalls = []llm.Call{{Role: "user", Model: "gpt-4.1", InputTokens: 1000, OutputTokens: 50, CostUSD: 0.0024, Priced: true},
		{Role: "judge", Model: "gpt-4.1", InputTokens: 2000, OutputTokens: 80, CostUSD: 0.0046, Priced: true}}
	s.Metrics.LLMUsage = map[string]llm.Usage{"user": {Calls: 1, InputTokens: 1000, OutputTokens: 50, CostUSD: 0.0024},
		"judge": {Calls: 1, InputTokens: 2000, OutputTokens: 80, CostUSD: 0.0046}}
	return s
}

func failingInfo() result.RewardInfo {
	return result.RewardInfo{
		RewardBasis:     []domains.Basis{domains.BasisDB, domains.BasisAction, domains.BasisCommunicate, domains.BasisNLAssertion},
		RewardBreakdown: map[domains.Basis]float64{domains.BasisDB: 0, domains.BasisAction: 0, domains.BasisCommunicate: 0, domains.BasisNLAssertion: 0},
		DBCheck:         &result.DBCheck{DBMatch: false, ExpectedHash: "expectedhash0123", ActualHash: "actualhash4567"},
		ActionChecks: []result.ActionCheck{
			{Action: domains.Action{Name: "book_flight", Arguments: map[string]any{"flight": expectedFlight, "seats": 2.0}}, ActionMatch: false},
			{Action: domains.Action{Name: "get_user", Arguments: map[string]any{"user_id": "u1"}}, ActionMatch: true, ActionReward: 1},
		},
		CommunicateChecks: []result.CommunicateCheck{{Info: missingInfo, Met: false}},
		NLAssertions:      []result.NLAssertionCheck{{Assertion: "The agent confirms " + xss, Met: false, Reasoning: judgeReasoning, MetVotes: 1, Samples: 3}},
	}
}

// conversation is turns exchanges: the user asks, the agent calls a tool,
// says it is on it (interim) and answers; the user calls a tool of their
// own; and the agent's calls come with a private thought.
func conversation(turns int) []result.Message {
	msgs := []result.Message{{Role: result.RoleUser, Content: "I want to book " + xss, Turn: 0}}
	for i := range turns {
		id := fmt.Sprintf("call-%d", i)
		args := map[string]any{"flight": actualFlight, "seats": 2.0}
		msgs = append(msgs,
			result.Message{Role: result.RoleAssistant, Turn: 2*i + 1, PrivateThought: "private: the user seems unsure",
				ToolCalls: []domains.ToolCall{{ID: id, Name: "book_flight", Arguments: args}}},
			result.Message{Role: result.RoleTool, ToolCallID: id, Name: "book_flight", Content: `{"status":"booked","note":"` + xss + `"}`, Turn: 2*i + 1},
			result.Message{Role: result.RoleAssistant, Content: "Booking it now...", Interim: true, Turn: 2*i + 1},
			result.Message{Role: result.RoleAssistant, Content: fmt.Sprintf("Booked (turn %d).", i), Turn: 2*i + 1},
			result.Message{Role: result.RoleUser, Content: "Thanks, one more thing.", Turn: 2*i + 2,
				Requestor: "user", ToolCalls: []domains.ToolCall{{ID: id + "u", Name: "toggle_airplane_mode", Arguments: map[string]any{}, Requestor: "user"}}},
			result.Message{Role: result.RoleTool, ToolCallID: id + "u", Name: "toggle_airplane_mode", Content: "airplane mode off", Requestor: "user", Turn: 2*i + 2},
		)
	}
	return msgs
}

// requests returns n request metrics with latencies spread over buckets.
func requests(seed, n int) []a2aclient.RequestMetrics {
	out := make([]a2aclient.RequestMetrics, n)
	for i := range out {
		out[i] = a2aclient.RequestMetrics{Method: "SendMessage", LatencyMS: float64(1+(seed*7+i*13)%400) * 1.7, HTTPStatus: 200, InputTokens: 100, OutputTokens: 20}
	}
	if n > 2 {
		out[n-1].HTTPStatus = 503
	}
	return out
}

// putEval stores eval as the evaluation runner does: the record without
// simulations, then each simulation with its request metrics.
func putEval(tb testing.TB, db *store.DB, eval *result.Evaluation) {
	tb.Helper()
	ctx := context.Background()
	head := *eval
	head.Simulations = nil
	data, err := json.Marshal(head)
	if err != nil {
		tb.Fatal(err)
	}
	err = db.PutEvaluation(ctx, store.Evaluation{ID: eval.ID, Domain: eval.Domain, AgentURL: eval.Agent.URL, Status: string(eval.Status),
		CreatedAt: eval.CreatedAt, Data: data})
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range eval.Simulations {
		data, err := json.Marshal(s)
		if err != nil {
			tb.Fatal(err)
		}
		reqs, err := json.Marshal(s.Requests)
		if err != nil {
			tb.Fatal(err)
		}
		if err := db.PutSimulation(ctx, eval.ID, store.Simulation{ID: s.ID, TaskID: s.TaskID, Trial: s.Trial, Reward: s.Reward, Data: data, Requests: reqs}); err != nil {
			tb.Fatal(err)
		}
	}
}

// fixtureConformance returns a report with one failing MUST check.
func fixtureConformance(id string) *conformance.Report {
	fail := conformance.Result{
		Requirement: conformance.Requirement{ID: "card-well-known", Category: conformance.CategoryCard, Level: conformance.Must,
			Title: "The agent card is served at the well-known path", Spec: "A2A 1.0 §5.3", Remediation: "Serve the card at /.well-known/agent-card.json"},
		Transports: []string{"HTTP"}, Status: conformance.Fail, Message: "GET /.well-known/agent-card.json answered 404",
		Expected: "HTTP 200", Received: "HTTP 404",
		Exchanges: []conformance.Exchange{{Transport: "HTTP", Request: "GET /.well-known/agent-card.json", Status: "HTTP 404", Response: "not found " + xss}},
	}
	pass := conformance.Result{Requirement: conformance.Requirement{ID: "lifecycle-send", Category: conformance.CategoryLifecycle, Level: conformance.Must, Title: "SendMessage answers"},
		Transports: []string{"JSONRPC 1.0"}, Status: conformance.Pass, Message: "ok"}
	return &conformance.Report{ID: id, AgentURL: "http://127.0.0.1:9", AgentName: xss, StartedAt: time.Date(2026, 11, 24, 11, 0, 0, 0, time.UTC),
		Level: conformance.LevelNonConformant, LevelRule: conformance.LevelRule,
		Summary:    conformance.Summary{Total: 2, Passed: 1, Failed: 1, MustFailed: 1},
		Categories: map[conformance.Category]conformance.CategorySummary{conformance.CategoryCard: {Failed: 1}, conformance.CategoryLifecycle: {Passed: 1}},
		Results:    []conformance.Result{fail, pass}, Requests: 7}
}

func putConformance(tb testing.TB, db *store.DB, rep *conformance.Report) {
	tb.Helper()
	data, err := json.Marshal(rep)
	if err != nil {
		tb.Fatal(err)
	}
	if err := db.PutConformance(context.Background(), store.ConformanceRun{ID: rep.ID, AgentURL: rep.AgentURL, Level: string(rep.Level), CreatedAt: rep.StartedAt, Data: data}); err != nil {
		tb.Fatal(err)
	}
}

// fixtureEvalSetRun returns a completed eval-set run with one passing and
// one failing case.
func fixtureEvalSetRun(id string) (*result.EvalSetRun, []*result.CaseResult) {
	failMetric := &result.MetricResult{MetricName: "response_match_score", Score: 0.2, Threshold: 0.8, EvalStatus: result.EvalFailed,
		Details: &result.MetricDetails{Reason: "response differs: " + xss}}
	passMetric := &result.MetricResult{MetricName: "response_match_score", Score: 1, Threshold: 0.8, EvalStatus: result.EvalPassed}
	cases := []*result.CaseResult{
		{ID: "math/add#1", EvalSetID: "math", EvalID: "add", RunID: 1, FinalEvalStatus: result.EvalPassed, OverallEvalMetricResults: []*result.MetricResult{passMetric}},
		{ID: "math/divide#1", EvalSetID: "math", EvalID: "divide", RunID: 1, FinalEvalStatus: result.EvalFailed, OverallEvalMetricResults: []*result.MetricResult{failMetric},
			EvalMetricResultPerInvocation: []*result.InvocationResult{{
				ExpectedInvocation: &evalset.Invocation{UserContent: &evalset.Message{Role: "user", Content: caseQuestion},
					Tools:         []*evalset.Tool{{Name: "divide", Arguments: map[string]any{"a": 10.0, "b": 4.0}}},
					FinalResponse: &evalset.Message{Role: "model", Content: caseWant}},
				ActualInvocation: &evalset.Invocation{UserContent: &evalset.Message{Role: "user", Content: caseQuestion},
					Tools:         []*evalset.Tool{{Name: "divide", Arguments: map[string]any{"a": 10.0, "b": 3.0}}},
					FinalResponse: &evalset.Message{Role: "model", Content: caseGot}},
				EvalMetricResults: []*result.MetricResult{failMetric},
			}},
			Turns: []result.Turn{{Thoughts: []string{"private: divide, then round"}}}},
	}
	run := &result.EvalSetRun{
		ID: id, Status: result.StatusCompleted, Agent: result.AgentInfo{URL: "http://127.0.0.1:9", Name: xss},
		Config:    result.EvalSetConfig{Agent: "http://127.0.0.1:9", NumRuns: 1},
		Sets:      []result.EvalSetInfo{{ID: "math", NumCases: 2}},
		CreatedAt: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC),
		Summary: result.EvalSetSummary{NumSets: 1, NumCases: 2, NumRuns: 1, Passed: 1, Failed: 1,
			Cases: []result.CaseSummary{
				{EvalSetID: "math", EvalID: "add", Status: result.EvalPassed, Metrics: []*result.MetricResult{passMetric}, Runs: 1, Passed: 1},
				{EvalSetID: "math", EvalID: "divide", Status: result.EvalFailed, Metrics: []*result.MetricResult{failMetric}, Runs: 1},
			},
			MetricAverages: map[string]float64{"response_match_score": 0.6}},
	}
	return run, cases
}

func putEvalSetRun(tb testing.TB, db *store.DB, run *result.EvalSetRun, cases []*result.CaseResult) {
	tb.Helper()
	ctx := context.Background()
	data, err := json.Marshal(run)
	if err != nil {
		tb.Fatal(err)
	}
	if err := db.PutEvaluation(ctx, store.Evaluation{ID: run.ID, Kind: store.KindEvalSets, AgentURL: run.Agent.URL, Status: string(run.Status), CreatedAt: run.CreatedAt, Data: data}); err != nil {
		tb.Fatal(err)
	}
	for _, c := range cases {
		data, err := json.Marshal(c)
		if err != nil {
			tb.Fatal(err)
		}
		if err := db.PutSimulation(ctx, run.ID, store.Simulation{ID: c.ID, TaskID: c.EvalSetID + "/" + c.EvalID, Data: data}); err != nil {
			tb.Fatal(err)
		}
	}
}

// mockDBTask is the mock domain's task the DB-check fixture fails: the
// agent never created the task it asks for.
const mockDBTask = "mock-02"

// fixtureMockEval returns a completed mock-domain evaluation whose one
// simulation of mockDBTask failed its DB check: the agent said it was done
// and called no tool.
func fixtureMockEval(id string) *result.Evaluation {
	sim := result.Simulation{ID: result.SimulationID(mockDBTask, 0), TaskID: mockDBTask, TerminationReason: result.TermUserStop,
		ContextID: "ctx-" + id,
		Messages: []result.Message{{Role: result.RoleUser, Content: "Please create a task: order catering.", Turn: 0},
			{Role: result.RoleAssistant, Content: "Done!", Turn: 1}},
		RewardInfo: result.RewardInfo{RewardBasis: []domains.Basis{domains.BasisDB}, RewardBreakdown: map[domains.Basis]float64{domains.BasisDB: 0},
			DBCheck: &result.DBCheck{DBMatch: false, ExpectedHash: "mockexpected", ActualHash: "mockactual"}}}
	eval := &result.Evaluation{ID: id, Status: result.StatusCompleted, Domain: "mock", Agent: result.AgentInfo{URL: "http://127.0.0.1:9/mock"},
		Config: result.Config{Domain: "mock", NumTrials: 1}, CreatedAt: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC),
		Simulations: []result.Simulation{sim}}
	eval.Summary = scoring.Summarize(eval.Simulations, nil)
	return eval
}

// mockDiffer is Options.DBDiff over the real mock domain, as proctor view
// passes it over its catalog.
func mockDiffer(tb testing.TB) func(*result.Evaluation) report.DBDiffFunc {
	tb.Helper()
	d, err := mock.New()
	if err != nil {
		tb.Fatal(err)
	}
	return func(eval *result.Evaluation) report.DBDiffFunc {
		if eval.Domain != "mock" {
			return nil
		}
		return func(sim *result.Simulation) ([]domains.RecordDiff, bool, error) {
			task, ok := d.Task(sim.TaskID)
			if !ok {
				return nil, false, fmt.Errorf("mock has no task %s", sim.TaskID)
			}
			return scoring.DBDiff(d, task, sim.Messages, 50)
		}
	}
}

// mockTasks is Options.Task over the real mock domain, as proctor view
// passes it over its catalog; other domains are not available.
func mockTasks(tb testing.TB) func(*result.Evaluation, string) (*domains.Task, error) {
	tb.Helper()
	d, err := mock.New()
	if err != nil {
		tb.Fatal(err)
	}
	return func(eval *result.Evaluation, taskID string) (*domains.Task, error) {
		if eval.Domain != "mock" {
			return nil, fmt.Errorf("domain %s is not available here", eval.Domain)
		}
		task, ok := d.Task(taskID)
		if !ok {
			return nil, fmt.Errorf("mock has no task %s", taskID)
		}
		return task, nil
	}
}
