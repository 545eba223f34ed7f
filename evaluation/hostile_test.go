package evaluation_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
)

// heapWatch measures the heap around a piece of work: the baseline after a
// full collection; the largest live heap a collection found while the work
// ran (the bounds apply to it); the largest heap of objects sampled, dead
// ones not yet swept included, which is logged only (a background sweeper
// starved of CPU leaves freed buffers counted there for a while); what is
// allocated; and what is left after a full collection at the end.
type heapWatch struct {
	base, after uint64
	peakLive    uint64 // live heap marked by the collections during the work
	peakObjects uint64 // live and unswept objects, sampled
	allocs      uint64 // bytes allocated while watching
	cycles      uint64 // collections completed while watching
	allocsBase  uint64
	cyclesBase  uint64
	done        atomic.Bool
	wg          sync.WaitGroup
}

// heapSample is one reading of the runtime's heap metrics.
type heapSample struct {
	objects, live, allocs, cycles uint64
}

func readHeap() heapSample {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/heap/allocs:bytes"},
		{Name: "/gc/cycles/total:gc-cycles"},
	}
	metrics.Read(s)
	return heapSample{s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64(), s[3].Value.Uint64()}
}

func watchHeap() *heapWatch {
	runtime.GC()
	runtime.GC() // a second cycle empties sync.Pools' victim caches too
	w := &heapWatch{}
	first := readHeap()
	w.base, w.allocsBase, w.cyclesBase = first.live, first.allocs, first.cycles
	w.peakLive, w.peakObjects = first.live, first.objects
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for !w.done.Load() {
			w.sample()
			time.Sleep(time.Millisecond)
		}
	}()
	return w
}

func (w *heapWatch) sample() heapSample {
	h := readHeap()
	w.peakLive = max(w.peakLive, h.live)
	w.peakObjects = max(w.peakObjects, h.objects)
	return h
}

func (w *heapWatch) stop() {
	w.done.Store(true)
	w.wg.Wait()
	h := w.sample()
	w.allocs, w.cycles = h.allocs-w.allocsBase, h.cycles-w.cyclesBase
	runtime.GC()
	runtime.GC()
	w.after = readHeap().live
}

