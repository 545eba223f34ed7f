package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/store"
)

// storedPair runs the reference agent (which passes every mock task) and an
// agent that declines everything into one database, and returns their ids.
func storedPair(t *testing.T, db string, args ...string) (good, sorry string) {
	t.Helper()
	sorryURL := agenttest.Start(t, agenttest.Sorry).URL
	good = evalID(t, append([]string{"--db", db, "--agent", "builtin"}, args...)...)
	sorry = evalID(t, append([]string{"--db", db, "--agent", sorryURL}, args...)...)
	return good, sorry
}

func TestCompareExitCodes(t *testing.T) {
	db := tempDB(t)
	good, sorry := storedPair(t, db, "--task-ids", "mock-01,mock-02,mock-03,mock-04,mock-05,mock-06")
	fewer := evalID(t, "--db", db, "--agent", "builtin", "--task-ids", "mock-01,mock-02,mock-07")
	tests := []struct {
		name string
		args []string
		code int
		want []string // in stdout, or stderr for errors
	}{
		{"worse beyond the tolerance", []string{good, sorry, "--fail-on-regression", "0.1"}, exitRegression,
			[]string{"REGRESSION", "mock-01", "regressed", "paired sign-flip permutation test"}},
		{"better is no regression", []string{sorry, good, "--fail-on-regression", "0.1"}, exitOK, []string{"pass:", "improved"}},
		{"no gate asked: report only", []string{good, sorry}, exitOK, []string{"6 regressed"}},
		{"a drop within the tolerance", []string{good, sorry, "--fail-on-regression", "1"}, exitOK, []string{"within the tolerance"}},
		{"different task sets", []string{good, fewer}, exitOK, []string{"only in A", "mock-03", "only in B", "mock-07", "different tasks"}},
		{"json", []string{good, sorry, "--format", "json"}, exitOK, []string{`"regressions": [`, `"p_worse"`}},
		{"unknown id", []string{good, "ffffffff"}, exitUsage, []string{"ffffffff"}},
		{"bad tolerance", []string{good, sorry, "--fail-on-regression", "5"}, exitUsage, []string{"--fail-on-regression"}},
		{"alpha without a gate", []string{good, sorry, "--alpha", "0.1"}, exitUsage, []string{"--alpha needs"}},
		{"html", []string{good, sorry, "--format", "html", "--fail-on-regression", "0.1"}, exitRegression,
			[]string{good, sorry, `id="cmp-tasks"`, "mock-01", "regressed", "sign-flip", "self-contained report"}},
		{"bad format", []string{good, sorry, "--format", "htm"}, exitUsage, []string{"--format"}},
		{"one id", []string{good}, exitUsage, []string{"2 arg"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustCLI(t, tt.code, append([]string{"compare", "--db", db}, tt.args...)...)
			if tt.name == "html" {
				checkSelfContained(t, r.stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stdout+r.stderr, w) {
					t.Errorf("output has no %q:\nstdout:\n%s\nstderr:\n%s", w, r.stdout, r.stderr)
				}
			}
		})
	}
}

// storeAs stores a copy of evaluation src under the id to, with change
// applied to its JSON.
func storeAs(t *testing.T, db, src, to string, change func(map[string]any)) {
	t.Helper()
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	rec, err := st.GetEvaluation(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(rec.Data, &m); err != nil {
		t.Fatal(err)
	}
	m["id"] = to
	change(m)
	rec.ID, rec.Domain = to, m["domain"].(string)
	if rec.Data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := st.PutEvaluation(ctx, rec); err != nil {
		t.Fatal(err)
	}
}

func TestCompareRefusesOtherDomains(t *testing.T) {
	db := tempDB(t)
	mock := evalID(t, "--db", db, "--agent", "builtin", "--task-ids", "mock-01")
	const airline = "01000000-0000-7000-8000-0000000000a1"
	storeAs(t, db, mock, airline, func(m map[string]any) { m["domain"] = "airline" })
	r := mustCLI(t, exitUsage, "compare", "--db", db, mock, airline)
	if !strings.Contains(r.stderr, "different domains") || !strings.Contains(r.stderr, "airline") {
		t.Errorf("stderr does not say the domains differ:\n%s", r.stderr)
	}
}

// TestCompareEvalSetRuns: two eval-set run ids are compared case by case,
// as evalset run --baseline does; an eval-set run and an evaluation are
// not compared.
func TestCompareEvalSetRuns(t *testing.T) {
	agent := agenttest.StartCalculator(t, agenttest.CalculatorOptions{})
	app := writeCalcSet(t)
	db := tempDB(t)
	runID := func() string {
		r := mustCLI(t, exitCaseFailed, "evalset", "run", "--agent", agent.URL, "--db", db, "--format", "json", app)
		return str(t, decodeObject(t, r.stdout), "id")
	}
	a, b := runID(), runID()
	r := mustCLI(t, exitOK, "compare", "--db", db, a, b, "--fail-on-regression", "0")
	if !strings.Contains(r.stdout, "baseline") || !strings.Contains(r.stdout, "0 regressed") {
		t.Errorf("eval-set comparison:\n%s", r.stdout)
	}
	if r := mustCLI(t, exitUsage, "compare", "--db", db, a, b, "--format", "html"); !strings.Contains(r.stderr, "eval-set runs as a table") {
		t.Errorf("html of eval-set runs:\n%s", r.stderr)
	}
	sim := evalID(t, "--db", db, "--agent", "builtin", "--task-ids", "mock-01")
	r = mustCLI(t, exitUsage, "compare", "--db", db, a, sim)
	if !strings.Contains(r.stderr, "not of the same kind") {
		t.Errorf("mixing kinds:\n%s", r.stderr)
	}
}

// checkSelfContained fails unless page is one HTML file that needs nothing
// else: its stylesheet inlined, no script, no link to another page or
// resource.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	if !strings.HasPrefix(page, "<!doctype html>") || !strings.Contains(page, "<style>") {
		t.Errorf("not a self-contained HTML page (doctype, inlined style):\n%s", clip(page))
	}
	for _, bad := range []string{"<script", "<link", "<form", `src="http`, `href="http`, `href="/`} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q: it must need nothing beyond itself", bad)
		}
	}
}
