package metric

import (
	"math"
	"strconv"

	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
)

// caseRuns gathers one case's runs.
type caseRuns struct {
	setID, evalID string
	runs          []*result.CaseResult
}

// Summarize totals an eval-set run: results holds every run of every case
// (of one or more sets), numRuns the runs asked for. Each case's metrics
// are averaged over its runs as tRPC-Agent-Go aggregates repeated runs
// (runs where a metric was not evaluated are left out; a metric passes when
// its average reaches its threshold; the case's status is its metrics'
// verdict, failed when none was evaluated and a run failed to score).
// Each case also gets pass@k and pass^k for k = 1..numRuns by
// tRPC-Agent-Go's formulas, the 95% Wilson interval of its pass rate, and
// is flaky when some runs passed and some did not. Cases are listed in the
// order they first appear.
func Summarize(results []*result.CaseResult, numRuns int) result.EvalSetSummary {
	var order []*caseRuns
	byKey := map[string]*caseRuns{}
	sets := map[string]bool{}
	for _, r := range results {
		if r == nil {
			continue
		}
		key := r.EvalSetID + "\x00" + r.EvalID
		cr := byKey[key]
		if cr == nil {
			cr = &caseRuns{setID: r.EvalSetID, evalID: r.EvalID}
			byKey[key] = cr
			order = append(order, cr)
		}
		cr.runs = append(cr.runs, r)
		sets[r.EvalSetID] = true
	}
	sum := result.EvalSetSummary{NumSets: len(sets), NumCases: len(order), NumRuns: numRuns, Cases: make([]result.CaseSummary, 0, len(order))}
	avg := metricAverager{}
	for _, cr := range order {
		cs := summarizeCase(cr, numRuns)
		for _, r := range cr.runs {
			avg.add(r.OverallEvalMetricResults)
		}
		switch {
		case cs.Errors == cs.Runs:
			sum.Errors++
		case cs.Status == result.EvalPassed:
			sum.Passed++
		case cs.Status == result.EvalFailed:
			sum.Failed++
		}
		if cs.Flaky {
			sum.Flaky = append(sum.Flaky, cs.EvalSetID+"/"+cs.EvalID)
		}
		sum.Cases = append(sum.Cases, cs)
	}
	sum.MetricAverages = avg.averages()
	return sum
}

// summarizeCase aggregates one case's runs.
func summarizeCase(cr *caseRuns, numRuns int) result.CaseSummary {
	cs := result.CaseSummary{EvalSetID: cr.setID, EvalID: cr.evalID, Runs: len(cr.runs)}
	avg := metricAverager{}
	runError := false
	for _, r := range cr.runs {
		if r.FinalEvalStatus == result.EvalPassed {
			cs.Passed++
		}
		if r.ErrorMessage != "" {
			cs.Errors++
			runError = true
		}
		avg.add(r.OverallEvalMetricResults)
	}
	cs.Metrics = avg.results()
	cs.Status = summarizeStatuses(cs.Metrics)
	if cs.Status == result.EvalNotEvaluated && runError {
		cs.Status = result.EvalFailed
	}
	cs.PassAtK, cs.PassHatK = map[string]float64{}, map[string]float64{}
	for k := 1; k <= min(numRuns, cs.Runs); k++ {
		cs.PassAtK[strconv.Itoa(k)] = PassAtK(cs.Runs, cs.Passed, k)
		cs.PassHatK[strconv.Itoa(k)] = PassHatK(cs.Runs, cs.Passed, k)
	}
	cs.PassRateCI95 = scoring.WilsonCI95(cs.Passed, cs.Runs)
	cs.Flaky = cs.Passed > 0 && cs.Passed < cs.Runs
	return cs
}

// metricAverager averages metric scores by name, in first-seen order,
// leaving out results that were not evaluated.
type metricAverager struct {
	order []string
	acc   map[string]*metricAcc
}

type metricAcc struct {
	n         int
	total     float64
	threshold float64
	last      *result.MetricResult
}

func (a *metricAverager) add(results []*result.MetricResult) {
	for _, m := range results {
		if m == nil || m.EvalStatus == result.EvalNotEvaluated {
			continue
		}
		if a.acc == nil {
			a.acc = map[string]*metricAcc{}
		}
		acc := a.acc[m.MetricName]
		if acc == nil {
			acc = &metricAcc{threshold: m.Threshold}
			a.acc[m.MetricName] = acc
			a.order = append(a.order, m.MetricName)
		}
		acc.n++
		acc.total += m.Score
		acc.last = m
	}
}

// results are the averaged metrics, each with its verdict against the
// threshold first seen.
func (a *metricAverager) results() []*result.MetricResult {
	out := make([]*result.MetricResult, 0, len(a.order))
	for _, name := range a.order {
		acc := a.acc[name]
		avg := acc.total / float64(acc.n)
		out = append(out, &result.MetricResult{MetricName: name, Score: avg, EvalStatus: statusFor(avg, acc.threshold),
			Threshold: acc.threshold, Criterion: acc.last.Criterion})
	}
	return out
}

func (a *metricAverager) averages() map[string]float64 {
	if len(a.order) == 0 {
		return nil
	}
	out := make(map[string]float64, len(a.order))
	for _, name := range a.order {
		out[name] = a.acc[name].total / float64(a.acc[name].n)
	}
	return out
}

// PassAtK is the chance that at least one of k runs drawn without
// replacement from n runs, c of which passed, passes: 1 - C(n-c, k)/C(n, k),
// computed in log space as tRPC-Agent-Go does. It is 0 for arguments out of
// range (k < 1, k > n, c outside 0..n).
func PassAtK(n, c, k int) float64 {
	switch {
	case k < 1 || k > n || c < 0 || c > n || c == 0:
		return 0
	case n-c < k:
		return 1
	}
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return -math.Expm1(lg(n-c) + lg(n-k) - lg(n-c-k) - lg(n))
}

// PassHatK is the chance that k independent runs all pass, estimated from
// c passes in n runs as (c/n)^k, as tRPC-Agent-Go does. It is 0 for
// arguments out of range.
func PassHatK(n, c, k int) float64 {
	switch {
	case n <= 0 || k < 1 || c <= 0 || c > n:
		return 0
	case c == n:
		return 1
	}
	return math.Exp(float64(k) * math.Log(float64(c)/float64(n)))
}
