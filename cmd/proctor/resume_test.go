package main

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

func TestResumeCompleted(t *testing.T) {
	db := tempDB(t)
	id := evalID(t, "--db", db, "--task-ids", "mock-01")
	for _, ref := range []string{id, id[:8]} {
		r := mustCLI(t, exitUsage, "run", "--resume", ref, "--db", db)
		if !strings.Contains(r.stderr, "already completed") || !strings.Contains(r.stderr, id) {
			t.Errorf("--resume %s: stderr does not say that %s is completed:\n%s", ref, id, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("--resume %s: stdout: %s", ref, r.stdout)
		}
	}
	// Resuming a completed evaluation changed nothing.
	list := decodeArray(t, mustCLI(t, exitOK, "results", "--db", db, "--format", "json").stdout)
	if len(list) != 1 || list[0].(map[string]any)["status"] != "completed" {
		t.Errorf("results after a refused resume: %v", list)
	}
}

// progressLine matches the lines of --progress lines.
var progressLine = regexp.MustCompile(`(?m)^proctor: (\d+)/(\d+) (\S+#\d+) reward [0-9.]+ (\w+) \(pass [0-9.]+\)$`)

// TestInterruptAndResume cancels a run in-process (as Ctrl-C does), then
// finishes it with --resume: the kept simulations are not run again.
func TestInterruptAndResume(t *testing.T) {
	db := tempDB(t)
	seen := newContextCounter()
	srv, cards := startCountingCards(t, seen.wrap(agenttest.Delayed(20*time.Millisecond, agenttest.Sorry)))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"run", "--agent", srv.URL, "--db", db, "--num-trials", "2", "--concurrency", "2",
			"--progress", "lines", "--format", "json"}, &stdout, &stderr)
	}()
	deadline := time.After(30 * time.Second)
	for len(progressLine.FindAllString(stderr.String(), -1)) < 3 {
		select {
		case code := <-done:
			t.Fatalf("the run ended (exit %d) before it could be interrupted:\n%s", code, stderr.String())
		case <-deadline:
			t.Fatalf("no 3 finished simulations in 30s:\n%s", stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	var code int
	select {
	case code = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the run did not stop after its context was canceled")
	}
	if code != exitInterrupt {
		t.Fatalf("exit %d after interruption, want %d\n%s", code, exitInterrupt, stderr.String())
	}
	partial := decodeObject(t, stdout.String())
	id := str(t, partial, "id")
	if s := str(t, partial, "status"); s != "interrupted" {
		t.Errorf("status %q, want interrupted", s)
	}
	if !strings.Contains(stderr.String(), "proctor run --resume "+id) {
		t.Errorf("stderr does not say how to resume:\n%s", stderr.String())
	}
	kept := contextIDs(t, partial)
	if len(kept) < 3 || len(kept) >= 2*mockTasks {
		t.Fatalf("%d simulations kept, want at least the 3 reported and not all", len(kept))
	}
	cardsBefore := cards.Load()

	// What was printed is what was stored.
	storedEval := decodeObject(t, mustCLI(t, exitOK, "results", id, "--db", db, "--format", "json").stdout)
	stored := contextIDs(t, storedEval)
	if !maps.Equal(stored, kept) {
		t.Errorf("the interrupted run printed %d simulations, %d are stored:\nprinted %v\nstored  %v", len(kept), len(stored), kept, stored)
	}
	if !strings.Contains(stderr.String(), fmt.Sprintf("interrupted; %d simulations kept", len(stored))) {
		t.Errorf("stderr does not say that %d simulations were kept:\n%s", len(stored), stderr.String())
	}
	if n := strings.Count(stderr.String(), "proctor: interrupted"); n != 1 {
		t.Errorf("stderr says %d times that it was interrupted:\n%s", n, stderr.String())
	}

	list := decodeArray(t, mustCLI(t, exitOK, "results", "--db", db, "--format", "json").stdout)
	if len(list) != 1 || list[0].(map[string]any)["status"] != "interrupted" {
		t.Fatalf("results: %v, want the one interrupted evaluation", list)
	}

	// A resumed evaluation keeps its settings: flags that would change
	// them are refused, not dropped, and nothing runs.
	r := mustCLI(t, exitUsage, "run", "--resume", id[:8], "--db", db, "--format", "json", "--concurrency", "8", "--num-trials", "5", "--task-ids", "mock-01")
	for _, flag := range []string{"--num-trials", "--task-ids"} {
		if !strings.Contains(r.stderr, flag) || !strings.Contains(r.stderr, "keeps its settings") {
			t.Errorf("stderr does not refuse %s:\n%s", flag, r.stderr)
		}
	}
	// A run reaches the agent through its card first, so a refused resume
	// fetched none. (Counting the agent's requests instead would race with
	// a request the interrupted run sent just before it stopped: the agent
	// may handle it after the run returned.)
	if n := cards.Load() - cardsBefore; n != 0 {
		t.Errorf("a refused resume fetched the agent card %d times", n)
	}
	before := seen.snapshot()
	r = mustCLI(t, exitOK, "run", "--resume", id[:8], "--db", db, "--format", "json", "--concurrency", "8")
	if cards.Load() == cardsBefore {
		t.Error("the resumed run fetched no agent card: the refusal check above counts nothing")
	}
	final := decodeObject(t, r.stdout)
	checkResumed(t, final, id, storedEval, before, seen.snapshot(), 2*mockTasks, 2)
}

// startCountingCards serves a real agent like agenttest.Start and counts the
// fetches of its agent card.
func startCountingCards(t *testing.T, reply agenttest.ReplyFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var cards atomic.Int64
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	card := a2asrv.NewStaticAgentCardHandler(agenttest.Card(srv.URL))
	mux.Handle("/.well-known/agent-card.json", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cards.Add(1)
		card.ServeHTTP(w, r)
	}))
	mux.Handle("/", agenttest.Handler(reply))
	return srv, &cards
}

