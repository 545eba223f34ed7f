package report

import (
	"strings"
	"time"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/result"
)

// The run the eval-set golden tests render: two sets, three runs per case;
// a case that passes, a flaky one, a judge metric with rubric scores that
// fails, a case no run of which could be played, and a case of unicode and
// very long texts with Markdown and HTML in them.

var fixtureStart = time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)

func msg(role evalset.Role, text string) *evalset.Message {
	return &evalset.Message{Role: role, Content: text}
}

func weatherInvocation(id, city, answer string) *evalset.Invocation {
	return &evalset.Invocation{
		ID:            id,
		UserContent:   msg(evalset.RoleUser, "What is the weather in Paris?"),
		FinalResponse: msg(evalset.RoleAssistant, answer),
		Tools:         []*evalset.Tool{{ID: "call_" + id, Name: "get_weather", Arguments: map[string]any{"city": city}, Result: map[string]any{"sky": "sunny"}}},
		Created:       &evalset.EpochTime{Time: fixtureStart},
	}
}

var (
	trajectoryCriterion = &evalset.Criterion{ToolTrajectory: &evalset.ToolTrajectoryCriterion{OrderSensitive: true,
		DefaultStrategy: &evalset.ToolStrategy{Name: &evalset.TextCriterion{MatchStrategy: evalset.TextExact}}}}
	responseCriterion = &evalset.Criterion{FinalResponse: &evalset.FinalResponseCriterion{Text: &evalset.TextCriterion{MatchStrategy: evalset.TextContains}}}
)

func metricResult(name string, score, threshold float64, reason string, crit *evalset.Criterion) *result.MetricResult {
	status := result.EvalPassed
	if score < threshold {
		status = result.EvalFailed
	}
	m := &result.MetricResult{MetricName: name, Score: score, EvalStatus: status, Threshold: threshold, Criterion: crit}
	m.Details = &result.MetricDetails{Reason: reason, Score: score}
	return m
}

// weatherRun is one run of a weather case: ok, or the agent asked about
// Lyon.
func weatherRun(caseID string, run int, ok bool) *result.CaseResult {
	expected := &evalset.Invocation{ID: "w1", UserContent: msg(evalset.RoleUser, "What is the weather in Paris?"),
		FinalResponse: msg(evalset.RoleAssistant, "Sunny in Paris"),
		Tools:         []*evalset.Tool{{Name: "get_weather", Arguments: map[string]any{"city": "Paris"}, ArgsContain: []string{"Paris"}}}}
	actual := weatherInvocation("inv-"+caseID, "Paris", "Sunny in Paris, 21°C.")
	traj := metricResult(evalset.MetricToolTrajectory, 1, 1, "", trajectoryCriterion)
	resp := metricResult(evalset.MetricFinalResponse, 1, 1, "", responseCriterion)
	status := result.EvalPassed
	if !ok {
		actual = weatherInvocation("inv-"+caseID, "Lyon", "Rainy in Lyon.")
		traj = metricResult(evalset.MetricToolTrajectory, 0, 1, `arguments mismatch: actual {"city":"Lyon"}, expected {"city":"Paris"}`, trajectoryCriterion)
		resp = metricResult(evalset.MetricFinalResponse, 0, 1, "source Rainy in Lyon. does not contain target Sunny in Paris", responseCriterion)
		status = result.EvalFailed
	}
	return &result.CaseResult{
		EvalSetID: "smoke", EvalID: caseID, RunID: run, FinalEvalStatus: status,
		OverallEvalMetricResults: []*result.MetricResult{traj, resp},
		EvalMetricResultPerInvocation: []*result.InvocationResult{{ActualInvocation: actual, ExpectedInvocation: expected,
			EvalMetricResults: []*result.MetricResult{traj, resp}}},
		SessionID: "ctx-" + caseID, UserID: "u1",
		ID:     "smoke/" + caseID + "#" + string(rune('0'+run)),
		Actual: []*evalset.Invocation{actual}, Expected: []*evalset.Invocation{expected},
		Turns:     []result.Turn{{LatencyMS: 120, State: "completed", Status: "200"}},
		StartedAt: fixtureStart, DurationMS: 250,
	}
}

