package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/server"
)

// jsonValue decodes JSON text into plain values, as a data part holds them.
func jsonValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// decodeRun reads the eval-set run in a data part.
func decodeRun(t *testing.T, parts []*a2a.Part) result.EvalSetRun {
	t.Helper()
	b, err := json.Marshal(data(t, parts))
	if err != nil {
		t.Fatal(err)
	}
	var run result.EvalSetRun
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	return run
}

// run0ID is the run id in a Result artifact's JSON, which its Markdown
// summary names too.
func run0ID(art *a2a.Artifact) string {
	for _, p := range art.Parts {
		if d, ok := p.Data().(map[string]any); ok {
			if id, ok := d["id"].(string); ok && id != "" {
				return id
			}
		}
	}
	return "no run id in the artifact's JSON"
}

// verdicts are a run's case runs' verdicts by case, in run order.
func verdicts(run result.EvalSetRun) map[string][]result.EvalStatus {
	out := map[string][]result.EvalStatus{}
	for _, c := range run.Cases {
		out[c.EvalID] = append(out[c.EvalID], c.FinalEvalStatus)
	}
	return out
}

// TestRunEvalSet plays a tRPC-Agent-Go set and YAML cases against a real
// A2A agent that reports its tool calls on the wire, over JSON-RPC and
// REST: a working task, progress, the Result artifact with every case
// run's verdict, then completed; get_results answers the run's id with the
// same run.
func TestRunEvalSet(t *testing.T) {
	agent := agenttest.StartCalculator(t, agenttest.CalculatorOptions{})
	f := start(t, server.Config{})
	yamlAdd := "case: add\ninput:\n  content: calc add 2 3\nexpected:\n  tool_calls:\n    - name: calculator\n      args_contain: [add]\n  final_response:\n    contains: \"5\"\n"
	yamlHello := "case: hello\ninput:\n  content: hello\nexpected:\n  tool_calls:\n    - name: calculator\n"
	cases := []struct {
		name      string
		transport sdkclient.FactoryOption
		params    map[string]any
		want      map[string][]result.EvalStatus
	}{
		{"trpc over jsonrpc", sdkclient.WithJSONRPCTransport(nil),
			map[string]any{"agent_url": agent.URL, "num_runs": 2, "eval_set": jsonValue(t, agenttest.CalculatorEvalSet), "metrics": jsonValue(t, agenttest.CalculatorMetrics)},
			map[string][]result.EvalStatus{
				"add": {result.EvalPassed, result.EvalPassed}, "sub": {result.EvalFailed, result.EvalFailed},
				"two-turns": {result.EvalPassed, result.EvalPassed}, "hello": {result.EvalFailed, result.EvalFailed},
			}},
		{"trpc as a string over rest", sdkclient.WithRESTTransport(nil),
			map[string]any{"agent_url": agent.URL, "eval_set": agenttest.CalculatorEvalSet, "metrics": jsonValue(t, agenttest.CalculatorMetrics), "transport": "jsonrpc"},
			map[string][]result.EvalStatus{
				"add": {result.EvalPassed}, "sub": {result.EvalFailed}, "two-turns": {result.EvalPassed}, "hello": {result.EvalFailed},
			}},
		{"yaml over rest", sdkclient.WithRESTTransport(nil),
			map[string]any{"agent_url": agent.URL, "yaml_cases": []any{yamlAdd, yamlHello}},
			map[string][]result.EvalStatus{"add": {result.EvalPassed}, "hello": {result.EvalFailed}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := client(t, f.srv.URL(), sdkclient.WithDefaultsDisabled(), tc.transport)
			var states []a2a.TaskState
			var progress int
			var art *a2a.Artifact
			var final *a2a.TaskStatus
			for ev, err := range c.SendStreamingMessage(context.Background(), skill(server.SkillRunEvalSet, tc.params)) {
				if err != nil {
					t.Fatal(err)
				}
				switch e := ev.(type) {
				case *a2a.Task:
					states = append(states, e.Status.State)
				case *a2a.TaskStatusUpdateEvent:
					states = append(states, e.Status.State)
					final = &e.Status
					if e.Status.Message != nil && strings.Contains(text(e.Status.Message.Parts), "case runs done") {
						progress++
					}
				case *a2a.TaskArtifactUpdateEvent:
					art = e.Artifact
				}
			}
			if states[0] != a2a.TaskStateWorking || states[len(states)-1] != a2a.TaskStateCompleted {
				t.Fatalf("states %v: want working first, completed last (%s)", states, text(final.Message.Parts))
			}
			if progress == 0 {
				t.Error("no progress updates")
			}
			if art == nil || art.Name != server.ResultArtifact || !strings.Contains(text(art.Parts), run0ID(art)) {
				t.Fatalf("result artifact = %+v", art)
			}
			run := decodeRun(t, art.Parts)
			if diff := cmp.Diff(tc.want, verdicts(run)); diff != "" {
				t.Errorf("case run verdicts (-want +got):\n%s", diff)
			}
			if run.Status != result.StatusCompleted || len(run.Sets) != 1 || run.Sets[0].Cases != nil || run.Sets[0].NumCases != len(tc.want) {
				t.Errorf("run %s, sets %+v: want completed, one set without its cases", run.Status, run.Sets)
			}
			add := run.Cases[0]
			if len(add.Actual) != 1 || len(add.Actual[0].Tools) != 1 || add.Actual[0].Tools[0].Name != "calculator" {
				t.Errorf("the add case's tool calls were not read from the wire: %+v", add.Actual)
			}
			if d := data(t, final.Message.Parts); d["eval_set_run_id"] != run.ID || d["trimmed"] != false {
				t.Errorf("final status data %v", d)
			}

			// get_results with the run's id: the same run, whole, and brief.
			for _, full := range []bool{true, false} {
				res, err := c.SendMessage(context.Background(), skill(server.SkillGetResults, map[string]any{"id": run.ID, "include_transcripts": full}))
				if err != nil {
					t.Fatal(err)
				}
				got := decodeRun(t, answerOf(t, res).Parts)
				if diff := cmp.Diff(tc.want, verdicts(got)); diff != "" {
					t.Errorf("get_results verdicts (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(run.Summary, got.Summary); diff != "" {
					t.Errorf("get_results summary (-artifact +get_results):\n%s", diff)
				}
				if hasActual := got.Cases[0].Actual != nil; hasActual != full || (got.Sets[0].Cases != nil) != full {
					t.Errorf("include_transcripts %v: invocations %v, set cases %d", full, hasActual, len(got.Sets[0].Cases))
				}
			}
		})
	}
}

// TestRunEvalSetRejected: a bad set, bad metrics or a set over the bounds
// ends the task rejected, every violation listed with its path, before
// the agent is contacted.
func TestRunEvalSetRejected(t *testing.T) {
	f := start(t, server.Config{MaxRequestBytes: 16 << 20})
	c := client(t, f.srv.URL())
	const agent = "http://127.0.0.1:1"
	many := make([]any, 10_001)
	manyYAML := make([]any, len(many))
	for i := range many {
		many[i] = map[string]any{"evalId": fmt.Sprint(i), "conversation": []any{map[string]any{"userContent": map[string]any{"role": "user", "content": "x"}}}}
		manyYAML[i] = fmt.Sprintf("case: c%d\ninput: x\n", i)
	}
	cases := []struct {
		name   string
		params map[string]any
		want   []string
	}{
		{"bad set", map[string]any{"agent_url": agent, "eval_set": jsonValue(t, `{"evalSetId": "s", "evalCases": [
			{"conversation": [{"userContent": {"role": "user", "content": "hi"}}]},
			{"evalId": "b", "evalMode": "replay", "conversation": [{"userContent": {"role": "user", "content": "hi"}}]},
			{"evalId": "b"}]}`)}, []string{
			"eval_set: evalCases[0].evalId: missing",
			`eval_set: evalCases[1].evalMode: unknown mode "replay": want "" or "trace"`,
			`eval_set: evalCases[2].evalId: duplicate case id "b" (also evalCases[1])`,
			`eval_set: evalCases[2]: case "b" has neither a conversation nor a conversationScenario`,
		}},
		{"not a set", map[string]any{"agent_url": agent, "eval_set": map[string]any{"cases": []any{}}}, []string{
			"eval_set: not an eval set: expected a tRPC-Agent-Go set {evalSetId, evalCases}, an ADK set {eval_set_id, eval_cases} or an ADK test list [{query, expected_tool_use, reference}]",
		}},
		{"no set", map[string]any{"agent_url": agent}, []string{
			"no eval set: give eval_set (a tRPC-Agent-Go or ADK eval set object) or yaml_cases (a list of YAML case texts)",
		}},
		{"both", map[string]any{"agent_url": agent, "eval_set": jsonValue(t, agenttest.CalculatorEvalSet), "yaml_cases": []any{"case: a"}}, []string{
			"give eval_set or yaml_cases, not both",
		}},
		{"bad request", map[string]any{"agent_url": "ftp://x", "num_runs": 500, "eval_set": jsonValue(t, agenttest.CalculatorEvalSet)}, []string{
			"num_runs 500: at most 100",
		}},
		{"above the response ceiling", map[string]any{"agent_url": agent, "max_response_bytes": 1 << 40, "eval_set": jsonValue(t, agenttest.CalculatorEvalSet)}, []string{
			fmt.Sprintf("max_response_bytes %d: at most %d, this service's ceiling (a request may only lower it)", int64(1<<40), a2aclient.DefaultMaxResponseBytes),
		}},
		{"too many cases", map[string]any{"agent_url": agent, "yaml_cases": manyYAML}, []string{
			"yaml_cases has 10001 cases; at most 10000: split them over several runs",
		}},
		{"too many values", map[string]any{"agent_url": agent, "eval_set": map[string]any{"evalSetId": "big", "evalCases": many}}, []string{
			"eval_set: JSON holds more than 100000 values (by byte 673877): split the set into several sets",
		}},
		{"YAML of too many values", map[string]any{"agent_url": agent, "yaml_cases": []any{"[" + strings.Repeat("a,", 1<<20) + "a]"}}, []string{
			"yaml_cases[0]: YAML has more than 100000 line breaks and - ? : , [ { characters (by byte 199998), any of which may begin a value; at most 100000: split the set into several sets",
		}},
		{"YAML mapping of too many keys", map[string]any{"agent_url": agent, "yaml_cases": []any{"case: a\ninput: hi\ninspect:\n- path: a\n  equals: {" + flowKeys(1001) + "}\n"}}, []string{
			"yaml_cases[0]: YAML mapping at line 5 has 1001 keys; at most 1000: make it a list, or split it",
		}},
		{"JSON of too many values", map[string]any{"agent_url": agent, "eval_set": `{"evalSetId":"x","evalCases":[{}` + strings.Repeat(",{}", 1<<20) + "]}"}, []string{
			"eval_set: JSON holds more than 100000 values (by byte 150021): split the set into several sets",
		}},
		{"too large", map[string]any{"agent_url": agent, "yaml_cases": []any{strings.Repeat("#", server.MaxEvalSetBytes+1)}}, []string{
			fmt.Sprintf("the eval set and metrics are %d bytes; at most %d (4 MiB): split the set over several runs", server.MaxEvalSetBytes+1, server.MaxEvalSetBytes),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := c.SendMessage(context.Background(), skill(server.SkillRunEvalSet, tc.params))
			if err != nil {
				t.Fatal(err)
			}
			task, ok := res.(*a2a.Task)
			if !ok || task.Status.State != a2a.TaskStateRejected {
				t.Fatalf("got %T %+v, want a rejected task", res, res)
			}
			var got []string
			for _, v := range data(t, task.Status.Message.Parts)["violations"].([]any) {
				got = append(got, v.(string))
			}
			if tc.name == "bad request" { // the validator's wording of the other violations is its own
				got = got[len(got)-1:]
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

// flowKeys is a YAML flow mapping's n keys, k0 to k<n-1>.
func flowKeys(n int) string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d: 1", i)
	}
	return strings.Join(keys, ", ")
}

// TestCancelEvalSetRun: CancelTask stops a run mid-way; the run keeps the
// case runs that finished, as interrupted, and get_results shows them.
func TestCancelEvalSetRun(t *testing.T) {
	agent := agenttest.StartCalculator(t, agenttest.CalculatorOptions{Delay: 50 * time.Millisecond})
	f := start(t, server.Config{})
	c := client(t, f.srv.URL())
	var evalCases []any
	for i := range 100 {
		evalCases = append(evalCases, map[string]any{"evalId": fmt.Sprint("c", i), "conversation": []any{map[string]any{
			"userContent": map[string]any{"role": "user", "content": "calc add 1 1"}}}})
	}
	res, err := c.SendMessage(context.Background(), skill(server.SkillRunEvalSet, map[string]any{"agent_url": agent.URL, "concurrency": 1,
		"eval_set": map[string]any{"evalSetId": "slow", "evalCases": evalCases},
		"metrics":  jsonValue(t, `[{"metricName": "final_response_avg_score", "threshold": 1, "criterion": {"finalResponse": {"text": {"matchStrategy": "contains"}}}}]`)}))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*a2a.Task)
	awaitStatus(t, c, task.ID, "a finished case run", func(d map[string]any) bool { n, _ := d["done"].(float64); return n >= 1 })
	canceled, err := c.CancelTask(context.Background(), &a2a.CancelTaskRequest{ID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	if canceled.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("state %s after CancelTask", canceled.Status.State)
	}
	id, _ := data(t, canceled.Status.Message.Parts)["eval_set_run_id"].(string)
	if msg := text(canceled.Status.Message.Parts); id == "" || !strings.Contains(msg, "keeps its finished case runs") {
		t.Fatalf("cancel status %q, run id %q", msg, id)
	}
	res, err = c.SendMessage(context.Background(), skill(server.SkillGetResults, map[string]any{"id": id}))
	if err != nil {
		t.Fatal(err)
	}
	run := decodeRun(t, answerOf(t, res).Parts)
	if run.Status != result.StatusInterrupted || len(run.Cases) == 0 || len(run.Cases) == len(evalCases) {
		t.Errorf("stored run %s with %d of %d case runs; want interrupted with some", run.Status, len(run.Cases), len(evalCases))
	}
	for _, cr := range run.Cases {
		if cr.FinalEvalStatus != result.EvalPassed {
			t.Errorf("kept case run %s: %s %s", cr.EvalID, cr.FinalEvalStatus, cr.ErrorMessage)
		}
	}
}
