package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/internal/agenttest"
)

// TestInterruptSignal sends SIGINT (Ctrl-C) to a real proctor process: it
// stops, keeps what finished, prints the partial result, says how to
// resume, and exits 130. While it runs, another proctor reads its database.
func TestInterruptSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT on Windows")
	}
	db := tempDB(t)
	srv := agenttest.Start(t, agenttest.Delayed(100*time.Millisecond, agenttest.Sorry))
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	cmd, stdout, stderr, progressed, stderrDone := startProctor(ctx, t, 2, "run", "--agent", srv.URL, "--db", db,
		"--concurrency", "2", "--num-trials", "3", "--progress", "lines", "--format", "json")
	waitProgress(ctx, t, stderr, progressed, stderrDone)

	// Another proctor reads the database meanwhile (see TestResultsWhileRunning).
	if list := mustCLI(t, exitOK, "results", "--db", db).stdout; !strings.Contains(list, "running") {
		t.Errorf("results while the evaluation runs:\n%s", list)
	}

	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	<-stderrDone
	err := cmd.Wait()
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s to stop after SIGINT", took)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupt {
		t.Fatalf("exit %v after SIGINT, want status %d\n%s", err, exitInterrupt, stderr.String())
	}
	partial := decodeObject(t, stdout.String())
	id := str(t, partial, "id")
	if s := str(t, partial, "status"); s != "interrupted" {
		t.Errorf("printed status %q, want interrupted", s)
	}
	if !strings.Contains(stderr.String(), "proctor run --resume "+id) {
		t.Errorf("stderr does not say how to resume:\n%s", stderr.String())
	}
	if n := strings.Count(stderr.String(), "proctor: interrupted"); n != 1 {
		t.Errorf("stderr says %d times that it was interrupted:\n%s", n, stderr.String())
	}
	sims := simulations(t, partial)
	if len(sims) < 2 || len(sims) >= 3*mockTasks {
		t.Errorf("%d simulations in the partial result", len(sims))
	}
	stored := decodeObject(t, mustCLI(t, exitOK, "results", id, "--db", db, "--format", "json").stdout)
	if s := str(t, stored, "status"); s != "interrupted" {
		t.Errorf("stored status %q, want interrupted", s)
	}
	if n := len(simulations(t, stored)); n != len(sims) {
		t.Errorf("%d simulations stored, %d printed", n, len(sims))
	}
}