// judgeRun is a run of a case an LLM judge scores against two rubrics, one
// of which fails.
func judgeRun(run int) *result.CaseResult {
	rubrics := []*result.RubricScore{{ID: "r1", Reason: "greets the user", Score: 1}, {ID: "r2", Reason: "does not name the city", Score: 0}}
	m := metricResult(evalset.MetricLLMRubricResponse, 0.5, 1, "one of two rubrics not met", &evalset.Criterion{LLMJudge: &evalset.LLMCriterion{
		Rubrics: []*evalset.Rubric{{ID: "r1", Content: &evalset.RubricContent{Text: "Greets the user"}}, {ID: "r2", Content: &evalset.RubricContent{Text: "Names the city"}}}}})
	m.Details.RubricScores = rubrics
	m.Details.Samples = []*result.JudgeSample{{Score: 0.5, Reason: "r2 missing", RubricScores: rubrics}}
	inv := &evalset.Invocation{ID: "j1", UserContent: msg(evalset.RoleUser, "Hi!"), FinalResponse: msg(evalset.RoleAssistant, "Hello there.")}
	return &result.CaseResult{
		EvalSetID: "smoke", EvalID: "judge_rubric", RunID: run, FinalEvalStatus: result.EvalFailed,
		OverallEvalMetricResults: []*result.MetricResult{m},
		EvalMetricResultPerInvocation: []*result.InvocationResult{{ActualInvocation: inv,
			ExpectedInvocation: &evalset.Invocation{ID: "j1", UserContent: msg(evalset.RoleUser, "Hi!")}, EvalMetricResults: []*result.MetricResult{m}}},
		ID: "smoke/judge_rubric#" + string(rune('0'+run)), StartedAt: fixtureStart, DurationMS: 900,
	}
}

// errorRun is a run of a case the agent could not be reached for.
func errorRun(run int) *result.CaseResult {
	return &result.CaseResult{
		EvalSetID: "smoke", EvalID: "unreachable", RunID: run, FinalEvalStatus: result.EvalFailed,
		ErrorMessage: "send message: dial tcp 127.0.0.1:1: connect: connection refused\x01",
		ID:           "smoke/unreachable#" + string(rune('0'+run)), DurationMS: 3,
	}
}

// longText is a long answer of mixed scripts, Markdown and HTML.
var longText = "Voilà | the <details> résumé 天气很好 🌤️\n\n" + strings.Repeat("長い文章です。 ", 120) + "</details> end"

// unicodeRun is a run of a YAML case whose expected and actual texts are
// long and not ASCII.
func unicodeRun(run int) *result.CaseResult {
	actual := &evalset.Invocation{ID: "u1", UserContent: msg(evalset.RoleUser, "Décris le temps à 東京 | please"), FinalResponse: msg(evalset.RoleAssistant, longText)}
	expected := &evalset.Invocation{ID: "u1", UserContent: msg(evalset.RoleUser, "Décris le temps à 東京 | please"), FinalResponse: msg(evalset.RoleAssistant, "晴れ")}
	m := metricResult(evalset.MetricFinalResponse, 0, 1, "source "+longText+" does not contain target 晴れ", responseCriterion)
	return &result.CaseResult{
		EvalSetID: "yaml-cases", EvalID: "東京-weather", RunID: run, FinalEvalStatus: result.EvalFailed,
		OverallEvalMetricResults:      []*result.MetricResult{m},
		EvalMetricResultPerInvocation: []*result.InvocationResult{{ActualInvocation: actual, ExpectedInvocation: expected, EvalMetricResults: []*result.MetricResult{m}}},
		ID:                            "yaml-cases/東京-weather#" + string(rune('0'+run)), DurationMS: 1500,
	}
}

func summaryMetric(name string, avg, threshold float64) *result.MetricResult {
	status := result.EvalPassed
	if avg < threshold {
		status = result.EvalFailed
	}
	return &result.MetricResult{MetricName: name, Score: avg, EvalStatus: status, Threshold: threshold}
}

