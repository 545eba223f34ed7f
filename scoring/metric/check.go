package metric

import (
	"errors"
	"fmt"
	"strings"

	"github.com/proctor-eval/proctor/evalset"
)

// Check validates metrics before any case is scored, reporting every
// violation: a metric without a name or named twice, an unknown evaluator
// (listing the known ones), a missing or malformed criterion (a tool
// trajectory metric needs criterion.toolTrajectory, a final response one
// criterion.finalResponse: no defaults are implied), a criterion naming Go
// code (compareName), and an LLM-judged metric with no judge to call.
func (s *Scorer) Check(metrics []*evalset.Metric) error {
	var errs []error
	seen := map[string]bool{}
	for i, m := range metrics {
		if m == nil {
			errs = append(errs, fmt.Errorf("metrics[%d]: empty metric", i))
			continue
		}
		if strings.TrimSpace(m.Name) == "" {
			errs = append(errs, fmt.Errorf("metrics[%d]: metricName is empty", i))
			continue
		}
		if seen[m.Name] {
			errs = append(errs, fmt.Errorf("metric %s: named twice: metric names must be unique in a set", m.Name))
		}
		seen[m.Name] = true
		if err := s.checkMetric(m); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// checkMetric validates one metric.
func (s *Scorer) checkMetric(m *evalset.Metric) error {
	ev, ok := evaluators[m.Evaluator()]
	if !ok {
		return fmt.Errorf("metric %s: unknown evaluator %q (known: %s)", m.Name, m.Evaluator(), strings.Join(Evaluators(), ", "))
	}
	if err := ev.check(s, m); err != nil {
		return fmt.Errorf("metric %s: %w", m.Name, err)
	}
	return nil
}

// CheckCases validates what the cases bring to the metrics: each case's own
// metrics (as Check does) and rubrics, and every regular expression the
// metrics will compile from an expected text (a tool name or final
// response matched by regex), compiling each once (RE2) so that scoring
// reuses it. Errors name the case, the invocation and the field.
func (s *Scorer) CheckCases(cases []*evalset.Case, metrics []*evalset.Metric) error {
	var errs []error
	for i, c := range cases {
		if c == nil {
			errs = append(errs, fmt.Errorf("cases[%d]: empty case", i))
			continue
		}
		for _, m := range c.Metrics {
			if m == nil {
				continue
			}
			if err := s.checkMetric(m); err != nil {
				errs = append(errs, fmt.Errorf("case %s: %w", c.ID, err))
			}
		}
		effective, err := effectiveMetrics(c, metrics)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, s.checkRegexps(c, effective))
	}
	return errors.Join(errs...)
}

// checkRegexps compiles the patterns a case's expected texts give the
// metrics' regex criteria.
func (s *Scorer) checkRegexps(c *evalset.Case, metrics []*evalset.Metric) error {
	var errs []error
	reported := map[string]bool{}
	compile := func(where string, t *evalset.TextCriterion, target string) {
		if p, ok := regexTarget(t, target); ok && !reported[where+"\x00"+p] {
			reported[where+"\x00"+p] = true
			if _, err := s.re.compile(p); err != nil {
				errs = append(errs, fmt.Errorf("case %s: %s: regex %q: %w", c.ID, where, p, err))
			}
		}
	}
	for _, m := range metrics {
		if m.Criterion == nil {
			continue
		}
		for i, inv := range c.Conversation {
			if inv == nil {
				continue
			}
			at := fmt.Sprintf("metric %s, conversation[%d]", m.Name, i)
			if fr := m.Criterion.FinalResponse; fr != nil && m.Evaluator() == evalset.MetricFinalResponse {
				compile(at+".finalResponse", fr.Text, inv.FinalResponse.Text())
			}
			if tt := m.Criterion.ToolTrajectory; tt != nil && m.Evaluator() == evalset.MetricToolTrajectory {
				for k, tool := range inv.Tools {
					if tool == nil {
						continue
					}
					// Any strategy may apply to the call: the actual
					// tool's name picks it.
					for _, st := range append([]*evalset.ToolStrategy{tt.DefaultStrategy}, mapValues(tt.ToolStrategy)...) {
						if st != nil {
							compile(fmt.Sprintf("%s.tools[%d].name", at, k), st.Name, tool.Name)
						}
					}
				}
			}
		}
	}
	return errors.Join(errs...)
}

func mapValues[V any](m map[string]V) []V {
	out := make([]V, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}
