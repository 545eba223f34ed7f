package metric

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/proctor-eval/proctor/evalset"
)

// Template response scorers and aggregators (tRPC-Agent-Go's names).
const (
	scorerSingleScore  = "single_score"
	scorerRubricScores = "rubric_scores"
	aggregatorMajority = "majority_vote"
	aggregatorAverage  = "average"
)

// templateVar matches a {{variable}} reference in a template prompt.
var templateVar = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}`)

func templateOf(m *evalset.Metric) *evalset.JudgeTemplate {
	if m.Criterion == nil || m.Criterion.LLMJudge == nil {
		return nil
	}
	return m.Criterion.LLMJudge.Template
}

// checkTemplate validates an llm_judge_template metric: a prompt, a known
// response scorer and aggregators, bindings of supported fields, and every
// variable of the prompt bound.
func checkTemplate(m *evalset.Metric) error {
	t := templateOf(m)
	if t == nil {
		return errors.New("criterion.llmJudge.template is required")
	}
	var errs []error
	if strings.TrimSpace(t.Prompt) == "" {
		errs = append(errs, errors.New("template.prompt is empty"))
	}
	switch t.ResponseScorerName {
	case scorerSingleScore, scorerRubricScores:
	default:
		errs = append(errs, fmt.Errorf("template.responseScorerName %q is not one of %s, %s", t.ResponseScorerName, scorerSingleScore, scorerRubricScores))
	}
	if n := t.SampleAggregatorName; n != "" && n != aggregatorMajority {
		errs = append(errs, fmt.Errorf("template.sampleAggregatorName %q is not %s", n, aggregatorMajority))
	}
	if n := t.InvocationAggregatorName; n != "" && n != aggregatorAverage {
		errs = append(errs, fmt.Errorf("template.invocationAggregatorName %q is not %s", n, aggregatorAverage))
	}
	bound := map[string]bool{}
	for i, b := range t.VariableBindings {
		name, err := checkBinding(b, bound)
		if err != nil {
			errs = append(errs, fmt.Errorf("template.variableBindings[%d]: %w", i, err))
			continue
		}
		bound[name] = true
	}
	for _, v := range templateVar.FindAllStringSubmatch(t.Prompt, -1) {
		if !bound[v[1]] {
			errs = append(errs, fmt.Errorf("template.prompt uses {{%s}}, which no variableBinding binds", v[1]))
			bound[v[1]] = true
		}
	}
	return errors.Join(errs...)
}

func checkBinding(b *evalset.VariableBinding, bound map[string]bool) (string, error) {
	if b == nil {
		return "", errors.New("binding is empty")
	}
	name := strings.TrimSpace(b.TemplateVariable)
	switch {
	case name == "":
		return "", errors.New("templateVariable is empty")
	case bound[name]:
		return "", fmt.Errorf("templateVariable %q is bound twice", name)
	case b.Source == nil:
		return "", fmt.Errorf("templateVariable %q has no source", name)
	}
	switch *b.Source {
	case evalset.VariableSource{Scope: evalset.ScopeActual, Field: evalset.FieldUserContent},
		evalset.VariableSource{Scope: evalset.ScopeActual, Field: evalset.FieldFinalResponse},
		evalset.VariableSource{Scope: evalset.ScopeExpected, Field: evalset.FieldFinalResponse}:
		return name, nil
	}
	return "", fmt.Errorf("templateVariable %q: source %s.%s is not one of actual.userContent, actual.finalResponse, expected.finalResponse", name, b.Source.Scope, b.Source.Field)
}

// templatePrompt renders the template with its variables bound to the
// last invocation's fields, then says what form the reply takes.
func templatePrompt(m *evalset.Metric, actuals, expecteds []*evalset.Invocation) (string, error) {
	if err := checkTemplate(m); err != nil {
		return "", err
	}
	t := templateOf(m)
	values := map[string]string{}
	for _, b := range t.VariableBindings {
		v, err := bindingValue(b.Source, last(actuals), last(expecteds))
		if err != nil {
			return "", fmt.Errorf("template variable %q: %w", b.TemplateVariable, err)
		}
		values[strings.TrimSpace(b.TemplateVariable)] = v
	}
	rendered := templateVar.ReplaceAllStringFunc(t.Prompt, func(ref string) string {
		return values[templateVar.FindStringSubmatch(ref)[1]]
	})
	switch t.ResponseScorerName {
	case scorerSingleScore:
		rendered += "\n\nReply with one JSON object and nothing else:\n{\"score\": <a number from 0 to 1>, \"reason\": \"<a short explanation>\"}"
	case scorerRubricScores:
		rendered += "\n\n" + rubricFormat
	}
	return rendered, nil
}

func bindingValue(src *evalset.VariableSource, actual, expected *evalset.Invocation) (string, error) {
	switch src.Scope {
	case evalset.ScopeActual:
		if src.Field == evalset.FieldUserContent {
			return text(actual.UserContent), nil
		}
		return text(actual.FinalResponse), nil
	}
	if expected.FinalResponse == nil {
		return "", errors.New("the expected invocation has no finalResponse")
	}
	return text(expected.FinalResponse), nil
}

// scoreTemplate reads the reply with the template's response scorer.
func scoreTemplate(m *evalset.Metric, reply string) (*judgeScore, error) {
	if templateOf(m).ResponseScorerName == scorerRubricScores {
		return scoreRubrics(m, reply)
	}
	var obj struct {
		Score  *float64 `json:"score"`
		Reason *string  `json:"reason"`
	}
	if err := decodeReplyJSON(reply, &obj); err != nil {
		return nil, fmt.Errorf("unmarshal response json: %w", err)
	}
	switch {
	case obj.Score == nil:
		return nil, errors.New("score is required")
	case obj.Reason == nil:
		return nil, errors.New("reason is required")
	case *obj.Score < 0 || *obj.Score > 1:
		return nil, errors.New("score must be between 0 and 1")
	}
	return &judgeScore{score: *obj.Score, reason: *obj.Reason}, nil
}
