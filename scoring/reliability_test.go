package scoring

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/result"
)

// outcomes makes simulations from a task's pass/fail per trial.
func outcomes(tasks map[string][]bool) []result.Simulation {
	var sims []result.Simulation
	for id, trials := range tasks {
		for trial, ok := range trials {
			s := result.Simulation{ID: result.SimulationID(id, trial), TaskID: id, Trial: trial}
			if ok {
				s.Reward = 1
			}
			sims = append(sims, s)
		}
	}
	return sims
}

func ptr(v float64) *float64 { return &v }

func ts(trial, tasks int, p float64) result.TrialScore {
	return result.TrialScore{Trial: trial, Tasks: tasks, PassHat1: p}
}

func TestReliability(t *testing.T) {
	tests := []struct {
		name  string
		tasks map[string][]bool
		want  *result.Reliability
	}{
		{name: "one trial per task: no noise floor", tasks: map[string][]bool{"a": {true}, "b": {false}}},
		{name: "every outcome the same: ICC undefined", tasks: map[string][]bool{"a": {true, true}, "b": {true, true}},
			want: &result.Reliability{Tasks: 2, FlippingTasks: []string{}, PerTrial: []result.TrialScore{ts(0, 2, 1), ts(1, 2, 1)},
				PassHat1BootstrapCI95: result.Interval{Low: 1, High: 1}}},
		{name: "tasks that always agree: ICC 1", tasks: map[string][]bool{"a": {true, true}, "b": {false, false}},
			want: &result.Reliability{Tasks: 2, FlippingTasks: []string{}, ICC1: ptr(1), PerTrial: []result.TrialScore{ts(0, 2, 0.5), ts(1, 2, 0.5)},
				PassHat1BootstrapCI95: result.Interval{Low: 0, High: 1}}},
		{name: "unequal trials: a task with one trial counts per trial and in the bootstrap only",
			tasks: map[string][]bool{"a": {true, false, true}, "b": {false, false}, "c": {true}},
			want: &result.Reliability{Tasks: 2, FlippingTasks: []string{"a"}, FlipShare: 0.5, ICC1: ptr(0.368421), // MSB 0.5333, MSW 0.2222, n0 2.4
				PerTrial: []result.TrialScore{ts(0, 3, 0.666667), ts(1, 2, 0), ts(2, 1, 1)}, TrialSpread: 1,
				PassHat1BootstrapCI95: result.Interval{Low: 0, High: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want != nil {
				tt.want.BootstrapResamples, tt.want.BootstrapSeed = BootstrapResamples, BootstrapSeed
			}
			got := Reliability(outcomes(tt.tasks), []string{"a", "b", "c"})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Reliability (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReliabilityBootstrapIsDeterministic: the same outcomes give the same
// interval every time, inside [0, 1] and around pass^1.
func TestReliabilityBootstrapIsDeterministic(t *testing.T) {
	tasks := map[string][]bool{}
	for i := range 40 {
		tasks[string(rune('A'+i%26))+string(rune('a'+i/26))] = []bool{i%3 == 0, i%2 == 0, i%5 != 0}
	}
	first := Reliability(outcomes(tasks), nil)
	for range 3 {
		if diff := cmp.Diff(first, Reliability(outcomes(tasks), nil)); diff != "" {
			t.Fatalf("second computation differs:\n%s", diff)
		}
	}
	sum := Summarize(outcomes(tasks), nil)
	ci, p := first.PassHat1BootstrapCI95, sum.PassHatK["1"]
	if !(0 <= ci.Low && ci.Low < p && p < ci.High && ci.High <= 1) {
		t.Errorf("bootstrap interval %v around pass^1 %v", ci, p)
	}
	if diff := cmp.Diff(first, sum.Reliability); diff != "" {
		t.Errorf("Summarize's reliability differs:\n%s", diff)
	}
}
