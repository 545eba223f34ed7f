package metric

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/result"
)

func msg(role evalset.Role, s string) *evalset.Message {
	return &evalset.Message{Role: role, Content: s}
}

func turn(user, answer string, tools ...*evalset.Tool) *evalset.Invocation {
	inv := &evalset.Invocation{UserContent: msg(evalset.RoleUser, user), Tools: tools}
	if answer != "" {
		inv.FinalResponse = msg(evalset.RoleAssistant, answer)
	}
	return inv
}

var (
	trajectoryMetric = &evalset.Metric{Name: evalset.MetricToolTrajectory, Threshold: 1,
		Criterion: &evalset.Criterion{ToolTrajectory: &evalset.ToolTrajectoryCriterion{}}}
	containsMetric = &evalset.Metric{Name: evalset.MetricFinalResponse, Threshold: 0.5,
		Criterion: &evalset.Criterion{FinalResponse: &evalset.FinalResponseCriterion{Text: &evalset.TextCriterion{MatchStrategy: evalset.TextContains}}}}
)

// verdict is what a test compares of a case result.
type verdict struct {
	Status  result.EvalStatus
	Error   string
	Overall map[string]float64
	Status1 map[string]result.EvalStatus
	PerTurn []map[string]float64
}

func verdictOf(r *result.CaseResult) verdict {
	v := verdict{Status: r.FinalEvalStatus, Error: r.ErrorMessage}
	for _, m := range r.OverallEvalMetricResults {
		if v.Overall == nil {
			v.Overall, v.Status1 = map[string]float64{}, map[string]result.EvalStatus{}
		}
		v.Overall[m.MetricName] = m.Score
		v.Status1[m.MetricName] = m.EvalStatus
	}
	for _, inv := range r.EvalMetricResultPerInvocation {
		scores := map[string]float64{}
		for _, m := range inv.EvalMetricResults {
			scores[m.MetricName] = m.Score
		}
		v.PerTurn = append(v.PerTurn, scores)
	}
	return v
}

