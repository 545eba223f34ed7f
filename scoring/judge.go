package scoring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"google.golang.org/adk/model"
	"google.golang.org/genai"
)

// LLMJudgeConfig configures the LLM judge of NL_ASSERTION criteria.
type LLMJudgeConfig struct {
	Model model.LLM
	// Samples is the number of independent verdicts per conversation
	// (0: DefaultJudgeSamples); each assertion is decided by majority, and
	// a tie fails it.
	Samples int
	// Temperature and Seed, when set, are passed to the model; sample i
	// gets Seed+i so that samples differ yet replay the same.
	Temperature *float64
	Seed        *int64
}

// DefaultJudgeSamples is the judge's default number of samples.
const DefaultJudgeSamples = 3

// LLMJudge judges natural-language assertions about a conversation with a
// language model.
type LLMJudge struct{ cfg LLMJudgeConfig }

// NewLLMJudge returns an LLM judge.
func NewLLMJudge(cfg LLMJudgeConfig) (*LLMJudge, error) {
	if cfg.Model == nil {
		return nil, errors.New("LLM judge: no model configured")
	}
	if cfg.Samples <= 0 {
		cfg.Samples = DefaultJudgeSamples
	}
	return &LLMJudge{cfg: cfg}, nil
}

const judgeSystemPrompt = `You judge a conversation between a customer-service agent and a customer. You get the transcript and a numbered list of assertions about what the agent did or said. For each assertion decide, from the transcript alone, whether it holds.

Answer with one JSON object and nothing else:
{"results": [{"index": 1, "met": true, "reasoning": "one or two sentences"}, ...]}
with exactly one entry per assertion, in order.`

// judgeVerdict is one assertion's verdict in one sample.
type judgeVerdict struct {
	Index     int    `json:"index"`
	Met       bool   `json:"met"`
	Reasoning string `json:"reasoning"`
}

// Assess implements Judge: Samples model calls, then a majority vote per
// assertion. A model call that fails fails the assessment; a reply that
// cannot be read counts as a "not met" vote for every assertion.
func (j *LLMJudge) Assess(ctx context.Context, task *domains.Task, messages []result.Message) ([]result.NLAssertionCheck, error) {
	var assertions []string
	if task.EvaluationCriteria != nil {
		assertions = task.EvaluationCriteria.NLAssertions
	}
	if len(assertions) == 0 {
		return nil, nil
	}
	prompt := judgePrompt(assertions, messages)
	met := make([]int, len(assertions))
	reasons := make([][]string, len(assertions))
	for i := range j.cfg.Samples {
		cfg := &genai.GenerateContentConfig{
			SystemInstruction: genai.NewContentFromText(judgeSystemPrompt, genai.RoleUser),
			ResponseMIMEType:  "application/json",
		}
		if j.cfg.Temperature != nil {
			cfg.Temperature = genai.Ptr(float32(*j.cfg.Temperature))
		}
		if j.cfg.Seed != nil {
			cfg.Seed = genai.Ptr(int32(*j.cfg.Seed + int64(i)))
		}
		sctx := llm.WithCallKey(ctx, "judge", strconv.Itoa(i))
		content, err := llm.Generate(sctx, j.cfg.Model, &model.LLMRequest{
			Contents: []*genai.Content{genai.NewContentFromText(prompt, genai.RoleUser)}, Config: cfg})
		if err != nil {
			return nil, fmt.Errorf("judge sample %d: %w", i+1, err)
		}
		_, text := llm.SplitContent(content)
		verdicts, perr := parseVerdicts(text, len(assertions))
		for k := range assertions {
			v, ok := verdicts[k+1]
			switch {
			case perr != nil:
				reasons[k] = append(reasons[k], fmt.Sprintf("sample %d: unreadable reply (%v), counted as not met", i+1, perr))
			case !ok:
				reasons[k] = append(reasons[k], fmt.Sprintf("sample %d: no verdict, counted as not met", i+1))
			default:
				if v.Met {
					met[k]++
				}
				reasons[k] = append(reasons[k], fmt.Sprintf("sample %d (%s): %s", i+1, metWord(v.Met), strings.TrimSpace(v.Reasoning)))
			}
		}
	}
	checks := make([]result.NLAssertionCheck, len(assertions))
	for k, a := range assertions {
		checks[k] = result.NLAssertionCheck{Assertion: a, Met: 2*met[k] > j.cfg.Samples, MetVotes: met[k], Samples: j.cfg.Samples,
			Reasoning: strings.Join(reasons[k], "\n")}
	}
	return checks, nil
}

func metWord(b bool) string {
	if b {
		return "met"
	}
	return "not met"
}

// judgePrompt shows the judge the conversation (what the user and the agent
// said, and the agent's tool calls by name) and the assertions.
func judgePrompt(assertions []string, messages []result.Message) string {
	var b strings.Builder
	b.WriteString("<transcript>\n")
	for _, m := range messages {
		switch m.Role {
		case result.RoleUser:
			if m.Content != "" {
				fmt.Fprintf(&b, "customer: %s\n", m.Content)
			}
		case result.RoleAssistant:
			if m.Content != "" && !m.Interim {
				fmt.Fprintf(&b, "agent: %s\n", m.Content)
			}
			for _, c := range m.ToolCalls {
				args, _ := json.Marshal(c.Arguments)
				fmt.Fprintf(&b, "agent calls tool %s(%s)\n", c.Name, args)
			}
		}
	}
	b.WriteString("</transcript>\n\n<assertions>\n")
	for i, a := range assertions {
		fmt.Fprintf(&b, "%d. %s\n", i+1, a)
	}
	b.WriteString("</assertions>")
	return b.String()
}

// parseVerdicts reads a judge reply tolerantly (bare JSON, fenced, or
// wrapped in prose) into verdicts by index.
func parseVerdicts(text string, n int) (map[int]judgeVerdict, error) {
	obj, ok := jsonObject(text)
	if !ok {
		return nil, errors.New("no JSON object")
	}
	var reply struct {
		Results []judgeVerdict `json:"results"`
	}
	if err := json.Unmarshal([]byte(obj), &reply); err != nil {
		return nil, err
	}
	out := map[int]judgeVerdict{}
	for i, v := range reply.Results {
		if v.Index == 0 {
			v.Index = i + 1
		}
		if v.Index < 1 || v.Index > n {
			continue
		}
		if _, dup := out[v.Index]; !dup {
			out[v.Index] = v
		}
	}
	return out, nil
}
