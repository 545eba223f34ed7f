package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/store"
)

// gatedAgent answers the first open conversations at once and holds every
// later one until release is called.
type gatedAgent struct {
	open     int
	mu       sync.Mutex
	contexts map[string]bool
	gate     chan struct{}
	once     sync.Once
}

func newGatedAgent(open int) *gatedAgent {
	return &gatedAgent{open: open, contexts: map[string]bool{}, gate: make(chan struct{})}
}

func (g *gatedAgent) release() { g.once.Do(func() { close(g.gate) }) }

func (g *gatedAgent) reply(ctx context.Context, contextID, text string) string {
	g.mu.Lock()
	g.contexts[contextID] = true
	held := len(g.contexts) > g.open
	g.mu.Unlock()
	if held {
		select {
		case <-g.gate:
		case <-ctx.Done():
		}
	}
	return agenttest.Sorry(ctx, contextID, text)
}

// TestResultsWhileRunning reads the database from this process while a
// proctor process is in the middle of an evaluation writing to it, then
// runs a second evaluation into the same database meanwhile.
func TestResultsWhileRunning(t *testing.T) {
	if !runtimeHasFlock() {
		t.Skip("short locks need flock")
	}
	db := tempDB(t)
	agent := newGatedAgent(2)
	srv := agenttest.Start(t, agent.reply)
	t.Cleanup(agent.release)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd, stdout, stderr, progressed, stderrDone := startProctor(ctx, t, 2, "run", "--agent", srv.URL, "--db", db,
		"--concurrency", "1", "--num-tasks", "3", "--progress", "lines", "--format", "json")
	// Two conversations are stored; the third is held by the agent.
	waitProgress(ctx, t, stderr, progressed, stderrDone)

	list := decodeArray(t, mustCLI(t, exitOK, "results", "--db", db, "--format", "json").stdout)
	if len(list) != 1 {
		t.Fatalf("results lists %d evaluations, want 1", len(list))
	}
	head := list[0].(map[string]any)
	id := str(t, head, "id")
	if s := str(t, head, "status"); s != "running" {
		t.Errorf("status of the running evaluation %q, want running", s)
	}
	one := decodeObject(t, mustCLI(t, exitOK, "results", id, "--db", db, "--format", "json").stdout)
	if n := len(simulations(t, one)); n != 2 {
		t.Errorf("results shows %d simulations of the running evaluation, want the 2 finished", n)
	}

	// It cannot be resumed while it runs.
	if r := mustCLI(t, exitUsage, "run", "--resume", id, "--db", db); !strings.Contains(r.stderr, "is running") {
		t.Errorf("resume of a running evaluation:\n%s", r.stderr)
	}

	// A second writer runs to the end meanwhile, and leaves the running
	// evaluation alone.
	second := mustCLI(t, exitOK, "run", "--agent", "builtin", "--db", db, "--num-tasks", "1", "--format", "json", "--progress", "none")
	if strings.Contains(second.stderr, "marked interrupted") {
		t.Errorf("the second run marked the running evaluation interrupted:\n%s", second.stderr)
	}

	agent.release()
	<-stderrDone
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the first run failed: %v\n%s", err, stderr.String())
	}
	if s := str(t, decodeObject(t, stdout.String()), "status"); s != "completed" {
		t.Errorf("first run ended %q, want completed", s)
	}
	for _, e := range decodeArray(t, mustCLI(t, exitOK, "results", "--db", db, "--format", "json").stdout) {
		if s := str(t, e.(map[string]any), "status"); s != "completed" {
			t.Errorf("after both runs an evaluation is %q, want completed", s)
		}
	}
}

// TestLockedDatabaseMessage holds the database the old way (bbolt's lock
// for the handle's life) and checks that commands say who holds it and
// which flag or variable picks another database.
func TestLockedDatabaseMessage(t *testing.T) {
	if !runtimeHasFlock() {
		t.Skip("short locks need flock")
	}
	path := tempDB(t)
	held, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	r := mustCLI(t, exitFailure, "results", "--db", path)
	for _, want := range []string{path, "--db", "PROCTOR_DB", "database is locked"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the locked-database message lacks %q:\n%s", want, r.stderr)
		}
	}
	if runtime.GOOS == "linux" && !strings.Contains(r.stderr, fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("the message does not name the holder, pid %d:\n%s", os.Getpid(), r.stderr)
	}
	if !errors.Is(lockedHint(fmt.Errorf("x: %w", store.ErrLocked)), store.ErrLocked) {
		t.Error("lockedHint loses ErrLocked")
	}
}

// runtimeHasFlock says whether this platform has the flock that short locks
// need.
func runtimeHasFlock() bool { return runtime.GOOS != "windows" && runtime.GOOS != "plan9" }

// TestResumeTakesOverFromAKilledRun kills a proctor run (SIGKILL) while
// another proctor (here, this process) has the database open, so that
// nobody marks its evaluation interrupted: --resume sees that the process
// which left it running is gone, takes it over and finishes it (issue 30).
func TestResumeTakesOverFromAKilledRun(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("telling a dead writer needs /proc")
	}
	db := tempDB(t)
	agent := newGatedAgent(1)
	srv := agenttest.Start(t, agent.reply)
	t.Cleanup(agent.release)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd, _, stderr, progressed, stderrDone := startProctor(ctx, t, 1, "run", "--agent", srv.URL, "--db", db,
		"--concurrency", "1", "--num-tasks", "3", "--progress", "lines", "--format", "json")
	waitProgress(ctx, t, stderr, progressed, stderrDone)
	other, err := store.Open(db, store.WithShortLocks()) // as `proctor serve` would
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-stderrDone
	_ = cmd.Wait()
	agent.release()

	list := decodeArray(t, mustCLI(t, exitOK, "results", "--db", db, "--format", "json").stdout)
	if len(list) != 1 {
		t.Fatalf("results lists %d evaluations, want 1", len(list))
	}
	id := str(t, list[0].(map[string]any), "id")
	res := decodeObject(t, mustCLI(t, exitOK, "run", "--resume", id, "--db", db, "--format", "json", "--progress", "none").stdout)
	if got := []any{str(t, res, "id"), str(t, res, "status"), num(t, res, "summary.num_simulations")}; !cmp.Equal(got, []any{id, "completed", 3.0}) {
		t.Errorf("resume after the kill: id, status, simulations = %v; want %s, completed, 3", got, id)
	}
}
