package scoring

import (
	"math"
	"sort"
	"strconv"

	"github.com/proctor-eval/proctor/result"
)

// Summarize scores a set of simulations. pass^k for a task with n trials and
// c successes is C(c,k)/C(n,k) (the chance that k trials drawn without
// replacement all succeed); pass@k is 1 - C(n-c,k)/C(n,k). Both are averaged
// over the tasks with at least k trials, for every k up to the trial count.
//
// Tasks are listed in taskOrder, then any others by id. The do-nothing
// baseline is read from the simulations' reward_info.do_nothing_passes.
func Summarize(sims []result.Simulation, taskOrder []string) result.Summary {
	sum := result.Summary{
		NumSimulations:     len(sims),
		PassHatK:           map[string]float64{},
		PassAtK:            map[string]float64{},
		TerminationReasons: map[string]int{},
	}
	type acc struct {
		n, c   int
		reward float64
	}
	per := map[string]*acc{}
	total, successes := 0.0, 0
	for _, s := range sims {
		a := per[s.TaskID]
		if a == nil {
			a = &acc{}
			per[s.TaskID] = a
		}
		a.n++
		a.reward += s.Reward
		if s.Passed() {
			a.c++
			successes++
		}
		total += s.Reward
		sum.TerminationReasons[string(s.TerminationReason)]++
	}
	order := orderedTasks(per, taskOrder)
	sum.VacuousTasks, sum.DoNothingBaseline = doNothingBaseline(sims, order)
	sum.EnvUncheckedTasks = envUncheckedTasks(sims, order)
	if len(sims) == 0 {
		return sum
	}
	sum.AvgReward = round6(total / float64(len(sims)))
	process := ProcessOf(sims)
	sum.Process = &process
	sum.Robustness = RobustnessOf(sims)
	maxTrials := 0
	for _, id := range order {
		a := per[id]
		maxTrials = max(maxTrials, a.n)
		sum.Tasks = append(sum.Tasks, result.TaskSummary{TaskID: id, Trials: a.n, Successes: a.c, AvgReward: round6(a.reward / float64(a.n))})
	}
	sum.NumTasks = len(order)
	sum.NumTrials = maxTrials
	for k := 1; k <= maxTrials; k++ {
		hat, at, tasks := 0.0, 0.0, 0
		for _, id := range order {
			a := per[id]
			if a.n < k {
				continue
			}
			hat += binom(a.c, k) / binom(a.n, k)
			at += 1 - binom(a.n-a.c, k)/binom(a.n, k)
			tasks++
		}
		if tasks > 0 {
			sum.PassHatK[strconv.Itoa(k)] = round6(hat / float64(tasks))
			sum.PassAtK[strconv.Itoa(k)] = round6(at / float64(tasks))
		}
	}
	sum.PassHat1CI95 = WilsonCI95(successes, len(sims))
	sum.Reliability = Reliability(sims, order)
	sum.Tau2 = tau2Figures(sims, order)
	return sum
}

// doNothingBaseline finds the vacuous tasks (any simulation marked
// do_nothing_passes) and scores a do-nothing agent on them: reward 1 on
// every simulation of a vacuous task, 0 elsewhere.
func doNothingBaseline(sims []result.Simulation, order []string) ([]string, *result.Baseline) {
	vacuous := map[string]bool{}
	for _, s := range sims {
		if s.RewardInfo.DoNothingPasses {
			vacuous[s.TaskID] = true
		}
	}
	tasks := []string{} // never nil: an empty list is an answer
	for _, id := range order {
		if vacuous[id] {
			tasks = append(tasks, id)
		}
	}
	b := &result.Baseline{}
	if len(sims) == 0 {
		return tasks, b
	}
	passed := 0
	for _, s := range sims {
		if vacuous[s.TaskID] {
			passed++
		}
	}
	b.AvgReward = round6(float64(passed) / float64(len(sims)))
	b.PassHat1 = round6(float64(len(tasks)) / float64(len(order)))
	return tasks, b
}

// envUncheckedTasks lists, in task order, the tasks with a simulation
// marked env_unchecked; nil when there are none.
func envUncheckedTasks(sims []result.Simulation, order []string) []string {
	unchecked := map[string]bool{}
	for _, s := range sims {
		if s.RewardInfo.EnvUnchecked {
			unchecked[s.TaskID] = true
		}
	}
	var tasks []string
	for _, id := range order {
		if unchecked[id] {
			tasks = append(tasks, id)
		}
	}
	return tasks
}

func orderedTasks[T any](per map[string]T, taskOrder []string) []string {
	out := make([]string, 0, len(per))
	seen := map[string]bool{}
	for _, id := range taskOrder {
		if _, ok := per[id]; ok && !seen[id] {
			out = append(out, id)
			seen[id] = true
		}
	}
	var rest []string
	for id := range per {
		if !seen[id] {
			rest = append(rest, id)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// binom is the binomial coefficient C(n, k) as a float (0 when k > n).
func binom(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// WilsonCI95 is the 95% Wilson score interval of a pass rate: successes
// out of n trials (the zero interval when n is 0). Eval-set summaries use it
// too.
func WilsonCI95(successes, n int) result.Interval { return wilson(successes, n, 1.959963984540054) }

// wilson is the Wilson score interval for a binomial proportion: unlike the
// normal approximation it stays inside [0, 1] and behaves at 0 and n
// successes, which small evaluations hit often.
func wilson(successes, n int, z float64) result.Interval {
	if n == 0 {
		return result.Interval{}
	}
	p := float64(successes) / float64(n)
	nf := float64(n)
	den := 1 + z*z/nf
	centre := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return result.Interval{Low: round6(math.Max(0, centre-half)), High: round6(math.Min(1, centre+half))}
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