func TestScoreCase(t *testing.T) {
	getOrder := call("get_order", map[string]any{"id": "A1"})
	tests := []struct {
		name    string
		c       *evalset.Case
		actual  []*evalset.Invocation
		metrics []*evalset.Metric
		want    verdict
	}{
		{"both metrics pass", &evalset.Case{ID: "c", Conversation: []*evalset.Invocation{turn("where is A1?", "shipped", getOrder)}},
			[]*evalset.Invocation{turn("where is A1?", "Your order has shipped.", getOrder)},
			[]*evalset.Metric{trajectoryMetric, containsMetric},
			verdict{Status: result.EvalPassed, Overall: map[string]float64{"tool_trajectory_avg_score": 1, "final_response_avg_score": 1},
				Status1: map[string]result.EvalStatus{"tool_trajectory_avg_score": "passed", "final_response_avg_score": "passed"},
				PerTurn: []map[string]float64{{"tool_trajectory_avg_score": 1, "final_response_avg_score": 1}}}},
		{"one turn of two fails the trajectory", &evalset.Case{ID: "c", Conversation: []*evalset.Invocation{
			turn("a", "ok", getOrder), turn("b", "ok", getOrder)}},
			[]*evalset.Invocation{turn("a", "ok", getOrder), turn("b", "ok")},
			[]*evalset.Metric{trajectoryMetric, containsMetric},
			verdict{Status: result.EvalFailed, Overall: map[string]float64{"tool_trajectory_avg_score": 0.5, "final_response_avg_score": 1},
				Status1: map[string]result.EvalStatus{"tool_trajectory_avg_score": "failed", "final_response_avg_score": "passed"},
				PerTurn: []map[string]float64{{"tool_trajectory_avg_score": 1, "final_response_avg_score": 1}, {"tool_trajectory_avg_score": 0, "final_response_avg_score": 1}}}},
		{"turn counts differ", &evalset.Case{ID: "c", Conversation: []*evalset.Invocation{turn("a", "ok"), turn("b", "ok")}},
			[]*evalset.Invocation{turn("a", "ok")}, []*evalset.Metric{containsMetric},
			verdict{Status: result.EvalFailed, Error: "inference count 1 does not match expected conversation length 2"}},
		{"a metric without its criterion fails the case", &evalset.Case{ID: "c", Conversation: []*evalset.Invocation{turn("a", "ok")}},
			[]*evalset.Invocation{turn("a", "ok")}, []*evalset.Metric{{Name: evalset.MetricToolTrajectory, Threshold: 1}},
			verdict{Status: result.EvalFailed, Error: "run evaluation for metric tool_trajectory_avg_score: tool trajectory criterion not configured"}},
		{"no metrics: not evaluated", &evalset.Case{ID: "c", Conversation: []*evalset.Invocation{turn("a", "ok")}},
			[]*evalset.Invocation{turn("a", "ok")}, nil,
			verdict{Status: result.EvalNotEvaluated, PerTurn: []map[string]float64{{}}}},
		{"the case's metric replaces the set's", &evalset.Case{ID: "c", Conversation: []*evalset.Invocation{turn("a", "shipped")},
			Metrics: []*evalset.Metric{{Name: evalset.MetricFinalResponse, Threshold: 1, Criterion: &evalset.Criterion{FinalResponse: &evalset.FinalResponseCriterion{
				Text: &evalset.TextCriterion{MatchStrategy: evalset.TextRegex}}}}}},
			[]*evalset.Invocation{turn("a", "it SHIPPED")}, []*evalset.Metric{containsMetric},
			verdict{Status: result.EvalFailed, Overall: map[string]float64{"final_response_avg_score": 0},
				Status1: map[string]result.EvalStatus{"final_response_avg_score": "failed"}, PerTurn: []map[string]float64{{"final_response_avg_score": 0}}}},
		{"trace mode expects only user contents", &evalset.Case{ID: "c", Mode: evalset.ModeTrace,
			Conversation: []*evalset.Invocation{turn("a", "recorded answer", getOrder)}},
			nil, []*evalset.Metric{trajectoryMetric},
			verdict{Status: result.EvalFailed, Overall: map[string]float64{"tool_trajectory_avg_score": 0},
				Status1: map[string]result.EvalStatus{"tool_trajectory_avg_score": "failed"}, PerTurn: []map[string]float64{{"tool_trajectory_avg_score": 0}}}},
		{"trace mode with both sides recorded", &evalset.Case{ID: "c", Mode: evalset.ModeTrace,
			Conversation:       []*evalset.Invocation{turn("a", "x", getOrder)},
			ActualConversation: []*evalset.Invocation{turn("a", "y", getOrder)}},
			nil, []*evalset.Metric{trajectoryMetric},
			verdict{Status: result.EvalPassed, Overall: map[string]float64{"tool_trajectory_avg_score": 1},
				Status1: map[string]result.EvalStatus{"tool_trajectory_avg_score": "passed"}, PerTurn: []map[string]float64{{"tool_trajectory_avg_score": 1}}}},
		{"ADK response match", &evalset.Case{ID: "c", Conversation: []*evalset.Invocation{turn("a", "The orders were shipped today")}},
			[]*evalset.Invocation{turn("a", "Your order ships today")},
			[]*evalset.Metric{{Name: evalset.MetricResponseMatch, Threshold: 0.5}},
			// stems: order ship today on both sides; 3 hits of 5 and 4 tokens.
			verdict{Status: result.EvalPassed, Overall: map[string]float64{"response_match_score": 2 * (0.75 * 0.6) / 1.35},
				Status1: map[string]result.EvalStatus{"response_match_score": "passed"}, PerTurn: []map[string]float64{{"response_match_score": 2 * (0.75 * 0.6) / 1.35}}}},
	}
	s := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ScoreCase(context.Background(), tt.c, tt.actual, tt.metrics)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, verdictOf(got), cmpopts.EquateApprox(0, 1e-12)); d != "" {
				t.Errorf("verdict (-want +got):\n%s", d)
			}
		})
	}
}