// peakOver is what the bounds apply to: the largest live heap a collection
// found during the work, over the baseline. When none ran, everything
// allocated is still on the heap, so the allocations bound the peak.
func (w *heapWatch) peakOver() uint64 {
	if w.cycles == 0 {
		return w.allocs
	}
	return w.over(w.peakLive)
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

// over returns how far v is above the baseline, in bytes (0 when below).
func (w *heapWatch) over(v uint64) uint64 {
	if v < w.base {
		return 0
	}
	return v - w.base
}

// TestHostileAgentsInEvaluation runs a whole evaluation (both tasks of the
// counter domain, one conversation at a time, through the runner and a real
// store) against each hostile agent. Every simulation must end, within the
// configured limits, as a recorded agent_error whose metrics carry the
// expected error class, the runner must go on to the next simulation and
// finish them all, and proctor's heap must stay far below what the agent
// tried to send.
func TestHostileAgentsInEvaluation(t *testing.T) {
	const hundredMiB = 100 << 20
	cases := []struct {
		name      string
		agent     func(t *testing.T) *agenttest.Hostile
		opts      []a2aclient.Option
		wantClass a2aclient.ErrorClass
		// tries is the number of A2A calls each simulation makes: its one
		// request, plus retries when the failure is transient.
		tries int
		// maxWall bounds the whole evaluation (two simulations): well
		// under the request timeout, so that a cap, not the timeout, must
		// end it, with room for a loaded 2-core machine (the 100 MiB
		// cases took 3.4-4.4 s under -race with a load average of 16-20,
		// 1-2 s on a quiet one).
		maxWall time.Duration
		// maxHeap bounds the peak live heap above the baseline.
		maxHeap uint64
	}{
		{
			// proctor holds at most the 16 MiB it reads before it gives up,
			// once, and a2a-go never sees any of it. (Fed to a2a-go's
			// decoder as it arrived, the reply used to peak at some 124 MiB:
			// the decoder's doubling buffer, 16 + 32 MiB at the end, and the
			// garbage the collector's pacing let pile up.)
			name:      "100 MiB reply, default 16 MiB cap",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.HugeReplyAgent(t, hundredMiB) },
			wantClass: a2aclient.ErrClassTooLarge,
			tries:     1,
			maxWall:   10 * time.Second,
			maxHeap:   48 << 20,
		},
		{
			name:      "100 MiB reply, 1 MiB cap",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.HugeReplyAgent(t, hundredMiB) },
			opts:      []a2aclient.Option{a2aclient.WithMaxResponseBytes(1 << 20)},
			wantClass: a2aclient.ErrClassTooLarge,
			tries:     1,
			maxWall:   2 * time.Second,
			maxHeap:   12 << 20,
		},
		{
			// Streamed, the reply is one SSE event: a2a-go refuses an event
			// over 10 MiB before the 16 MiB cap is reached. Its line scanner
			// doubles its buffer up to those 10 MiB.
			name:      "100 MiB event, default cap",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.HugeEventAgent(t, hundredMiB) },
			wantClass: a2aclient.ErrClassTooLarge,
			tries:     1,
			maxWall:   10 * time.Second,
			maxHeap:   48 << 20,
		},
		{
			// 4 MB of `[{},...]` in a data part (1.3 million values) is
			// refused after the first 2^18 values, about 800 KB, before
			// a2a-go decodes any of it. (Decoded, it used to take the heap
			// to some 285 MB.)
			name:      "data part of empty objects, 4 MB",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.DataBombAgent(t, 4_000_000/3, false) },
			wantClass: a2aclient.ErrClassTooLarge,
			tries:     1,
			maxWall:   10 * time.Second,
			maxHeap:   16 << 20,
		},
		{
			name:      "data part of empty objects, 4 MB, streamed",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.DataBombAgent(t, 4_000_000/3, true) },
			wantClass: a2aclient.ErrClassTooLarge,
			tries:     1,
			maxWall:   10 * time.Second,
			maxHeap:   16 << 20,
		},
		{
			// Just under the 16 MiB cap of structpb nulls: 4 million
			// values, refused on the wire bytes gRPC received, before they
			// become messages (which used to take some 500 MB each).
			name:      "gRPC data part of nulls, 16 MiB",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.GRPCNullsAgent(t, 16<<20-4096, false) },
			wantClass: a2aclient.ErrClassTooLarge,
			tries:     1,
			maxWall:   10 * time.Second, // counting 4 million messages takes a second a reply under -race
			maxHeap:   48 << 20,
		},
		{
			name:      "gRPC data part of nulls, 16 MiB, streamed",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.GRPCNullsAgent(t, 16<<20-4096, true) },
			wantClass: a2aclient.ErrClassTooLarge,
			tries:     1,
			maxWall:   10 * time.Second, // counting 4 million messages takes a second a reply under -race
			maxHeap:   48 << 20,
		},
		{
			// Events every 10 ms are about 30 KB/s: the request timeout
			// ends the stream long before the 16 MiB cap would.
			name:      "endless stream, 300ms request timeout",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.EndlessStreamAgent(t, 10*time.Millisecond) },
			opts:      []a2aclient.Option{a2aclient.WithRequestTimeout(300 * time.Millisecond)},
			wantClass: a2aclient.ErrClassTimeout,
			tries:     1,
			maxWall:   2 * time.Second,
			maxHeap:   16 << 20,
		},
		{
			// Flooded as fast as proctor reads, the cap comes first.
			name:      "flooding stream, 1 MiB cap",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.EndlessStreamAgent(t, 0) },
			opts:      []a2aclient.Option{a2aclient.WithRequestTimeout(30 * time.Second), a2aclient.WithMaxResponseBytes(1 << 20)},
			wantClass: a2aclient.ErrClassTooLarge,
			tries:     1,
			maxWall:   10 * time.Second,
			maxHeap:   16 << 20,
		},
		{
			name:      "connection reset mid-stream",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.ResetAgent(t, true) },
			opts:      []a2aclient.Option{a2aclient.WithRetries(2, time.Millisecond)},
			wantClass: a2aclient.ErrClassConnection,
			tries:     3,
			maxWall:   2 * time.Second,
			maxHeap:   16 << 20,
		},
		{
			name:      "JSON cut mid-object",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.TruncatedAgent(t, agenttest.TruncateBody) },
			opts:      []a2aclient.Option{a2aclient.WithRetries(2, time.Millisecond)},
			wantClass: a2aclient.ErrClassProtocol,
			tries:     1,
			maxWall:   2 * time.Second,
			maxHeap:   16 << 20,
		},
		{
			name: "Content-Length stops mid-object",
			agent: func(t *testing.T) *agenttest.Hostile {
				return agenttest.TruncatedAgent(t, agenttest.TruncateContentLength)
			},
			opts:      []a2aclient.Option{a2aclient.WithRetries(2, time.Millisecond)},
			wantClass: a2aclient.ErrClassProtocol,
			tries:     1,
			maxWall:   2 * time.Second,
			maxHeap:   16 << 20,
		},
		{
			name:      "SSE event cut mid-object",
			agent:     func(t *testing.T) *agenttest.Hostile { return agenttest.TruncatedAgent(t, agenttest.TruncateEvent) },
			opts:      []a2aclient.Option{a2aclient.WithRetries(2, time.Millisecond)},
			wantClass: a2aclient.ErrClassProtocol,
			tries:     1,
			maxWall:   2 * time.Second,
			maxHeap:   16 << 20,
		},
	}
	d := counterDomain(t)
	tasks := allTasks(d)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hostile := tc.agent(t)
			client := dial(t, hostile.URL, tc.opts...)
			db := openStore(t)
			var progress []evaluation.Progress
			r := &evaluation.Runner{
				Simulator:   rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}),
				Scorer:      scoring.NewScorer(d, false),
				Agent:       a2aagent.New(client),
				Store:       db,
				Concurrency: 1,
				OnProgress:  func(p evaluation.Progress) { progress = append(progress, p) },
			}
			eval := evaluation.NewEvaluation(store.NewID(), result.Config{Domain: d.Name, NumTrials: 1}, result.AgentInfo{URL: hostile.URL})

			heap := watchHeap()
			start := time.Now()
			err := r.Run(context.Background(), eval, tasks)
			wall := time.Since(start)
			heap.stop()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("wall %v (bound %v); heap base %.1f MiB, peak +%.1f MiB (bound +%.0f MiB; with unswept objects +%.1f MiB), "+
				"after +%.1f MiB; %.1f MiB allocated, %d collections",
				wall.Round(time.Millisecond), tc.maxWall, mib(heap.base), mib(heap.peakOver()), mib(tc.maxHeap),
				mib(heap.over(heap.peakObjects)), mib(heap.over(heap.after)), mib(heap.allocs), heap.cycles)

			// Every simulation ends as an agent_error: an evaluation that
			// measured nothing is failed, saying so.
			if eval.Status != result.StatusFailed || !strings.Contains(eval.Error, "every simulation failed") ||
				len(eval.Simulations) != len(tasks) || eval.Summary.NumSimulations != len(tasks) {
				t.Fatalf("status %s, %d simulations, summary %+v: want all %d simulations run", eval.Status, len(eval.Simulations), eval.Summary, len(tasks))
			}
			if len(progress) != len(tasks) || progress[len(progress)-1].Done != len(tasks) {
				t.Errorf("progress = %+v", progress)
			}
			if wall > tc.maxWall {
				t.Errorf("evaluation took %v, want under %v", wall, tc.maxWall)
			}
			if over := heap.peakOver(); over > tc.maxHeap {
				t.Errorf("peak heap %.1f MiB over the baseline, want under %.0f MiB", mib(over), mib(tc.maxHeap))
			}
			if over := heap.over(heap.after); over > 4<<20 {
				t.Errorf("heap still %.1f MiB over the baseline after the evaluation", mib(over))
			}
			if got, want := hostile.Calls(), len(tasks)*tc.tries; got != want {
				t.Errorf("agent saw %d calls, want %d (%d per simulation)", got, want, tc.tries)
			}
			if n := eval.Summary.TerminationReasons[string(result.TermAgentError)]; n != len(tasks) {
				t.Errorf("termination reasons %v, want %d %s", eval.Summary.TerminationReasons, len(tasks), result.TermAgentError)
			}
			if n := eval.Metrics.ErrorClasses[string(tc.wantClass)]; n != len(tasks) {
				t.Errorf("evaluation error classes %v, want %d %s", eval.Metrics.ErrorClasses, len(tasks), tc.wantClass)
			}

			loaded, err := evaluation.Load(context.Background(), db, eval.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(loaded.Simulations) != len(tasks) {
				t.Fatalf("%d simulations stored, want %d", len(loaded.Simulations), len(tasks))
			}
			for _, sim := range loaded.Simulations {
				if sim.TerminationReason != result.TermAgentError || !strings.Contains(sim.Error, string(tc.wantClass)) {
					t.Errorf("%s: termination %q, error %q; want %s with a %s error", sim.ID, sim.TerminationReason, sim.Error, result.TermAgentError, tc.wantClass)
				}
				if sim.Reward != 0 {
					t.Errorf("%s: reward %v", sim.ID, sim.Reward)
				}
				m := sim.Metrics
				if m.Requests != 1 || m.Errors != 1 || m.ErrorClasses[string(tc.wantClass)] != 1 {
					t.Errorf("%s: metrics %+v, want one request failed as %s", sim.ID, m, tc.wantClass)
				}
				raw, err := db.Requests(context.Background(), eval.ID, sim.ID)
				if err != nil {
					t.Fatal(err)
				}
				var reqs []a2aclient.RequestMetrics
				if err := json.Unmarshal(raw, &reqs); err != nil || len(reqs) != 1 {
					t.Fatalf("%s: stored requests %s: %v", sim.ID, raw, err)
				}
				q := reqs[0]
				if q.ErrorClass != tc.wantClass || q.Error == "" || q.Retries != tc.tries-1 || q.LatencyMS <= 0 {
					t.Errorf("%s: stored request %+v, want class %s after %d retries", sim.ID, q, tc.wantClass, tc.tries-1)
				}
			}
		})
	}
}

