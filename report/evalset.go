package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/result"
)

// Formats of eval-set runs beyond Table, JSON and Markdown.
const (
	// JUnit is JUnit XML for CI test reporters: a testsuite per eval set,
	// a testcase per case (its runs aggregated).
	JUnit Format = "junit"
	// EvalSetResult is tRPC-Agent-Go's evalset_result.json layout (see
	// WriteEvalSetResults).
	EvalSetResult Format = "evalset-result"
)

// EvalSetFormats lists the formats of an eval-set run's results, for
// flags and their messages.
func EvalSetFormats() []Format { return []Format{Table, JSON, Markdown, JUnit, EvalSetResult} }

// CaseOutcome is a case's verdict over all its runs, as the reports show
// it.
type CaseOutcome string

// Case outcomes.
const (
	OutcomePassed CaseOutcome = "passed"
	OutcomeFailed CaseOutcome = "failed"
	// OutcomeError is a case none of whose runs could be played or scored.
	OutcomeError CaseOutcome = "error"
	// OutcomeNotEvaluated is a case no metric scored.
	OutcomeNotEvaluated CaseOutcome = "not_evaluated"
)

// outcomeOf is a case summary's outcome: an error when every run errored
// (or none was scored and some errored), else its status.
func outcomeOf(cs result.CaseSummary) CaseOutcome {
	if cs.Runs > 0 && cs.Errors >= cs.Runs {
		return OutcomeError
	}
	switch cs.Status {
	case result.EvalPassed:
		return OutcomePassed
	case result.EvalFailed:
		return OutcomeFailed
	}
	if cs.Errors > 0 {
		return OutcomeError
	}
	return OutcomeNotEvaluated
}

// WriteEvalSetRun renders an eval-set run in format:
//
//   - Table: the run's totals and request metrics, a row per case (its
//     status, runs passed, each metric's score averaged over the runs
//     against its threshold, pass@k and pass^k when cases ran more than
//     once, a flaky marker), then each failing case run with the reason of
//     each failing metric and its first mismatching invocation.
//   - JSON: the run as stored, indented.
//   - Markdown: for pull requests: the totals, a table of cases, and each
//     failing case with its failing metrics and, in collapsed details, the
//     expected and actual tool calls and final responses of each failing
//     run.
//   - JUnit: JUnit XML (see JUnit).
//   - EvalSetResult: the run's one eval set in tRPC-Agent-Go's
//     evalset_result layout (a run of several sets needs
//     WriteEvalSetResults).
//
// Long and multi-line texts are cut in Table and Markdown; JSON, JUnit and
// EvalSetResult keep them whole.
func WriteEvalSetRun(w io.Writer, format Format, run *result.EvalSetRun) error {
	if run == nil {
		return fmt.Errorf("render eval-set run: no run")
	}
	switch format {
	case Table:
		return renderEvalSetTable(w, run)
	case JSON:
		return writeJSON(w, run)
	case Markdown:
		return renderEvalSetMarkdown(w, run)
	case JUnit:
		return renderJUnit(w, run)
	case EvalSetResult:
		return renderOneTRPCResult(w, run)
	}
	return fmt.Errorf("unknown eval-set report format %q: want one of %v", format, EvalSetFormats())
}

