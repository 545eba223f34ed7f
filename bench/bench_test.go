package bench_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/bench"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/store"
)

// benchTask is a three-request conversation: a tool call, a report, and an
// answer to the user's thanks.
func benchTask(t testing.TB) (*domains.Domain, *domains.Task) {
	d := counterDomain(t)
	task, _ := d.Task("add-three")
	return d, task
}

// BenchmarkSimulationOverhead compares, side by side in one run, a full
// simulation against an instant agent with the same number of bare a2a-go
// SendMessage round trips to the same agent. The ratio metric is proctor's
// overhead: orchestration, translation, parsing, tool execution, scoring.
func BenchmarkSimulationOverhead(b *testing.B) {
	d, task := benchTask(b)
	srv := agenttest.Start(b, counterAgent)
	client := dial(b, srv.URL)
	sim := bench.NewSimulator(d, agentbeats(b), bench.Limits{})
	ctx := context.Background()

	probe, _ := bench.NewScriptedUser(task)
	res, _ := sim.Run(ctx, task, 0, bench.ClientAgent(client), probe)
	if res.Reward != 1 {
		b.Fatalf("setup: simulation failed: %s %s", res.TerminationReason, res.Error)
	}
	trips := res.Metrics.Requests

	bare, err := sdkclient.NewFromCard(ctx, agenttest.Card(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	defer bare.Destroy()

	var simTime, bareTime time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		user, _ := bench.NewScriptedUser(task)
		if r, _ := sim.Run(ctx, task, i, bench.ClientAgent(client), user); r.Reward != 1 {
			b.Fatalf("simulation failed: %s", r.Error)
		}
		simTime += time.Since(start)

		start = time.Now()
		for range trips {
			msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("Please add 3 to the counter."))
			if _, err := bare.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg}); err != nil {
				b.Fatal(err)
			}
		}
		bareTime += time.Since(start)
	}
	b.ReportMetric(float64(simTime.Nanoseconds())/float64(b.N), "ns/simulation")
	b.ReportMetric(float64(bareTime.Nanoseconds())/float64(b.N), "ns/bare")
	b.ReportMetric(float64(simTime)/float64(bareTime), "ratio")
	b.ReportMetric(float64(trips), "requests/sim")
}

// BenchmarkConcurrentSimulations runs 500 simulations at once against an
// agent that takes 200 ms per reply, through the runner and a real store. The
// ideal wall time is requests-per-simulation x 200 ms; wall/ideal is how far
// proctor falls short of it, peak-heap-MB its memory at that concurrency.
func BenchmarkConcurrentSimulations(b *testing.B) {
	for _, sync := range []bool{false, true} {
		b.Run(fmt.Sprintf("fsync=%v", sync), func(b *testing.B) { benchConcurrent(b, 500, 200*time.Millisecond, sync) })
	}
}

func benchConcurrent(b *testing.B, n int, delay time.Duration, fsync bool) {
	d, task := benchTask(b)
	srv := agenttest.Start(b, agenttest.Delayed(delay, counterAgent))
	client := dial(b, srv.URL, a2aclient.WithMaxConnsPerHost(n))
	const requestsPerSim = 3
	ideal := time.Duration(requestsPerSim) * delay

	var worst, total float64
	var peak uint64
	for i := range b.N {
		opts := []store.Option{}
		if !fsync {
			opts = append(opts, store.WithNoSync())
		}
		db, err := store.Open(filepath.Join(b.TempDir(), fmt.Sprintf("b%d.db", i)), opts...)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		stop := sampleHeap(&peak)
		r := &bench.Runner{
			Simulator:   bench.NewSimulator(d, agentbeats(b), bench.Limits{}),
			Agent:       bench.ClientAgent(client),
			Store:       db,
			Concurrency: n,
		}
		eval := bench.NewEvaluation(store.NewID(), bench.Config{Domain: d.Name, NumTrials: n}, bench.AgentInfo{})
		start := time.Now()
		if err := r.Run(context.Background(), eval, []*domains.Task{task}); err != nil {
			b.Fatal(err)
		}
		wall := time.Since(start)
		stop()
		_ = db.Close()
		if eval.Summary.NumSimulations != n || eval.Summary.AvgReward != 1 {
			b.Fatalf("%d simulations, avg reward %v, reasons %v", eval.Summary.NumSimulations, eval.Summary.AvgReward, eval.Summary.TerminationReasons)
		}
		ratio := float64(wall) / float64(ideal)
		worst = max(worst, ratio)
		total += ratio
	}
	b.ReportMetric(total/float64(b.N), "wall/ideal")
	b.ReportMetric(worst, "worst-wall/ideal")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// sampleHeap records the peak live heap until the returned stop is called.
func sampleHeap(peak *uint64) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for !done.Load() {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > *peak {
				*peak = ms.HeapInuse
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return func() { done.Store(true); wg.Wait() }
}
