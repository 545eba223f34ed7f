package report

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/result"
)

// evalOf is an evaluation of domain mock whose tasks had these successes
// out of these trials ("mock-01": {1, 2}: 1 of 2).
func evalOf(id string, tasks ...result.TaskSummary) *result.Evaluation {
	return &result.Evaluation{ID: id, Domain: "mock", Status: result.StatusCompleted,
		Agent: result.AgentInfo{URL: "http://agent-" + id}, Summary: result.Summary{Tasks: tasks}}
}

func ts(id string, successes, trials int) result.TaskSummary {
	return result.TaskSummary{TaskID: id, Successes: successes, Trials: trials}
}

func side(id string, tasks, sims int) ComparedSide {
	return ComparedSide{ID: id, Agent: "http://agent-" + id, Status: result.StatusCompleted, NumTasks: tasks, NumSimulations: sims}
}

func TestCompareEvaluations(t *testing.T) {
	fiveTasks := func(id string, pass bool) *result.Evaluation {
		e := evalOf(id)
		for _, task := range []string{"t1", "t2", "t3", "t4", "t5"} {
			s := 0
			if pass {
				s = 1
			}
			e.Summary.Tasks = append(e.Summary.Tasks, ts(task, s, 1))
		}
		return e
	}
	allFlip := func() []TaskComparison {
		var out []TaskComparison
		for _, task := range []string{"t1", "t2", "t3", "t4", "t5"} {
			out = append(out, TaskComparison{TaskID: task, Base: TaskOutcome{1, 1, 1}, Current: TaskOutcome{1, 0, 0}, Delta: -1, Change: TaskRegressed, FisherP: 1})
		}
		return out
	}
	tests := []struct {
		name      string
		base, cur *result.Evaluation
		opts      CompareOptions
		want      EvaluationComparison
	}{
		{
			name: "every task flips to failing: McNemar's exact test, gate trips",
			base: fiveTasks("a", true), cur: fiveTasks("b", false),
			opts: CompareOptions{Gate: true, Tolerance: 0.1},
			want: EvaluationComparison{Domain: "mock", Base: side("a", 5, 5), Current: side("b", 5, 5),
				Tasks: allFlip(), Added: []string{}, Removed: []string{},
				Regressions: []string{"t1", "t2", "t3", "t4", "t5"}, Improvements: []string{},
				PassHatK: []PassHatKChange{{K: 1, Base: 1, BaseCI: wilson95(5, 5), Current: 0, CurrentCI: wilson95(0, 5), Delta: -1}},
				Test: PairedTest{Name: PairedTestName, Why: PairedTestWhy, Exact: true, Tasks: 5, Discordant: 5,
					MeanDelta: -1, DeltaCI95: result.Interval{Low: -1, High: -1}, PValue: 0.0625, PWorse: 0.03125},
				// One trial per task: p(1-p) bounds the noise, 0 on both sides.
				Noise: NoiseFloor{UpperBound: true, Alpha: 0.05, Power: NoisePower, Delta: -1, Verdict: VerdictRegressed},
				Gate: &RegressionGate{Tolerance: 0.1, Alpha: 0.05, Drop: 1, Regressed: true,
					Reason: "pass^1 dropped 1.000, more than the tolerance 0.100, and significantly: p 0.0312 < alpha 0.05"},
				Warnings: []string{}},
		},
		{
			name: "different task sets: the intersection, with a warning; a drop that is not significant",
			base: evalOf("a", ts("t1", 3, 3), ts("t2", 3, 3), ts("gone", 1, 3)),
			cur:  evalOf("b", ts("t1", 0, 3), ts("t2", 3, 3), ts("new", 0, 3)),
			opts: CompareOptions{Gate: true},
			want: EvaluationComparison{Domain: "mock", Base: side("a", 3, 6), Current: side("b", 3, 6),
				Tasks: []TaskComparison{
					{TaskID: "t1", Base: TaskOutcome{3, 3, 1}, Current: TaskOutcome{3, 0, 0}, Delta: -1, Change: TaskRegressed, FisherP: 0.1},
					{TaskID: "t2", Base: TaskOutcome{3, 3, 1}, Current: TaskOutcome{3, 3, 1}, Delta: 0, Change: TaskUnchanged, FisherP: 1},
				},
				Added: []string{"new"}, Removed: []string{"gone"}, Regressions: []string{"t1"}, Improvements: []string{},
				PassHatK: []PassHatKChange{
					{K: 1, Base: 1, BaseCI: wilson95(6, 6), Current: 0.5, CurrentCI: wilson95(3, 6), Delta: -0.5},
					{K: 2, Base: 1, BaseCI: result.Interval{Low: 1, High: 1}, Current: 0.5, CurrentCI: result.Interval{Low: 0, High: 1}, Delta: -0.5},
					{K: 3, Base: 1, BaseCI: result.Interval{Low: 1, High: 1}, Current: 0.5, CurrentCI: result.Interval{Low: 0, High: 1}, Delta: -0.5},
				},
				Test: PairedTest{Name: PairedTestName, Why: PairedTestWhy, Exact: true, Tasks: 2, Discordant: 1,
					MeanDelta: -0.5, DeltaCI95: result.Interval{Low: -1, High: 0.479982}, PValue: 1, PWorse: 0.5},
				// No task flips between trials: no trial noise, but too few
				// tasks for the test.
				Noise: NoiseFloor{Alpha: 0.05, Power: NoisePower, Delta: -0.5, Verdict: VerdictRegressed},
				Gate: &RegressionGate{Tolerance: 0, Alpha: 0.05, Drop: 0.5, Inconclusive: true,
					Reason: "pass^1 dropped 0.500 (more than 0.000), but not significantly: p 0.5000 >= alpha 0.05"},
				Warnings: []string{"the evaluations ran different tasks: comparing the 2 both ran (1 only in a, 1 only in b)"}},
		},
		{
			name: "an improvement, no gate asked",
			base: evalOf("a", ts("t1", 0, 1)), cur: evalOf("b", ts("t1", 1, 1)),
			want: EvaluationComparison{Domain: "mock", Base: side("a", 1, 1), Current: side("b", 1, 1),
				Tasks: []TaskComparison{{TaskID: "t1", Base: TaskOutcome{1, 0, 0}, Current: TaskOutcome{1, 1, 1}, Delta: 1, Change: TaskImproved, FisherP: 1}},
				Added: []string{}, Removed: []string{}, Regressions: []string{}, Improvements: []string{"t1"},
				PassHatK: []PassHatKChange{{K: 1, Base: 0, BaseCI: wilson95(0, 1), Current: 1, CurrentCI: wilson95(1, 1), Delta: 1}},
				Test: PairedTest{Name: PairedTestName, Why: PairedTestWhy, Exact: true, Tasks: 1, Discordant: 1,
					MeanDelta: 1, DeltaCI95: result.Interval{Low: 1, High: 1}, PValue: 1, PWorse: 1},
				Noise:    NoiseFloor{UpperBound: true, Alpha: 0.05, Power: NoisePower, Delta: 1, Verdict: VerdictImproved},
				Warnings: []string{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CompareEvaluations(tt.base, tt.cur, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CompareEvaluations (-want +got):\n%s", diff)
			}
			if got.HasRegressions() != (tt.want.Gate != nil && tt.want.Gate.Regressed) {
				t.Errorf("HasRegressions() = %v", got.HasRegressions())
			}
		})
	}
}

// TestCompareAgainstNoise: a drop beyond the tolerance but below the
// minimum detectable difference is inconclusive, not a regression. Ten
// tasks of four trials, 2/4 each in A; B loses one pass of t1. Each side's
// SE is sqrt(sum of c(n-c)/(n(n-1))/n)/10: A sqrt(10 x (1/3)/4)/10 =
// 0.091287, B sqrt(9 x (1/3)/4 + (1/4)/4)/10 = 0.090139; the minimum
// detectable difference is (1.959964 + 0.841621) x hypot(A, B) = 2.801585 x 0.128290 = 0.359415.
func TestCompareAgainstNoise(t *testing.T) {
	var base, cur []result.TaskSummary
	for i := range 10 {
		id := fmt.Sprintf("t%d", i)
		base = append(base, ts(id, 2, 4))
		passes := 2
		if i == 0 {
			passes = 1
		}
		cur = append(cur, ts(id, passes, 4))
	}
	got, err := CompareEvaluations(evalOf("a", base...), evalOf("b", cur...), CompareOptions{Gate: true, Tolerance: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	want := NoiseFloor{BaseSE: 0.091287, CurrentSE: 0.090139, Alpha: 0.05, Power: NoisePower, MinDetectable: 0.359415,
		Delta: -0.025, Verdict: VerdictInconclusive}
	if diff := cmp.Diff(want, got.Noise); diff != "" {
		t.Errorf("noise (-want +got):\n%s", diff)
	}
	wantGate := &RegressionGate{Tolerance: 0.01, Alpha: 0.05, Drop: 0.025, Inconclusive: true,
		Reason: "pass^1 dropped 0.025 (more than 0.010), but less than the minimum detectable difference 0.359 of these evaluations: run more trials or tasks"}
	if diff := cmp.Diff(wantGate, got.Gate); diff != "" {
		t.Errorf("gate (-want +got):\n%s", diff)
	}
	if got.HasRegressions() || !got.Inconclusive() {
		t.Errorf("HasRegressions %v, Inconclusive %v: want an inconclusive verdict", got.HasRegressions(), got.Inconclusive())
	}
}

func TestCompareRefusesOtherDomains(t *testing.T) {
	other := evalOf("b", ts("t1", 1, 1))
	other.Domain = "airline"
	_, err := CompareEvaluations(evalOf("a", ts("t1", 1, 1)), other, CompareOptions{})
	if !errors.Is(err, ErrDifferentDomains) {
		t.Fatalf("err = %v, want ErrDifferentDomains", err)
	}
}

func TestFisherExact(t *testing.T) {
	tests := []struct {
		a, n, b, m int
		want       float64
	}{
		{1, 1, 0, 1, 1},
		{3, 3, 0, 3, 0.1},
		{5, 5, 0, 5, 2.0 / 252},
		{2, 4, 2, 4, 1},
		{0, 0, 1, 1, 1},
	}
	for _, tt := range tests {
		if got := fisherExact(tt.a, tt.n, tt.b, tt.m); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("fisherExact(%d/%d vs %d/%d) = %v, want %v", tt.a, tt.n, tt.b, tt.m, got, tt.want)
		}
	}
}

// TestSignFlipSampledAgreesWithExact: the Monte Carlo estimate, used when
// the exact distribution is too large, is near the exact p-values.
func TestSignFlipSampledAgreesWithExact(t *testing.T) {
	d := []float64{-1, -1, -1, -0.5, -0.5, 0, 0.5, 1, -1, -1, -0.5, 0}
	exact := signFlipTest(d, 2)
	if !exact.exact {
		t.Fatal("denominator 2: not exact")
	}
	sampled := signFlipTest(d, 0)
	if sampled.exact {
		t.Fatal("no denominator: exact")
	}
	if math.Abs(exact.twoSided-sampled.twoSided) > 0.01 || math.Abs(exact.lower-sampled.lower) > 0.01 {
		t.Errorf("exact %+v, sampled %+v", exact, sampled)
	}
	if again := signFlipTest(d, 0); again != sampled {
		t.Errorf("sampled twice: %+v then %+v; want the same (fixed seed)", sampled, again)
	}
}

func TestEvaluationComparisonRenders(t *testing.T) {
	c, err := CompareEvaluations(evalOf("a", ts("t1", 1, 1), ts("t2", 1, 1)), evalOf("b", ts("t1", 0, 1), ts("t2", 1, 1)), CompareOptions{Gate: true, Alpha: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{Table, Markdown, JSON} {
		var b strings.Builder
		if err := WriteEvaluationComparison(&b, f, c); err != nil {
			t.Fatal(err)
		}
		wants := []string{"t1", "regressed", PairedTestName}
		if f != JSON {
			wants = append(wants, "REGRESSION")
		}
		for _, want := range wants {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s has no %q:\n%s", f, want, b.String())
			}
		}
	}
}
