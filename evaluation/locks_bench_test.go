package evaluation_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
)

// BenchmarkStoreLocks measures what short locks cost an evaluation: 200
// simulations against an instant agent, four at a time, stored with fsync,
// the database held for the whole run ("held", bbolt's lock taken once) or
// opened around every write ("short", what `proctor run` does so that
// `proctor results` can read meanwhile). sims/s is the throughput; an
// instant agent makes the store's share as large as it can be.
func BenchmarkStoreLocks(b *testing.B) {
	for _, mode := range []struct {
		name string
		opts []store.Option
	}{
		{"held", nil},
		{"short", []store.Option{store.WithShortLocks()}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			benchLocks(b, mode.opts)
		})
	}
}

func benchLocks(b *testing.B, opts []store.Option) {
	const sims = 200
	d, task := benchTask(b)
	srv := agenttest.StartLean(b, counterAgent)
	client := dial(b, srv.URL)
	var wall time.Duration
	i := 0
	for b.Loop() {
		db, err := store.Open(filepath.Join(b.TempDir(), "b.db"), opts...)
		if err != nil {
			b.Fatal(err)
		}
		r := &evaluation.Runner{
			Simulator:   rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}),
			Scorer:      scoring.NewScorer(d, false),
			Agent:       a2aagent.New(client),
			Store:       db,
			Concurrency: 4,
		}
		eval := evaluation.NewEvaluation(store.NewID(), result.Config{Domain: d.Name, NumTrials: sims}, result.AgentInfo{})
		start := time.Now()
		if err := r.Run(context.Background(), eval, []*domains.Task{task}); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(start)
		_ = db.Close()
		if eval.Summary.NumSimulations != sims || eval.Summary.AvgReward != 1 {
			b.Fatalf("%d simulations, avg reward %v", eval.Summary.NumSimulations, eval.Summary.AvgReward)
		}
		i++
	}
	b.ReportMetric(float64(sims*i)/wall.Seconds(), "sims/s")
}