func TestScoreCaseDetails(t *testing.T) {
	c := &evalset.Case{ID: "c", ContextMessages: []*evalset.Message{msg(evalset.RoleSystem, "be brief")},
		SessionInput: &evalset.SessionInput{UserID: "u1"},
		Conversation: []*evalset.Invocation{turn("a", "shipped"), turn("b", "refunded")}}
	got, err := New().ScoreCase(context.Background(), c, []*evalset.Invocation{turn("a", "it shipped"), turn("b", "no")}, []*evalset.Metric{containsMetric})
	if err != nil {
		t.Fatal(err)
	}
	overall := got.OverallEvalMetricResults[0]
	if overall.Details.Reason != `;text mismatch: "no" does not contain "refunded"` {
		t.Errorf("overall reason %q", overall.Details.Reason)
	}
	if got.UserID != "u1" || got.EvalID != "c" {
		t.Errorf("user %q eval %q", got.UserID, got.EvalID)
	}
	for i, inv := range got.EvalMetricResultPerInvocation {
		if len(inv.ActualInvocation.ContextMessages) != 1 || len(inv.ExpectedInvocation.ContextMessages) != 1 {
			t.Errorf("invocation %d: context messages not attached", i)
		}
	}
	if len(c.Conversation[0].ContextMessages) != 0 {
		t.Error("the case's conversation was changed")
	}
}

