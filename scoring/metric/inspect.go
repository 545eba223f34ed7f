package metric

import (
	"fmt"
	"strings"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/result"
)

// maxInspectShown bounds the text of an inspected value a reason shows.
const maxInspectShown = 200

// ScoreInspect scores a case's inspect assertions on what agent/inspect
// returned for each (seen, index for index) as the case's ecp_inspect
// metric: the share of assertions that hold, threshold 1, and a reason
// that names each failed assertion with the value the agent returned
// (truncated). An assertion without an inspection, or whose inspection
// failed, fails. nil when the case has no assertions.
func ScoreInspect(asserts []*evalset.InspectAssertion, seen []result.Inspection) *result.MetricResult {
	if len(asserts) == 0 {
		return nil
	}
	var failed []string
	held := 0
	for i, a := range asserts {
		if a == nil {
			failed = append(failed, fmt.Sprintf("assertion %d is missing", i+1))
			continue
		}
		why := checkInspection(a, i, seen)
		if why == "" {
			held++
			continue
		}
		failed = append(failed, fmt.Sprintf("%s: %s", a.Describe(), why))
	}
	m := &result.MetricResult{MetricName: result.MetricECPInspect, Threshold: 1, Score: float64(held) / float64(len(asserts))}
	m.EvalStatus = result.EvalPassed
	reason := fmt.Sprintf("%d of %d inspect assertions hold", held, len(asserts))
	if len(failed) > 0 {
		m.EvalStatus = result.EvalFailed
		reason += "; failed: " + strings.Join(failed, "; ")
	}
	m.Details = &result.MetricDetails{Reason: reason, Score: m.Score}
	return m
}

// checkInspection says why assertion i does not hold ("" when it does).
func checkInspection(a *evalset.InspectAssertion, i int, seen []result.Inspection) string {
	if i >= len(seen) || seen[i].Path != a.Path {
		return "not inspected (the case did not reach its end on an ECP agent)"
	}
	if seen[i].Error != "" {
		return truncate(seen[i].Error, maxInspectShown) // it names agent/inspect
	}
	ok, text, err := a.Check(seen[i].Value)
	switch {
	case err != nil:
		return err.Error()
	case !ok:
		return "got " + truncate(text, maxInspectShown)
	}
	return ""
}
