package metric

import (
	"context"
	"errors"
	"fmt"

	"github.com/proctor-eval/proctor/evalset"
)

// evaluateTrajectory is tool_trajectory_avg_score: 1 for each invocation
// whose tool calls match the expected ones, 0 otherwise, averaged.
func evaluateTrajectory(_ context.Context, s *Scorer, m *evalset.Metric, actuals, expecteds []*evalset.Invocation) (*outcome, error) {
	if m.Criterion == nil || m.Criterion.ToolTrajectory == nil {
		return nil, errors.New("tool trajectory criterion not configured")
	}
	t := trajectory{crit: m.Criterion.ToolTrajectory, re: &s.re}
	per := make([]invocationScore, len(actuals))
	for i := range actuals {
		_, why := t.match(actuals[i].Tools, expecteds[i].Tools)
		per[i] = binary(why, m.Threshold)
	}
	return averageOutcome(per, m.Threshold), nil
}

// evaluateFinalResponse is final_response_avg_score: 1 for each invocation
// whose final response meets every configured criterion, averaged.
func evaluateFinalResponse(_ context.Context, s *Scorer, m *evalset.Metric, actuals, expecteds []*evalset.Invocation) (*outcome, error) {
	if m.Criterion == nil || m.Criterion.FinalResponse == nil {
		return nil, errors.New("final response criterion not configured")
	}
	per := make([]invocationScore, len(actuals))
	for i := range actuals {
		why := s.matchFinalResponse(m.Criterion.FinalResponse, actuals[i], expecteds[i])
		per[i] = binary(why, m.Threshold)
	}
	return averageOutcome(per, m.Threshold), nil
}

// evaluateResponseMatch is ADK's response_match_score: the ROUGE-1
// F-measure (Porter-stemmed tokens) of each final response against the
// expected one, averaged.
func evaluateResponseMatch(_ context.Context, _ *Scorer, m *evalset.Metric, actuals, expecteds []*evalset.Invocation) (*outcome, error) {
	per := make([]invocationScore, len(actuals))
	for i := range actuals {
		sc := rougeN(rougeTokens(expecteds[i].FinalResponse.Text(), true), rougeTokens(actuals[i].FinalResponse.Text(), true), 1)
		per[i] = invocationScore{score: sc.f, status: statusFor(sc.f, m.Threshold)}
		per[i].details = invocationDetails(fmt.Sprintf("rouge1 precision=%.6f recall=%.6f f1=%.6f", sc.precision, sc.recall, sc.f), sc.f)
	}
	return averageOutcome(per, m.Threshold), nil
}

// checkTrajectoryMetric requires the criterion: tRPC-Agent-Go gives a
// metric read from a file no default one.
func checkTrajectoryMetric(_ *Scorer, m *evalset.Metric) error {
	if m.Criterion == nil || m.Criterion.ToolTrajectory == nil {
		return errors.New("criterion.toolTrajectory is required (tRPC-Agent-Go gives a metrics file no default): add one, e.g. {\"toolTrajectory\": {\"orderSensitive\": true}}")
	}
	c := m.Criterion.ToolTrajectory
	if c.CompareName != "" {
		return fmt.Errorf("toolTrajectory.compareName %q names a Go function registered in tRPC-Agent-Go code; proctor cannot run it: remove it", c.CompareName)
	}
	var errs []error
	errs = append(errs, checkStrategy("toolTrajectory.defaultStrategy", c.DefaultStrategy))
	for _, name := range sortedKeys(c.ToolStrategy) {
		errs = append(errs, checkStrategy(fmt.Sprintf("toolTrajectory.toolStrategy[%q]", name), c.ToolStrategy[name]))
	}
	return errors.Join(errs...)
}

func checkStrategy(path string, s *evalset.ToolStrategy) error {
	if s == nil {
		return nil
	}
	var errs []error
	if err := checkText(s.Name); err != nil {
		errs = append(errs, fmt.Errorf("%s.name: %w", path, err))
	}
	if err := checkJSON(s.Arguments); err != nil {
		errs = append(errs, fmt.Errorf("%s.arguments: %w", path, err))
	}
	if err := checkJSON(s.Result); err != nil {
		errs = append(errs, fmt.Errorf("%s.result: %w", path, err))
	}
	return errors.Join(errs...)
}

func checkFinalResponseMetric(_ *Scorer, m *evalset.Metric) error {
	if m.Criterion == nil || m.Criterion.FinalResponse == nil {
		return errors.New("criterion.finalResponse is required: add one, e.g. {\"finalResponse\": {\"text\": {\"matchStrategy\": \"contains\"}}}")
	}
	if err := checkFinalResponse(m.Criterion.FinalResponse); err != nil {
		return fmt.Errorf("finalResponse: %w", err)
	}
	return nil
}
