package evalset

import (
	"fmt"

	"github.com/go-playground/validator/v10"
)

// validateMetrics checks a list of metrics: names given and unique, known
// evaluators, thresholds in [0, 1], known strategies, and no compareName
// (a Go function registered in tRPC-Agent-Go code, which proctor cannot
// run).
func validateMetrics(metrics []*Metric, prefix string, p problems) {
	v := validator.New()
	seen := map[string]int{}
	for i, m := range metrics {
		path := index(prefix, i)
		if m == nil {
			p.add(path, "missing")
			continue
		}
		checkMetricName(m, path, seen, i, prefix, p)
		if err := v.Var(m.Threshold, "gte=0,lte=1"); err != nil {
			p.add(field(path, "threshold"), "%v is outside [0, 1]", m.Threshold)
		}
		if m.Criterion != nil {
			checkCriterion(m.Criterion, field(path, "criterion"), p)
		}
	}
}

func checkMetricName(m *Metric, path string, seen map[string]int, i int, prefix string, p problems) {
	switch first, dup := seen[m.Name]; {
	case m.Name == "":
		p.add(field(path, "metricName"), "missing")
	case dup:
		p.add(field(path, "metricName"), "duplicate metric name %q (also %s)", m.Name, index(prefix, first))
	default:
		seen[m.Name] = i
	}
	if m.Name == "" || isKnownMetric(m.Evaluator()) {
		return
	}
	at := "metricName"
	if m.EvaluatorName != "" {
		at = "evaluatorName"
	}
	p.add(field(path, at), "unknown metric %q; known: %s (ADK's %s is read from test_config.json)",
		m.Evaluator(), knownList(KnownMetrics()), ADKRubricFinalResponse)
}

func checkCriterion(c *Criterion, path string, p problems) {
	if tt := c.ToolTrajectory; tt != nil {
		tpath := field(path, "toolTrajectory")
		refuseCompareName(tt.CompareName, tpath, p)
		checkToolStrategy(tt.DefaultStrategy, field(tpath, "defaultStrategy"), p)
		for _, name := range sortedKeys(tt.ToolStrategy) {
			checkToolStrategy(tt.ToolStrategy[name], field(field(tpath, "toolStrategy"), name), p)
		}
	}
	if fr := c.FinalResponse; fr != nil {
		fpath := field(path, "finalResponse")
		refuseCompareName(fr.CompareName, fpath, p)
		checkText(fr.Text, field(fpath, "text"), p)
		checkJSON(fr.JSON, field(fpath, "json"), p)
		checkRouge(fr.Rouge, field(fpath, "rouge"), p)
	}
	if j := c.LLMJudge; j != nil && j.JudgeModel != nil && j.JudgeModel.NumSamples != nil && *j.JudgeModel.NumSamples < 1 {
		p.add(field(path, "llmJudge.judgeModel.numSamples"), "must be at least 1")
	}
}

func checkToolStrategy(s *ToolStrategy, path string, p problems) {
	if s == nil {
		return
	}
	checkText(s.Name, field(path, "name"), p)
	checkJSON(s.Arguments, field(path, "arguments"), p)
	checkJSON(s.Result, field(path, "result"), p)
}

func checkText(t *TextCriterion, path string, p problems) {
	if t == nil {
		return
	}
	refuseCompareName(t.CompareName, path, p)
	switch t.MatchStrategy {
	case "", TextExact, TextContains, TextRegex, TextSkip:
	default:
		p.add(field(path, "matchStrategy"), "unknown strategy %q: want exact, contains, regex or skip", t.MatchStrategy)
	}
	if l := t.Length; l != nil && l.Min != nil && l.Max != nil && *l.Min > *l.Max {
		p.add(field(path, "length"), "min %d is above max %d", *l.Min, *l.Max)
	}
}

func checkJSON(j *JSONCriterion, path string, p problems) {
	if j == nil {
		return
	}
	refuseCompareName(j.CompareName, path, p)
	switch j.MatchStrategy {
	case "", JSONExact, JSONSkip:
	default:
		p.add(field(path, "matchStrategy"), "unknown strategy %q: want exact or skip", j.MatchStrategy)
	}
	if j.NumberTolerance != nil && *j.NumberTolerance < 0 {
		p.add(field(path, "numberTolerance"), "must not be negative")
	}
}

func checkRouge(r *RougeCriterion, path string, p problems) {
	if r == nil {
		return
	}
	switch r.Measure {
	case "", RougeF1, RougePrecision, RougeRecall:
	default:
		p.add(field(path, "measure"), "unknown measure %q: want f1, precision or recall", r.Measure)
	}
	for _, t := range []struct {
		name  string
		value float64
	}{{"precision", r.Threshold.Precision}, {"recall", r.Threshold.Recall}, {"f1", r.Threshold.F1}} {
		if t.value < 0 || t.value > 1 {
			p.add(field(path, "threshold."+t.name), "%v is outside [0, 1]", t.value)
		}
	}
}

func refuseCompareName(name, path string, p problems) {
	if name != "" {
		p.add(field(path, "compareName"), "%s", fmt.Sprintf("%q names a comparison registered in tRPC-Agent-Go code, which proctor cannot run: remove it and use the matchStrategy options", name))
	}
}
