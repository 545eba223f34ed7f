package ecp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
)

// BenchmarkSixtyFourAgents evaluates the mock domain (17 tasks x 8
// trials) 64 simulations at a time against stdio agents (this test binary
// as the reference agent, one process per concurrent simulation, drawn
// from the pool), and reports what that costs proctor: the peak of its
// live heap ("peak-heap-MiB", sampled every 5 ms) and of its resident set
// ("proctor-peak-rss-MiB", the process's VmHWM, which includes the test
// binary's own start), beside the agents' resident sets at the heap's
// peak ("agents-rss-MiB"), the agents started and the simulations per
// second. Run it with -benchtime 1x.
func BenchmarkSixtyFourAgents(b *testing.B) {
	const concurrency, trials = 64, 8
	d := mockDomain(b)
	tgt, err := ecp.ParseTarget(agentTarget(b, "refagent"))
	if err != nil {
		b.Fatal(err)
	}
	var peak memPeak
	stop := peak.sample(5 * time.Millisecond)
	defer stop()
	var sims []result.Simulation
	var stats ecp.PoolStats
	start := time.Now()
	for b.Loop() {
		pool := ecp.NewPool(tgt, ecp.Options{RequestTimeout: time.Minute})
		sims = playConcurrently(b, d, ecp.NewAgent(pool, 0), trials, concurrency)
		stats = pool.Stats()
		pool.Close()
	}
	elapsed := time.Since(start)
	stop()
	passed := 0
	for _, s := range sims {
		if s.Passed() {
			passed++
		}
	}
	if passed != len(sims) {
		b.Errorf("%d of %d simulations passed, want all", passed, len(sims))
	}
	b.ReportMetric(float64(peak.heap)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(vmKB("VmHWM", "self"))/1024, "proctor-peak-rss-MiB")
	b.ReportMetric(float64(peak.agentsRSS)/(1<<20), "agents-rss-MiB")
	b.ReportMetric(float64(stats.Started), "agents")
	b.ReportMetric(float64(len(sims)*b.N)/elapsed.Seconds(), "sims/s")
}

// memPeak tracks the peak of proctor's live heap, and the agents' summed
// resident sets when it was reached.
type memPeak struct {
	mu        sync.Mutex
	heap      uint64
	agentsRSS uint64
}

// sample reads the heap every period until the returned function is
// called (more than once is fine).
func (p *memPeak) sample(period time.Duration) func() {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(period)
		defer tick.Stop()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			if h := s[0].Value.Uint64(); h > p.heap {
				p.mu.Lock()
				p.heap, p.agentsRSS = h, childrenRSS()
				p.mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); <-finished }) }
}

// childrenRSS sums the resident sets of this process's children, in bytes.
func childrenRSS() uint64 {
	me := strconv.Itoa(os.Getpid())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var sum uint64
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == me {
			sum += vmKB("VmRSS", filepath.Base(filepath.Dir(path))) << 10
		}
	}
	return sum
}

// vmKB reads a kB figure of /proc/PID/status; 0 when there is none.
func vmKB(field, pid string) uint64 {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// playConcurrently plays and scores every task of d trials times against
// agent, concurrency at a time, as an evaluation does.
func playConcurrently(tb testing.TB, d *domains.Domain, ag rollout.Agent, trials, concurrency int) []result.Simulation {
	tb.Helper()
	sim := rollout.NewSimulator(d, agent.ProfileStructured, rollout.Limits{})
	scorer := scoring.NewScorer(d, false)
	out := make([]result.Simulation, len(d.Tasks)*trials)
	sem := make(chan struct{}, concurrency)
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			task := &d.Tasks[i%len(d.Tasks)]
			user, err := rollout.NewScriptedUser(task)
			if err != nil {
				tb.Error(err)
				return
			}
			rec, _ := sim.Run(context.Background(), task, i/len(d.Tasks), ag, user)
			scorer.Score(context.Background(), task, &rec.Simulation, rec.Env)
			out[i] = rec.Simulation
		})
	}
	wg.Wait()
	return out
}

// BenchmarkPoolStart compares what a simulation waits for before its
// first step: a fresh agent (process start, agent/initialize and
// agent/reset; "fresh-ms") against one the pool kept from an earlier
// simulation (agent/reset only; "reused-ms"), the medians of alternating
// runs, and their ratio ("fresh/reused"), for this test binary as the
// agent (Go) and for the Python example agent when python3 is installed.
func BenchmarkPoolStart(b *testing.B) {
	agents := []struct{ name, target string }{{"go", agentTarget(b, "refagent")}}
	if py, err := exec.LookPath("python3"); err == nil {
		script, err := filepath.Abs(filepath.Join("..", "examples", "ecp", "taskly_agent.py"))
		if err != nil {
			b.Fatal(err)
		}
		agents = append(agents, struct{ name, target string }{"python", ecp.SchemeStdio + strconv.Quote(py) + " " + strconv.Quote(script)})
	}
	for _, a := range agents {
		b.Run(a.name, func(b *testing.B) {
			tgt, err := ecp.ParseTarget(a.target)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			warm := ecp.NewPool(tgt, ecp.Options{})
			defer warm.Close()
			if _, err := warm.Warm(ctx); err != nil {
				b.Fatal(err)
			}
			var fresh, reused []time.Duration
			get := func(p *ecp.Pool) time.Duration {
				start := time.Now()
				c, err := p.Get(ctx)
				if err != nil {
					b.Fatal(err)
				}
				d := time.Since(start)
				p.Put(c)
				return d
			}
			for b.Loop() {
				p := ecp.NewPool(tgt, ecp.Options{})
				fresh = append(fresh, get(p))
				p.Close()
				reused = append(reused, get(warm))
			}
			f, r := median(fresh), median(reused)
			b.ReportMetric(float64(f.Microseconds())/1000, "fresh-ms")
			b.ReportMetric(float64(r.Microseconds())/1000, "reused-ms")
			b.ReportMetric(float64(f)/float64(r), "fresh/reused")
		})
	}
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}
