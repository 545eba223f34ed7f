package metric

import (
	"context"
	"sort"
	"strings"
	"sync"

	"google.golang.org/adk/model"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
)

// Scorer scores eval cases by named metrics. It is safe for concurrent use;
// regular expressions are compiled once and shared by every case it scores.
type Scorer struct {
	judge     model.LLM
	source    *llm.Source
	judgeSpec string

	re regexpCache

	mu      sync.Mutex
	sources map[string]*llm.Source // by judge base URL and key
}

// Option configures a Scorer.
type Option func(*Scorer)

// WithJudgeModel makes m judge every LLM-judged metric, whatever judge
// model the metric names. m is used as it is: to have its calls recorded
// under the "judge" role, make it with llm.Source.Model(ctx, spec,
// llm.RoleJudge) or wrap it with llm.Meter.
func WithJudgeModel(m model.LLM) Option { return func(s *Scorer) { s.judge = m } }

// WithJudgeSource makes the judges' models with src, so that they go
// through proctor's providers, are metered under the "judge" role and are
// recorded in or replayed from src's cassette. spec, when not empty
// ("openai:gpt-4.1"), judges every LLM-judged metric (proctor's
// --judge-model); when empty each metric's criterion.llmJudge.judgeModel
// names the model (providerName:modelName, with its baseURL and apiKey;
// ${VAR} references are expanded).
func WithJudgeSource(src *llm.Source, spec string) Option {
	return func(s *Scorer) { s.source, s.judgeSpec = src, strings.TrimSpace(spec) }
}

// New returns a Scorer.
func New(opts ...Option) *Scorer {
	s := &Scorer{}
	for _, o := range opts {
		o(s)
	}
	return s
}

// outcome is what an evaluator gives for one metric over a case's
// invocations (tRPC-Agent-Go's EvaluateResult).
type outcome struct {
	score         float64
	status        result.EvalStatus
	perInvocation []invocationScore
}

// invocationScore is an evaluator's verdict on one invocation.
type invocationScore struct {
	score   float64
	status  result.EvalStatus
	details *result.MetricDetails
}

// evaluator scores a case's invocations by one metric. An error fails the
// case (tRPC-Agent-Go's service writes it as the case's errorMessage).
type evaluator struct {
	evaluate func(ctx context.Context, s *Scorer, m *evalset.Metric, actuals, expecteds []*evalset.Invocation) (*outcome, error)
	check    func(s *Scorer, m *evalset.Metric) error
	// judged marks evaluators that call an LLM judge.
	judged bool
}

// evaluators are the evaluators proctor knows, by name.
var evaluators = map[string]evaluator{
	evalset.MetricToolTrajectory:      {evaluate: evaluateTrajectory, check: checkTrajectoryMetric},
	evalset.MetricFinalResponse:       {evaluate: evaluateFinalResponse, check: checkFinalResponseMetric},
	evalset.MetricResponseMatch:       {evaluate: evaluateResponseMatch, check: func(*Scorer, *evalset.Metric) error { return nil }},
	evalset.MetricLLMFinalResponse:    {evaluate: judgeEvaluator(finalResponseJudge), check: checkJudgeMetric(finalResponseJudge), judged: true},
	evalset.MetricFinalResponseMatch2: {evaluate: judgeEvaluator(finalResponseMatchV2Judge), check: checkJudgeMetric(finalResponseMatchV2Judge), judged: true},
	evalset.MetricLLMRubricResponse:   {evaluate: judgeEvaluator(rubricResponseJudge), check: checkJudgeMetric(rubricResponseJudge), judged: true},
	evalset.MetricLLMKnowledgeRecall:  {evaluate: judgeEvaluator(knowledgeRecallJudge), check: checkJudgeMetric(knowledgeRecallJudge), judged: true},
	evalset.MetricLLMJudgeTemplate:    {evaluate: judgeEvaluator(templateJudge), check: checkJudgeMetric(templateJudge), judged: true},
}

// Evaluators lists the evaluator names the Scorer knows, sorted.
func Evaluators() []string {
	names := make([]string, 0, len(evaluators))
	for n := range evaluators {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// statusFor is a score's verdict: passed when it reaches the threshold.
func statusFor(score, threshold float64) result.EvalStatus {
	if score >= threshold {
		return result.EvalPassed
	}
	return result.EvalFailed
}

// averageOutcome averages per-invocation scores into the metric's score;
// with no invocations the metric is not evaluated.
func averageOutcome(per []invocationScore, threshold float64) *outcome {
	if len(per) == 0 {
		return &outcome{status: result.EvalNotEvaluated}
	}
	total := 0.0
	for _, p := range per {
		total += p.score
	}
	avg := total / float64(len(per))
	return &outcome{score: avg, status: statusFor(avg, threshold), perInvocation: per}
}

// binary is a per-invocation verdict of a match: 1 when why is empty.
func binary(why string, threshold float64) invocationScore {
	score := 0.0
	if why == "" {
		score = 1
	}
	return invocationScore{score: score, status: statusFor(score, threshold), details: &result.MetricDetails{Reason: why, Score: score}}
}
