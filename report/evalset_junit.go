package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/result"
)

// The JUnit XML that CI test reporters read (GitLab, Jenkins, GitHub
// actions): a testsuites root, a testsuite per eval set, a testcase per
// case with its runs aggregated. Each testcase has properties (runs,
// runs_passed, each metric's averaged score, threshold and status, pass@k
// and pass^k, flaky), and one of <failure> (a case that failed its
// thresholds: the failing metrics in the message, each failing run's
// reasons and first mismatching invocation in the text), <error> (a case
// none of whose runs could be played or scored) or <skipped> (a case no
// metric scored).

// junitSuites is the root. It has no skipped attribute, which Jenkins'
// schema does not allow there; its testsuites have one.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Time       string           `xml:"time,attr"`
	Timestamp  string           `xml:"timestamp,attr,omitempty"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitProperties struct {
	Items []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name       string           `xml:"name,attr"`
	Classname  string           `xml:"classname,attr"`
	Time       string           `xml:"time,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Failure    *junitOutcome    `xml:"failure,omitempty"`
	Error      *junitOutcome    `xml:"error,omitempty"`
	Skipped    *junitOutcome    `xml:"skipped,omitempty"`
}

type junitOutcome struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// junitTimestamp is the layout of a testsuite's timestamp (ISO 8601
// without a zone, in UTC, as JUnit's schema has it).
const junitTimestamp = "2006-01-02T15:04:05"

