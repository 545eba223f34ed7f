package evaluation_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/airline"
	"github.com/proctor-eval/proctor/internal/cputime"
	"github.com/proctor-eval/proctor/internal/tau2test"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
)

// goldAgent is an in-process agent that costs next to nothing: it makes
// its task's expected agent calls one per reply, then says it is done. A
// simulation against it measures proctor alone.
type goldAgent struct{ task *domains.Task }

func (a goldAgent) NewConversation() rollout.Conversation {
	var calls []domains.ToolCall
	if ec := a.task.EvaluationCriteria; ec != nil {
		for i, act := range ec.Actions {
			if act.Requestor == "" || act.Requestor == domains.RequestorAssistant {
				calls = append(calls, domains.ToolCall{ID: fmt.Sprintf("call-%d", i), Name: act.Name, Arguments: act.Arguments})
			}
		}
	}
	return &goldConversation{calls: calls}
}

type goldConversation struct {
	calls []domains.ToolCall
	next  int
}

func (c *goldConversation) ContextID() string { return "gold" }

func (c *goldConversation) Step(context.Context, agent.Request) (*agent.Answer, error) {
	if c.next < len(c.calls) {
		c.next++
		return &agent.Answer{Reply: agent.Reply{ToolCalls: c.calls[c.next-1 : c.next]}}, nil
	}
	return &agent.Answer{Reply: agent.Reply{Text: "Done."}}, nil
}

func (c *goldConversation) Close() error { return nil }

// oneLineUser asks once, then stops.
type oneLineUser struct{ said bool }

func (u *oneLineUser) Reply(context.Context, string) (string, error) {
	if u.said {
		return rollout.StopToken, nil
	}
	u.said = true
	return "Hi, I need help with my reservation.", nil
}

// airlineBench is the airline domain with a simulator and a scorer whose
// gold hashes are computed already (an evaluation computes each task's
// once, whatever its number of trials).
func airlineBench(b *testing.B) (*domains.Domain, *rollout.Simulator, *scoring.Scorer) {
	d, err := airline.New(tau2test.Dir(b, "airline"), "")
	if err != nil {
		b.Fatal(err)
	}
	sc := scoring.NewScorer(d, false)
	for i := range d.Tasks {
		sc.DoNothingPasses(&d.Tasks[i])
	}
	return d, rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}), sc
}

// simulateGold plays and scores one simulation of task against goldAgent.
func simulateGold(ctx context.Context, sim *rollout.Simulator, sc *scoring.Scorer, task *domains.Task, trial int) (rollout.Recording, error) {
	rec, _ := sim.Run(ctx, task, trial, goldAgent{task}, &oneLineUser{})
	sc.Score(ctx, task, &rec.Simulation, rec.Env)
	if rec.Simulation.TerminationReason != result.TermUserStop {
		return rec, fmt.Errorf("task %s: %s: %s", task.ID, rec.Simulation.TerminationReason, rec.Simulation.Error)
	}
	if db := rec.Simulation.RewardInfo.DBCheck; db != nil && !db.DBMatch {
		return rec, fmt.Errorf("task %s: the gold actions left database %s, not the gold %s", task.ID, db.ActualHash, db.ExpectedHash)
	}
	return rec, nil
}

// BenchmarkAirlineSimulation measures the CPU proctor spends on one airline
// simulation, agent excluded: an in-process agent replays each task's
// expected actions (every task of the base split in turn), and the
// simulation is played, hashed and scored. "sequential" plays every task
// once per iteration and reports CPU per simulation; "concurrent-1000" plays 1,000 at once, every environment
// alive until all end, and reports the heap in use per simulation.
// BenchmarkBankingSimulation is its banking_knowledge counterpart (run
// both in one go test to compare them).
func BenchmarkAirlineSimulation(b *testing.B) {
	d, sim, sc := airlineBench(b)
	benchSimulations(b, d.Tasks, func(ctx context.Context, task *domains.Task, trial int) (rollout.Recording, error) {
		return simulateGold(ctx, sim, sc, task, trial)
	})
}

// simulateFunc plays and scores one simulation of a task.
type simulateFunc func(ctx context.Context, task *domains.Task, trial int) (rollout.Recording, error)

// benchSimulations is the harness of the per-simulation benchmarks:
// "sequential" plays every task in turn and reports process CPU per
// simulation; "concurrent-1000" plays 1,000 at once (tasks in turn), keeps
// every recording and environment alive until all end, and reports CPU and
// the heap in use per simulation beyond what was in use before (the
// domain, shared by all, is not counted).
func benchSimulations(b *testing.B, tasks []domains.Task, simulate simulateFunc) {
	ctx := context.Background()
	b.Run("sequential", func(b *testing.B) {
		cpu0, n := cputime.Process(b), 0
		for b.Loop() {
			for i := range tasks {
				if _, err := simulate(ctx, &tasks[i], n); err != nil {
					b.Fatal(err)
				}
				n++
			}
		}
		b.ReportMetric(float64((cputime.Process(b)-cpu0).Microseconds())/1000/float64(n), "cpu-ms/sim")
	})
	b.Run("concurrent-1000", func(b *testing.B) {
		const n = 1000
		var peak uint64
		cpu0, runs := cputime.Process(b), 0
		for b.Loop() {
			runtime.GC()
			var base runtime.MemStats
			runtime.ReadMemStats(&base)
			recs := make([]rollout.Recording, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() { recs[i], errs[i] = simulate(ctx, &tasks[i%len(tasks)], i) })
			}
			wg.Wait()
			runtime.GC() // what stays: the recordings and their environments
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			peak = max(peak, after.HeapInuse-min(after.HeapInuse, base.HeapInuse))
			for _, err := range errs {
				if err != nil {
					b.Fatal(err)
				}
			}
			runtime.KeepAlive(recs)
			runs += n
		}
		b.ReportMetric(float64((cputime.Process(b)-cpu0).Microseconds())/1000/float64(runs), "cpu-ms/sim")
		b.ReportMetric(float64(peak)/n/1024, "heap-KiB/sim")
	})
}
