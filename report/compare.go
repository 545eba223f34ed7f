package report

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/proctor-eval/proctor/result"
)

// PairedTestName names the test by which CompareEvaluations judges the
// difference between two evaluations.
const PairedTestName = "paired sign-flip permutation test over tasks"

// PairedTestWhy says why that test fits pass/fail data over trials.
const PairedTestWhy = "both evaluations ran the same tasks, so each task is its own control: the test takes each task's " +
	"difference in pass rate (B minus A, over its trials) and asks how often flipping the signs of those differences at " +
	"random gives a total at least as extreme. It assumes nothing about their distribution, is exact for the ties and " +
	"few distinct values pass/fail data has (with one trial per task it is McNemar's exact test), and does not treat " +
	"a task's trials as independent samples, which they are not"

// TaskTestName names the per-task test.
const TaskTestName = "Fisher's exact test"

// DefaultAlpha is the significance level of the regression gate.
const DefaultAlpha = 0.05

// ErrDifferentDomains is returned by CompareEvaluations for evaluations of
// different domains, whose tasks have nothing in common.
var ErrDifferentDomains = errors.New("evaluations of different domains cannot be compared")

// TaskChange is how a task's pass rate moved from the base evaluation to
// the current one.
type TaskChange string

// Task changes.
const (
	TaskRegressed TaskChange = "regressed"
	TaskImproved  TaskChange = "improved"
	TaskUnchanged TaskChange = "unchanged"
)

// EvaluationComparison is an evaluation (Current, "B") compared with a base
// evaluation ("A") of the same domain, over the tasks both ran. It is the
// model that the table, Markdown and JSON renderings (and the web viewer)
// show; CompareEvalSets is its counterpart for eval-set runs.
type EvaluationComparison struct {
	Domain  string           `json:"domain"`
	Base    ComparedSide     `json:"base"`
	Current ComparedSide     `json:"current"`
	Tasks   []TaskComparison `json:"tasks"`
	// Added and Removed are the tasks only the current evaluation, or only
	// the base, ran: left out of every figure here.
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	// Regressions and Improvements list the shared tasks whose pass rate
	// fell or rose (significant or not: see each task's FisherP).
	Regressions  []string `json:"regressions"`
	Improvements []string `json:"improvements"`
	// PassHatK compares pass^k over the shared tasks for every k up to
	// the fewest trials any shared task has in either evaluation.
	PassHatK []PassHatKChange `json:"pass_hat_k"`
	// Test is the paired test of the difference in pass^1.
	Test PairedTest `json:"test"`
	// Noise is the difference in pass^1 against the noise of the trials:
	// the minimum detectable difference and the verdict.
	Noise NoiseFloor `json:"noise"`
	// Gate is the regression gate's verdict; nil when none was asked for.
	Gate *RegressionGate `json:"gate,omitempty"`
	// Warnings say what makes the comparison weaker: different task sets,
	// scoring settings or splits, unfinished evaluations.
	Warnings []string `json:"warnings"`
}

// HasRegressions says whether the gate found the current evaluation worse
// beyond its tolerance (proctor compare exits 4), as Comparison's does for
// eval-set runs.
func (c EvaluationComparison) HasRegressions() bool { return c.Gate != nil && c.Gate.Regressed }

// ComparedSide is one evaluation of a comparison, scored on the shared
// tasks only.
type ComparedSide struct {
	ID        string        `json:"id"`
	Agent     string        `json:"agent"`
	Status    result.Status `json:"status"`
	CreatedAt time.Time     `json:"created_at"`
	// NumTasks is every task the evaluation ran, shared or not;
	// NumSimulations counts the simulations of the shared tasks.
	NumTasks       int `json:"num_tasks"`
	NumSimulations int `json:"num_simulations"`
	// Process is how the agent worked over the whole evaluation (all its
	// tasks, shared or not); nil for results stored before proctor
	// measured it.
	Process *result.Process `json:"process,omitempty"`
	// Tau2 are the evaluation's figures as tau2-bench computes them (see
	// result.Tau2Figures); nil for results stored before proctor computed them.
	Tau2 *result.Tau2Figures `json:"tau2,omitempty"`
}

