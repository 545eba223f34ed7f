package metric

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
)

func samples(n int) *int { return &n }

// judgeScorer returns a Scorer whose judge is a fake provider of the given
// kind, reached through proctor's llm package (metered, role "judge").
func judgeScorer(t *testing.T, provider string, script func(llmtest.Request) llmtest.Reply) (*Scorer, *llmtest.Server) {
	t.Helper()
	fake := map[string]func(testing.TB, func(llmtest.Request) llmtest.Reply) *llmtest.Server{
		"openai": llmtest.NewOpenAI, "gemini": llmtest.NewGemini}[provider]
	srv := fake(t, script)
	src := &llm.Source{Config: llm.Config{APIKey: "test-key", BaseURL: srv.URL, MaxRetries: -1}}
	return New(WithJudgeSource(src, "")), srv
}

func judgeMetric(name string, n int, rubrics ...string) *evalset.Metric {
	m := &evalset.Metric{Name: name, Threshold: 0.5, Criterion: &evalset.Criterion{LLMJudge: &evalset.LLMCriterion{
		JudgeModel: &evalset.JudgeModel{ProviderName: "openai", ModelName: "judge-model", NumSamples: samples(n)}}}}
	for i, r := range rubrics {
		m.Criterion.LLMJudge.Rubrics = append(m.Criterion.LLMJudge.Rubrics, &evalset.Rubric{ID: string(rune('1' + i)), Content: &evalset.RubricContent{Text: r}})
	}
	return m
}

const (
	validReply   = "reasoning: It gives the same date.\nis_the_agent_response_valid: valid"
	invalidReply = "reasoning: The date differs.\nis_the_agent_response_valid: INVALID"
)

func TestLLMFinalResponseMajority(t *testing.T) {
	tests := []struct {
		name    string
		replies []string
		want    float64
		votes   []bool // representative first
	}{
		{"two of three valid", []string{invalidReply, validReply, validReply}, 1, []bool{true, false, true}},
		{"tie fails", []string{validReply, invalidReply}, 0, []bool{false, true}},
		{"majority invalid", []string{invalidReply, invalidReply, validReply}, 0, []bool{false, false, true}},
		{"JSON verdict", []string{`{"reasoning": "same", "is_the_agent_response_valid": "valid"}`}, 1, []bool{true}},
	}
	for _, provider := range []string{"openai", "gemini"} {
		for _, tt := range tests {
			t.Run(provider+"/"+tt.name, func(t *testing.T) {
				var replies []llmtest.Reply
				for _, r := range tt.replies {
					replies = append(replies, llmtest.Reply{Text: r, InputTokens: 100, OutputTokens: 20})
				}
				s, srv := judgeScorer(t, provider, llmtest.Sequence(replies...))
				m := judgeMetric(evalset.MetricLLMFinalResponse, len(tt.replies))
				m.Criterion.LLMJudge.JudgeModel.ProviderName = provider
				c := &evalset.Case{ID: "c", Conversation: []*evalset.Invocation{turn("When does it ship?", "Monday")}}
				actual := turn("When does it ship?", "It ships Monday.")
				actual.FinalResponse.ReasoningContent = "SECRET-THOUGHT"
				ledger := &llm.Ledger{}
				got, err := s.ScoreCase(llm.WithLedger(context.Background(), ledger), c, []*evalset.Invocation{actual}, []*evalset.Metric{m})
				if err != nil || got.ErrorMessage != "" {
					t.Fatalf("err %v, case error %q", err, got.ErrorMessage)
				}
				if got.OverallEvalMetricResults[0].Score != tt.want {
					t.Errorf("score %v, want %v", got.OverallEvalMetricResults[0].Score, tt.want)
				}
				var votes []bool
				for _, v := range got.EvalMetricResultPerInvocation[0].EvalMetricResults[0].Details.Samples {
					votes = append(votes, v.Passed)
				}
				if d := cmp.Diff(tt.votes, votes); d != "" {
					t.Errorf("votes (-want +got):\n%s", d)
				}
				reqs := srv.Requests()
				if len(reqs) != len(tt.replies) {
					t.Fatalf("%d judge calls, want %d", len(reqs), len(tt.replies))
				}
				prompt := reqs[0].Messages[0].Text
				for _, want := range []string{"When does it ship?", "Monday", "It ships Monday.", "is_the_agent_response_valid"} {
					if !strings.Contains(prompt, want) {
						t.Errorf("the prompt lacks %q", want)
					}
				}
				if strings.Contains(string(reqs[0].Raw), "SECRET-THOUGHT") {
					t.Error("the judge was shown the agent's thoughts")
				}
				if len(got.LLMCalls) != len(tt.replies) || got.LLMCalls[0].Role != llm.RoleJudge || got.LLMCalls[0].InputTokens != 100 {
					t.Errorf("LLM calls %+v", got.LLMCalls)
				}
				if len(ledger.Calls()) != len(tt.replies) {
					t.Errorf("the context's ledger got %d calls", len(ledger.Calls()))
				}
			})
		}
	}
}

