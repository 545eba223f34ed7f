package metric

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"google.golang.org/adk/model"
	"google.golang.org/genai"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
)

// Judge defaults, tRPC-Agent-Go's: one sample, at most 2000 tokens,
// temperature 0.8. ADK's final_response_match_v2 takes five samples.
const (
	defaultJudgeSamples   = 1
	adkJudgeSamples       = 5
	defaultJudgeMaxTokens = 2000
	defaultJudgeTemp      = 0.8
	// maxJudgeSamples bounds the judge calls per invocation.
	maxJudgeSamples = 100
)

// judgeKind is one LLM-judged evaluator: how it asks and how it reads the
// verdict.
type judgeKind struct {
	name           string
	defaultSamples int
	// needsCriterion: tRPC-Agent-Go's judges require criterion.llmJudge.
	needsCriterion bool
	// jsonReply asks the model for a JSON reply.
	jsonReply func(m *evalset.Metric) bool
	// prompt is the judge's prompt for the last invocation of the turns
	// so far.
	prompt func(m *evalset.Metric, actuals, expecteds []*evalset.Invocation) (string, error)
	// score reads one reply.
	score func(m *evalset.Metric, reply string) (*judgeScore, error)
	// check validates what the kind needs of the metric.
	check func(m *evalset.Metric) error
}

// judgeScore is one sample's verdict.
type judgeScore struct {
	score   float64
	reason  string
	rubrics []*result.RubricScore
}

func noJSON(*evalset.Metric) bool  { return false }
func yesJSON(*evalset.Metric) bool { return true }

// judgeEvaluator runs a judge: for each invocation, numSamples replies,
// each scored; the majority verdict's first sample represents the
// invocation (a tie takes a failed one); the invocations' scores are
// averaged.
func judgeEvaluator(k judgeKind) func(context.Context, *Scorer, *evalset.Metric, []*evalset.Invocation, []*evalset.Invocation) (*outcome, error) {
	return func(ctx context.Context, s *Scorer, m *evalset.Metric, actuals, expecteds []*evalset.Invocation) (*outcome, error) {
		if k.needsCriterion && (m.Criterion == nil || m.Criterion.LLMJudge == nil) {
			return nil, errors.New("missing criterion.llmJudge")
		}
		n, err := numSamples(m, k.defaultSamples)
		if err != nil {
			return nil, err
		}
		judge, err := s.judgeFor(ctx, m)
		if err != nil {
			return nil, err
		}
		per := make([]invocationScore, len(actuals))
		for i := range actuals {
			prompt, err := k.prompt(m, actuals[:i+1], expecteds[:i+1])
			if err != nil {
				return nil, fmt.Errorf("construct messages: %w", err)
			}
			samples := make([]*result.JudgeSample, n)
			for j := range n {
				sctx := llm.WithCallKey(ctx, "judge", m.Name, strconv.Itoa(i), strconv.Itoa(j))
				reply, err := askJudge(sctx, judge, prompt, judgeGeneration(m), k.jsonReply(m))
				if err != nil {
					return nil, fmt.Errorf("judge response: %w", err)
				}
				sc, err := k.score(m, reply)
				if err != nil {
					return nil, fmt.Errorf("score based on response: %w", err)
				}
				samples[j] = &result.JudgeSample{Score: sc.score, Passed: sc.score >= m.Threshold, Reason: sc.reason, RubricScores: sc.rubrics}
			}
			per[i] = majority(samples, m.Threshold)
		}
		return averageOutcome(per, m.Threshold), nil
	}
}

// majority picks the representative sample: the first passing one when
// more samples passed than failed, else the first failing one. The
// details list it first, then the other votes in order.
func majority(samples []*result.JudgeSample, threshold float64) invocationScore {
	pass, fail := -1, -1
	passed := 0
	for i, s := range samples {
		if s.Passed {
			passed++
			if pass < 0 {
				pass = i
			}
		} else if fail < 0 {
			fail = i
		}
	}
	rep := fail
	if passed > len(samples)-passed {
		rep = pass
	}
	votes := append([]*result.JudgeSample{samples[rep]}, samples[:rep]...)
	votes = append(votes, samples[rep+1:]...)
	r := samples[rep]
	return invocationScore{score: r.Score, status: statusFor(r.Score, threshold),
		details: &result.MetricDetails{Reason: r.Reason, Score: r.Score, RubricScores: r.RubricScores, Samples: votes}}
}

// numSamples is the metric's judge sample count.
func numSamples(m *evalset.Metric, def int) (int, error) {
	n := def
	if jm := judgeModelOf(m); jm != nil && jm.NumSamples != nil {
		n = *jm.NumSamples
	}
	if n <= 0 || n > maxJudgeSamples {
		return 0, fmt.Errorf("numSamples %d: want 1 to %d", n, maxJudgeSamples)
	}
	return n, nil
}

func judgeModelOf(m *evalset.Metric) *evalset.JudgeModel {
	if m.Criterion == nil || m.Criterion.LLMJudge == nil {
		return nil
	}
	return m.Criterion.LLMJudge.JudgeModel
}