// TaskComparison is one shared task's pass rate in each evaluation.
type TaskComparison struct {
	TaskID  string      `json:"task_id"`
	Base    TaskOutcome `json:"base"`
	Current TaskOutcome `json:"current"`
	// Delta is Current's pass rate minus Base's.
	Delta  float64    `json:"delta"`
	Change TaskChange `json:"change"`
	// FisherP is the two-sided p-value of Fisher's exact test on the two
	// pass rates (1 with one trial each: a single flip says nothing on its
	// own). Not corrected for the number of tasks.
	FisherP float64 `json:"fisher_p"`
}

// TaskOutcome is a task's successes over its trials.
type TaskOutcome struct {
	Trials    int     `json:"trials"`
	Successes int     `json:"successes"`
	PassRate  float64 `json:"pass_rate"`
}

// PassHatKChange is pass^k over the shared tasks in each evaluation, with
// 95% intervals: Wilson's over simulations for k = 1 (as evaluation
// summaries give it), a normal interval over tasks for larger k.
type PassHatKChange struct {
	K         int             `json:"k"`
	Base      float64         `json:"base"`
	BaseCI    result.Interval `json:"base_ci95"`
	Current   float64         `json:"current"`
	CurrentCI result.Interval `json:"current_ci95"`
	Delta     float64         `json:"delta"`
}

// PairedTest is the paired test of the difference in pass^1 (see
// PairedTestName and PairedTestWhy).
type PairedTest struct {
	Name string `json:"name"`
	Why  string `json:"why"`
	// Exact is true when every sign assignment was counted, false when the
	// p-values are estimated from 20,000 drawn with a fixed seed.
	Exact bool `json:"exact"`
	// Tasks is the number of paired tasks; Discordant of them differ.
	Tasks      int `json:"tasks"`
	Discordant int `json:"discordant"`
	// MeanDelta is the mean per-task difference (B's pass^1 minus A's),
	// DeltaCI95 its 95% normal interval over tasks.
	MeanDelta float64         `json:"mean_delta"`
	DeltaCI95 result.Interval `json:"delta_ci95"`
	// PValue is two-sided: any difference; PWorse one-sided: the chance of
	// B doing at least this much worse if it were no worse.
	PValue float64 `json:"p_value"`
	PWorse float64 `json:"p_worse"`
}

// RegressionGate is the verdict of proctor compare --fail-on-regression:
// the current evaluation regressed when its pass^1 over the shared tasks
// is below the base's by more than Tolerance (an absolute drop, 0.05 = 5
// points) and the paired test's PWorse is below Alpha.
type RegressionGate struct {
	Tolerance float64 `json:"tolerance"`
	Alpha     float64 `json:"alpha"`
	// Drop is the base's pass^1 minus the current's.
	Drop      float64 `json:"drop"`
	Regressed bool    `json:"regressed"`
	// Inconclusive is a drop beyond the tolerance that the evaluations
	// cannot tell from noise: below the minimum detectable difference, or
	// not significant (proctor compare exits 6).
	Inconclusive bool   `json:"inconclusive,omitempty"`
	Reason       string `json:"reason"`
}

// CompareOptions configure CompareEvaluations.
type CompareOptions struct {
	// Gate asks for a regression verdict with Tolerance and Alpha (0:
	// DefaultAlpha).
	Gate      bool
	Tolerance float64
	Alpha     float64
}

// CompareEvaluations compares cur with base over the tasks both ran, from
// their summaries' per-task trials and successes. Evaluations of different
// domains are refused (ErrDifferentDomains).
func CompareEvaluations(base, cur *result.Evaluation, opts CompareOptions) (EvaluationComparison, error) {
	if base.Domain != cur.Domain {
		return EvaluationComparison{}, fmt.Errorf("%w: %s is %s, %s is %s", ErrDifferentDomains, base.ID, base.Domain, cur.ID, cur.Domain)
	}
	c := EvaluationComparison{Domain: base.Domain, Base: sideOf(base), Current: sideOf(cur),
		Tasks: []TaskComparison{}, Added: []string{}, Removed: []string{}, Regressions: []string{},
		Improvements: []string{}, PassHatK: []PassHatKChange{}, Warnings: []string{}}
	baseTasks := map[string]result.TaskSummary{}
	for _, t := range base.Summary.Tasks {
		baseTasks[t.TaskID] = t
	}
	shared := map[string]bool{}
	for _, t := range cur.Summary.Tasks {
		b, ok := baseTasks[t.TaskID]
		if !ok || b.Trials == 0 || t.Trials == 0 {
			c.Added = append(c.Added, t.TaskID)
			continue
		}
		shared[t.TaskID] = true
		c.addTask(b, t)
	}
	for _, t := range base.Summary.Tasks {
		if !shared[t.TaskID] {
			c.Removed = append(c.Removed, t.TaskID)
		}
	}
	c.Warnings = comparisonWarnings(base, cur, c)
	c.PassHatK = passHatKChanges(c.Tasks)
	c.Test = pairedTest(c.Tasks)
	c.Noise = noiseFloor(c.Tasks, orDefaultAlpha(opts.Alpha), c.Test.MeanDelta)
	if opts.Gate {
		c.Gate = gate(c, opts)
	}
	return c, nil
}