func TestLLMRubricResponse(t *testing.T) {
	tests := []struct {
		name   string
		reply  string
		score  float64
		rubric []*result.RubricScore
		err    string
	}{
		{"json", "```json\n" + `{"rubricScores": [{"id": "1", "score": 1, "reason": "names the date"}, {"id": "2", "score": 0, "reason": "no tracking"}]}` + "\n```",
			0.5, []*result.RubricScore{{ID: "1", Reason: "names the date", Score: 1}, {ID: "2", Reason: "no tracking"}}, ""},
		{"verdict blocks", "ID: 1\nRubric: date\nEvidence: Monday\nReason: names it\nVerdict: yes\n\nID: 2\nRubric: tracking\nEvidence: none\nReason: missing\nVerdict: no",
			0.5, []*result.RubricScore{{ID: "1", Reason: "names it", Score: 1}, {ID: "2", Reason: "missing"}}, ""},
		{"missing rubric", `{"rubricScores": [{"id": "1", "score": 1, "reason": "ok"}]}`, 0, nil, `missing rubric score id "2"`},
		{"unknown rubric", `{"rubricScores": [{"id": "1", "score": 1, "reason": "ok"}, {"id": "9", "score": 1, "reason": "ok"}]}`, 0, nil, `unexpected rubric score id "9"`},
		{"prose", "I think it is fine.", 0, nil, "no rubric scores"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, srv := judgeScorer(t, "openai", llmtest.Sequence(llmtest.Reply{Text: tt.reply}))
			m := judgeMetric(evalset.MetricLLMRubricResponse, 1, "It names the ship date.", "It gives a tracking link.")
			c := &evalset.Case{ID: "c", Mode: evalset.ModeTrace, Conversation: []*evalset.Invocation{turn("When does it ship?", "It ships Monday.")}}
			got, err := s.ScoreCase(context.Background(), c, nil, []*evalset.Metric{m})
			if err != nil {
				t.Fatal(err)
			}
			if tt.err != "" {
				if !strings.Contains(got.ErrorMessage, tt.err) || got.FinalEvalStatus != result.EvalFailed {
					t.Fatalf("status %s, error %q: want failed with %q", got.FinalEvalStatus, got.ErrorMessage, tt.err)
				}
				return
			}
			if got.ErrorMessage != "" {
				t.Fatal(got.ErrorMessage)
			}
			overall := got.OverallEvalMetricResults[0]
			if overall.Score != tt.score || overall.EvalStatus != result.EvalPassed {
				t.Errorf("score %v %s, want %v passed", overall.Score, overall.EvalStatus, tt.score)
			}
			if d := cmp.Diff(tt.rubric, overall.Details.RubricScores); d != "" {
				t.Errorf("rubric scores (-want +got):\n%s", d)
			}
			prompt := srv.Requests()[0].Messages[0].Text
			if !strings.Contains(prompt, "1: It names the ship date.\n2: It gives a tracking link.") {
				t.Errorf("the prompt does not list the rubrics:\n%s", prompt)
			}
		})
	}
}

