package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/refagent"
	"github.com/proctor-eval/proctor/result"
)

// refagentCases are YAML cases for the reference agent (mock domain)
// served over ECP: the example of docs/ecp.md and the README's quick start. "sign-in" passes, its tool call
// answered with the result the case gives and its inspect assertions
// holding; "anonymous" fails its inspect assertion.
var refagentCases = map[string]string{
	"sign-in.yaml": `case: sign-in
input:
  - content: hello
    expected:
      final_response: {contains: email}
  - content: my email is alice@example.com
    expected:
      tool_calls:
        - name: find_user_by_email
          args_contain: [alice@example.com]
          result: {user_id: user_1, name: Alice Smith}
      final_response: {contains: "Thanks, Alice"}
inspect:
  - {path: user_id, equals: user_1}
  - {path: authenticated, equals: true}
  - {path: steps, matches: '^3$'}
`,
	"anonymous.yaml": `case: anonymous
input: {content: hello}
inspect:
  - {path: authenticated, equals: true}
`,
}

// TestEvalSetRunECP plays YAML cases against proctor agent --ecp through
// proctor evalset run --agent 'ecp+stdio:...': each case's verdict, the
// ecp_inspect check with the value the agent returned, private thoughts
// kept out of the final responses, exit 3; a rescore judges the stored
// inspections again without the agent. Against an A2A agent the same
// cases are refused as bad input.
func TestEvalSetRunECP(t *testing.T) {
	bin := buildProctor(t)
	cases := filepath.Join(t.TempDir(), "cases")
	if err := os.MkdirAll(cases, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range refagentCases {
		if err := os.WriteFile(filepath.Join(cases, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := tempDB(t)
	r := mustCLI(t, exitCaseFailed, "evalset", "run", "--agent", "ecp+stdio:'"+bin+"' agent --ecp", "--db", db,
		"--format", "json", "--progress", "none", cases)
	var run result.EvalSetRun
	if err := json.Unmarshal([]byte(r.stdout), &run); err != nil {
		t.Fatalf("--format json: %v\n%s", err, clip(r.stdout))
	}
	if run.Agent.Transport != "ecp+stdio" || !strings.Contains(run.Agent.Name, "reference agent") {
		t.Errorf("agent %+v: want the reference agent over ecp+stdio", run.Agent)
	}
	for _, c := range run.Cases {
		checkECPCase(t, c)
	}
	again := mustCLI(t, exitCaseFailed, "evalset", "rescore", run.ID, "--db", db, "--format", "json")
	var rescored result.EvalSetRun
	if err := json.Unmarshal([]byte(again.stdout), &rescored); err != nil {
		t.Fatal(err)
	}
	if rescored.Summary.Passed != 1 || rescored.Summary.Failed != 1 {
		t.Errorf("rescore: %d passed, %d failed; want 1 and 1", rescored.Summary.Passed, rescored.Summary.Failed)
	}

	a2a := cli(t, "evalset", "run", "--agent", "http://127.0.0.1:1", "--db", db, cases)
	if a2a.code != exitUsage || !strings.Contains(a2a.stderr, "needs an ECP agent") {
		t.Errorf("inspect against an A2A agent: exit %d, stderr %q: want a usage error", a2a.code, a2a.stderr)
	}
}

// checkECPCase checks one case run of TestEvalSetRunECP.
func checkECPCase(t *testing.T, c *result.CaseResult) {
	t.Helper()
	var inspect *result.MetricResult
	for _, m := range c.OverallEvalMetricResults {
		if m.MetricName == result.MetricECPInspect {
			inspect = m
		}
	}
	if inspect == nil {
		t.Fatalf("%s: no %s check: %+v", c.ID, result.MetricECPInspect, c.OverallEvalMetricResults)
	}
	switch c.EvalID {
	case "sign-in":
		if c.FinalEvalStatus != result.EvalPassed || inspect.EvalStatus != result.EvalPassed || len(c.Actual) != 2 {
			t.Errorf("sign-in: %s (%s), inspect %s %+v", c.FinalEvalStatus, c.ErrorMessage, inspect.EvalStatus, inspect.Details)
		} else if tool := c.Actual[1].Tools; len(tool) != 1 || tool[0].Name != "find_user_by_email" {
			t.Errorf("sign-in: tools %+v", tool)
		}
	case "anonymous":
		if c.FinalEvalStatus != result.EvalFailed || !strings.Contains(inspect.Details.Reason, "authenticated equals true: got false") {
			t.Errorf("anonymous: %s, inspect reason %q", c.FinalEvalStatus, inspect.Details.Reason)
		}
	}
	for _, inv := range c.Actual {
		if fr := inv.FinalResponse; fr == nil || strings.Contains(fr.Content, refagent.ThoughtMarker) || !strings.HasPrefix(fr.ReasoningContent, refagent.ThoughtMarker) {
			t.Errorf("%s: final response %+v: want the private thought apart from the content", c.ID, fr)
		}
	}
}
