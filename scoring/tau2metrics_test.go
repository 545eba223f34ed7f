package scoring

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/result"
)

func tau2Sim(task string, reward float64, reason result.TerminationReason, classes map[string]int) result.Simulation {
	return result.Simulation{TaskID: task, Reward: reward, TerminationReason: reason, Metrics: result.Metrics{ErrorClasses: classes}}
}

// TestTau2Figures: tau2's avg_reward and pass^k leave out what tau2 would
// have retried, compute pass^k of a task over its remaining runs and stop k
// at the fewest remaining runs; the strict figures beside them count all.
func TestTau2Figures(t *testing.T) {
	ok, fail := result.TermUserStop, result.TermMaxSteps
	for _, c := range []struct {
		name string
		sims []result.Simulation
		want *result.Tau2Figures
	}{
		{"nothing run", nil, nil},
		{"nothing left", []result.Simulation{tau2Sim("a", 0, result.TermInfrastructure, nil)},
			&result.Tau2Figures{PassHatK: map[string]float64{}, Excluded: 1, ExcludedBy: map[string]int{"infrastructure_error": 1}}},
		{"all count", []result.Simulation{tau2Sim("a", 1, ok, nil), tau2Sim("a", 0, fail, nil), tau2Sim("b", 1, ok, nil), tau2Sim("b", 1, ok, nil)},
			&result.Tau2Figures{AvgReward: 0.75, PassHatK: map[string]float64{"1": 0.75, "2": 0.5}, NumSimulations: 4, NumTasks: 2}},
		{"failures left out", []result.Simulation{
			tau2Sim("a", 1, ok, nil), tau2Sim("a", 0, result.TermUserError, nil), tau2Sim("a", 1, ok, nil),
			tau2Sim("b", 0, result.TermAgentError, map[string]int{"protocol": 1}), tau2Sim("b", 1, ok, nil),
			tau2Sim("b", 0, result.TermAgentError, map[string]int{"timeout": 1, "protocol": 2}),
		}, &result.Tau2Figures{
			AvgReward: 0.75, PassHatK: map[string]float64{"1": 0.75, "2": 0.5}, NumSimulations: 4, NumTasks: 2,
			Excluded: 2, ExcludedBy: map[string]int{"user_error": 1, "agent_error:timeout": 1},
		}},
	} {
		got := Summarize(c.sims, nil).Tau2
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}