// checkResumed checks a resumed evaluation: complete, no simulation twice,
// the ones kept from before unchanged and not run again.
func checkResumed(t *testing.T, final map[string]any, id string, prior map[string]any, before, after map[string]int, total, inFlight int) {
	t.Helper()
	kept := contextIDs(t, prior)
	priorSims := map[simKey]map[string]any{}
	for _, s := range simulations(t, prior) {
		priorSims[keyOf(t, s)] = s
	}
	if got := str(t, final, "id"); got != id {
		t.Errorf("resumed evaluation is %s, want %s", got, id)
	}
	if s := str(t, final, "status"); s != "completed" {
		t.Errorf("status %q, want completed", s)
	}
	if n := num(t, final, "summary.num_simulations"); n != float64(total) {
		t.Errorf("summary.num_simulations %v, want %d", n, total)
	}
	sims := simulations(t, final)
	if len(sims) != total {
		t.Errorf("%d simulations, want %d", len(sims), total)
	}
	seen := map[simKey]bool{}
	for _, s := range sims {
		k := keyOf(t, s)
		if seen[k] {
			t.Errorf("simulation %v appears twice", k)
		}
		seen[k] = true
		ctxID := str(t, s, "context_id")
		if old, ok := kept[k]; ok && old != ctxID {
			t.Errorf("simulation %v was run again: context %s before, %s after", k, old, ctxID)
		} else if diff := cmp.Diff(priorSims[k], s); ok && diff != "" {
			t.Errorf("simulation %v changed on resume (-before +after):\n%s", k, diff)
		}
		if _, ok := kept[k]; !ok && before[ctxID] > 0 {
			t.Errorf("simulation %v reuses context %s of the first run", k, ctxID)
		}
	}
	for k, ctxID := range kept {
		if after[ctxID] != before[ctxID] {
			t.Errorf("the agent got %d more requests in context %s of kept simulation %v", after[ctxID]-before[ctxID], ctxID, k)
		}
	}
	if len(after) > total+inFlight {
		t.Errorf("the agent saw %d conversations, want at most %d simulations + %d in flight when interrupted", len(after), total, inFlight)
	}
	if len(after) < total {
		t.Errorf("the agent saw %d conversations, fewer than the %d simulations", len(after), total)
	}
	if e := num(t, final, "metrics.errors"); e != 0 {
		t.Errorf("metrics.errors %v, want 0", e)
	}
	if n := num(t, final, "summary.termination_reasons.user_stop"); n != float64(total) {
		t.Errorf("termination_reasons %v", obj(t, final, "summary.termination_reasons"))
	}
}

// contextIDs maps the simulations of an evaluation's JSON to their A2A
// context ids.
func contextIDs(t *testing.T, eval map[string]any) map[simKey]string {
	t.Helper()
	out := map[simKey]string{}
	for _, s := range simulations(t, eval) {
		out[keyOf(t, s)] = str(t, s, "context_id")
	}
	return out
}
