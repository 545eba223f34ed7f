package evaluation_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
)

// observed is what an Observer saw: per domain and termination, the
// simulations and their requests.
type observed struct {
	mu       sync.Mutex
	sims     map[string]int
	requests int
}

func (o *observed) SimulationRecorded(domain string, sim *result.Simulation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.sims == nil {
		o.sims = map[string]int{}
	}
	o.sims[domain+" "+string(sim.TerminationReason)]++
	o.requests += len(sim.Requests)
}

// TestObserverSeesEachRecordedSimulation: the Runner's observer sees
// every simulation it records, with its requests' metrics, once; a
// resume does not show it those already stored.
func TestObserverSeesEachRecordedSimulation(t *testing.T) {
	d := counterDomain(t)
	db := openStore(t)
	client := dial(t, agenttest.Start(t, counterAgent).URL)
	obs := &observed{}
	r := &evaluation.Runner{
		Simulator: rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}),
		Scorer:    scoring.NewScorer(d, false), Agent: a2aagent.New(client),
		Store: db, Concurrency: 2, Observer: obs,
	}
	eval := evaluation.NewEvaluation(store.NewID(), result.Config{Domain: d.Name, NumTrials: 2}, result.AgentInfo{URL: "x"})
	if err := r.Run(context.Background(), eval, allTasks(d)); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{d.Name + " " + string(result.TermUserStop): 4}
	if diff := cmp.Diff(want, obs.sims); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
	if obs.requests != eval.Metrics.Requests || obs.requests == 0 {
		t.Errorf("observed %d requests, the evaluation made %d", obs.requests, eval.Metrics.Requests)
	}
	// Run again: everything is stored, nothing is recorded anew.
	if err := r.Run(context.Background(), eval, allTasks(d)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, obs.sims); diff != "" {
		t.Errorf("after a resume with nothing to do (-want +got):\n%s", diff)
	}
}
