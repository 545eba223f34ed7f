package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/internal/agenttest"
)

var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildProctor builds the command once per test binary, into a temporary
// directory removed when the tests end.
func buildProctor(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	built.once.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			built.err = fmt.Errorf("no go command to build proctor with: %w", err)
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "proctor-test-bin-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "proctor")
		if runtime.GOOS == "windows" {
			built.bin += ".exe"
		}
		start := time.Now()
		args := []string{"build", "-o", built.bin}
		if raceEnabled {
			args = append(args, "-race")
		}
		out, err := exec.Command(goTool, append(args, ".")...).CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		t.Logf("built proctor in %s", time.Since(start).Round(time.Millisecond))
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// startProctor starts the binary with stderr read line by line; the
// returned channel is closed once n progress lines have been printed. The
// process is killed when the test ends, if it is still running.
func startProctor(ctx context.Context, t *testing.T, n int, args ...string) (cmd *exec.Cmd, stdout *bytes.Buffer, stderr *lockedBuffer, progressed, stderrDone <-chan struct{}) {
	t.Helper()
	cmd = exec.CommandContext(ctx, buildProctor(t), args...)
	// A --db is always given; the default location must not be touched.
	cmd.Env = append(os.Environ(), "PROCTOR_DB="+filepath.Join(t.TempDir(), "not-this.db"))
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr = &bytes.Buffer{}, &lockedBuffer{}
	cmd.Stdout = stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	reached, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pipe)
		seen := 0
		for sc.Scan() {
			stderr.Write([]byte(sc.Text() + "\n"))
			if progressLine.MatchString(sc.Text()) {
				if seen++; seen == n {
					close(reached)
				}
			}
		}
		_, _ = io.Copy(io.Discard, pipe)
	}()
	return cmd, stdout, stderr, reached, done
}

// waitProgress waits until a started proctor has reported progress.
func waitProgress(ctx context.Context, t *testing.T, stderr *lockedBuffer, progressed, stderrDone <-chan struct{}) {
	t.Helper()
	select {
	case <-progressed:
	case <-stderrDone:
		t.Fatalf("proctor ended before the expected progress:\n%s", stderr.String())
	case <-ctx.Done():
		t.Fatalf("no progress in time:\n%s", stderr.String())
	}
}

// TestCrashAndResume kills a real proctor process (SIGKILL: no deferred
// code, no signal handler, no final save) in the middle of an evaluation,
// then checks that the database opens, lists the evaluation as running, and
// that --resume finishes it without running kept simulations again.
func TestCrashAndResume(t *testing.T) {
	const trials, total = 2, mockTasks * 2
	bin := buildProctor(t)
	db := tempDB(t)
	seen := newContextCounter()
	srv := agenttest.Start(t, seen.wrap(agenttest.Delayed(150*time.Millisecond, agenttest.Sorry)))

	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	cmd, stdout, stderr, progressed, stderrDone := startProctor(ctx, t, 3, "run", "--agent", srv.URL, "--db", db,
		"--concurrency", "1", "--num-trials", "2", "--progress", "lines", "--format", "json")
	waitProgress(ctx, t, stderr, progressed, stderrDone)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-stderrDone
	err := cmd.Wait()
	if err == nil || cmd.ProcessState.Success() {
		t.Fatalf("proctor finished before it was killed (%v):\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("a killed run printed a result:\n%s", stdout.String())
	}
	before := seen.snapshot()
	reported := len(progressLine.FindAllString(stderr.String(), -1))

	// The database opens cleanly and lists the evaluation; no proctor holds
	// it any more, so it shows as interrupted.
	list := decodeArray(t, mustCLI(t, exitOK, "results", "--db", db, "--format", "json").stdout)
	if len(list) != 1 {
		t.Fatalf("results lists %d evaluations, want 1", len(list))
	}
	head := list[0].(map[string]any)
	id := str(t, head, "id")
	if s := str(t, head, "status"); s != "interrupted" {
		t.Errorf("status of the killed evaluation %q, want interrupted", s)
	}
	// The list scores what the killed evaluation kept.
	if n := num(t, head, "summary.num_simulations"); n < float64(reported) {
		t.Errorf("results lists the killed evaluation with %v simulations, %d were reported finished", n, reported)
	}
	if !strings.Contains(stderr.String(), id) {
		t.Errorf("the killed run's stderr does not name evaluation %s:\n%s", id, stderr.String())
	}
	stored := decodeObject(t, mustCLI(t, exitOK, "results", id, "--db", db, "--format", "json").stdout)
	kept := contextIDs(t, stored)
	// Every reported simulation was stored before it was reported; at most
	// one more (concurrency 1) may have been stored before the kill landed.
	if len(kept) < reported || len(kept) > reported+1 {
		t.Errorf("%d simulations stored, %d reported finished before the kill", len(kept), reported)
	}
	if len(before) > len(kept)+1 {
		t.Errorf("the agent saw %d conversations before the kill, but only %d simulations were stored (concurrency 1)", len(before), len(kept))
	}
	if n := num(t, stored, "summary.num_simulations"); n != float64(len(kept)) {
		t.Errorf("summary of the killed evaluation counts %v simulations, %d are stored", n, len(kept))
	}

	// Resume in a second process, with stderr a pipe and no --progress: no
	// bar must be drawn on what is not a terminal.
	res := exec.CommandContext(ctx, bin, "run", "--resume", id, "--db", db, "--concurrency", "16", "--format", "json")
	var rout, rerr bytes.Buffer
	res.Stdout, res.Stderr = &rout, &rerr
	if err := res.Run(); err != nil {
		t.Fatalf("resume: %v\n%s", err, rerr.String())
	}
	if strings.Contains(rerr.String(), "\r") || progressLine.MatchString(rerr.String()) {
		t.Errorf("progress on a stderr that is not a terminal, without --progress:\n%q", rerr.String())
	}
	if !strings.Contains(rerr.String(), "resuming "+id) {
		t.Errorf("resume does not announce itself:\n%s", rerr.String())
	}
	if !strings.Contains(rerr.String(), "1 evaluation(s) left running by a proctor that stopped are now marked interrupted") {
		t.Errorf("the killed evaluation was not recorded as interrupted:\n%s", rerr.String())
	}
	final := decodeObject(t, rout.String())
	checkSchema(t, final)
	checkResumed(t, final, id, stored, before, seen.snapshot(), total, 1)
	if n := num(t, final, "summary.num_trials"); n != trials {
		t.Errorf("num_trials %v, want %d", n, trials)
	}

	// And the stored record agrees with what was printed.
	again := decodeObject(t, mustCLI(t, exitOK, "results", id, "--db", db, "--format", "json").stdout)
	if s := str(t, again, "status"); s != "completed" {
		t.Errorf("stored status %q, want completed", s)
	}
	if n := len(simulations(t, again)); n != total {
		t.Errorf("%d stored simulations, want %d", n, total)
	}
}
