package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
)

// writeCalcSet writes the set as tRPC-Agent-Go lays it out and returns the
// app directory.
func writeCalcSet(t *testing.T) string {
	t.Helper()
	app := filepath.Join(t.TempDir(), "calc-app")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"calc.evalset.json": agenttest.CalculatorEvalSet, "calc.metrics.json": agenttest.CalculatorMetrics} {
		if err := os.WriteFile(filepath.Join(app, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return app
}

// TestEvalSetRun plays a tRPC-Agent-Go eval set against a real A2A agent
// that reports its tool calls on the wire, twice per case: every case's
// verdict and the tool calls read from the wire are checked, the run is
// stored, exit status 3 says a case failed, and the evalset_result files
// are written.
func TestEvalSetRun(t *testing.T) {
	agent := agenttest.StartCalculator(t, agenttest.CalculatorOptions{})
	app := writeCalcSet(t)
	db := tempDB(t)
	out := t.TempDir()
	r := mustCLI(t, exitCaseFailed, "evalset", "run", "--agent", agent.URL, "--db", db, "--num-runs", "2",
		"--format", "json", app)
	var run result.EvalSetRun
	if err := json.Unmarshal([]byte(r.stdout), &run); err != nil {
		t.Fatalf("--format json: %v\n%s", err, clip(r.stdout))
	}
	got := map[string]result.EvalStatus{}
	for _, c := range run.Summary.Cases {
		got[c.EvalID] = c.Status
	}
	want := map[string]result.EvalStatus{"add": result.EvalPassed, "sub": result.EvalFailed, "two-turns": result.EvalPassed, "hello": result.EvalFailed}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("case verdicts (-want +got):\n%s", diff)
	}
	if len(run.Cases) != 8 || run.Status != result.StatusCompleted {
		t.Fatalf("%d case runs, status %s; want 8, completed", len(run.Cases), run.Status)
	}
	add := run.Cases[0]
	if add.EvalID != "add" || len(add.Actual) != 1 || len(add.Actual[0].Tools) != 1 {
		t.Fatalf("first case run: %+v", add)
	}
	tool := add.Actual[0].Tools[0]
	args, _ := json.Marshal(tool.Arguments)
	res, _ := json.Marshal(tool.Result)
	if tool.Name != "calculator" || string(args) != `{"a":2,"b":3,"operation":"add"}` || string(res) != `{"result":5}` {
		t.Errorf("tool call read from the wire: %s %s -> %s", tool.Name, args, res)
	}
	if fr := add.Actual[0].FinalResponse.Text(); fr != "The result is 5." {
		t.Errorf("final response %q", fr)
	}
	if !strings.Contains(r.stderr, "cases failed") {
		t.Errorf("stderr does not say cases failed:\n%s", r.stderr)
	}

	// Stored: listed beside evaluations, shown by id in any format.
	list := mustCLI(t, 0, "results", "--db", db)
	if !strings.Contains(list.stdout, run.ID) || !strings.Contains(list.stdout, "EVAL-SET RUN") {
		t.Errorf("proctor results does not list the eval-set run %s:\n%s", run.ID, list.stdout)
	}
	junit := mustCLI(t, 0, "results", "--db", db, run.ID, "--format", "junit")
	if !strings.Contains(junit.stdout, "<testsuite") || !strings.Contains(junit.stdout, `name="sub"`) {
		t.Errorf("proctor results --format junit:\n%s", clip(junit.stdout))
	}

	// Rescored with the final-response metric alone: hello passes too, sub
	// still fails, and nothing is played.
	loose := filepath.Join(t.TempDir(), "loose.metrics.json")
	if err := os.WriteFile(loose, []byte(`[{"metricName": "final_response_avg_score", "threshold": 1,
	  "criterion": {"finalResponse": {"text": {"matchStrategy": "contains"}}}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	rescored := mustCLI(t, exitCaseFailed, "evalset", "rescore", run.ID, "--db", db, "--metrics", loose, "--format", "json")
	var again result.EvalSetRun
	if err := json.Unmarshal([]byte(rescored.stdout), &again); err != nil {
		t.Fatal(err)
	}
	if again.RescoredFrom != run.ID || again.Summary.Passed != 3 || again.Metrics.Requests != run.Metrics.Requests {
		t.Errorf("rescore: from %q, %d passed, %d requests; want %q, 3, %d", again.RescoredFrom, again.Summary.Passed,
			again.Metrics.Requests, run.ID, run.Metrics.Requests)
	}

	// The same run exported in tRPC-Agent-Go's layout.
	mustCLI(t, exitCaseFailed, "evalset", "run", "--agent", agent.URL, "--db", db, "--format", "evalset-result", "--out-dir", out, "--progress", "none", app)
	files, _ := filepath.Glob(filepath.Join(out, "calc-app", "calc-app_calc_*.evalset_result.json"))
	if len(files) != 1 {
		t.Fatalf("evalset_result files: %v", files)
	}
}

// TestEvalSetRunBadInput: a malformed set is exit 2 with the path of what
// is wrong, before anything is played.
func TestEvalSetRunBadInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bad := `{"evalSetId": "s", "evalCases": [{"evalId": "a", "conversation": [{"invocationId": "1"}]}]}`
	if err := os.WriteFile(filepath.Join(dir, "s.evalset.json"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustCLI(t, exitUsage, "evalset", "run", "--agent", "http://127.0.0.1:1", "--db", tempDB(t), dir)
	if !strings.Contains(r.stderr, "evalCases[0].conversation[0].userContent") {
		t.Errorf("stderr does not name the missing field:\n%s", r.stderr)
	}
}
