package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/internal/cputime"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
)

// benchSimulations is a 1,000-simulation evaluation: 250 tasks x 4
// trials, each with a 20-message transcript, passing when pass(task,
// trial).
func benchSimulations(pass func(task, trial int) bool) []result.Simulation {
	sims := make([]result.Simulation, 0, 1000)
	for task := range 250 {
		for trial := range 4 {
			s := result.Simulation{ID: result.SimulationID(fmt.Sprintf("task-%03d", task), trial), TaskID: fmt.Sprintf("task-%03d", task),
				Trial: trial, TerminationReason: result.TermUserStop}
			if pass(task, trial) {
				s.Reward = 1
			}
			for i := range 20 {
				s.Messages = append(s.Messages, result.Message{Role: result.RoleAssistant, Turn: i,
					Content: fmt.Sprintf("I have updated reservation ABC%03d; anything else?", i)})
			}
			sims = append(sims, s)
		}
	}
	return sims
}

// storeBenchEvaluation stores an evaluation of sims with status.
func storeBenchEvaluation(b *testing.B, db *store.DB, status result.Status, sims []result.Simulation) string {
	b.Helper()
	ctx := context.Background()
	eval := result.Evaluation{ID: store.NewID(), Status: status, Domain: "mock", Agent: result.AgentInfo{URL: "http://agent"},
		CreatedAt: time.Now().UTC(), Summary: scoring.Summarize(sims, nil)}
	data, err := json.Marshal(eval)
	if err != nil {
		b.Fatal(err)
	}
	if err := db.PutEvaluation(ctx, store.Evaluation{ID: eval.ID, Domain: "mock", AgentURL: "http://agent", Status: string(status), Data: data}); err != nil {
		b.Fatal(err)
	}
	for _, s := range sims {
		raw, err := json.Marshal(s)
		if err != nil {
			b.Fatal(err)
		}
		if err := db.PutSimulation(ctx, eval.ID, store.Simulation{ID: s.ID, TaskID: s.TaskID, Trial: s.Trial, Reward: s.Reward, Data: raw}); err != nil {
			b.Fatal(err)
		}
	}
	return eval.ID
}

// BenchmarkCompare is proctor compare of two 1,000-simulation evaluations,
// as a user runs it: the database opened, both evaluations read, compared
// and rendered as a table. The target is under 200 ms. "completed" reads
// each evaluation's summary record; "interrupted" must read and score all
// 2,000 simulations.
func BenchmarkCompare(b *testing.B) {
	for _, status := range []result.Status{result.StatusCompleted, result.StatusInterrupted} {
		b.Run(string(status), func(b *testing.B) {
			path := b.TempDir() + "/bench.db"
			db, err := store.Open(path, store.WithNoSync())
			if err != nil {
				b.Fatal(err)
			}
			a := storeBenchEvaluation(b, db, status, benchSimulations(func(task, trial int) bool { return (task+trial)%3 != 0 }))
			c := storeBenchEvaluation(b, db, status, benchSimulations(func(task, trial int) bool { return (task+trial)%4 != 0 }))
			if err := db.Close(); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			cpu := cputime.Process(b)
			for b.Loop() {
				if code := run(ctx, []string{"compare", "--db", path, a, c, "--fail-on-regression", "0.5"}, io.Discard, io.Discard); code != exitOK {
					b.Fatalf("exit %d", code)
				}
			}
			// CPU time, unlike ns/op, does not grow with what else the
			// machine runs: the figure to compare on a shared machine.
			b.ReportMetric(float64((cputime.Process(b)-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
