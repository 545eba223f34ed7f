package main

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/server"
)

// agentGate holds an agent's replies on request: once hold is called, each
// request waits (its conversation in flight) until release.
type agentGate struct {
	mu      sync.Mutex
	holding bool
	want    int
	held    map[string]bool
	reached chan struct{}
	release chan struct{}
}

func newAgentGate() *agentGate {
	return &agentGate{held: map[string]bool{}, reached: make(chan struct{}), release: make(chan struct{})}
}

// hold holds every request from now on, and returns a channel closed once
// requests of n conversations are held.
func (g *agentGate) hold(n int) <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.holding, g.want = true, n
	return g.reached
}

// open lets the held requests, and all later ones, through.
func (g *agentGate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.holding {
		g.holding = false
		close(g.release)
	}
}

// heldContexts are the conversations whose requests were held.
func (g *agentGate) heldContexts() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for id := range g.held {
		out = append(out, id)
	}
	return out
}

func (g *agentGate) wrap(reply agenttest.ReplyFunc) agenttest.ReplyFunc {
	return func(ctx context.Context, contextID, text string) string {
		g.mu.Lock()
		if g.holding {
			g.held[contextID] = true
			if len(g.held) == g.want {
				close(g.reached)
			}
			g.mu.Unlock()
			select {
			case <-g.release:
			case <-ctx.Done():
			}
		} else {
			g.mu.Unlock()
		}
		return reply(ctx, contextID, text)
	}
}

// TestServeDrainAndResume stops a real `proctor serve` with SIGTERM while
// an A2A client's evaluation has two simulations in flight: the server
// refuses new work with the draining message and reports not ready, still
// answers GetTask, lets the two finish and records them, and exits 0
// within --drain-timeout. Restarted on the same database, it carries the
// task on by itself: the client polling the same task id sees it go on to
// completed, with every (task, trial) once, none run twice, and the summary
// of an uninterrupted run. With a second signal the server stops at once
// instead, recording neither simulation in flight, and the restart
// finishes the evaluation all the same.
func TestServeDrainAndResume(t *testing.T) {
	for _, tt := range []struct {
		name         string
		secondSignal bool
	}{{"drained", false}, {"second signal", true}} {
		t.Run(tt.name, func(t *testing.T) { testServeDrain(t, tt.secondSignal) })
	}
}

