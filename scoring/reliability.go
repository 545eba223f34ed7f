package scoring

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/proctor-eval/proctor/result"
)

// BootstrapResamples is the number of resamples of the bootstrap interval
// of pass^1 (result.Reliability.PassHat1BootstrapCI95).
const BootstrapResamples = 2000

// BootstrapSeed seeds the bootstrap, so that an evaluation's interval is
// the same every time it is computed.
const BootstrapSeed uint64 = 27

// taskOutcomes is one task's pass/fail outcome per trial.
type taskOutcomes struct {
	id     string
	passed map[int]bool // trial -> passed
	n, c   int
}

// Reliability computes the noise floor of a set of simulations (see
// result.Reliability): nil unless some task has two or more trials.
// Tasks are ordered as Summarize orders them. A simulation counts as a
// pass as it does for pass^k (result.Passed).
func Reliability(sims []result.Simulation, taskOrder []string) *result.Reliability {
	per := map[string]*taskOutcomes{}
	for _, s := range sims {
		t := per[s.TaskID]
		if t == nil {
			t = &taskOutcomes{id: s.TaskID, passed: map[int]bool{}}
			per[s.TaskID] = t
		}
		t.n++
		if s.Passed() {
			t.c++
		}
		t.passed[s.Trial] = s.Passed()
	}
	tasks := make([]*taskOutcomes, 0, len(per))
	repeated := []*taskOutcomes{}
	for _, id := range orderedTasks(per, taskOrder) {
		tasks = append(tasks, per[id])
		if per[id].n >= 2 {
			repeated = append(repeated, per[id])
		}
	}
	if len(repeated) == 0 {
		return nil
	}
	r := &result.Reliability{Tasks: len(repeated), FlippingTasks: []string{}, ICC1: icc1(repeated),
		BootstrapResamples: BootstrapResamples, BootstrapSeed: BootstrapSeed}
	for _, t := range repeated {
		if t.c > 0 && t.c < t.n {
			r.FlippingTasks = append(r.FlippingTasks, t.id)
		}
	}
	r.FlipShare = round6(float64(len(r.FlippingTasks)) / float64(len(repeated)))
	r.PerTrial, r.TrialSpread = perTrial(tasks)
	r.PassHat1BootstrapCI95 = bootstrapPassHat1(tasks, BootstrapResamples, BootstrapSeed)
	return r
}

// icc1 is ICC(1), the one-way random-effects intraclass correlation of
// the tasks' outcomes, with the unbalanced-design n0 when tasks have
// different numbers of trials; nil when it is undefined (fewer than two
// tasks, or no variance at all).
func icc1(tasks []*taskOutcomes) *float64 {
	a := float64(len(tasks))
	total, passes, sumSq := 0.0, 0.0, 0.0
	for _, t := range tasks {
		total += float64(t.n)
		passes += float64(t.c)
		sumSq += float64(t.n * t.n)
	}
	if a < 2 || total <= a {
		return nil
	}
	grand := passes / total
	ssb, ssw := 0.0, 0.0
	for _, t := range tasks {
		p := float64(t.c) / float64(t.n)
		ssb += float64(t.n) * (p - grand) * (p - grand)
		ssw += float64(t.n) * p * (1 - p)
	}
	msb, msw := ssb/(a-1), ssw/(total-a)
	n0 := (total - sumSq/total) / (a - 1)
	den := msb + (n0-1)*msw
	if den <= 0 {
		return nil
	}
	v := round6((msb - msw) / den)
	return &v
}

// perTrial is pass^1 of each trial over the tasks that ran it, in trial
// order, and the spread between the best and the worst trial.
func perTrial(tasks []*taskOutcomes) ([]result.TrialScore, float64) {
	type acc struct{ n, c int }
	by := map[int]*acc{}
	for _, t := range tasks {
		for trial, ok := range t.passed {
			a := by[trial]
			if a == nil {
				a = &acc{}
				by[trial] = a
			}
			a.n++
			if ok {
				a.c++
			}
		}
	}
	trials := make([]int, 0, len(by))
	for trial := range by {
		trials = append(trials, trial)
	}
	sort.Ints(trials)
	out := make([]result.TrialScore, len(trials))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, trial := range trials {
		p := float64(by[trial].c) / float64(by[trial].n)
		out[i] = result.TrialScore{Trial: trial, Tasks: by[trial].n, PassHat1: round6(p)}
		lo, hi = math.Min(lo, p), math.Max(hi, p)
	}
	return out, round6(hi - lo)
}

// bootstrapPassHat1 is the 95% percentile bootstrap interval of pass^1
// (the mean of the tasks' pass rates), resampling tasks with replacement.
func bootstrapPassHat1(tasks []*taskOutcomes, resamples int, seed uint64) result.Interval {
	rates := make([]float64, len(tasks))
	for i, t := range tasks {
		rates[i] = float64(t.c) / float64(t.n)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	means := make([]float64, resamples)
	for r := range means {
		sum := 0.0
		for range rates {
			sum += rates[rng.IntN(len(rates))]
		}
		means[r] = sum / float64(len(rates))
	}
	slices.Sort(means)
	return result.Interval{Low: round6(quantile(means, 0.025)), High: round6(quantile(means, 0.975))}
}

// quantile is the q-quantile of sorted values, interpolated linearly
// between the two nearest ranks.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}
