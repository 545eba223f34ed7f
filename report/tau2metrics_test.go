package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
)

// TestTau2FiguresMatchTau2Metrics: proctor's tau2-style avg_reward and
// pass^k (Summary.Tau2) equal what tau2-bench's own metrics code computes on
// proctor's --format tau2 export of the same evaluation.
//
// testdata/tau2metrics/evaluation.json is a stored evaluation (`proctor run
// --domain mock --agent builtin --num-tasks 7 --num-trials 4 --format json`)
// with failures injected by a script kept outside the repository: mock-01#0
// infrastructure_error; mock-02#0,1 user_error; mock-03#2 agent_error after a
// refused connection; every run of mock-07 infrastructure_error (all left
// out); mock-04#3 agent_error for an unusable reply, mock-05#1 max_steps and
// mock-06#0 a plain failure (all counted). results.tau2.json is its export
// (golden: -update rewrites it). tau2_metrics.json is the output of tau2's
// tau2.metrics.agent_metrics.compute_metrics (tau2-bench a2c0247) run by
// hand on that export with pydantic 2, pandas 1.5 and the LLM client
// packages stubbed at import (its metrics never call them).
func TestTau2FiguresMatchTau2Metrics(t *testing.T) {
	dir := filepath.Join("testdata", "tau2metrics")
	var eval result.Evaluation
	readJSON(t, filepath.Join(dir, "evaluation.json"), &eval)
	dom, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "tau2metrics/results.tau2.json", tau2Render(t, &eval, dom))

	var want struct {
		AvgReward        float64            `json:"avg_reward"`
		PassHatK         map[string]float64 `json:"pass_hat_k"`
		TotalSimulations int                `json:"total_simulations"`
		TotalTasks       int                `json:"total_tasks"`
		InfraErrorCount  int                `json:"infra_error_count"`
	}
	readJSON(t, filepath.Join(dir, "tau2_metrics.json"), &want)

	got := scoring.Summarize(eval.Simulations, nil).Tau2
	if got == nil {
		t.Fatal("summary has no tau2 figures")
	}
	near := cmpopts.EquateApprox(0, 1e-6)
	if diff := cmp.Diff(want.AvgReward, got.AvgReward, near); diff != "" {
		t.Errorf("avg_reward (-tau2 +proctor):\n%s", diff)
	}
	if diff := cmp.Diff(want.PassHatK, got.PassHatK, near); diff != "" {
		t.Errorf("pass^k (-tau2 +proctor):\n%s", diff)
	}
	counts := [3]int{got.NumSimulations, got.NumTasks, got.Excluded}
	if diff := cmp.Diff([3]int{want.TotalSimulations, want.TotalTasks, want.InfraErrorCount}, counts); diff != "" {
		t.Errorf("simulations, tasks, excluded (-tau2 +proctor):\n%s", diff)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestTau2FiguresShown: the table, the Markdown and compare state tau2's
// figures beside the strict ones, with what they leave out and why; an
// evaluation with nothing left out shows no such row.
func TestTau2FiguresShown(t *testing.T) {
	var eval result.Evaluation
	readJSON(t, filepath.Join("testdata", "tau2metrics", "evaluation.json"), &eval)
	eval.Summary = scoring.Summarize(eval.Simulations, nil)
	const note = "avg reward 0.850  pass^k k=1 0.875  k=2 0.750  over 20 of 28 simulations; left out 8 tau2 would have retried " +
		"(infrastructure_error 5, user_error 2, agent_error:connection 1); the figures above count every failure"
	clean := eval
	clean.Simulations = eval.Simulations[16:17] // mock-05#0, which passed
	clean.Summary = scoring.Summarize(clean.Simulations, nil)
	for _, c := range []struct {
		format Format
		eval   *result.Evaluation
		want   string
		shown  bool
	}{
		{Table, &eval, "tau2's figures  " + note, true},
		{Markdown, &eval, "| tau2's figures | " + note + " |", true},
		{Table, &clean, "tau2's figures", false},
	} {
		var b strings.Builder
		if err := Write(&b, c.format, c.eval); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), c.want); got != c.shown {
			t.Errorf("%s: %q shown %v, want %v:\n%s", c.format, c.want, got, c.shown, b.String())
		}
	}
	cmpd, err := CompareEvaluations(&clean, &eval, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := eval.ID + " has 8 simulations tau2 would have retried and left out (infrastructure_error 5, user_error 2, agent_error:connection 1): " +
		"compared here as failures; tau2's own figures: avg reward 0.850, pass^1 0.875"
	if !slices.Contains(cmpd.Warnings, want) {
		t.Errorf("compare warnings %q lack %q", cmpd.Warnings, want)
	}
}
