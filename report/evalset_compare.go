package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/proctor-eval/proctor/result"
)

// scoreEpsilon absorbs floating-point noise in score differences, so that a
// drop of exactly the tolerance is not a regression.
const scoreEpsilon = 1e-9

// Comparison is an eval-set run compared with a baseline run, case by case
// (cases are matched by "<evalSetId>/<evalId>").
type Comparison struct {
	// Base and Current are the ids of the runs compared.
	Base    string `json:"base"`
	Current string `json:"current"`
	// Tolerance is how far a metric's averaged score may drop before it is
	// a regression.
	Tolerance float64 `json:"tolerance"`
	// Regressions are the cases that passed and now fail or error, or one
	// of whose metrics dropped by more than Tolerance.
	Regressions []CaseChange `json:"regressions"`
	// Improvements are the cases that failed or errored and now pass, or
	// one of whose metrics rose by more than Tolerance.
	Improvements []CaseChange `json:"improvements"`
	// Added and Removed are the cases only the current run, or only the
	// baseline, has.
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	// Unchanged counts the cases in both runs that are in neither list.
	Unchanged int `json:"unchanged"`
}

// HasRegressions says whether the current run regressed (proctor evalset
// run exits 4).
func (c Comparison) HasRegressions() bool { return len(c.Regressions) > 0 }

// CaseChange is one case's change between the runs. A case can be both a
// regression (one metric dropped) and an improvement (another rose); each
// list then holds it with its own metrics.
type CaseChange struct {
	Case string `json:"case"`
	// BaseOutcome and Outcome are the case's outcome in each run.
	BaseOutcome CaseOutcome `json:"base_outcome"`
	Outcome     CaseOutcome `json:"outcome"`
	// Metrics are the metrics whose averaged score moved beyond the
	// tolerance in this list's direction.
	Metrics []MetricChange `json:"metrics,omitempty"`
}

// MetricChange is a metric whose averaged score moved.
type MetricChange struct {
	Metric    string  `json:"metric"`
	Base      float64 `json:"base"`
	Current   float64 `json:"current"`
	Delta     float64 `json:"delta"`
	Threshold float64 `json:"threshold"`
}

// CompareEvalSets compares cur with base: a case regresses when it passed
// and now fails or errors, or when a metric's score averaged over its runs
// dropped by more than tolerance; it improves the other way round. Metrics
// not evaluated in either run are not compared. Cases keep cur's order
// (removed ones base's).
func CompareEvalSets(base, cur *result.EvalSetRun, tolerance float64) Comparison {
	c := Comparison{Tolerance: tolerance, Regressions: []CaseChange{}, Improvements: []CaseChange{}, Added: []string{}, Removed: []string{}}
	if base == nil || cur == nil {
		return c
	}
	c.Base, c.Current = base.ID, cur.ID
	baseViews := map[string]*caseView{}
	for _, v := range caseViews(base) {
		baseViews[v.key] = v
	}
	seen := map[string]bool{}
	for _, v := range caseViews(cur) {
		seen[v.key] = true
		b, ok := baseViews[v.key]
		if !ok {
			c.Added = append(c.Added, v.key)
			continue
		}
		reg, imp := compareCase(b.summary, v.summary, tolerance)
		if reg != nil {
			c.Regressions = append(c.Regressions, *reg)
		}
		if imp != nil {
			c.Improvements = append(c.Improvements, *imp)
		}
		if reg == nil && imp == nil {
			c.Unchanged++
		}
	}
	for _, v := range caseViews(base) {
		if !seen[v.key] {
			c.Removed = append(c.Removed, v.key)
		}
	}
	return c
}

// compareCase is a case's regression and improvement, each nil when there
// is none.
func compareCase(base, cur result.CaseSummary, tolerance float64) (reg, imp *CaseChange) {
	bo, co := outcomeOf(base), outcomeOf(cur)
	key := cur.EvalSetID + "/" + cur.EvalID
	mkChange := func() *CaseChange { return &CaseChange{Case: key, BaseOutcome: bo, Outcome: co} }
	if bo == OutcomePassed && (co == OutcomeFailed || co == OutcomeError) {
		reg = mkChange()
	}
	if (bo == OutcomeFailed || bo == OutcomeError) && co == OutcomePassed {
		imp = mkChange()
	}
	baseScores := map[string]*result.MetricResult{}
	for _, m := range base.Metrics {
		if m != nil && m.EvalStatus != result.EvalNotEvaluated {
			baseScores[m.MetricName] = m
		}
	}
	for _, m := range cur.Metrics {
		if m == nil || m.EvalStatus == result.EvalNotEvaluated {
			continue
		}
		b, ok := baseScores[m.MetricName]
		if !ok {
			continue
		}
		d := m.Score - b.Score
		change := MetricChange{Metric: m.MetricName, Base: b.Score, Current: m.Score, Delta: math.Round(d*1e9) / 1e9, Threshold: m.Threshold}
		switch {
		case -d > tolerance+scoreEpsilon:
			if reg == nil {
				reg = mkChange()
			}
			reg.Metrics = append(reg.Metrics, change)
		case d > tolerance+scoreEpsilon:
			if imp == nil {
				imp = mkChange()
			}
			imp.Metrics = append(imp.Metrics, change)
		}
	}
	return reg, imp
}

