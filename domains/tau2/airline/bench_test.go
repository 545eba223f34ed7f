package airline

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/internal/cputime"
)

// simulations is the bar: this many concurrent airline simulations
// must fit in 1 GB.
const simulations = 100

// simulate is one simulation's worth of tool calls on a fresh environment:
// reads, a booking, a baggage change, a cancellation, a certificate, and the
// final hash.
func simulate(d *domains.Domain) (domains.Env, string, error) {
	env, err := d.NewEnv(nil)
	if err != nil {
		return nil, "", err
	}
	calls := []domains.ToolCall{
		{Name: "get_user_details", Arguments: map[string]any{"user_id": sophia}},
		{Name: "get_reservation_details", Arguments: map[string]any{"reservation_id": wunaRes}},
		{Name: "search_direct_flight", Arguments: map[string]any{"origin": "ORD", "destination": "PHL", "date": "2024-05-26"}},
		{Name: "book_reservation", Arguments: map[string]any{
			"user_id": sophia, "origin": "ORD", "destination": "PHL", "flight_type": "one_way", "cabin": "economy",
			"flights":         []any{map[string]any{"flight_number": "HAT271", "date": "2024-05-26"}},
			"passengers":      []any{map[string]any{"first_name": "Sophia", "last_name": "Silva", "dob": "1957-10-05"}},
			"payment_methods": []any{map[string]any{"payment_id": cardID, "amount": 174.0}},
			"total_baggages":  0.0, "nonfree_baggages": 0.0, "insurance": "no",
		}},
		{Name: "update_reservation_baggages", Arguments: map[string]any{"reservation_id": wunaRes, "total_baggages": 2.0, "nonfree_baggages": 1.0, "payment_id": giftID}},
		{Name: "cancel_reservation", Arguments: map[string]any{"reservation_id": "HATHAT"}},
		{Name: "send_certificate", Arguments: map[string]any{"user_id": sophia, "amount": 50.0}},
	}
	for _, c := range calls {
		if res := env.Call(c); res.Error {
			return nil, "", fmt.Errorf("%s: %s", c.Name, res.Content)
		}
	}
	h, err := env.Hash()
	return env, h, err
}

// memStats are peak figures over a run.
type memStats struct {
	heapObjects uint64 // live and not yet collected heap objects
	goTotal     uint64 // all memory the Go runtime has mapped
}

// sampleMemory samples runtime/metrics every millisecond until stop is
// closed, and returns the peaks.
func sampleMemory(stop <-chan struct{}) <-chan memStats {
	out := make(chan memStats, 1)
	go func() {
		samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"}}
		var peak memStats
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(samples)
			peak.heapObjects = max(peak.heapObjects, samples[0].Value.Uint64())
			peak.goTotal = max(peak.goTotal, samples[1].Value.Uint64())
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// runConcurrent runs n simulations at once; every environment stays alive
// until all are done, as in a real evaluation where they overlap. It
// returns the hashes and the peak memory.
func runConcurrent(tb testing.TB, d *domains.Domain, n int) ([]string, memStats) {
	tb.Helper()
	stop := make(chan struct{})
	peaks := sampleMemory(stop)
	envs := make([]domains.Env, n)
	hashes := make([]string, n)
	var failed atomic.Value
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			env, h, err := simulate(d)
			if err != nil {
				failed.Store(err)
				return
			}
			envs[i], hashes[i] = env, h
		})
	}
	wg.Wait()
	close(stop)
	peak := <-peaks
	runtime.KeepAlive(envs)
	if err, _ := failed.Load().(error); err != nil {
		tb.Fatal(err)
	}
	return hashes, peak
}

// peakRSS is the process's peak resident set size (VmHWM), or 0 when
// unknown.
func peakRSS() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			var kb uint64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb << 10
		}
	}
	return 0
}

const mib = 1 << 20

