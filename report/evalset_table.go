package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/proctor-eval/proctor/result"
)

// Bounds of the eval-set table: characters of a reason or a text, and the
// failing case runs listed.
const (
	tableReasonChars = 200
	tableTextChars   = 120
	tableMaxFailures = 50
)

// renderEvalSetTable writes an eval-set run for terminals: its totals, a
// row per case, then the failing case runs.
func renderEvalSetTable(w io.Writer, run *result.EvalSetRun) error {
	views := caseViews(run)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "eval-set run\t%s (%s)\n", run.ID, run.Status)
	fmt.Fprintf(tw, "agent\t%s\n", AgentLabel(run.Agent))
	fmt.Fprintf(tw, "sets\t%s\n", setsLine(run.Sets))
	fmt.Fprintf(tw, "runs\t%d per case\n", max(run.Config.NumRuns, 1))
	fmt.Fprintf(tw, "cases\t%s\n", outcomeCounts(run.Summary))
	if len(run.Summary.Flaky) > 0 {
		fmt.Fprintf(tw, "flaky\t%s\n", clip(strings.Join(run.Summary.Flaky, ", "), tableReasonChars))
	}
	fmt.Fprintf(tw, "metric averages\t%s\n", metricAverages(run.Summary.MetricAverages))
	if run.Error != "" {
		fmt.Fprintf(tw, "error\t%s\n", clip(run.Error, tableReasonChars))
	}
	tableTraffic(tw, run.Metrics)
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(views) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	if err := tableCases(w, views); err != nil {
		return err
	}
	return tableFailures(w, views)
}

// tableCases writes a row per case, flaky ones marked; pass@k and pass^k
// columns when a case ran more than once.
func tableCases(w io.Writer, views []*caseView) error {
	k := maxRuns(views)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if k > 1 {
		fmt.Fprintf(tw, "CASE\tSTATUS\tRUNS PASSED\tPASS@%d\tPASS^%d\tSCORES\n", k, k)
	} else {
		fmt.Fprintln(tw, "CASE\tSTATUS\tRUNS PASSED\tSCORES")
	}
	for _, v := range views {
		s := v.summary
		status := string(outcomeOf(s))
		if s.Flaky {
			status += " (flaky)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t", clip(v.key, tableTextChars), status, s.Passed, s.Runs)
		if k > 1 {
			fmt.Fprintf(tw, "%s\t%s\t", passK(s.PassAtK, k), passK(s.PassHatK, k))
		}
		fmt.Fprintln(tw, scoresLine(s.Metrics))
	}
	return tw.Flush()
}

// tableFailures lists each case's failing runs, alike runs together: why
// each failing metric failed, and the first invocation where the agent did
// not do what was expected.
func tableFailures(w io.Writer, views []*caseView) error {
	type failure struct {
		key string
		g   runGroup
	}
	var failures []failure
	for _, v := range views {
		for _, g := range groupRuns(v.failingRuns(), tableRunStatus, tableRunBody) {
			failures = append(failures, failure{v.key, g})
		}
	}
	if len(failures) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\nFAILURES\n")
	for i, f := range failures {
		if i == tableMaxFailures {
			fmt.Fprintf(&b, "... and %d more (see --format json)\n", len(failures)-i)
			break
		}
		fmt.Fprintf(&b, "%s %s: %s\n%s", clip(f.key, tableTextChars), f.g.label(), f.g.status, f.g.body)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tableRunStatus is a failing run's status, its error if it has one.
func tableRunStatus(cr *result.CaseResult) string {
	if cr.ErrorMessage != "" {
		return "error: " + clip(cr.ErrorMessage, tableReasonChars)
	}
	return string(cr.FinalEvalStatus)
}

// tableRunBody describes a failing run: its failing metrics and its first
// mismatching invocation.
func tableRunBody(cr *result.CaseResult) string {
	var b strings.Builder
	for _, m := range failedMetrics(cr) {
		fmt.Fprintf(&b, "  %s %s", m.MetricName, metricScore(m))
		if r := MetricReason(m); r != "" {
			b.WriteString(": " + clip(r, tableReasonChars))
		}
		b.WriteString("\n")
	}
	ir, n := firstMismatch(cr)
	if ir == nil {
		return b.String()
	}
	fmt.Fprintf(&b, "  invocation %d\n", n)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "    user\t%s\n", clip(invocationUser(ir), tableTextChars))
	fmt.Fprintf(tw, "    expected\ttools %s; response %s\n", clip(toolCalls(ir.ExpectedInvocation), tableTextChars), clip(responseText(ir.ExpectedInvocation), tableTextChars))
	fmt.Fprintf(tw, "    actual\ttools %s; response %s\n", clip(toolCalls(ir.ActualInvocation), tableTextChars), clip(responseText(ir.ActualInvocation), tableTextChars))
	_ = tw.Flush()
	return b.String()
}