// renderOneTRPCResult writes the run's one eval set as tRPC's
// EvalSetResult.
func renderOneTRPCResult(w io.Writer, run *result.EvalSetRun) error {
	groups := groupBySet(run)
	if len(groups) != 1 {
		return fmt.Errorf("the evalset-result format writes one eval set to a stream, and this run has %d: write them to a directory (--out-dir)", len(groups))
	}
	data, err := encodeTRPC(newTRPCResult(run, groups[0]))
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// caseView is a case with its summary and its runs, in the run's order.
type caseView struct {
	key     string // "<evalSetId>/<evalId>"
	summary result.CaseSummary
	runs    []*result.CaseResult
}

// caseViews pairs the run's case summaries with their case runs. When the
// run has no case summaries (a run recorded without them), they are the
// ones tRPC-Agent-Go's evaluator computes from the case runs.
func caseViews(run *result.EvalSetRun) []*caseView {
	summaries := run.Summary.Cases
	if len(summaries) == 0 && len(run.Cases) > 0 {
		for _, g := range groupBySet(run) {
			var trpc []*trpcCaseResult
			for _, cr := range g.cases {
				trpc = append(trpc, newTRPCCaseResult(cr))
			}
			summaries = append(summaries, caseSummariesFromTRPC(g.info.ID, summarizeTRPC(trpc, max(run.Config.NumRuns, 1)))...)
		}
	}
	index := map[string]*caseView{}
	views := make([]*caseView, 0, len(summaries))
	for _, s := range summaries {
		v := &caseView{key: s.EvalSetID + "/" + s.EvalID, summary: s}
		if index[v.key] == nil {
			index[v.key] = v
			views = append(views, v)
		}
	}
	for _, cr := range run.Cases {
		if cr == nil {
			continue
		}
		if v := index[cr.EvalSetID+"/"+cr.EvalID]; v != nil {
			v.runs = append(v.runs, cr)
		}
	}
	return views
}

// failingRuns are a case's runs that did not pass.
func (v *caseView) failingRuns() []*result.CaseResult {
	var out []*result.CaseResult
	for _, cr := range v.runs {
		if cr.FinalEvalStatus != result.EvalPassed {
			out = append(out, cr)
		}
	}
	return out
}

// metricScore renders a metric's score against its threshold:
// "0.667<1.000" when it failed, "1.000>=1.000" when it passed, "n/a" when
// it was not evaluated.
func metricScore(m *result.MetricResult) string {
	switch m.EvalStatus {
	case result.EvalPassed:
		return fmt.Sprintf("%.3f>=%.3f", m.Score, m.Threshold)
	case result.EvalFailed:
		return fmt.Sprintf("%.3f<%.3f", m.Score, m.Threshold)
	}
	return "n/a"
}

// scoresLine renders a case's metrics as "name score", separated by two
// spaces.
func scoresLine(ms []*result.MetricResult) string {
	parts := make([]string, 0, len(ms))
	for _, m := range ms {
		if m != nil {
			parts = append(parts, m.MetricName+" "+metricScore(m))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "  ")
}

// maxRuns is the largest number of runs of any case.
func maxRuns(views []*caseView) int {
	n := 0
	for _, v := range views {
		n = max(n, v.summary.Runs)
	}
	return n
}

// passK renders a pass@k or pass^k value for k, or "-".
func passK(m map[string]float64, k int) string {
	v, ok := m[fmt.Sprint(k)]
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

// outcomeCounts renders the totals: "4: 1 passed, 2 failed, 1 error".
func outcomeCounts(s result.EvalSetSummary) string {
	return fmt.Sprintf("%d: %d passed, %d failed, %s", s.NumCases, s.Passed, s.Failed, Plural(s.Errors, "error"))
}

// setsLine names the run's sets: "smoke (trpc, 4 cases)".
func setsLine(sets []result.EvalSetInfo) string {
	if len(sets) == 0 {
		return "-"
	}
	parts := make([]string, len(sets))
	for i, s := range sets {
		parts[i] = fmt.Sprintf("%s (%s, %s)", s.ID, s.Format, Plural(s.NumCases, "case"))
	}
	return strings.Join(parts, ", ")
}

// metricAverages renders each metric's average over the case runs, by
// name.
func metricAverages(m map[string]float64) string {
	if len(m) == 0 {
		return "-"
	}
	parts := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %.3f", k, m[k]))
	}
	return strings.Join(parts, "  ")
}

// firstMismatch is the first invocation of a case run where a metric
// failed, and its 1-based index; nil when there is none.
func firstMismatch(cr *result.CaseResult) (*result.InvocationResult, int) {
	for i, ir := range cr.EvalMetricResultPerInvocation {
		if ir == nil {
			continue
		}
		for _, m := range ir.EvalMetricResults {
			if m != nil && m.EvalStatus == result.EvalFailed {
				return ir, i + 1
			}
		}
	}
	return nil, 0
}

// failedMetrics are a case run's overall metric results that failed.
func failedMetrics(cr *result.CaseResult) []*result.MetricResult {
	var out []*result.MetricResult
	for _, m := range cr.OverallEvalMetricResults {
		if m != nil && m.EvalStatus == result.EvalFailed {
			out = append(out, m)
		}
	}
	return out
}

// MetricReason is why a metric scored as it did, rubric verdicts included
// (the reports and the viewer show it).
func MetricReason(m *result.MetricResult) string {
	if m.Details == nil {
		return ""
	}
	reason := readableReason(m.Details.Reason)
	if len(m.Details.RubricScores) > 0 {
		var rs []string
		for _, r := range m.Details.RubricScores {
			if r != nil {
				rs = append(rs, fmt.Sprintf("%s=%g", r.ID, r.Score))
			}
		}
		if reason != "" {
			reason += "; "
		}
		reason += "rubrics " + strings.Join(rs, " ")
	}
	return reason
}

// readableReason is a metric's overall reason for people: tRPC-Agent-Go
// joins its invocations' reasons with ";", empty ones too
// ("0 tool calls, expected 1;;"), which the stored result keeps as it
// is; shown, the empty ones are left out and the rest joined with "; ".
func readableReason(reason string) string {
	var parts []string
	for p := range strings.SplitSeq(reason, ";") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "; ")
}

// toolCalls renders an invocation's tool calls as `name {"arg":1}`,
// separated by "; ", or "-".
func toolCalls(inv *evalset.Invocation) string {
	if inv == nil || len(inv.Tools) == 0 {
		return "-"
	}
	parts := make([]string, 0, len(inv.Tools))
	for _, t := range inv.Tools {
		if t == nil {
			continue
		}
		args := ""
		if t.Arguments != nil {
			if b, err := json.Marshal(t.Arguments); err == nil {
				args = " " + string(b)
			}
		}
		parts = append(parts, t.Name+args)
	}
	return strings.Join(parts, "; ")
}

// responseText is an invocation's final response text in quotes, or "-".
func responseText(inv *evalset.Invocation) string {
	if inv == nil || inv.FinalResponse == nil {
		return "-"
	}
	return `"` + inv.FinalResponse.Text() + `"`
}

// runGroup is failing runs of a case that went wrong the same way.
type runGroup struct {
	runs   []int
	status string
	body   string
}

// label names the group's runs: "run 2" or "runs 1, 2, 3".
func (g runGroup) label() string {
	ids := make([]string, len(g.runs))
	for i, r := range g.runs {
		ids[i] = fmt.Sprint(r)
	}
	if len(ids) == 1 {
		return "run " + ids[0]
	}
	return "runs " + strings.Join(ids, ", ")
}

// groupRuns groups a case's failing runs whose status and rendered body
// (render's) are the same, in the order of their first run, so that a case
// failing alike in every run is described once.
func groupRuns(runs []*result.CaseResult, status func(*result.CaseResult) string, render func(*result.CaseResult) string) []runGroup {
	var groups []runGroup
	index := map[string]int{}
	for _, cr := range runs {
		st, body := status(cr), render(cr)
		key := st + "\x00" + body
		if i, ok := index[key]; ok {
			groups[i].runs = append(groups[i].runs, cr.RunID)
			continue
		}
		index[key] = len(groups)
		groups = append(groups, runGroup{runs: []int{cr.RunID}, status: st, body: body})
	}
	return groups
}

// Plural is "1 case" or "3 cases": a count and its noun, made plural
// with an s when the count is not one.
func Plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// userText is an invocation's user message, or "-".
func userText(inv *evalset.Invocation) string {
	if inv == nil || inv.UserContent == nil {
		return "-"
	}
	return inv.UserContent.Text()
}

// invocationUser is the user message of an invocation result: the
// expected one's, else the actual one's.
func invocationUser(ir *result.InvocationResult) string {
	if u := userText(ir.ExpectedInvocation); u != "-" {
		return u
	}
	return userText(ir.ActualInvocation)
}

// clip makes s one line of at most n characters (n >= 2): runs of white
// space and control characters become one space, invalid UTF-8 is
// replaced, and a longer text is cut with "…".
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}