func TestFinalResponseCriteria(t *testing.T) {
	tests := []struct {
		name             string
		crit             evalset.FinalResponseCriterion
		actual, expected *evalset.Message
		want             string
	}{
		{"both absent", evalset.FinalResponseCriterion{Text: &evalset.TextCriterion{}}, nil, nil, ""},
		{"actual absent", evalset.FinalResponseCriterion{Text: &evalset.TextCriterion{}}, nil, msg("assistant", "x"), "no final response"},
		{"text and json must both match", evalset.FinalResponseCriterion{Text: &evalset.TextCriterion{MatchStrategy: evalset.TextContains}, JSON: &evalset.JSONCriterion{}},
			msg("assistant", `{"a": 1}`), msg("assistant", `{"a": 2}`), "json mismatch"},
		{"json equal", evalset.FinalResponseCriterion{JSON: &evalset.JSONCriterion{}}, msg("assistant", `{"a": 1, "b": "x"}`), msg("assistant", `{"b":"x","a":1}`), ""},
		{"rouge passes", evalset.FinalResponseCriterion{Rouge: &evalset.RougeCriterion{RougeType: "rougeL", Threshold: evalset.RougeScore{F1: 0.5}}},
			msg("assistant", "the cat sat on the mat"), msg("assistant", "the cat is on the mat"), ""},
		{"rouge fails", evalset.FinalResponseCriterion{Rouge: &evalset.RougeCriterion{RougeType: "rouge2", Threshold: evalset.RougeScore{Recall: 0.9}}},
			msg("assistant", "the cat sat on the mat"), msg("assistant", "the cat is on the mat"), "rouge2 f1="},
		{"xml valid", evalset.FinalResponseCriterion{XML: &evalset.XMLCriterion{Valid: true, MatchStrategy: evalset.XMLSkip}},
			msg("assistant", " <a><b>x</b></a>\n"), msg("assistant", ""), ""},
		{"xml two roots", evalset.FinalResponseCriterion{XML: &evalset.XMLCriterion{Valid: true, MatchStrategy: evalset.XMLSkip}},
			msg("assistant", "<a/><b/>"), msg("assistant", ""), "more than one root"},
		{"xml unclosed", evalset.FinalResponseCriterion{XML: &evalset.XMLCriterion{Valid: true, MatchStrategy: evalset.XMLSkip}},
			msg("assistant", "<a><b></a>"), msg("assistant", ""), "xml mismatch"},
		{"xml text outside", evalset.FinalResponseCriterion{XML: &evalset.XMLCriterion{Valid: true, MatchStrategy: evalset.XMLSkip}},
			msg("assistant", "here: <a/>"), msg("assistant", ""), "outside the root"},
	}
	s := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			why := s.matchFinalResponse(&tt.crit, &evalset.Invocation{FinalResponse: tt.actual}, &evalset.Invocation{FinalResponse: tt.expected})
			if (tt.want == "") != (why == "") || !strings.Contains(why, tt.want) {
				t.Errorf("reason %q, want one containing %q", why, tt.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	s := New()
	err := s.Check([]*evalset.Metric{
		{Name: "nope"},
		{Name: evalset.MetricToolTrajectory},
		{Name: evalset.MetricFinalResponse, Criterion: &evalset.Criterion{FinalResponse: &evalset.FinalResponseCriterion{
			XML: &evalset.XMLCriterion{Valid: true}, Rouge: &evalset.RougeCriterion{RougeType: "rouge0"}}}},
		{Name: "strict", EvaluatorName: evalset.MetricToolTrajectory, Criterion: &evalset.Criterion{ToolTrajectory: &evalset.ToolTrajectoryCriterion{
			DefaultStrategy: &evalset.ToolStrategy{Name: &evalset.TextCriterion{MatchStrategy: "fuzzy"},
				Arguments: &evalset.JSONCriterion{OnlyTree: map[string]any{"a": "yes"}}}}}},
		{Name: evalset.MetricLLMFinalResponse, Criterion: &evalset.Criterion{LLMJudge: &evalset.LLMCriterion{}}},
		{Name: "strict"},
	})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`metric nope: unknown evaluator "nope" (known: final_response_avg_score, final_response_match_v2, llm_final_response`,
		"metric tool_trajectory_avg_score: criterion.toolTrajectory is required",
		`xml: matchStrategy "": set it to "skip"`,
		`rougeType "rouge0"`,
		`metric strict: toolTrajectory.defaultStrategy.name: matchStrategy "fuzzy"`,
		`onlyTree.a is "yes"`,
		"metric llm_final_response: it is judged by an LLM but no judge model is configured",
		"metric strict: named twice",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	if err := s.Check([]*evalset.Metric{trajectoryMetric, containsMetric, {Name: evalset.MetricResponseMatch}}); err != nil {
		t.Errorf("valid metrics: %v", err)
	}
}

func TestCheckCasesRegexps(t *testing.T) {
	s := New()
	regexName := &evalset.Metric{Name: evalset.MetricToolTrajectory, Criterion: &evalset.Criterion{ToolTrajectory: &evalset.ToolTrajectoryCriterion{
		DefaultStrategy: &evalset.ToolStrategy{Name: &evalset.TextCriterion{MatchStrategy: evalset.TextRegex}}}}}
	regexText := &evalset.Metric{Name: evalset.MetricFinalResponse, Criterion: &evalset.Criterion{FinalResponse: &evalset.FinalResponseCriterion{
		Text: &evalset.TextCriterion{MatchStrategy: evalset.TextRegex}}}}
	cases := []*evalset.Case{
		{ID: "good", Conversation: []*evalset.Invocation{turn("a", `ship(ped)?`, &evalset.Tool{Name: "get_.*"})}},
		{ID: "bad", Conversation: []*evalset.Invocation{turn("a", "ok"), turn("b", `(unclosed`, &evalset.Tool{Name: "a(?P<x"})}},
	}
	err := s.CheckCases(cases, []*evalset.Metric{regexName, regexText})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"case bad: metric tool_trajectory_avg_score, conversation[1].tools[0].name: regex \"a(?P<x\"",
		"case bad: metric final_response_avg_score, conversation[1].finalResponse: regex \"(unclosed\"",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "case good") {
		t.Errorf("the good case is reported: %v", err)
	}
}