// TestConcurrentValueBombs: 128 conversations at once on one Client, each
// answered with a data part of empty objects, stay under a stated heap
// ceiling whether the replies are over the value limit (refused before
// decoding) or at it (decoded, at most four replies' worth at once). The
// limit is scaled down to 2^14 values so that the decoding stays quick
// under -race; the heap scales with it (see docs/performance.md).
// With PROCTOR_LOAD=full the same replies are also sent with no value
// limit, for comparison (logged, not bounded).
func TestConcurrentValueBombs(t *testing.T) {
	const limit, conversations = 1 << 14, 128
	cases := []struct {
		name    string
		objects int   // empty objects in the data part; the reply holds 11 values more
		values  int64 // WithMaxResponseValues
		wantErr bool
		maxHeap uint64 // 0: logged only
	}{
		{name: "over the limit (4 MB each)", objects: 4_000_000 / 3, values: limit, wantErr: true, maxHeap: 24 << 20},
		{name: "at the limit", objects: limit - 11, values: limit, maxHeap: 32 << 20},
	}
	if os.Getenv("PROCTOR_LOAD") == "full" {
		cases = append(cases, struct {
			name    string
			objects int
			values  int64
			wantErr bool
			maxHeap uint64
		}{name: "at the limit, no limit", objects: limit - 11, values: 0})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			agent := agenttest.DataBombAgent(t, tc.objects, false)
			client := dial(t, agent.URL, a2aclient.WithMaxResponseValues(tc.values), a2aclient.WithRetries(0, time.Millisecond))
			heap := watchHeap()
			errs := make([]error, conversations)
			var wg sync.WaitGroup
			for i := range conversations {
				wg.Go(func() {
					_, errs[i] = client.NewConversation().Send(context.Background(), []*a2a.Part{a2a.NewTextPart("hello")})
				})
			}
			wg.Wait()
			heap.stop()
			t.Logf("%d conversations: heap base %.1f MiB, peak +%.1f MiB (bound +%.0f MiB; with unswept objects +%.1f MiB), after +%.1f MiB; %.1f MiB allocated, %d collections",
				conversations, mib(heap.base), mib(heap.peakOver()), mib(tc.maxHeap), mib(heap.over(heap.peakObjects)), mib(heap.over(heap.after)), mib(heap.allocs), heap.cycles)
			for i, err := range errs {
				var cerr *a2aclient.CallError
				switch {
				case tc.wantErr && (!errors.As(err, &cerr) || cerr.Class != a2aclient.ErrClassTooLarge):
					t.Fatalf("conversation %d: error %v, want %s", i, err, a2aclient.ErrClassTooLarge)
				case !tc.wantErr && err != nil:
					t.Fatalf("conversation %d: %v", i, err)
				}
			}
			if over := heap.peakOver(); tc.maxHeap > 0 && over > tc.maxHeap {
				t.Errorf("peak heap %.1f MiB over the baseline, want under %.0f MiB", mib(over), mib(tc.maxHeap))
			}
		})
	}
}