// WriteComparison renders a comparison in format: Table (a line per
// regressed or improved case and metric, then the cases added and
// removed), Markdown (the same as tables) or JSON (the Comparison,
// indented).
func WriteComparison(w io.Writer, format Format, c Comparison) error {
	switch format {
	case JSON:
		return writeJSON(w, c)
	case Markdown:
		return comparisonMarkdown(w, c)
	case Table:
		return comparisonTable(w, c)
	}
	return fmt.Errorf("unknown comparison format %q: want table, json or markdown", format)
}

// changeLine describes a case's change: "passed -> failed" and each
// metric's move.
func changeLine(ch CaseChange) string {
	var parts []string
	if ch.BaseOutcome != ch.Outcome {
		parts = append(parts, fmt.Sprintf("%s -> %s", ch.BaseOutcome, ch.Outcome))
	}
	for _, m := range ch.Metrics {
		parts = append(parts, fmt.Sprintf("%s %.3f -> %.3f (%+.3f)", m.Metric, m.Base, m.Current, m.Delta))
	}
	return strings.Join(parts, "; ")
}

func comparisonTable(w io.Writer, c Comparison) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "baseline\t%s\n", c.Base)
	fmt.Fprintf(tw, "current\t%s\n", c.Current)
	fmt.Fprintf(tw, "tolerance\t%.3f\n", c.Tolerance)
	fmt.Fprintf(tw, "cases\t%d regressed, %d improved, %d unchanged, %d added, %d removed\n",
		len(c.Regressions), len(c.Improvements), c.Unchanged, len(c.Added), len(c.Removed))
	for _, sec := range []struct {
		title   string
		changes []CaseChange
	}{{"REGRESSED", c.Regressions}, {"IMPROVED", c.Improvements}} {
		if len(sec.changes) == 0 {
			continue
		}
		fmt.Fprintf(tw, "\n%s\n", sec.title)
		for _, ch := range sec.changes {
			fmt.Fprintf(tw, "%s\t%s\n", clip(ch.Case, tableTextChars), changeLine(ch))
		}
	}
	if len(c.Added) > 0 {
		fmt.Fprintf(tw, "\nadded\t%s\n", clip(strings.Join(c.Added, ", "), 1000))
	}
	if len(c.Removed) > 0 {
		fmt.Fprintf(tw, "removed\t%s\n", clip(strings.Join(c.Removed, ", "), 1000))
	}
	return tw.Flush()
}

func comparisonMarkdown(w io.Writer, c Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Compared with baseline `%s`\n\n", c.Base)
	verdict := "no regression"
	if c.HasRegressions() {
		verdict = fmt.Sprintf("**%d regressed**", len(c.Regressions))
	}
	fmt.Fprintf(&b, "Run `%s`, tolerance %.3f: %s, %d improved, %d unchanged, %d added, %d removed.\n",
		c.Current, c.Tolerance, verdict, len(c.Improvements), c.Unchanged, len(c.Added), len(c.Removed))
	for _, sec := range []struct {
		title   string
		changes []CaseChange
	}{{"Regressions", c.Regressions}, {"Improvements", c.Improvements}} {
		if len(sec.changes) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n\n| case | outcome | metric changes |\n|---|---|---|\n", sec.title)
		for _, ch := range sec.changes {
			fmt.Fprintf(&b, "| %s | %s → %s | %s |\n", mdText(ch.Case, mdTextChars), ch.BaseOutcome, ch.Outcome, mdText(orDash(metricChanges(ch.Metrics)), 1000))
		}
	}
	if len(c.Added) > 0 {
		fmt.Fprintf(&b, "\nAdded: %s\n", mdText(strings.Join(c.Added, ", "), 2000))
	}
	if len(c.Removed) > 0 {
		fmt.Fprintf(&b, "\nRemoved: %s\n", mdText(strings.Join(c.Removed, ", "), 2000))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func metricChanges(ms []MetricChange) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = fmt.Sprintf("%s %.3f → %.3f (%+.3f)", m.Metric, m.Base, m.Current, m.Delta)
	}
	return strings.Join(parts, "; ")
}