func sideOf(e *result.Evaluation) ComparedSide {
	return ComparedSide{ID: e.ID, Agent: AgentLabel(e.Agent), Status: e.Status, CreatedAt: e.CreatedAt, NumTasks: len(e.Summary.Tasks),
		Process: e.Summary.Process, Tau2: e.Summary.Tau2}
}

func (c *EvaluationComparison) addTask(b, t result.TaskSummary) {
	tc := TaskComparison{TaskID: t.TaskID, Base: outcome(b), Current: outcome(t),
		FisherP: round6(fisherExact(b.Successes, b.Trials, t.Successes, t.Trials))}
	tc.Delta = round6(tc.Current.PassRate - tc.Base.PassRate)
	switch {
	case tc.Delta < -scoreEpsilon:
		tc.Change = TaskRegressed
		c.Regressions = append(c.Regressions, t.TaskID)
	case tc.Delta > scoreEpsilon:
		tc.Change = TaskImproved
		c.Improvements = append(c.Improvements, t.TaskID)
	default:
		tc.Change = TaskUnchanged
	}
	c.Base.NumSimulations += b.Trials
	c.Current.NumSimulations += t.Trials
	c.Tasks = append(c.Tasks, tc)
}

func outcome(t result.TaskSummary) TaskOutcome {
	return TaskOutcome{Trials: t.Trials, Successes: t.Successes, PassRate: round6(float64(t.Successes) / float64(t.Trials))}
}

func comparisonWarnings(base, cur *result.Evaluation, c EvaluationComparison) []string {
	w := []string{}
	if len(c.Added) > 0 || len(c.Removed) > 0 {
		w = append(w, fmt.Sprintf("the evaluations ran different tasks: comparing the %d both ran (%d only in %s, %d only in %s)",
			len(c.Tasks), len(c.Removed), base.ID, len(c.Added), cur.ID))
	}
	if base.Config.Split != cur.Config.Split {
		w = append(w, fmt.Sprintf("different task splits: %q and %q", base.Config.Split, cur.Config.Split))
	}
	if base.Config.Strict != cur.Config.Strict || base.Config.ActionMatch.OrDefault() != cur.Config.ActionMatch.OrDefault() {
		w = append(w, fmt.Sprintf("different scoring: %s and %s (proctor rescore can score one as the other)",
			scoringLabel(base.Config), scoringLabel(cur.Config)))
	}
	for _, e := range []*result.Evaluation{base, cur} {
		if e.Status != result.StatusCompleted {
			w = append(w, fmt.Sprintf("%s is %s: only the simulations it finished are compared", e.ID, e.Status))
		}
	}
	for _, e := range []*result.Evaluation{base, cur} {
		if f := e.Summary.Tau2; f != nil && f.Excluded > 0 {
			w = append(w, fmt.Sprintf("%s has %d simulations tau2 would have retried and left out (%s): compared here as failures; tau2's own figures: avg reward %.3f, pass^1 %.3f",
				e.ID, f.Excluded, Counts(f.ExcludedBy), f.AvgReward, f.PassHatK["1"]))
		}
	}
	if len(c.Tasks) == 0 {
		w = append(w, "no task in common: nothing to compare")
	}
	return w
}

func scoringLabel(cfg result.Config) string {
	mode := "lenient"
	if cfg.Strict {
		mode = "strict"
	}
	return mode + "/" + string(cfg.ActionMatch.OrDefault())
}

