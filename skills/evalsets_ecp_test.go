package skills_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/internal/agenttest/ecpcalc"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// calcAgentEnv makes the test binary the ECP calculator, its value the
// number of running steps before each tool call.
const calcAgentEnv = "PROCTOR_SKILLS_TEST_ECP_CALC"

func TestMain(m *testing.M) {
	if v, ok := os.LookupEnv(calcAgentEnv); ok {
		running, _ := strconv.Atoi(v)
		h := ecpcalc.New(ecpcalc.Options{Running: running})
		if err := ecp.Serve(context.Background(), os.Stdin, os.Stdout, h, 0); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// calcStdio is the ecp+stdio: target that runs this test binary as the
// ECP calculator.
func calcStdio(t *testing.T, running int) string {
	t.Helper()
	t.Setenv(calcAgentEnv, strconv.Itoa(running))
	return ecp.SchemeStdio + strconv.Quote(os.Args[0])
}

// calcWebSocket serves the ECP calculator on a loopback WebSocket.
func calcWebSocket(t *testing.T, factory func() ecp.Handler) string {
	t.Helper()
	srv := httptest.NewServer(ecp.WebSocketHandler(factory, 0))
	t.Cleanup(srv.Close)
	return "ecp+ws://" + strings.TrimPrefix(srv.URL, "http://") + "/"
}

// calcYAMLCases are YAML cases for the calculator: each expected call
// gives the result an ECP agent is answered with.
var calcYAMLCases = map[string]string{
	"add.yaml": `case: yaml-add
input:
  content: calc add 2 3
expected:
  tool_calls:
    - name: calculator
      args_contain: ['"operation":"add"']
      result: {result: 5}
  final_response:
    contains: "5"
`,
	"two-turns.yaml": `case: yaml-two-turns
input:
  - content: calc mul 6 7
    expected:
      tool_calls:
        - name: calculator
          args_contain: ['"a":6']
          result: {result: 42}
      final_response:
        contains: "42"
  - content: thanks
    expected:
      final_response:
        contains: only calculate
`,
	"wrong.yaml": `case: yaml-wrong
input:
  content: hello
expected:
  tool_calls:
    - name: calculator
  final_response:
    contains: result
`,
}

// writeFiles writes files into a fresh directory named dir.
func writeFiles(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), dir)
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(path, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// calcSets loads the calculator's tRPC set and YAML cases.
func calcSets(t *testing.T, yamlCases map[string]string) []*evalset.Set {
	t.Helper()
	paths := []string{writeFiles(t, "calc-app", map[string]string{
		"calc.evalset.json": agenttest.CalculatorEvalSet, "calc.metrics.json": agenttest.CalculatorMetrics})}
	if yamlCases != nil {
		paths = append(paths, writeFiles(t, "cases", yamlCases))
	}
	sets, err := evalset.Load(paths...)
	if err != nil {
		t.Fatal(err)
	}
	return sets
}

func evalSetService(t *testing.T) *skills.Service {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return &skills.Service{Store: db, ECP: skills.ECPSettings{AnyCommand: true}}
}

// playSets runs sets against agentURL, runs times a case, two at a time.
func playSets(t *testing.T, svc *skills.Service, req skills.EvalSetRequest, sets []*evalset.Set) *result.EvalSetRun {
	t.Helper()
	req.Concurrency = cmpOr(req.Concurrency, 2)
	req.RequestTimeout = result.Duration(30 * time.Second)
	job, err := svc.PrepareEvalSets(t.Context(), req, sets)
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	if err := job.Execute(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	run := job.Run()
	slices.SortFunc(run.Cases, func(a, b *result.CaseResult) int { return strings.Compare(a.ID, b.ID) })
	return run
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// sameRecording compares what was played and scored, not how: private
// thoughts are ECP's alone, sessions, timings and wire metrics differ.
var sameRecording = cmp.Options{
	cmpopts.IgnoreFields(result.CaseResult{}, "SessionID", "Turns", "Metrics", "NonConformant", "StartedAt", "DurationMS", "Requests"),
	cmpopts.IgnoreFields(evalset.Message{}, "ReasoningContent"),
	cmpopts.EquateEmpty(),
}

// TestEvalSetsOverECPSameAsA2A plays the calculator's tRPC set and YAML
// cases against the calculator over A2A and over ECP (stdio and
// WebSocket), twice per case: the same verdicts, scores and recorded
// invocations (tool calls with their results, final responses), while
// the ECP agent's private thoughts stay in their own fields.
func TestEvalSetsOverECPSameAsA2A(t *testing.T) {
	a2a := agenttest.StartCalculator(t, agenttest.CalculatorOptions{})
	svc := evalSetService(t)
	want := playSets(t, svc, skills.EvalSetRequest{AgentURL: a2a.URL, NumRuns: 2}, calcSets(t, calcYAMLCases))
	verdicts := map[string]result.EvalStatus{}
	for _, c := range want.Summary.Cases {
		verdicts[c.EvalID] = c.Status
	}
	wantVerdicts := map[string]result.EvalStatus{"add": result.EvalPassed, "sub": result.EvalFailed, "two-turns": result.EvalPassed,
		"hello": result.EvalFailed, "yaml-add": result.EvalPassed, "yaml-two-turns": result.EvalPassed, "yaml-wrong": result.EvalFailed}
	if diff := cmp.Diff(wantVerdicts, verdicts); diff != "" {
		t.Fatalf("A2A baseline verdicts (-want +got):\n%s", diff)
	}
	targets := map[string]string{
		"stdio":     calcStdio(t, 0),
		"websocket": calcWebSocket(t, ecpcalc.Factory(ecpcalc.Options{})),
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			got := playSets(t, svc, skills.EvalSetRequest{AgentURL: target, NumRuns: 2}, calcSets(t, calcYAMLCases))
			if diff := cmp.Diff(want.Summary, got.Summary); diff != "" {
				t.Errorf("summary over ECP differs from A2A (-a2a +ecp):\n%s", diff)
			}
			if diff := cmp.Diff(want.Cases, got.Cases, sameRecording); diff != "" {
				t.Errorf("case results over ECP differ from A2A (-a2a +ecp):\n%s", diff)
			}
			if got.Agent.Name != "calculator (ECP)" || !strings.HasPrefix(got.Agent.Transport, "ecp+") {
				t.Errorf("agent %+v: want the ECP calculator", got.Agent)
			}
			checkPrivateThoughts(t, got)
		})
	}
}

// checkPrivateThoughts checks that every played ECP case run kept the
// agent's thoughts in Turn.Thoughts and ReasoningContent, never in what
// the agent said, and counted the tokens the agent reported.
func checkPrivateThoughts(t *testing.T, run *result.EvalSetRun) {
	t.Helper()
	for _, c := range run.Cases {
		for k, inv := range c.Actual {
			if inv.FinalResponse == nil || strings.Contains(inv.FinalResponse.Content, ecpcalc.ThoughtMarker) ||
				!strings.HasPrefix(inv.FinalResponse.ReasoningContent, ecpcalc.ThoughtMarker) {
				t.Fatalf("%s invocation %d: final response %+v: want the thought in reasoning_content only", c.ID, k+1, inv.FinalResponse)
			}
			if th := c.Turns[k].Thoughts; len(th) == 0 || !strings.HasPrefix(th[0], ecpcalc.ThoughtMarker) {
				t.Errorf("%s turn %d: thoughts %q", c.ID, k+1, th)
			}
			if c.Turns[k].OutputTokens == 0 {
				t.Errorf("%s turn %d: no output tokens counted from the steps' usage", c.ID, k+1)
			}
		}
		if c.Metrics.TokensEstimated {
			t.Errorf("%s: tokens estimated, but the agent reported its usage", c.ID)
		}
	}
}

// inspectCases are YAML cases with inspect assertions on the calculator's
// state: "holds" passes every one, "fails" has one that fails and one
// whose path the agent does not know.
var inspectCases = map[string]string{
	"holds.yaml": `case: holds
input:
  content: calc add 2 3
expected:
  tool_calls: [{name: calculator, result: {result: 5}}]
  final_response:
    contains: "5"
inspect:
  - {path: turns, equals: 1}
  - {path: last, equals: {operation: add, result: 5.0}}
  - {path: last.operation, contains: ad}
  - {path: steps, matches: '^2$'}
`,
	"fails.yaml": `case: fails
input:
  content: calc add 2 3
expected:
  tool_calls: [{name: calculator, result: {result: 5}}]
inspect:
  - {path: turns, equals: 1}
  - {path: last.result, equals: 6}
  - {path: memory.long_term, contains: x}
`,
}

// TestEvalSetInspect checks inspect assertions over ECP: each is
// evaluated on what agent/inspect returned and reported as the case's
// ecp_inspect metric, with the value the agent returned when one fails;
// every case starts from a reset agent (turns is 1 in every run).
func TestEvalSetInspect(t *testing.T) {
	svc := evalSetService(t)
	sets, err := evalset.Load(writeFiles(t, "inspect", inspectCases))
	if err != nil {
		t.Fatal(err)
	}
	run := playSets(t, svc, skills.EvalSetRequest{AgentURL: calcStdio(t, 0), NumRuns: 2, Concurrency: 1}, sets)
	if len(run.Cases) != 4 {
		t.Fatalf("%d case runs, want 4", len(run.Cases))
	}
	for _, c := range run.Cases {
		m := inspectMetric(c)
		if m == nil {
			t.Fatalf("%s: no %s metric in %+v", c.ID, result.MetricECPInspect, c.OverallEvalMetricResults)
		}
		switch c.EvalID {
		case "holds":
			if c.FinalEvalStatus != result.EvalPassed || m.Score != 1 || m.EvalStatus != result.EvalPassed {
				t.Errorf("%s: status %s, inspect %+v %+v: want passed", c.ID, c.FinalEvalStatus, m, m.Details)
			}
		case "fails":
			reason := m.Details.Reason
			if c.FinalEvalStatus != result.EvalFailed || m.EvalStatus != result.EvalFailed || m.Score != 1.0/3 ||
				!strings.Contains(reason, "last.result equals 6: got 5") || !strings.Contains(reason, `memory.long_term contains "x": agent/inspect: rpc_error: JSON-RPC error -32602: no state at "memory.long_term"`) {
				t.Errorf("%s: status %s, inspect score %v, reason %q", c.ID, c.FinalEvalStatus, m.Score, reason)
			}
		}
		if len(c.Inspections) == 0 || c.Inspections[0].Path != "turns" || string(c.Inspections[0].Value) != "1" {
			t.Errorf("%s: inspections %+v: want turns 1 first (a reset agent)", c.ID, c.Inspections)
		}
	}
}

func inspectMetric(c *result.CaseResult) *result.MetricResult {
	for _, m := range c.OverallEvalMetricResults {
		if m.MetricName == result.MetricECPInspect {
			return m
		}
	}
	return nil
}

// TestEvalSetInspectNeedsECP: inspect assertions, and an ECP config, are
// refused against an A2A agent before anything is played, a case's A2A
// transport against an ECP agent, and a command the service's operator
// did not allow-list.
func TestEvalSetInspectNeedsECP(t *testing.T) {
	svc := evalSetService(t)
	sets, err := evalset.Load(writeFiles(t, "inspect", inspectCases))
	if err != nil {
		t.Fatal(err)
	}
	transport, err := evalset.Load(writeFiles(t, "transport", map[string]string{"t.yaml": "case: t\ntransport: grpc\ninput: {content: hi}\n"}))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  skills.EvalSetRequest
		sets []*evalset.Set
		want string
	}{
		{"inspect over A2A", skills.EvalSetRequest{AgentURL: "http://127.0.0.1:1"}, sets, "needs an ECP agent"},
		{"ecp_config over A2A", skills.EvalSetRequest{AgentURL: "http://127.0.0.1:1", ECPConfig: map[string]any{}}, transport, "ecp_config is for ECP agents"},
		{"transport over ECP", skills.EvalSetRequest{AgentURL: "ecp+stdio:true"}, transport, "transport grpc is an A2A binding"},
		{"not a URL", skills.EvalSetRequest{AgentURL: "ftp://x"}, transport, "ecp+stdio:COMMAND"},
		{"command not allow-listed", skills.EvalSetRequest{AgentURL: "ecp+stdio:python3 agent.py"}, sets, `launches no command "python3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := svc
			if strings.Contains(tt.name, "allow-listed") {
				svc = &skills.Service{Store: svc.Store, ECP: skills.ECPSettings{Commands: []string{"node"}}}
			}
			_, err := svc.PrepareEvalSets(t.Context(), tt.req, tt.sets)
			var inv *skills.InvalidRequestError
			if !errors.As(err, &inv) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v: want an invalid request saying %q", err, tt.want)
			}
		})
	}
}

// TestEvalSetECPSteps checks how proctor steps an ECP agent through a
// case: "running" steps go on with empty input up to the case's max_steps;
// a call the case gives no result for is answered with a tool error; an
// agent whose reset fails fails every case with the reason recorded.
func TestEvalSetECPSteps(t *testing.T) {
	svc := evalSetService(t)
	cases := map[string]string{
		"roomy.yaml":   "case: roomy\nmax_steps: 3\ninput: {content: calc add 2 3}\nexpected:\n  tool_calls: [{name: calculator, result: {result: 5}}]\n  final_response: {equals: The result is 5.}\n",
		"tight.yaml":   "case: tight\nmax_steps: 1\ninput: {content: calc add 2 3}\nexpected:\n  final_response: {contains: \"5\"}\n",
		"no-mock.yaml": "case: no-mock\ninput: {content: calc sub 7 4}\nexpected:\n  tool_calls: [{name: calculator}]\n  final_response: {equals: The calculator failed.}\n",
	}
	sets, err := evalset.Load(writeFiles(t, "steps", cases))
	if err != nil {
		t.Fatal(err)
	}
	run := playSets(t, svc, skills.EvalSetRequest{AgentURL: calcStdio(t, 2)}, sets)
	got := map[string]string{}
	for _, c := range run.Cases {
		got[c.EvalID] = string(c.FinalEvalStatus) + " " + c.ErrorMessage
	}
	want := map[string]string{
		"roomy":   "passed ",
		"tight":   `failed invocation 1: agent: ecp: the agent answered "running" 1 times in a row (--max-steps)`,
		"no-mock": "passed ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("case outcomes (-want +got):\n%s", diff)
	}
	for _, c := range run.Cases {
		if c.EvalID != "no-mock" {
			continue
		}
		tool := c.Actual[0].Tools[0]
		if s, _ := tool.Result.(string); !strings.Contains(s, "no mock result is defined for calculator") {
			t.Errorf("no-mock tool result %v: want proctor's error", tool.Result)
		}
	}

	refusing := calcWebSocket(t, func() ecp.Handler { return resetFails{ecpcalc.New(ecpcalc.Options{})} })
	run = playSets(t, svc, skills.EvalSetRequest{AgentURL: refusing}, sets)
	for _, c := range run.Cases {
		if c.FinalEvalStatus != result.EvalFailed || !strings.Contains(c.ErrorMessage, "agent/reset") {
			t.Errorf("%s: %s %q: want failed with the reset's error", c.ID, c.FinalEvalStatus, c.ErrorMessage)
		}
	}
}

// resetFails is an ECP agent whose agent/reset always fails.
type resetFails struct{ ecp.Handler }

func (resetFails) Reset(context.Context) error { return errors.New("cannot forget") }

// TestEvalSetECPThoughtsNeverReachTheJudge scores the ECP calculator's
// answers with an LLM judge on a fake provider: the judge sees the
// public answers, never a private thought, and the stored final responses
// hold none either.
func TestEvalSetECPThoughtsNeverReachTheJudge(t *testing.T) {
	srv := llmtest.NewOpenAI(t, func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "reasoning: fine.\nis_the_agent_response_valid: valid", InputTokens: 10, OutputTokens: 5}
	})
	svc := evalSetService(t)
	svc.Models = &llm.Source{Config: llm.Config{APIKey: "test-key", BaseURL: srv.URL, MaxRetries: -1}}
	sets := calcSets(t, nil)
	sets[0].Metrics = []*evalset.Metric{{Name: evalset.MetricLLMFinalResponse, Threshold: 0.5, Criterion: &evalset.Criterion{
		LLMJudge: &evalset.LLMCriterion{JudgeModel: &evalset.JudgeModel{ProviderName: "openai", ModelName: "judge"}}}}}
	run := playSets(t, svc, skills.EvalSetRequest{AgentURL: calcStdio(t, 1)}, sets)
	if run.Summary.Passed != 4 {
		t.Errorf("%d of 4 cases passed: %+v", run.Summary.Passed, run.Summary)
	}
	checkPrivateThoughts(t, run)
	reqs := srv.Requests()
	if len(reqs) < 4 {
		t.Fatalf("the judge got %d requests, want one per invocation", len(reqs))
	}
	sawAnswer := false
	for i, r := range reqs {
		if strings.Contains(string(r.Raw), ecpcalc.ThoughtMarker) {
			t.Errorf("judge request %d carries a private thought: %s", i, r.Raw)
		}
		sawAnswer = sawAnswer || strings.Contains(string(r.Raw), "The result is 5.")
	}
	if !sawAnswer {
		t.Error("no judge request carried the agent's public answer")
	}
}