// fixtureRun is the eval-set run of the golden tests.
func fixtureRun() *result.EvalSetRun {
	finished := fixtureStart.Add(42 * time.Second)
	run := &result.EvalSetRun{
		ID: "es-20261124-0930", Status: result.StatusCompleted,
		Agent:  result.AgentInfo{URL: "http://127.0.0.1:9019/", Name: "weather agent"},
		Config: result.EvalSetConfig{Agent: "http://127.0.0.1:9019/", NumRuns: 3, Concurrency: 4},
		Sets: []result.EvalSetInfo{
			{ID: "smoke", AppName: "weather_app", Format: evalset.FormatTRPC, Path: "evals/weather_app/smoke.evalset.json", NumCases: 4},
			{ID: "yaml-cases", Format: evalset.FormatYAML, Path: "cases", NumCases: 1},
		},
		CreatedAt: fixtureStart, UpdatedAt: finished, FinishedAt: &finished,
		Metrics: result.Metrics{Requests: 12, StatusCodes: map[string]int{"200": 9, "none": 3}, Errors: 3,
			LatencyMS: result.Latency{P50: 120, P95: 300, P99: 310, Max: 320}, InputTokens: 640, OutputTokens: 210},
	}
	for r := 1; r <= 3; r++ {
		run.Cases = append(run.Cases, weatherRun("weather_ok", r, true), weatherRun("weather_flaky", r, r != 2), judgeRun(r), errorRun(r), unicodeRun(r))
	}
	third := 1.0 / 3
	run.Summary = result.EvalSetSummary{
		NumSets: 2, NumCases: 5, NumRuns: 3, Passed: 1, Failed: 3, Errors: 1, Flaky: []string{"smoke/weather_flaky"},
		MetricAverages: map[string]float64{evalset.MetricToolTrajectory: 0.833333, evalset.MetricFinalResponse: 0.5, evalset.MetricLLMRubricResponse: 0.5},
		Cases: []result.CaseSummary{
			{EvalSetID: "smoke", EvalID: "weather_ok", Status: result.EvalPassed, Runs: 3, Passed: 3,
				Metrics: []*result.MetricResult{summaryMetric(evalset.MetricToolTrajectory, 1, 1), summaryMetric(evalset.MetricFinalResponse, 1, 1)},
				PassAtK: map[string]float64{"1": 1, "2": 1, "3": 1}, PassHatK: map[string]float64{"1": 1, "2": 1, "3": 1},
				PassRateCI95: result.Interval{Low: 0.438503, High: 1}},
			{EvalSetID: "smoke", EvalID: "weather_flaky", Status: result.EvalFailed, Runs: 3, Passed: 2, Flaky: true,
				Metrics: []*result.MetricResult{summaryMetric(evalset.MetricToolTrajectory, 2*third, 1), summaryMetric(evalset.MetricFinalResponse, 2*third, 1)},
				PassAtK: map[string]float64{"1": 0.666667, "2": 1, "3": 1}, PassHatK: map[string]float64{"1": 0.666667, "2": 0.333333, "3": 0},
				PassRateCI95: result.Interval{Low: 0.207655, High: 0.938511}},
			{EvalSetID: "smoke", EvalID: "judge_rubric", Status: result.EvalFailed, Runs: 3,
				Metrics: []*result.MetricResult{summaryMetric(evalset.MetricLLMRubricResponse, 0.5, 1)},
				PassAtK: map[string]float64{"1": 0, "2": 0, "3": 0}, PassHatK: map[string]float64{"1": 0, "2": 0, "3": 0},
				PassRateCI95: result.Interval{Low: 0, High: 0.561497}},
			{EvalSetID: "smoke", EvalID: "unreachable", Status: result.EvalFailed, Runs: 3, Errors: 3,
				PassAtK: map[string]float64{"1": 0, "2": 0, "3": 0}, PassHatK: map[string]float64{"1": 0, "2": 0, "3": 0},
				PassRateCI95: result.Interval{Low: 0, High: 0.561497}},
			{EvalSetID: "yaml-cases", EvalID: "東京-weather", Status: result.EvalFailed, Runs: 3,
				Metrics: []*result.MetricResult{summaryMetric(evalset.MetricFinalResponse, 0, 1)},
				PassAtK: map[string]float64{"1": 0, "2": 0, "3": 0}, PassHatK: map[string]float64{"1": 0, "2": 0, "3": 0},
				PassRateCI95: result.Interval{Low: 0, High: 0.561497}},
		},
	}
	return run
}