// passHatKChanges is pass^k in each evaluation over the shared tasks, for
// k up to the fewest trials of any of them.
func passHatKChanges(tasks []TaskComparison) []PassHatKChange {
	if len(tasks) == 0 {
		return []PassHatKChange{}
	}
	maxK := math.MaxInt
	for _, t := range tasks {
		maxK = min(maxK, t.Base.Trials, t.Current.Trials)
	}
	out := make([]PassHatKChange, 0, maxK)
	for k := 1; k <= maxK; k++ {
		ch := PassHatKChange{K: k}
		ch.Base, ch.BaseCI = passHatK(tasks, k, func(t TaskComparison) TaskOutcome { return t.Base })
		ch.Current, ch.CurrentCI = passHatK(tasks, k, func(t TaskComparison) TaskOutcome { return t.Current })
		ch.Delta = round6(ch.Current - ch.Base)
		out = append(out, ch)
	}
	return out
}

func passHatK(tasks []TaskComparison, k int, side func(TaskComparison) TaskOutcome) (float64, result.Interval) {
	per := make([]float64, len(tasks))
	succ, trials := 0, 0
	for i, t := range tasks {
		o := side(t)
		per[i] = chooseRatio(o.Successes, o.Trials, k)
		succ, trials = succ+o.Successes, trials+o.Trials
	}
	mean, ci := meanCI95(per, 0, 1)
	if k == 1 {
		ci = wilson95(succ, trials)
	}
	return round6(mean), ci
}

func pairedTest(tasks []TaskComparison) PairedTest {
	d := make([]float64, len(tasks))
	trials := make([]int, 0, 2*len(tasks))
	discordant := 0
	for i, t := range tasks {
		d[i] = float64(t.Current.Successes)/float64(t.Current.Trials) - float64(t.Base.Successes)/float64(t.Base.Trials)
		if t.Change != TaskUnchanged {
			discordant++
		}
		trials = append(trials, t.Base.Trials, t.Current.Trials)
	}
	r := signFlipTest(d, lcmUpTo(trials, 1000))
	mean, ci := meanCI95(d, -1, 1)
	return PairedTest{Name: PairedTestName, Why: PairedTestWhy, Exact: r.exact, Tasks: len(tasks), Discordant: discordant,
		MeanDelta: round6(mean), DeltaCI95: ci, PValue: round6(r.twoSided), PWorse: round6(r.lower)}
}

func gate(c EvaluationComparison, opts CompareOptions) *RegressionGate {
	alpha := orDefaultAlpha(opts.Alpha)
	g := &RegressionGate{Tolerance: opts.Tolerance, Alpha: alpha, Drop: round6(-c.Test.MeanDelta)}
	switch {
	case len(c.Tasks) == 0:
		g.Reason = "no task in common"
	case g.Drop <= g.Tolerance+scoreEpsilon:
		g.Reason = fmt.Sprintf("pass^1 drop %.3f is within the tolerance %.3f", g.Drop, g.Tolerance)
	case alpha < 1 && g.Drop < c.Noise.MinDetectable-scoreEpsilon:
		g.Inconclusive = true
		g.Reason = fmt.Sprintf("pass^1 dropped %.3f (more than %.3f), but less than the minimum detectable difference %.3f of these evaluations: run more trials or tasks", g.Drop, g.Tolerance, c.Noise.MinDetectable)
	case c.Test.PWorse >= alpha:
		g.Inconclusive = true
		g.Reason = fmt.Sprintf("pass^1 dropped %.3f (more than %.3f), but not significantly: p %.4f >= alpha %.2f", g.Drop, g.Tolerance, c.Test.PWorse, alpha)
	default:
		g.Regressed = true
		g.Reason = fmt.Sprintf("pass^1 dropped %.3f, more than the tolerance %.3f, and significantly: p %.4f < alpha %.2f", g.Drop, g.Tolerance, c.Test.PWorse, alpha)
	}
	return g
}

// orDefaultAlpha is alpha, or DefaultAlpha when it is 0.
func orDefaultAlpha(alpha float64) float64 {
	if alpha == 0 {
		return DefaultAlpha
	}
	return alpha
}

// Inconclusive says whether the gate found a drop beyond its tolerance
// that cannot be told from noise (proctor compare exits 6).
func (c EvaluationComparison) Inconclusive() bool { return c.Gate != nil && c.Gate.Inconclusive }

// changedTasks are the tasks whose pass rate moved, regressions first.
func (c EvaluationComparison) changedTasks() []TaskComparison {
	var out []TaskComparison
	for _, change := range []TaskChange{TaskRegressed, TaskImproved} {
		for _, t := range c.Tasks {
			if t.Change == change {
				out = append(out, t)
			}
		}
	}
	return slices.Clip(out)
}