func testServeDrain(t *testing.T, secondSignal bool) {
	const (
		total        = mockTasks
		drainTimeout = 30 * time.Second
	)
	buildProctor(t)
	db := tempDB(t)
	seen, gate := newContextCounter(), newAgentGate()
	agent := agenttest.Start(t, seen.wrap(gate.wrap(agenttest.Delayed(20*time.Millisecond, agenttest.Sorry))))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	cmd, stderr, stderrDone, base := startServeArgs(ctx, t, db, "--drain-timeout", drainTimeout.String())
	c := a2aClient(ctx, t, base)
	params := map[string]any{"agent_url": agent.URL, "concurrency": 2}
	task := startEvaluation(ctx, t, c, params)
	var evalID string
	pollTask(ctx, t, c, task.ID, func(task *a2a.Task) bool {
		evalID, _ = statusData(task)["evaluation_id"].(string)
		done, _ := statusData(task)["done"].(float64)
		return done >= 2
	})
	waitClosed(ctx, t, gate.hold(2), "two conversations in flight")

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	signaled := time.Now()
	waitNotReady(ctx, t, base)
	refused, err := c.SendMessage(ctx, skillRequest("run_evaluation", params))
	if got, ok := refused.(*a2a.Task); err != nil || !ok || got.Status.State != a2a.TaskStateRejected || !strings.Contains(statusText(got), server.DrainingText) {
		t.Errorf("run_evaluation while draining answered %+v, %v; want a rejected task saying %q", refused, err, server.DrainingText)
	}
	if got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID}); err != nil || got.Status.State != a2a.TaskStateWorking {
		t.Errorf("GetTask while draining: %+v, %v; want the task, working", got, err)
	}
	if secondSignal {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
	} else {
		gate.open()
	}
	<-stderrDone
	if err := cmd.Wait(); err != nil {
		t.Fatalf("proctor serve exited with %v after SIGTERM, want 0:\n%s", err, stderr.String())
	}
	took := time.Since(signaled)
	if took > drainTimeout {
		t.Errorf("took %s to stop after SIGTERM, more than --drain-timeout %s", took, drainTimeout)
	}
	gate.open()
	before := seen.snapshot()

	// What the drain left: the evaluation interrupted, with the
	// simulations in flight at the signal when they were let finish.
	prior := decodeObject(t, mustCLI(t, exitOK, "results", evalID, "--db", db, "--format", "json").stdout)
	if s := str(t, prior, "status"); s != "interrupted" {
		t.Errorf("stored status after the drain %q, want interrupted", s)
	}
	kept := map[string]bool{}
	for _, id := range contextIDs(t, prior) {
		kept[id] = true
	}
	for _, id := range gate.heldContexts() {
		if kept[id] == secondSignal {
			t.Errorf("simulation in flight at the signal (context %s): stored %v, want %v", id, kept[id], !secondSignal)
		}
	}
	if len(kept) >= total {
		t.Errorf("%d simulations stored after the drain, want fewer than %d", len(kept), total)
	}
	t.Logf("stopped %s after SIGTERM with %d of %d simulations stored (second signal %v)", took.Round(time.Millisecond), len(kept), total, secondSignal)

	// The restart carries the task on under its id.
	serve2, stderr2, stderr2Done, base2 := startServeArgs(ctx, t, db)
	if !strings.Contains(stderr2.String(), "proctor: resuming 1 A2A task(s) a previous stop left unfinished: "+string(task.ID)+" (evaluation "+evalID+")") {
		t.Errorf("the restart does not say what it resumes:\n%s", stderr2.String())
	}
	c2 := a2aClient(ctx, t, base2)
	final := pollTask(ctx, t, c2, task.ID, func(*a2a.Task) bool { return false })
	if final.Status.State != a2a.TaskStateCompleted || len(final.Artifacts) != 1 {
		t.Fatalf("task %s after the restart ended %s with %d artifacts: %s\n%s", task.ID, final.Status.State, len(final.Artifacts), statusText(final), stderr2.String())
	}
	checkSchema(t, dataOf(final.Artifacts[0].Parts))
	after := seen.snapshot()
	fresh := runToEnd(ctx, t, c2, params) // the same evaluation, uninterrupted
	stopServe(t, serve2, stderr2, stderr2Done)

	// Read as stored (the prior state was read so too).
	resumed := decodeObject(t, mustCLI(t, exitOK, "results", evalID, "--db", db, "--format", "json").stdout)
	inFlight := 0
	if secondSignal {
		inFlight = 2 // cut short, not recorded, played again
	}
	checkResumed(t, resumed, evalID, prior, before, after, total, inFlight)
	uninterrupted := decodeObject(t, mustCLI(t, exitOK, "results", str(t, fresh, "id"), "--db", db, "--format", "json").stdout)
	if diff := cmp.Diff(obj(t, uninterrupted, "summary"), obj(t, resumed, "summary")); diff != "" {
		t.Errorf("summary of the resumed evaluation differs from an uninterrupted one's (-uninterrupted +resumed):\n%s", diff)
	}
}

// runToEnd runs an evaluation on c and returns its Result artifact's data.
func runToEnd(ctx context.Context, t *testing.T, c *sdkclient.Client, params map[string]any) map[string]any {
	t.Helper()
	task := startEvaluation(ctx, t, c, params)
	task = pollTask(ctx, t, c, task.ID, func(*a2a.Task) bool { return false })
	if task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) != 1 {
		t.Fatalf("evaluation task ended %s: %s", task.Status.State, statusText(task))
	}
	return dataOf(task.Artifacts[0].Parts)
}

// stopServe stops a proctor serve with SIGTERM and checks it exits 0.
func stopServe(t *testing.T, cmd *exec.Cmd, stderr *lockedBuffer, stderrDone <-chan struct{}) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-stderrDone
	if err := cmd.Wait(); err != nil {
		t.Errorf("proctor serve stopped with %v:\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "panic") {
		t.Errorf("a panic in the log:\n%s", stderr.String())
	}
}

// waitNotReady polls the server's readiness until it says draining.
func waitNotReady(ctx context.Context, t *testing.T, base string) {
	t.Helper()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+server.PathReady, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s while draining: %v", server.PathReady, err)
		}
		_ = res.Body.Close()
		if res.StatusCode == http.StatusServiceUnavailable {
			return
		}
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s answered %d", server.PathReady, res.StatusCode)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s still ready after SIGTERM", server.PathReady)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// waitClosed waits for ch to close, or fails the test naming what it
// waited for.
func waitClosed(ctx context.Context, t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-ctx.Done():
		t.Fatalf("timed out waiting for %s", what)
	}
}
