package report

import (
	"fmt"
	"math"
)

// NoisePower is the power at which NoiseFloor.MinDetectable is computed:
// a true difference of that size is found four times in five.
const NoisePower = 0.8

// Verdicts of a comparison against the noise (NoiseFloor.Verdict).
const (
	VerdictImproved     = "improved"
	VerdictRegressed    = "regressed"
	VerdictInconclusive = "inconclusive"
	VerdictUnchanged    = "unchanged"
)

// NoiseFloor is how large a difference in pass^1 two evaluations of the
// shared tasks can tell from the noise of their trials. Each side's
// standard error is that of its pass^1 over the shared tasks were the
// same tasks run again: from the variance of each task's outcome over its
// trials (c(n-c)/(n(n-1))), divided by its trials. A task of one trial
// has no variance of its own and takes the mean variance of the side's
// tasks that have more; a side of one trial everywhere takes p(1-p) of
// its pass^1, an upper bound (it counts the differences between tasks
// too). The minimum detectable difference is (z(1-alpha/2) + z(power)) x
// sqrt(SE_A^2 + SE_B^2); a difference smaller than it is inconclusive.
type NoiseFloor struct {
	BaseSE    float64 `json:"base_se"`
	CurrentSE float64 `json:"current_se"`
	// UpperBound is true when a side had one trial per task and its
	// standard error is the upper bound p(1-p).
	UpperBound    bool    `json:"upper_bound,omitempty"`
	Alpha         float64 `json:"alpha"`
	Power         float64 `json:"power"`
	MinDetectable float64 `json:"min_detectable_difference"`
	// Delta is B's pass^1 minus A's over the shared tasks; Verdict says
	// whether it is beyond the noise: improved or regressed, inconclusive
	// below MinDetectable, unchanged when it and the noise are both 0.
	Delta   float64 `json:"delta"`
	Verdict string  `json:"verdict"`
}

// noiseFloor compares the shared tasks' difference in pass^1 with the
// noise of their trials, at alpha (two-sided) and NoisePower.
func noiseFloor(tasks []TaskComparison, alpha float64, delta float64) NoiseFloor {
	base, baseBound := sideSE(tasks, func(t TaskComparison) TaskOutcome { return t.Base })
	cur, curBound := sideSE(tasks, func(t TaskComparison) TaskOutcome { return t.Current })
	n := NoiseFloor{BaseSE: round6(base), CurrentSE: round6(cur), UpperBound: baseBound || curBound,
		Alpha: alpha, Power: NoisePower, Delta: round6(delta)}
	n.MinDetectable = round6((zQuantile(1-alpha/2) + zQuantile(NoisePower)) * math.Hypot(base, cur))
	switch {
	case len(tasks) == 0 || (math.Abs(delta) <= scoreEpsilon && n.MinDetectable <= scoreEpsilon):
		n.Verdict = VerdictUnchanged
	case math.Abs(delta) < n.MinDetectable-scoreEpsilon:
		n.Verdict = VerdictInconclusive
	case delta > 0:
		n.Verdict = VerdictImproved
	default:
		n.Verdict = VerdictRegressed
	}
	return n
}

// sideSE is the standard error of one side's pass^1 over the tasks (see
// NoiseFloor), and whether it is the one-trial upper bound.
func sideSE(tasks []TaskComparison, side func(TaskComparison) TaskOutcome) (float64, bool) {
	if len(tasks) == 0 {
		return 0, false
	}
	pooled, repeated, pass := 0.0, 0, 0.0
	for _, t := range tasks {
		o := side(t)
		pass += float64(o.Successes) / float64(o.Trials)
		if o.Trials >= 2 {
			pooled += withinVariance(o)
			repeated++
		}
	}
	bound := repeated == 0
	if bound {
		p := pass / float64(len(tasks))
		pooled = p * (1 - p)
	} else {
		pooled /= float64(repeated)
	}
	sum := 0.0
	for _, t := range tasks {
		o := side(t)
		v := pooled
		if o.Trials >= 2 {
			v = withinVariance(o)
		}
		sum += v / float64(o.Trials)
	}
	return math.Sqrt(sum) / float64(len(tasks)), bound
}

// withinVariance is the unbiased variance of a task's pass/fail outcome
// over its trials (two or more).
func withinVariance(o TaskOutcome) float64 {
	c, n := float64(o.Successes), float64(o.Trials)
	return c * (n - c) / (n * (n - 1))
}

// zQuantile is the standard normal quantile of p (0 < p < 1).
func zQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// noiseLine says the noise floor's verdict in one line.
func noiseLine(n NoiseFloor) string {
	bound := ""
	if n.UpperBound {
		bound = ", an upper bound: one trial per task"
	}
	return fmt.Sprintf("%s: delta pass^1 %+.3f, minimum detectable difference %.3f (alpha %.2f, power %.0f%%; SE A %.3f, B %.3f%s)",
		n.Verdict, n.Delta, n.MinDetectable, n.Alpha, 100*n.Power, n.BaseSE, n.CurrentSE, bound)
}
