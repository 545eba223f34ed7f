//go:build unix

package server

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/internal/cputime"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// BenchmarkMetricsCollection measures, side by side in one run, the CPU
// the process spends per simulation of an evaluation (every mock task,
// the built-in agent in-process, a database without fsync) with the
// server's metrics off and on: each iteration runs the evaluation once
// each way, alternating which goes first, so that the machine's load
// weighs on both alike. It reports both and their ratio (on/off), which
// the issue wants at most 1.02.
func BenchmarkMetricsCollection(b *testing.B) {
	off, on := benchService(b, false), benchService(b, true)
	runEvaluation(b, off) // warm both up: the built-in agent, the domain
	runEvaluation(b, on)
	var cpu [2]time.Duration
	sims := 0
	b.ResetTimer()
	for i := range b.N {
		order := [2]int{0, 1}
		if i%2 == 1 {
			order = [2]int{1, 0}
		}
		for _, which := range order {
			svc := off
			if which == 1 {
				svc = on
			}
			before := cputime.Process(b)
			n := runEvaluation(b, svc)
			cpu[which] += cputime.Process(b) - before
			if which == 0 {
				sims += n
			}
		}
	}
	offPerSim := float64(cpu[0].Nanoseconds()) / float64(sims)
	onPerSim := float64(cpu[1].Nanoseconds()) / float64(sims)
	b.ReportMetric(offPerSim, "cpu-ns/sim-off")
	b.ReportMetric(onPerSim, "cpu-ns/sim-on")
	b.ReportMetric(onPerSim/offPerSim, "on/off")
}

// BenchmarkSimulationRecorded is the metrics' own cost per simulation: one
// of ten requests and two model calls.
func BenchmarkSimulationRecorded(b *testing.B) {
	m := newMetrics(newQueue(1))
	sim := &result.Simulation{TerminationReason: result.TermUserStop, Reward: 1, LLMCalls: []llm.Call{
		{Role: "user", Model: "openai:gpt-4.1", InputTokens: 900, OutputTokens: 40, CostUSD: 0.002, Priced: true},
		{Role: "judge", Model: "openai:gpt-4.1", InputTokens: 1200, OutputTokens: 20, CostUSD: 0.003, Priced: true},
	}}
	for range 10 {
		sim.Requests = append(sim.Requests, a2aclient.RequestMetrics{Method: "SendMessage", LatencyMS: 120, HTTPStatus: 200})
	}
	b.ReportAllocs()
	for b.Loop() {
		m.SimulationRecorded("airline", sim)
	}
}

// benchService is a service on a fresh database, its evaluations
// observed by a server's metrics or not.
func benchService(b *testing.B, metricsOn bool) *skills.Service {
	reg, err := catalog.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	db, err := store.Open(filepath.Join(b.TempDir(), "p.db"), store.WithNoSync())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	svc := &skills.Service{Domains: reg, Store: db}
	if metricsOn {
		observe(svc, newMetrics(newQueue(1)))
	}
	return svc
}

// runEvaluation runs every mock task once on the built-in agent and
// returns the number of simulations.
func runEvaluation(b *testing.B, svc *skills.Service) int {
	ctx := context.Background()
	run, err := svc.Prepare(ctx, skills.EvaluationRequest{AgentURL: skills.BuiltinAgent, Domain: "mock", Concurrency: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer run.Close()
	if err := run.Execute(ctx, nil); err != nil {
		b.Fatal(err)
	}
	if eval := run.Evaluation(); eval.Status != result.StatusCompleted || eval.Summary.PassHatK["1"] != 1 {
		b.Fatalf("evaluation %s, pass^1 %v", eval.Status, eval.Summary.PassHatK["1"])
	}
	return len(run.Evaluation().Simulations)
}