// judgeGeneration is the metric's sampling settings, else the defaults.
func judgeGeneration(m *evalset.Metric) *genai.GenerateContentConfig {
	cfg := &genai.GenerateContentConfig{MaxOutputTokens: defaultJudgeMaxTokens, Temperature: genai.Ptr(float32(defaultJudgeTemp))}
	jm := judgeModelOf(m)
	if jm == nil || jm.Generation == nil {
		return cfg
	}
	g := jm.Generation
	cfg = &genai.GenerateContentConfig{StopSequences: g.Stop}
	if g.MaxTokens != nil {
		cfg.MaxOutputTokens = int32(min(max(*g.MaxTokens, 0), 1<<20))
	}
	if g.Temperature != nil {
		cfg.Temperature = genai.Ptr(float32(*g.Temperature))
	}
	if g.TopP != nil {
		cfg.TopP = genai.Ptr(float32(*g.TopP))
	}
	return cfg
}

// askJudge makes one judge call and returns the reply's text (thoughts
// left out).
func askJudge(ctx context.Context, judge model.LLM, prompt string, cfg *genai.GenerateContentConfig, jsonReply bool) (string, error) {
	c := *cfg
	if jsonReply {
		c.ResponseMIMEType = "application/json"
	}
	content, err := llm.Generate(ctx, judge, &model.LLMRequest{
		Contents: []*genai.Content{genai.NewContentFromText(prompt, genai.RoleUser)}, Config: &c})
	if err != nil {
		return "", err
	}
	_, text := llm.SplitContent(content)
	if strings.TrimSpace(text) == "" {
		return "", errors.New("empty response text")
	}
	return text, nil
}

// judgeFor returns the model that judges a metric.
func (s *Scorer) judgeFor(ctx context.Context, m *evalset.Metric) (model.LLM, error) {
	if s.judge != nil {
		return s.judge, nil
	}
	if s.source == nil {
		return nil, errors.New("no judge model: configure one (proctor's --judge-model)")
	}
	if s.judgeSpec != "" {
		return s.source.Model(ctx, s.judgeSpec, llm.RoleJudge)
	}
	spec, src, err := s.metricJudge(judgeModelOf(m))
	if err != nil {
		return nil, err
	}
	return src.Model(ctx, spec, llm.RoleJudge)
}

// metricJudge reads a metric's judge model: its spec, and the source that
// reaches it (the Scorer's, or one with the model's base URL and key).
func (s *Scorer) metricJudge(jm *evalset.JudgeModel) (string, *llm.Source, error) {
	if jm == nil {
		return "", nil, errors.New("criterion.llmJudge.judgeModel is not set: set its providerName and modelName, or give a judge model (proctor's --judge-model)")
	}
	getenv := s.source.Config.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	expand := func(v string) string { return strings.TrimSpace(os.Expand(v, getenv)) }
	provider, name := strings.ToLower(expand(jm.ProviderName)), expand(jm.ModelName)
	if provider == "" || name == "" {
		return "", nil, errors.New("criterion.llmJudge.judgeModel needs providerName and modelName, or give a judge model (proctor's --judge-model)")
	}
	if !known(provider, llm.Providers()) {
		return "", nil, fmt.Errorf("judge provider %q is not supported (known: %s)", provider, strings.Join(llm.Providers(), ", "))
	}
	spec := provider + ":" + name
	base, key := expand(jm.BaseURL), expand(jm.APIKey)
	if base == "" && key == "" {
		return spec, s.source, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := base + "\x00" + key
	if src, ok := s.sources[id]; ok {
		return spec, src, nil
	}
	cfg := s.source.Config
	if base != "" {
		cfg.BaseURL = base
	}
	if key != "" {
		cfg.APIKey = key
	}
	src := &llm.Source{Config: cfg, Prices: s.source.Prices, Cassette: s.source.Cassette, Sink: s.source.Sink, TracerProvider: s.source.TracerProvider, Limits: s.source.Limits}
	if s.sources == nil {
		s.sources = map[string]*llm.Source{}
	}
	s.sources[id] = src
	return spec, src, nil
}

func known(v string, list []string) bool {
	for _, k := range list {
		if k == v {
			return true
		}
	}
	return false
}

// checkJudgeMetric validates an LLM-judged metric: its criterion, its
// sample count, that a judge can be called, and what its kind needs.
func checkJudgeMetric(k judgeKind) func(*Scorer, *evalset.Metric) error {
	return func(s *Scorer, m *evalset.Metric) error {
		if k.needsCriterion && (m.Criterion == nil || m.Criterion.LLMJudge == nil) {
			return errors.New("criterion.llmJudge is required: add one with its judgeModel (or give a judge model) and, for rubric metrics, its rubrics")
		}
		if _, err := numSamples(m, k.defaultSamples); err != nil {
			return fmt.Errorf("criterion.llmJudge.judgeModel.%w", err)
		}
		switch {
		case s.judge != nil:
		case s.source != nil && s.judgeSpec != "":
			if _, _, err := llm.ParseSpec(s.judgeSpec); err != nil {
				return err
			}
		case s.source == nil:
			return errors.New("it is judged by an LLM but no judge model is configured: give one (proctor's --judge-model provider:model)")
		default:
			if _, _, err := s.metricJudge(judgeModelOf(m)); err != nil {
				return err
			}
		}
		if k.check != nil {
			return k.check(m)
		}
		return nil
	}
}
