package metric

import (
	"context"
	"fmt"
	"testing"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/result"
)

// trajectoryCases makes n cases of one invocation with calls tool calls
// each (distinct tools, arguments and results), and what the agent did: the
// same calls, in reverse order for every other case.
func trajectoryCases(n, calls int) ([]*evalset.Case, [][]*evalset.Invocation) {
	cases := make([]*evalset.Case, n)
	actual := make([][]*evalset.Invocation, n)
	for i := range n {
		exp, act := make([]*evalset.Tool, calls), make([]*evalset.Tool, calls)
		for k := range calls {
			args := map[string]any{"id": fmt.Sprintf("A%d", k), "qty": float64(k), "tags": []any{"x", "y"}}
			res := map[string]any{"status": "ok", "total": float64(k) * 1.5}
			exp[k] = &evalset.Tool{Name: fmt.Sprintf("tool_%d", k), Arguments: args, Result: res}
			j := k
			if i%2 == 1 {
				j = calls - 1 - k
			}
			act[j] = &evalset.Tool{ID: fmt.Sprintf("call-%d", k), Name: exp[k].Name, Arguments: args, Result: res}
		}
		cases[i] = &evalset.Case{ID: fmt.Sprintf("case-%d", i), Conversation: []*evalset.Invocation{{UserContent: msg(evalset.RoleUser, "go"), Tools: exp}}}
		actual[i] = []*evalset.Invocation{{UserContent: msg(evalset.RoleUser, "go"), Tools: act}}
	}
	return cases, actual
}

// BenchmarkTrajectory10k scores 10,000 cases of 20 tool calls each by
// tool_trajectory_avg_score (unordered: maximum bipartite matching over
// every pair of calls, names, arguments and results compared). One op is
// the 10,000 cases; issue 15 asks for under 1 s.
func BenchmarkTrajectory10k(b *testing.B) {
	cases, actual := trajectoryCases(10000, 20)
	s := New()
	metrics := []*evalset.Metric{trajectoryMetric}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for i, c := range cases {
			r, err := s.ScoreCase(ctx, c, actual[i], metrics)
			if err != nil || r.FinalEvalStatus != result.EvalPassed {
				b.Fatalf("case %d: %v %s %s", i, err, r.FinalEvalStatus, r.ErrorMessage)
			}
		}
	}
}

// BenchmarkTrajectoryOrdered10k is the same with orderSensitive and
// subset matching (the reversed cases then fail).
func BenchmarkTrajectoryOrdered10k(b *testing.B) {
	cases, actual := trajectoryCases(10000, 20)
	s := New()
	metrics := []*evalset.Metric{{Name: evalset.MetricToolTrajectory, Threshold: 1,
		Criterion: &evalset.Criterion{ToolTrajectory: &evalset.ToolTrajectoryCriterion{OrderSensitive: true, SubsetMatching: true}}}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for i, c := range cases {
			if _, err := s.ScoreCase(ctx, c, actual[i], metrics); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkSummarize30k summarizes 10,000 cases x 3 runs of two metrics.
func BenchmarkSummarize30k(b *testing.B) {
	var results []*result.CaseResult
	for run := range 3 {
		for i := range 10000 {
			status := result.EvalPassed
			if (i+run)%7 == 0 {
				status = result.EvalFailed
			}
			results = append(results, runOf(fmt.Sprintf("case-%d", i), run, status))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if s := Summarize(results, 3); s.NumCases != 10000 {
			b.Fatal(s.NumCases)
		}
	}
}

func runOf(id string, runID int, status result.EvalStatus) *result.CaseResult {
	score := 1.0
	if status == result.EvalFailed {
		score = 0
	}
	return &result.CaseResult{EvalSetID: "set", EvalID: id, RunID: runID + 1, FinalEvalStatus: status,
		OverallEvalMetricResults: []*result.MetricResult{
			{MetricName: "tool_trajectory_avg_score", Score: score, Threshold: 1, EvalStatus: status},
			{MetricName: "final_response_avg_score", Score: 1, Threshold: 1, EvalStatus: result.EvalPassed},
		}}
}
