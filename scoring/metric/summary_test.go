package metric

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/proctor-eval/proctor/result"
)

func run(set, id string, status result.EvalStatus, scores ...float64) *result.CaseResult {
	r := &result.CaseResult{EvalSetID: set, EvalID: id, FinalEvalStatus: status}
	for i, s := range scores {
		r.OverallEvalMetricResults = append(r.OverallEvalMetricResults, &result.MetricResult{
			MetricName: fmt.Sprintf("m%d", i+1), Score: s, Threshold: 0.75, EvalStatus: statusFor(s, 0.75)})
	}
	return r
}

func TestSummarize(t *testing.T) {
	errored := &result.CaseResult{EvalSetID: "s", EvalID: "broken", FinalEvalStatus: result.EvalFailed, ErrorMessage: "inference count 1 does not match expected conversation length 2"}
	results := []*result.CaseResult{
		run("s", "flaky", result.EvalPassed, 1, 1), run("s", "steady", result.EvalPassed, 1),
		run("s", "flaky", result.EvalFailed, 0.5, 1), run("s", "steady", result.EvalPassed, 1), errored,
		run("s", "flaky", result.EvalPassed, 1, 1), run("s", "steady", result.EvalPassed, 1), errored,
		errored,
	}
	got := Summarize(results, 3)
	want := result.EvalSetSummary{NumSets: 1, NumCases: 3, NumRuns: 3, Passed: 2, Errors: 1, Flaky: []string{"s/flaky"},
		MetricAverages: map[string]float64{"m1": (2.5 + 3) / 6, "m2": 1},
		Cases: []result.CaseSummary{
			{EvalSetID: "s", EvalID: "flaky", Status: result.EvalPassed, Runs: 3, Passed: 2, Flaky: true,
				Metrics: []*result.MetricResult{
					{MetricName: "m1", Score: 2.5 / 3, EvalStatus: result.EvalPassed, Threshold: 0.75},
					{MetricName: "m2", Score: 1, EvalStatus: result.EvalPassed, Threshold: 0.75}},
				PassAtK:      map[string]float64{"1": 2.0 / 3, "2": 1, "3": 1},
				PassHatK:     map[string]float64{"1": 2.0 / 3, "2": 4.0 / 9, "3": 8.0 / 27},
				PassRateCI95: result.Interval{Low: 0.20766, High: 0.938508}},
			{EvalSetID: "s", EvalID: "steady", Status: result.EvalPassed, Runs: 3, Passed: 3,
				Metrics:      []*result.MetricResult{{MetricName: "m1", Score: 1, EvalStatus: result.EvalPassed, Threshold: 0.75}},
				PassAtK:      map[string]float64{"1": 1, "2": 1, "3": 1},
				PassHatK:     map[string]float64{"1": 1, "2": 1, "3": 1},
				PassRateCI95: result.Interval{Low: 0.438503, High: 1}},
			{EvalSetID: "s", EvalID: "broken", Status: result.EvalFailed, Runs: 3, Errors: 3, Metrics: []*result.MetricResult{},
				PassAtK: map[string]float64{"1": 0, "2": 0, "3": 0}, PassHatK: map[string]float64{"1": 0, "2": 0, "3": 0},
				PassRateCI95: result.Interval{Low: 0, High: 0.561497}},
		}}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
}

func TestPassAtK(t *testing.T) {
	tests := []struct {
		n, c, k  int
		at, hatK float64
	}{
		{5, 0, 1, 0, 0}, {5, 5, 3, 1, 1}, {5, 2, 1, 0.4, 0.4}, {5, 2, 2, 1 - 3.0/10, 0.16}, {5, 2, 4, 1, math.Pow(0.4, 4)},
		{10, 3, 3, 1 - 35.0/120, 0.027}, {3, 1, 4, 0, 1.0 / 81}, {0, 0, 1, 0, 0},
	}
	for _, tt := range tests {
		if got := PassAtK(tt.n, tt.c, tt.k); math.Abs(got-tt.at) > 1e-12 {
			t.Errorf("PassAtK(%d, %d, %d) = %v, want %v", tt.n, tt.c, tt.k, got, tt.at)
		}
		if got := PassHatK(tt.n, tt.c, tt.k); math.Abs(got-tt.hatK) > 1e-12 {
			t.Errorf("PassHatK(%d, %d, %d) = %v, want %v", tt.n, tt.c, tt.k, got, tt.hatK)
		}
	}
}