// TestHundredConcurrentEnvs checks the bar: 100 concurrent airline
// simulations stay far below 1 GB, and each gets its own state.
func TestHundredConcurrentEnvs(t *testing.T) {
	d := testDomain(t)
	_, want, err := simulate(d)
	if err != nil {
		t.Fatal(err)
	}
	n := simulations
	if raceEnabled {
		n = 20 // still concurrent; the memory figure is checked without -race
	}
	start := time.Now()
	hashes, peak := runConcurrent(t, d, n)
	elapsed := time.Since(start)
	for i, h := range hashes {
		if h != want {
			t.Fatalf("simulation %d ended with hash %s, want %s (same calls as a lone run)", i, h, want)
		}
	}
	t.Logf("%d concurrent simulations: %v; peak heap %d MiB, peak Go-mapped memory %d MiB, process peak RSS so far %d MiB",
		n, elapsed.Round(time.Millisecond), peak.heapObjects/mib, peak.goTotal/mib, peakRSS()/mib)
	if peak.goTotal >= 1<<30 {
		t.Errorf("peak Go memory %d MiB, want under 1 GiB", peak.goTotal/mib)
	}
}

// BenchmarkHundredConcurrentEnvs measures 100 concurrent simulations (fresh
// environment, 7 tool calls of which 4 writes, final hash), with the peak
// heap and process RSS.
func BenchmarkHundredConcurrentEnvs(b *testing.B) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	d, err := New(needData(b), "")
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	template := float64(after.HeapAlloc-before.HeapAlloc) / mib
	var peak memStats
	b.ResetTimer()
	for b.Loop() {
		_, p := runConcurrent(b, d, simulations)
		peak.heapObjects = max(peak.heapObjects, p.heapObjects)
		peak.goTotal = max(peak.goTotal, p.goTotal)
	}
	b.ReportMetric(template, "domain-MiB")
	b.ReportMetric(float64(peak.heapObjects)/mib, "peak-heap-MiB")
	b.ReportMetric(float64(peak.goTotal)/mib, "peak-go-MiB")
	b.ReportMetric(float64(peakRSS())/mib, "peak-RSS-MiB")
	runtime.KeepAlive(d)
}

// BenchmarkNewEnv is the cost of one fresh environment (a clone).
func BenchmarkNewEnv(b *testing.B) {
	d := testDomain(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.NewEnv(nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHash is the cost of hashing an environment's database, side by
// side: "full" encodes the whole model dump (the path before incremental
// hashing), "seen" is the incremental hash of a database hashed before
// (a gold database, a fresh one), "unique-first-flight" the incremental
// hash of a database never seen whose first record in the hash's order
// changed (the worst case: every byte after it is streamed again), and
// "unique-last-user" one whose change is near the end.
func BenchmarkHash(b *testing.B) {
	d := testDomain(b)
	env, _, err := simulate(d)
	if err != nil {
		b.Fatal(err)
	}
	tmpl := decodeTemplate(b)
	first, last := "HAT001", "yusuf_wilson_8653"
	if _, ok := tmpl.flights.get(first); !ok {
		b.Fatalf("no flight %s", first)
	}
	if _, ok := tmpl.users.get(last); !ok {
		b.Fatalf("no user %s", last)
	}
	dbHash(b, tmpl.Clone()) // encodes the template, once
	b.Run("full", func(b *testing.B) {
		db := tmpl.Clone()
		writes(b, db)
		cpuPerOp(b, func(int) {
			if _, err := db.FullHash(); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("seen", func(b *testing.B) {
		cpuPerOp(b, func(int) {
			if _, err := env.Hash(); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("unique-first-flight", func(b *testing.B) {
		cpuPerOp(b, func(i int) {
			db := tmpl.Clone()
			db.mutableFlight(first).ScheduledDeparture = fmt.Sprint(i)
			dbHash(b, db)
		})
	})
	b.Run("unique-last-user", func(b *testing.B) {
		cpuPerOp(b, func(i int) {
			db := tmpl.Clone()
			db.mutableUser(last).Email = fmt.Sprint(i)
			dbHash(b, db)
		})
	})
}

// cpuPerOp runs op in the benchmark loop (with its iteration number) and
// reports the process's CPU time per call besides the wall time: on a
// shared machine the CPU time is the steadier figure.
//
// The iteration numbers start at a random point, so that states made
// unique by them stay unique across -count runs (the memo of hashes lives
// as long as the template).
func cpuPerOp(b *testing.B, op func(i int)) {
	b.ReportAllocs()
	start, n, base := cputime.Process(b), 0, rand.IntN(1<<40)
	for b.Loop() {
		op(base + n)
		n++
	}
	b.ReportMetric(float64((cputime.Process(b)-start).Microseconds())/1000/float64(n), "cpu-ms/op")
}
