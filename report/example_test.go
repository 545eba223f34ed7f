package report_test

import (
	"fmt"
	"log"
	"os"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
)

// The Markdown summary of an evaluation, as proctor run --format markdown
// writes it and the run_evaluation skill returns it.
func Example() {
	eval := &result.Evaluation{
		ID: "e1", Status: result.StatusCompleted, Domain: "mock",
		Agent: result.AgentInfo{URL: "http://127.0.0.1:9019/", Name: "my agent"},
		Summary: result.Summary{NumTasks: 1, NumTrials: 1, NumSimulations: 1, AvgReward: 1,
			PassHatK: map[string]float64{"1": 1}, PassAtK: map[string]float64{"1": 1}, PassHat1CI95: result.Interval{Low: 0.207, High: 1},
			TerminationReasons: map[string]int{"user_stop": 1},
			Tasks:              []result.TaskSummary{{TaskID: "mock-01", Trials: 1, Successes: 1, AvgReward: 1}}},
	}
	if err := report.Write(os.Stdout, report.Markdown, eval); err != nil {
		log.Fatal(err)
	}
	// Output:
	// ## proctor evaluation `e1`
	//
	// Domain **mock**, agent "my agent" at http://127.0.0.1:9019/, status **completed**.
	//
	// | metric | value |
	// |---|---|
	// | simulations | 1 (1 task x 1 trial) |
	// | pass^1 | 1.000 (95% CI 0.207-1.000) |
	// | average reward | 1.000 |
	// | termination | user_stop 1 |
	// | requests | 0 (errors 0; status -) |
	// | latency | p50 0.0ms, p95 0.0ms, p99 0.0ms |
	// | tokens | in 0, out 0 |
	//
	// | task | trials | passed | avg reward |
	// |---|---|---|---|
	// | mock-01 | 1 | 1 | 1.000 |
}

// Counts renders a histogram, such as the termination reasons of a
// summary, largest first.
func ExampleCounts() {
	fmt.Println(report.Counts(map[string]int{"user_stop": 3, "max_steps": 1, "agent_stop": 3}))
	fmt.Println(report.Counts(nil))
	// Output:
	// agent_stop 3, user_stop 3, max_steps 1
	// -
}

// BaselineNote says how many tasks an agent that does nothing passes, to
// show beside a score.
func ExampleBaselineNote() {
	s := result.Summary{NumTasks: 50, VacuousTasks: []string{"t3", "t7", "t9", "t20", "t41"},
		DoNothingBaseline: &result.Baseline{PassHat1: 0.1}}
	fmt.Println(report.BaselineNote(s))
	// Output:
	// 0.100 (5 of 50 tasks pass without the agent doing anything)
}

// An eval-set run as proctor evalset run --format table prints it: a case
// run three times that failed its trajectory once, with the reason.
func ExampleWriteEvalSetRun() {
	failed := &result.MetricResult{MetricName: "tool_trajectory_avg_score", Score: 0, EvalStatus: result.EvalFailed, Threshold: 1,
		Details: &result.MetricDetails{Reason: "get_weather called with city Lyon, expected Paris"}}
	passed := &result.MetricResult{MetricName: "tool_trajectory_avg_score", Score: 1, EvalStatus: result.EvalPassed, Threshold: 1}
	run := &result.EvalSetRun{
		ID: "es-1", Status: result.StatusCompleted,
		Agent:  result.AgentInfo{URL: "http://127.0.0.1:9019/"},
		Config: result.EvalSetConfig{NumRuns: 3},
		Sets:   []result.EvalSetInfo{{ID: "smoke", Format: evalset.FormatTRPC, NumCases: 1}},
		Cases: []*result.CaseResult{
			{EvalSetID: "smoke", EvalID: "weather", RunID: 1, FinalEvalStatus: result.EvalPassed, OverallEvalMetricResults: []*result.MetricResult{passed}},
			{EvalSetID: "smoke", EvalID: "weather", RunID: 2, FinalEvalStatus: result.EvalFailed, OverallEvalMetricResults: []*result.MetricResult{failed}},
			{EvalSetID: "smoke", EvalID: "weather", RunID: 3, FinalEvalStatus: result.EvalPassed, OverallEvalMetricResults: []*result.MetricResult{passed}},
		},
		Summary: result.EvalSetSummary{NumSets: 1, NumCases: 1, NumRuns: 3, Failed: 1, Flaky: []string{"smoke/weather"},
			MetricAverages: map[string]float64{"tool_trajectory_avg_score": 0.667},
			Cases: []result.CaseSummary{{EvalSetID: "smoke", EvalID: "weather", Status: result.EvalFailed, Runs: 3, Passed: 2, Flaky: true,
				Metrics:  []*result.MetricResult{{MetricName: "tool_trajectory_avg_score", Score: 2.0 / 3, EvalStatus: result.EvalFailed, Threshold: 1}},
				PassAtK:  map[string]float64{"1": 0.667, "3": 1},
				PassHatK: map[string]float64{"1": 0.667, "3": 0}}}},
	}
	if err := report.WriteEvalSetRun(os.Stdout, report.Table, run); err != nil {
		log.Fatal(err)
	}
	// Output:
	// eval-set run     es-1 (completed)
	// agent            http://127.0.0.1:9019/
	// sets             smoke (trpc, 1 case)
	// runs             3 per case
	// cases            1: 0 passed, 1 failed, 0 errors
	// flaky            smoke/weather
	// metric averages  tool_trajectory_avg_score 0.667
	// requests         0  errors 0  status -
	// latency          p50 0.0ms  p95 0.0ms  p99 0.0ms  max 0.0ms
	// tokens           in 0  out 0
	//
	// CASE           STATUS          RUNS PASSED  PASS@3  PASS^3  SCORES
	// smoke/weather  failed (flaky)  2/3          1.000   0.000   tool_trajectory_avg_score 0.667<1.000
	//
	// FAILURES
	// smoke/weather run 2: failed
	//   tool_trajectory_avg_score 0.000<1.000: get_weather called with city Lyon, expected Paris
}