func TestKnowledgeRecallAndTemplate(t *testing.T) {
	s, srv := judgeScorer(t, "openai", llmtest.Sequence(
		llmtest.Reply{Text: `{"rubricScores": [{"id": "1", "score": 1, "reason": "the refund window is there"}]}`},
		llmtest.Reply{Text: `{"score": 0.25, "reason": "too vague"}`},
	))
	recall := judgeMetric(evalset.MetricLLMKnowledgeRecall, 1, "The refund window is 30 days.")
	tmpl := judgeMetric("tone", 1)
	tmpl.EvaluatorName = evalset.MetricLLMJudgeTemplate
	tmpl.Criterion.LLMJudge.Template = &evalset.JudgeTemplate{ResponseScorerName: scorerSingleScore,
		Prompt: "Question: {{question}}\nAnswer: {{ answer }}\nReference: {{ref}}\nRate the tone.",
		VariableBindings: []*evalset.VariableBinding{
			{TemplateVariable: "question", Source: &evalset.VariableSource{Scope: evalset.ScopeActual, Field: evalset.FieldUserContent}},
			{TemplateVariable: "answer", Source: &evalset.VariableSource{Scope: evalset.ScopeActual, Field: evalset.FieldFinalResponse}},
			{TemplateVariable: "ref", Source: &evalset.VariableSource{Scope: evalset.ScopeExpected, Field: evalset.FieldFinalResponse}},
		}}
	if err := s.Check([]*evalset.Metric{recall, tmpl}); err != nil {
		t.Fatal(err)
	}
	search := &evalset.Tool{Name: "knowledge_search", Result: map[string]any{"documents": []any{"Refunds within 30 days."}}}
	c := &evalset.Case{ID: "c", Conversation: []*evalset.Invocation{turn("Refund?", "Within a month.")}}
	got, err := s.ScoreCase(context.Background(), c, []*evalset.Invocation{turn("Refund?", "Sure.", search)}, []*evalset.Metric{recall, tmpl})
	if err != nil || got.ErrorMessage != "" {
		t.Fatalf("%v %q", err, got.ErrorMessage)
	}
	if d := cmp.Diff(map[string]float64{"llm_rubric_knowledge_recall": 1, "tone": 0.25}, verdictOf(got).Overall); d != "" {
		t.Errorf("scores (-want +got):\n%s", d)
	}
	if got.FinalEvalStatus != result.EvalFailed {
		t.Errorf("status %s", got.FinalEvalStatus)
	}
	reqs := srv.Requests()
	if !strings.Contains(reqs[0].Messages[0].Text, "Refunds within 30 days.") {
		t.Errorf("recall prompt lacks the retrieved text:\n%s", reqs[0].Messages[0].Text)
	}
	if !strings.HasPrefix(reqs[1].Messages[0].Text, "Question: Refund?\nAnswer: Sure.\nReference: Within a month.\nRate the tone.") {
		t.Errorf("template prompt:\n%s", reqs[1].Messages[0].Text)
	}
}

func TestJudgeCheck(t *testing.T) {
	src := &llm.Source{Config: llm.Config{APIKey: "k", Getenv: func(string) string { return "" }}}
	m := judgeMetric(evalset.MetricLLMFinalResponse, 0)
	m.Criterion.LLMJudge.JudgeModel.ProviderName = "anthropic"
	err := New(WithJudgeSource(src, "")).Check([]*evalset.Metric{m,
		{Name: evalset.MetricFinalResponseMatch2}})
	for _, want := range []string{"numSamples 0", "criterion.llmJudge.judgeModel is not set"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	m.Criterion.LLMJudge.JudgeModel.NumSamples = samples(1)
	if err := New(WithJudgeSource(src, "")).Check([]*evalset.Metric{m}); err == nil || !strings.Contains(err.Error(), `judge provider "anthropic" is not supported`) {
		t.Errorf("error %v", err)
	}
	if err := New(WithJudgeSource(src, "openai:gpt-4.1")).Check([]*evalset.Metric{m, {Name: evalset.MetricFinalResponseMatch2}}); err != nil {
		t.Errorf("a run-wide judge model: %v", err)
	}
}
