package evaluation_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
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
// simulation against an instant agent with bare a2a-go SendMessage round
// trips to the same agent, as many as the simulation makes. The
// simulations share one Scorer, as those of an evaluation do.
//
// x-bare is against the same number of short messages: it counts, beside
// proctor's own work (orchestration, translation, parsing, tool
// execution, scoring), what the simulation's longer messages (the policy
// and tool schemas of its first turn) cost a2a-go's client and the
// in-process agent to encode and decode. x-same is against the very
// messages the simulation sent (recorded from a first one), so that it is
// proctor's own overhead alone.
func BenchmarkSimulationOverhead(b *testing.B) {
	d, task := benchTask(b)
	var sent []string // the messages the probe simulation sent, in order
	var recording atomic.Bool
	srv := agenttest.Start(b, func(ctx context.Context, contextID, text string) string {
		if recording.Load() {
			sent = append(sent, text)
		}
		return counterAgent(ctx, contextID, text)
	})
	client := dial(b, srv.URL)
	sim := rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{})
	sc := scoring.NewScorer(d, false)
	ctx := context.Background()

	probe, _ := rollout.NewScriptedUser(task)
	recording.Store(true)
	res, _ := evaluation.Simulate(ctx, sim, sc, task, 0, a2aagent.New(client), probe)
	recording.Store(false)
	if res.Reward != 1 || len(sent) != res.Metrics.Requests {
		b.Fatalf("setup: simulation failed (%d of %d messages recorded): %s %s", len(sent), res.Metrics.Requests, res.TerminationReason, res.Error)
	}
	trips := res.Metrics.Requests

	bare, err := sdkclient.NewFromCard(ctx, agenttest.Card(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	defer bare.Destroy()

	var simTime, bareTime, sameTime time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		user, _ := rollout.NewScriptedUser(task)
		if r, _ := evaluation.Simulate(ctx, sim, sc, task, i, a2aagent.New(client), user); r.Reward != 1 {
			b.Fatalf("simulation failed: %s", r.Error)
		}
		simTime += time.Since(start)

		start = time.Now()
		for range trips {
			bareSend(b, bare, "", "Please add 3 to the counter.")
		}
		bareTime += time.Since(start)

		start = time.Now()
		ctxID := a2a.NewContextID()
		for _, text := range sent {
			bareSend(b, bare, ctxID, text)
		}
		sameTime += time.Since(start)
	}
	b.ReportMetric(float64(simTime.Nanoseconds())/float64(b.N), "ns/simulation")
	b.ReportMetric(float64(bareTime.Nanoseconds())/float64(b.N), "ns/bare")
	b.ReportMetric(float64(sameTime.Nanoseconds())/float64(b.N), "ns/same")
	b.ReportMetric(float64(simTime)/float64(bareTime), "x-bare") // 1 is no overhead over bare calls
	b.ReportMetric(float64(simTime)/float64(sameTime), "x-same")
	b.ReportMetric(float64(trips), "requests/sim")
}

// bareSend makes one SendMessage of text with a2a-go's client alone, in
// the context ctxID ("" for none), configured as proctor's requests are.
func bareSend(b *testing.B, c *sdkclient.Client, ctxID, text string) {
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	msg.ContextID = ctxID
	req := &a2a.SendMessageRequest{Message: msg}
	if ctxID != "" {
		req.Config = &a2a.SendMessageConfig{AcceptedOutputModes: []string{"text/plain", "text", "application/json"}}
	}
	if _, err := c.SendMessage(context.Background(), req); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkConcurrentSimulations runs 500 simulations at once against an
// agent that takes 200 ms per reply, through the runner and a real store. The
// ideal wall time is requests-per-simulation x 200 ms; wall/ideal is how far
// proctor falls short of it, peak-heap-MB its memory at that concurrency.
// wall/bare compares, in the same iteration, with 500 goroutines making the
// same calls through a2a-go's bare client: the part of the gap that is
// proctor's rather than this machine's HTTP stack.
//
// The agent runs in this process and so shares its two cores. "lean" is a
// minimal JSON-RPC agent, so the figure is proctor's; "a2a-go" is a2a-go's
// full server, whose own CPU cost shows up in the same wall time.
func BenchmarkConcurrentSimulations(b *testing.B) {
	for _, agent := range []string{"lean", "a2a-go"} {
		for _, fsync := range []bool{true, false} {
			b.Run(fmt.Sprintf("agent=%s/fsync=%v", agent, fsync), func(b *testing.B) {
				benchConcurrent(b, agent, 500, 200*time.Millisecond, fsync)
			})
		}
	}
}

func benchConcurrent(b *testing.B, server string, n int, delay time.Duration, fsync bool) {
	d, task := benchTask(b)
	start := agenttest.Start
	if server == "lean" {
		start = agenttest.StartLean
	}
	srv := start(b, agenttest.Delayed(delay, counterAgent))
	client := dial(b, srv.URL, a2aclient.WithMaxConnsPerHost(n))
	const requestsPerSim = 3
	ideal := time.Duration(requestsPerSim) * delay

	bare, err := sdkclient.NewFromCard(context.Background(), agenttest.Card(srv.URL),
		sdkclient.WithJSONRPCTransport(pooledHTTPClient(n)))
	if err != nil {
		b.Fatal(err)
	}
	defer bare.Destroy()

	var worst, total, vsBare float64
	var peak uint64
	for i := range b.N {
		bareWall := bareConcurrent(b, bare, n, requestsPerSim)
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
		r := &evaluation.Runner{
			Simulator:   rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}),
			Scorer:      scoring.NewScorer(d, false),
			Agent:       a2aagent.New(client),
			Store:       db,
			Concurrency: n,
		}
		eval := evaluation.NewEvaluation(store.NewID(), result.Config{Domain: d.Name, NumTrials: n}, result.AgentInfo{})
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
		vsBare += float64(wall) / float64(bareWall)
	}
	b.ReportMetric(total/float64(b.N), "wall/ideal")
	b.ReportMetric(vsBare/float64(b.N), "wall/bare")
	b.ReportMetric(worst, "worst-wall/ideal")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// bareConcurrent is the baseline of BenchmarkConcurrentSimulations: n
// goroutines each making the same number of sequential SendMessage calls
// with a2a-go's client and nothing else. Its wall time is what this machine
// needs for the load without proctor.
func bareConcurrent(b *testing.B, c *sdkclient.Client, n, calls int) time.Duration {
	start := time.Now()
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctxID := a2a.NewContextID()
			for range calls {
				msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("Please add 3 to the counter."))
				msg.ContextID = ctxID
				if _, err := c.SendMessage(context.Background(), &a2a.SendMessageRequest{Message: msg}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start)
}

func pooledHTTPClient(n int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = n
	return &http.Client{Transport: t}
}

// sampleHeap records the peak live heap until the returned stop is called.
// It reads runtime/metrics, which unlike runtime.ReadMemStats does not stop
// the world, so sampling does not slow down what it measures.
func sampleHeap(peak *uint64) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for !done.Load() {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > *peak {
				*peak = v
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return func() { done.Store(true); wg.Wait() }
}
