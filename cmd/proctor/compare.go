package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/server/ui"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// exitInconclusive is proctor compare --fail-on-regression's exit code
// for a drop beyond the tolerance that cannot be told from noise.
const exitInconclusive = 6

type compareFlags struct {
	dbPath, format string
	tolerance      float64
	alpha          float64
}

func newCompareCmd() *cobra.Command {
	f := &compareFlags{}
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two stored evaluations of the same domain, task by task",
		Long: `Compare evaluation B with evaluation A (the base) over the tasks both ran: each
task's pass rate over its trials in A and B, the tasks that regressed or improved, and
pass^1 (and pass^k for every k both have) with 95% intervals.

Whether B differs from A is judged by a paired sign-flip permutation test over tasks:
each task is its own control, so the test takes each task's difference in pass rate
and asks how often random signs give a total as extreme. It is exact for the ties and
few values pass/fail data has (with one trial per task it is McNemar's exact test) and
does not count a task's trials as independent. Each task also gets Fisher's exact test
of its two pass rates (uncorrected for the number of tasks).

The difference in pass^1 is also set against the noise of the trials: the minimum
detectable difference for the two evaluations' sizes and the variance of each task's
outcome over its trials (at --alpha, two-sided, and 80% power). A difference below it
is inconclusive, neither a regression nor an improvement.

--fail-on-regression TOL exits 4 when B's pass^1 is below A's by more than TOL (an
absolute drop: 0.05 is 5 points), at least by the minimum detectable difference, and
the test finds B worse at --alpha (one-sided, default 0.05; --alpha 1 gates on the drop
alone). A drop beyond TOL that is below the minimum detectable difference or not
significant is inconclusive: exit 6.

Evaluations of different domains are refused; when the task sets differ, only the
shared tasks are compared and the others are named. Two eval-set runs are compared
case by case, as 'proctor evalset run --baseline' does (TOL is then the drop a
metric's score may take).

Exit codes: 0 no regression, 1 the database could not be read, 2 bad arguments,
4 regression beyond the tolerance, 6 inconclusive (a drop beyond the tolerance that
the evaluations cannot tell from noise).`,
		Example: `  proctor compare 01970d1c 01970e2a
  proctor compare 01970d1c 01970e2a --format markdown > comparison.md
  proctor compare 01970d1c 01970e2a --format html > comparison.html
  proctor compare 01970d1c 01970e2a --fail-on-regression 0.05`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return compareRuns(cmd, f, args[0], args[1]) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	fl.StringVar(&f.format, "format", "table", "output format: table, markdown, json or html (one self-contained page)")
	fl.Float64Var(&f.tolerance, "fail-on-regression", 0, "exit 4 when B's pass^1 is below A's by more than this (absolute) and significantly")
	fl.Float64Var(&f.alpha, "alpha", report.DefaultAlpha, "significance level of --fail-on-regression (1: gate on the drop alone)")
	return cmd
}

func (f *compareFlags) validate(cmd *cobra.Command) error {
	if !slices.Contains([]string{"table", "markdown", "json", formatHTML}, f.format) {
		return usageErr("--format %q: want table, markdown, json or html", f.format)
	}
	if cmd.Flags().Changed("fail-on-regression") && (f.tolerance < 0 || f.tolerance > 1) {
		return usageErr("--fail-on-regression %v: want an absolute drop in pass^1 between 0 and 1 (0.05 is 5 points)", f.tolerance)
	}
	if f.alpha <= 0 || f.alpha > 1 {
		return usageErr("--alpha %v: want a significance level above 0 and at most 1", f.alpha)
	}
	if cmd.Flags().Changed("alpha") && !cmd.Flags().Changed("fail-on-regression") {
		return usageErr("--alpha needs --fail-on-regression")
	}
	return nil
}

func compareRuns(cmd *cobra.Command, f *compareFlags, a, b string) error {
	if err := f.validate(cmd); err != nil {
		return err
	}
	db, path, err := openDBForReading(f.dbPath)
	if err != nil {
		return failErr(err)
	}
	if db == nil {
		return usageErr("no evaluation %q: there is no results database at %s yet", a, path)
	}
	defer db.Close()
	ctx := cmd.Context()
	gate := cmd.Flags().Changed("fail-on-regression")
	base, errA := loadEvaluation(ctx, db, a, true)
	cur, errB := loadEvaluation(ctx, db, b, true)
	setA, setB := errors.Is(errA, evaluation.ErrEvalSetRun), errors.Is(errB, evaluation.ErrEvalSetRun)
	switch {
	case setA && setB && f.format == formatHTML:
		return usageErr("--format html compares evaluations of simulations; compare eval-set runs as a table, markdown or json")
	case setA && setB:
		return compareEvalSetRuns(ctx, cmd, db, f, gate, a, b)
	case setA || setB:
		return usageErr("%s and %s are not of the same kind: one is an eval-set run, the other an evaluation of simulations", a, b)
	case errA != nil:
		return errA
	case errB != nil:
		return errB
	}
	c, err := report.CompareEvaluations(base, cur, report.CompareOptions{Gate: gate, Tolerance: f.tolerance, Alpha: f.alpha})
	if errors.Is(err, report.ErrDifferentDomains) {
		return usageErr("%v", err)
	}
	if err != nil {
		return failErr(err)
	}
	write := func() error { return report.WriteEvaluationComparison(cmd.OutOrStdout(), report.Format(f.format), c) }
	if f.format == formatHTML {
		write = func() error { return ui.WriteComparison(cmd.OutOrStdout(), c) }
	}
	if err := write(); err != nil {
		return failErr(err)
	}
	if c.HasRegressions() {
		return &exitError{code: exitRegression, err: fmt.Errorf("regression: %s", c.Gate.Reason)}
	}
	if c.Inconclusive() {
		return &exitError{code: exitInconclusive, err: fmt.Errorf("inconclusive: %s", c.Gate.Reason)}
	}
	return nil
}

// compareEvalSetRuns compares two stored eval-set runs case by case, as
// proctor evalset run --baseline does.
func compareEvalSetRuns(ctx context.Context, cmd *cobra.Command, db *store.DB, f *compareFlags, gate bool, a, b string) error {
	results := skills.NewResults(db)
	base, err := results.EvalSetRun(ctx, a)
	if err != nil {
		return failErr(err)
	}
	cur, err := results.EvalSetRun(ctx, b)
	if err != nil {
		return failErr(err)
	}
	c := report.CompareEvalSets(base, cur, f.tolerance)
	if err := report.WriteComparison(cmd.OutOrStdout(), report.Format(f.format), c); err != nil {
		return failErr(err)
	}
	if gate && c.HasRegressions() {
		return &exitError{code: exitRegression, err: fmt.Errorf("%d regressions against %s", len(c.Regressions), base.ID)}
	}
	return nil
}