// renderJUnit writes an eval-set run as JUnit XML.
func renderJUnit(w io.Writer, run *result.EvalSetRun) error {
	views := caseViews(run)
	bySet := map[string][]*caseView{}
	for _, v := range views {
		bySet[v.summary.EvalSetID] = append(bySet[v.summary.EvalSetID], v)
	}
	root := junitSuites{Name: "proctor eval-set run " + run.ID}
	total := 0.0
	for _, g := range groupBySet(run) {
		suite, secs := junitSuiteOf(run, g.info, bySet[g.info.ID])
		root.Tests += suite.Tests
		root.Failures += suite.Failures
		root.Errors += suite.Errors
		total += secs
		root.Suites = append(root.Suites, suite)
	}
	root.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return fmt.Errorf("encode JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }

// junitSuiteOf is an eval set's testsuite and its time in seconds.
func junitSuiteOf(run *result.EvalSetRun, set result.EvalSetInfo, views []*caseView) (junitSuite, float64) {
	suite := junitSuite{Name: set.ID, Tests: len(views)}
	if !run.CreatedAt.IsZero() {
		suite.Timestamp = run.CreatedAt.UTC().Format(junitTimestamp)
	}
	suite.Properties = &junitProperties{Items: []junitProperty{
		{"agent", run.Agent.URL}, {"app_name", appName(set)}, {"format", string(set.Format)},
		{"num_runs", strconv.Itoa(max(run.Config.NumRuns, 1))}, {"run_id", run.ID},
	}}
	classname := set.ID
	if a := appName(set); a != set.ID {
		classname = a + "." + set.ID
	}
	total := 0.0
	for _, v := range views {
		tc, secs := junitCaseOf(v, classname)
		total += secs
		switch {
		case tc.Failure != nil:
			suite.Failures++
		case tc.Error != nil:
			suite.Errors++
		case tc.Skipped != nil:
			suite.Skipped++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Time = seconds(total)
	return suite, total
}

// junitCaseOf is a case's testcase and its time in seconds (its runs'
// durations summed).
func junitCaseOf(v *caseView, classname string) (junitCase, float64) {
	secs := 0.0
	for _, cr := range v.runs {
		secs += cr.DurationMS / 1000
	}
	tc := junitCase{Name: v.summary.EvalID, Classname: classname, Time: seconds(secs), Properties: junitCaseProperties(v.summary)}
	switch outcomeOf(v.summary) {
	case OutcomeFailed:
		tc.Failure = &junitOutcome{Message: junitFailureMessage(v.summary), Type: "threshold", Text: junitRunsText(v.failingRuns())}
	case OutcomeError:
		tc.Error = &junitOutcome{Message: junitErrorMessage(v), Type: "error", Text: junitRunsText(v.failingRuns())}
	case OutcomeNotEvaluated:
		tc.Skipped = &junitOutcome{Message: "no metric was evaluated"}
	}
	return tc, secs
}

// junitCaseProperties are a case's scores and run counts.
func junitCaseProperties(s result.CaseSummary) *junitProperties {
	p := []junitProperty{{"runs", strconv.Itoa(s.Runs)}, {"runs_passed", strconv.Itoa(s.Passed)}}
	if s.Errors > 0 {
		p = append(p, junitProperty{"runs_errored", strconv.Itoa(s.Errors)})
	}
	for _, m := range s.Metrics {
		if m == nil {
			continue
		}
		p = append(p,
			junitProperty{m.MetricName + ".score", strconv.FormatFloat(m.Score, 'g', -1, 64)},
			junitProperty{m.MetricName + ".threshold", strconv.FormatFloat(m.Threshold, 'g', -1, 64)},
			junitProperty{m.MetricName + ".status", string(m.EvalStatus)})
	}
	if s.Runs > 1 {
		k := strconv.Itoa(s.Runs)
		if v, ok := s.PassAtK[k]; ok {
			p = append(p, junitProperty{"pass@" + k, strconv.FormatFloat(v, 'g', -1, 64)})
		}
		if v, ok := s.PassHatK[k]; ok {
			p = append(p, junitProperty{"pass^" + k, strconv.FormatFloat(v, 'g', -1, 64)})
		}
	}
	if s.Flaky {
		p = append(p, junitProperty{"flaky", "true"})
	}
	return &junitProperties{Items: p}
}

// junitFailureMessage names the metrics that failed, or says how many runs
// did.
func junitFailureMessage(s result.CaseSummary) string {
	var parts []string
	for _, m := range s.Metrics {
		if m != nil && m.EvalStatus == result.EvalFailed {
			parts = append(parts, m.MetricName+" "+metricScore(m))
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("%d of %d runs passed", s.Passed, s.Runs)
	}
	return strings.Join(parts, "; ")
}

// junitErrorMessage is the first run's error, or what the summary says.
func junitErrorMessage(v *caseView) string {
	for _, cr := range v.runs {
		if cr.ErrorMessage != "" {
			return clip(cr.ErrorMessage, 500)
		}
	}
	return fmt.Sprintf("%d of %d runs could not be played", v.summary.Errors, v.summary.Runs)
}

// junitRunsText describes failing runs whole, alike runs together:
// errors, failing metrics with their reasons, and the first mismatching
// invocation.
func junitRunsText(runs []*result.CaseResult) string {
	var b strings.Builder
	status := func(cr *result.CaseResult) string { return string(cr.FinalEvalStatus) }
	for _, g := range groupRuns(runs, status, junitRunBody) {
		fmt.Fprintf(&b, "%s: %s\n%s", g.label(), g.status, g.body)
	}
	return b.String()
}

func junitRunBody(cr *result.CaseResult) string {
	var b strings.Builder
	if cr.ErrorMessage != "" {
		fmt.Fprintf(&b, "  error: %s\n", cr.ErrorMessage)
	}
	for _, m := range failedMetrics(cr) {
		fmt.Fprintf(&b, "  %s %s", m.MetricName, metricScore(m))
		if r := MetricReason(m); r != "" {
			fmt.Fprintf(&b, ": %s", r)
		}
		b.WriteString("\n")
	}
	if ir, n := firstMismatch(cr); ir != nil {
		fmt.Fprintf(&b, "  invocation %d\n    user: %s\n", n, invocationUser(ir))
		fmt.Fprintf(&b, "    expected: tools %s; response %s\n", toolCalls(ir.ExpectedInvocation), responseText(ir.ExpectedInvocation))
		fmt.Fprintf(&b, "    actual: tools %s; response %s\n", toolCalls(ir.ActualInvocation), responseText(ir.ActualInvocation))
	}
	return b.String()
}
