package evalset

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// toCase converts the YAML case into the model: one invocation a turn, the
// top-level expectations the last turn's, and the metrics the expectations
// call for (tool_trajectory_avg_score, final_response_avg_score).
func (y *yamlCase) toCase(single bool, p problems) *Case {
	c := &Case{ID: y.Case, Transport: y.Transport, MaxSteps: y.MaxSteps, Scorer: y.Scorer}
	if len(y.Input) == 0 {
		return c
	}
	c.Inspect = y.inspectAssertions(p)
	expectations, where := y.turnExpectations(single, p)
	var tools bool
	var text textExpectation
	for k, turn := range y.Input {
		if turn == nil {
			continue
		}
		inv := &Invocation{ID: fmt.Sprintf("%s-%d", y.Case, k+1), UserContent: &Message{Role: RoleUser, Content: turn.Content}}
		e := expectations[k]
		if e != nil && e.ToolCalls != nil {
			tools = true
			inv.Tools = yamlTools(e.ToolCalls, field(where[k], "tool_calls"), p)
		}
		if e != nil && e.FinalResponse != nil {
			inv.FinalResponse = text.add(e.FinalResponse, where[k], p)
		}
		c.Conversation = append(c.Conversation, inv)
	}
	text.fillTurns(c.Conversation, single, p)
	c.Metrics = yamlMetrics(tools, text.criterion)
	return c
}

// turnExpectations are each turn's expectations and where they are
// written, the top-level ones the last turn's.
func (y *yamlCase) turnExpectations(single bool, p problems) ([]*yamlExpected, []string) {
	out, where := make([]*yamlExpected, len(y.Input)), make([]string, len(y.Input))
	for k, turn := range y.Input {
		if turn != nil {
			out[k], where[k] = turn.Expected, field(turnPath(k, single), "expected")
		}
	}
	last := len(out) - 1
	if y.Expected != nil && out[last] != nil {
		p.add("expected", "the last turn's expectations are given twice: here and in %s", where[last])
	}
	if y.Expected != nil {
		out[last], where[last] = y.Expected, "expected"
	}
	return out, where
}

func turnPath(k int, single bool) string {
	if single {
		return "input"
	}
	return index("input", k)
}

func yamlTools(calls []*yamlToolCall, path string, p problems) []*Tool {
	tools := make([]*Tool, 0, len(calls))
	for k, tc := range calls {
		if tc == nil {
			continue
		}
		t := &Tool{Name: tc.Name, ArgsContain: tc.ArgsContain, Parallel: tc.Parallel}
		if tc.Result.Kind != 0 {
			raw, err := yamlNodeJSON(&tc.Result)
			if err != nil {
				p.add(field(index(path, k), "result"), "%v", err)
			} else if err := json.Unmarshal(raw, &t.Result); err != nil {
				p.add(field(index(path, k), "result"), "%v", err)
			}
		}
		tools = append(tools, t)
	}
	return tools
}

// inspectAssertions converts and checks the case's inspect list.
func (y *yamlCase) inspectAssertions(p problems) []*InspectAssertion {
	if len(y.Inspect) == 0 {
		return nil
	}
	out := make([]*InspectAssertion, len(y.Inspect))
	for k, yi := range y.Inspect {
		if yi == nil {
			continue
		}
		a := &InspectAssertion{Path: yi.Path, Contains: yi.Contains, Matches: yi.Matches}
		if yi.Equals.Kind != 0 {
			raw, err := yamlNodeJSON(&yi.Equals)
			if err != nil {
				p.add(field(index("inspect", k), "equals"), "case %q: %v", y.Case, err)
				raw = json.RawMessage("null")
			}
			a.Equals = raw
		}
		out[k] = a
	}
	validateInspect(&Case{ID: y.Case, Inspect: out}, "inspect", func(s string) string { return s }, p)
	return out
}

// yamlNodeJSON is a YAML value as JSON.
func yamlNodeJSON(n *yaml.Node) (json.RawMessage, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid YAML value: %w", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("a value JSON cannot hold (mapping keys must be strings): %w", err)
	}
	return b, nil
}

