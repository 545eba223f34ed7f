package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/proctor-eval/proctor/result"
)

// Bounds of the eval-set Markdown, which must fit in a pull-request
// comment: characters of a text or a reason, failing cases detailed and
// failing runs detailed per case.
const (
	mdTextChars      = 300
	mdMaxFailedCases = 30
	mdMaxFailedRuns  = 3
)

// outcomeBadge marks a case outcome for Markdown.
func outcomeBadge(o CaseOutcome) string {
	switch o {
	case OutcomePassed:
		return "✅ passed"
	case OutcomeFailed:
		return "❌ failed"
	case OutcomeError:
		return "⚠️ error"
	}
	return "➖ not evaluated"
}

// mdText makes s fit in Markdown, a table cell included: one line of at
// most n characters, with pipes and HTML's special characters escaped, so
// that an agent's text cannot break the table or the details around it.
func mdText(s string, n int) string {
	s = clip(s, n)
	s = strings.ReplaceAll(htmlEscaper.Replace(s), "|", `\|`)
	if s == "" {
		return " "
	}
	return s
}

// renderEvalSetMarkdown writes an eval-set run as Markdown, for pull
// requests: totals, a table of cases, and the failing cases.
func renderEvalSetMarkdown(w io.Writer, run *result.EvalSetRun) error {
	views := caseViews(run)
	var b strings.Builder
	fmt.Fprintf(&b, "## proctor eval-set run `%s`\n\n", run.ID)
	fmt.Fprintf(&b, "Agent %s, status **%s**, %d runs per case.\n\n", mdText(AgentLabel(run.Agent), mdTextChars), run.Status, max(run.Config.NumRuns, 1))
	b.WriteString("| metric | value |\n|---|---|\n")
	fmt.Fprintf(&b, "| eval sets | %s |\n", mdText(setsLine(run.Sets), mdTextChars))
	fmt.Fprintf(&b, "| cases | %s |\n", outcomeCounts(run.Summary))
	if len(run.Summary.Flaky) > 0 {
		fmt.Fprintf(&b, "| flaky | %s |\n", mdText(strings.Join(run.Summary.Flaky, ", "), mdTextChars))
	}
	fmt.Fprintf(&b, "| metric averages | %s |\n", mdText(metricAverages(run.Summary.MetricAverages), mdTextChars))
	if run.Error != "" {
		fmt.Fprintf(&b, "| error | %s |\n", mdText(run.Error, mdTextChars))
	}
	markdownTraffic(&b, run.Metrics)
	markdownCases(&b, views)
	markdownFailingCases(&b, views)
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownCases writes the table of cases.
func markdownCases(b *strings.Builder, views []*caseView) {
	if len(views) == 0 {
		return
	}
	k := maxRuns(views)
	if k > 1 {
		fmt.Fprintf(b, "\n| case | status | runs passed | scores | pass@%d | pass^%d |\n|---|---|---|---|---|---|\n", k, k)
	} else {
		b.WriteString("\n| case | status | runs passed | scores |\n|---|---|---|---|\n")
	}
	for _, v := range views {
		s := v.summary
		status := outcomeBadge(outcomeOf(s))
		if s.Flaky {
			status += ", flaky"
		}
		scores := make([]string, 0, len(s.Metrics))
		for _, m := range s.Metrics {
			if m != nil {
				scores = append(scores, mdText(m.MetricName+" "+metricScore(m), mdTextChars))
			}
		}
		fmt.Fprintf(b, "| %s | %s | %d/%d | %s |", mdText(v.key, mdTextChars), status, s.Passed, s.Runs, orDash(strings.Join(scores, "<br>")))
		if k > 1 {
			fmt.Fprintf(b, " %s | %s |", passK(s.PassAtK, k), passK(s.PassHatK, k))
		}
		b.WriteString("\n")
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// markdownFailingCases writes each case that did not pass: its metrics and,
// collapsed, its failing runs.
func markdownFailingCases(b *strings.Builder, views []*caseView) {
	var failing []*caseView
	for _, v := range views {
		if outcomeOf(v.summary) != OutcomePassed || len(v.failingRuns()) > 0 {
			failing = append(failing, v)
		}
	}
	if len(failing) == 0 {
		return
	}
	b.WriteString("\n### Failing cases\n")
	for i, v := range failing {
		if i == mdMaxFailedCases {
			fmt.Fprintf(b, "\n…and %d more cases that did not pass (see the JSON report).\n", len(failing)-i)
			return
		}
		markdownFailingCase(b, v)
	}
}

// markdownFailingCase writes one case that did not pass.
func markdownFailingCase(b *strings.Builder, v *caseView) {
	s := v.summary
	note := fmt.Sprintf("%d of %d runs passed", s.Passed, s.Runs)
	if s.Flaky {
		note += ", flaky"
	}
	fmt.Fprintf(b, "\n#### %s: %s (%s)\n\n", mdText(v.key, mdTextChars), outcomeOf(s), note)
	if len(s.Metrics) > 0 {
		b.WriteString("| metric | average score | threshold | status |\n|---|---|---|---|\n")
		for _, m := range s.Metrics {
			if m != nil {
				fmt.Fprintf(b, "| %s | %.3f | %.3f | %s |\n", mdText(m.MetricName, mdTextChars), m.Score, m.Threshold, m.EvalStatus)
			}
		}
	}
	groups := groupRuns(v.failingRuns(), markdownRunStatus, markdownRunBody)
	for i, g := range groups {
		if i == mdMaxFailedRuns {
			fmt.Fprintf(b, "\n…and %d more failing runs.\n", len(groups)-i)
			break
		}
		fmt.Fprintf(b, "\n<details><summary>%s: %s</summary>\n\n%s\n</details>\n", g.label(), g.status, g.body)
	}
}

// markdownRunStatus is a failing run's status.
func markdownRunStatus(cr *result.CaseResult) string {
	if cr.ErrorMessage != "" {
		return "error"
	}
	return mdText(string(cr.FinalEvalStatus), mdTextChars)
}

// markdownRunBody describes a failing run: its error, why each failing
// metric failed, then the first mismatching invocation, expected beside
// actual.
func markdownRunBody(cr *result.CaseResult) string {
	var b strings.Builder
	if cr.ErrorMessage != "" {
		fmt.Fprintf(&b, "Error: %s\n", mdText(cr.ErrorMessage, mdTextChars))
	}
	for _, m := range failedMetrics(cr) {
		fmt.Fprintf(&b, "- **%s** %s", mdText(m.MetricName, mdTextChars), mdText(metricScore(m), 40))
		if r := MetricReason(m); r != "" {
			fmt.Fprintf(&b, ": %s", mdText(r, mdTextChars))
		}
		b.WriteString("\n")
	}
	if ir, n := firstMismatch(cr); ir != nil {
		fmt.Fprintf(&b, "\nInvocation %d, the first that did not match:\n\n", n)
		b.WriteString("| | expected | actual |\n|---|---|---|\n")
		fmt.Fprintf(&b, "| user | %s | |\n", mdText(invocationUser(ir), mdTextChars))
		fmt.Fprintf(&b, "| tool calls | %s | %s |\n", mdText(toolCalls(ir.ExpectedInvocation), mdTextChars), mdText(toolCalls(ir.ActualInvocation), mdTextChars))
		fmt.Fprintf(&b, "| final response | %s | %s |\n", mdText(responseText(ir.ExpectedInvocation), mdTextChars), mdText(responseText(ir.ActualInvocation), mdTextChars))
	}
	return b.String()
}
