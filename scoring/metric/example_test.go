package metric_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/scoring/metric"
)

// A case expects one get_order call and a final response mentioning the
// ship date; the agent made the call but answered without the date.
func Example() {
	user := &evalset.Message{Role: evalset.RoleUser, Content: "Where is order A1?"}
	call := &evalset.Tool{Name: "get_order", Arguments: map[string]any{"id": "A1"}, Result: map[string]any{"ships": "Monday"}}
	c := &evalset.Case{ID: "where-is-my-order", Conversation: []*evalset.Invocation{{
		UserContent:   user,
		Tools:         []*evalset.Tool{call},
		FinalResponse: &evalset.Message{Role: evalset.RoleAssistant, Content: "Monday"},
	}}}
	actual := []*evalset.Invocation{{
		UserContent:   user,
		Tools:         []*evalset.Tool{{ID: "call-1", Name: "get_order", Arguments: map[string]any{"id": "A1"}, Result: map[string]any{"ships": "Monday"}}},
		FinalResponse: &evalset.Message{Role: evalset.RoleAssistant, Content: "It is on its way."},
	}}
	metrics := []*evalset.Metric{
		{Name: evalset.MetricToolTrajectory, Threshold: 1, Criterion: &evalset.Criterion{
			ToolTrajectory: &evalset.ToolTrajectoryCriterion{OrderSensitive: true}}},
		{Name: evalset.MetricFinalResponse, Threshold: 1, Criterion: &evalset.Criterion{
			FinalResponse: &evalset.FinalResponseCriterion{Text: &evalset.TextCriterion{MatchStrategy: evalset.TextContains}}}},
	}
	s := metric.New()
	if err := s.Check(metrics); err != nil {
		fmt.Println(err)
		return
	}
	res, err := s.ScoreCase(context.Background(), c, actual, metrics)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.FinalEvalStatus)
	for _, m := range res.OverallEvalMetricResults {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s %.0f %s %s", m.MetricName, m.Score, m.EvalStatus, m.Details.Reason)))
	}
	// Output:
	// failed
	// tool_trajectory_avg_score 1 passed
	// final_response_avg_score 0 failed text mismatch: "It is on its way." does not contain "Monday"
}