// textExpectation gathers a case's final text criteria: one criterion for
// all its turns, as a metric has one.
type textExpectation struct {
	criterion *TextCriterion
	where     string
}

// add reads one turn's final_response into the expected message.
func (t *textExpectation) add(y *yamlText, path string, p problems) *Message {
	path = field(path, "final_response")
	crit, target, ok := y.criterion(path, p)
	if !ok {
		return nil
	}
	switch {
	case t.criterion == nil:
		t.criterion, t.where = crit, path
	case *t.criterion != *crit:
		p.add(path, "uses %s, but %s uses %s: a case's turns share one text criterion", describeText(crit), t.where, describeText(t.criterion))
	}
	return &Message{Role: RoleAssistant, Content: target}
}

// fillTurns gives turns without a final_response an empty target, which
// contains and regex match whatever the agent says; equals cannot.
func (t *textExpectation) fillTurns(conv []*Invocation, single bool, p problems) {
	if t.criterion == nil {
		return
	}
	for k, inv := range conv {
		if inv.FinalResponse != nil {
			continue
		}
		if t.criterion.MatchStrategy == TextExact {
			p.add(turnPath(k, single), "has no final_response, but %s uses equals: give every turn one, or use contains or regex", t.where)
			continue
		}
		inv.FinalResponse = &Message{Role: RoleAssistant}
	}
}

// criterion is the text criterion and its target; the regex is checked
// here, as tRPC-Agent-Go compiles it (lower-cased when case-insensitive).
func (y *yamlText) criterion(path string, p problems) (*TextCriterion, string, bool) {
	var given []string
	crit := &TextCriterion{CaseInsensitive: y.CaseInsensitive}
	var target string
	for _, c := range []struct {
		key   string
		value *string
		match TextMatch
	}{{"equals", y.Equals, TextExact}, {"contains", y.Contains, TextContains}, {"regex", y.Regex, TextRegex}} {
		if c.value != nil {
			given = append(given, c.key)
			crit.MatchStrategy, target = c.match, *c.value
		}
	}
	if len(given) != 1 {
		p.add(path, "give exactly one of equals, contains, regex (got %d)", len(given))
		return nil, "", false
	}
	if crit.MatchStrategy == TextRegex {
		if _, err := regexp.Compile(regexSource(target, y.CaseInsensitive)); err != nil {
			p.add(field(path, "regex"), "invalid regular expression: %v", err)
			return nil, "", false
		}
	}
	return crit, target, true
}

func describeText(c *TextCriterion) string {
	name := map[TextMatch]string{TextExact: "equals", TextContains: "contains", TextRegex: "regex"}[c.MatchStrategy]
	if c.CaseInsensitive {
		name += " (case_insensitive)"
	}
	return name
}

// yamlMetrics are the metrics a YAML case's expectations call for.
func yamlMetrics(tools bool, text *TextCriterion) []*Metric {
	var metrics []*Metric
	if tools {
		metrics = append(metrics, &Metric{Name: MetricToolTrajectory, Threshold: 1, Criterion: &Criterion{
			ToolTrajectory: &ToolTrajectoryCriterion{
				DefaultStrategy: &ToolStrategy{
					Name:      &TextCriterion{MatchStrategy: TextExact},
					Arguments: &JSONCriterion{Ignore: true},
					Result:    &JSONCriterion{Ignore: true},
				},
				OrderSensitive: true,
			},
		}})
	}
	if text != nil {
		metrics = append(metrics, &Metric{Name: MetricFinalResponse, Threshold: 1, Criterion: &Criterion{
			FinalResponse: &FinalResponseCriterion{Text: text},
		}})
	}
	return metrics
}

// regexSource is the text a regex criterion compiles: tRPC-Agent-Go
// lower-cases both texts before compiling when the match ignores case.
func regexSource(pattern string, caseInsensitive bool) string {
	if caseInsensitive {
		return strings.ToLower(pattern)
	}
	return pattern
}
