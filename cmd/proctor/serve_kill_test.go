package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// TestServeKilledWithEvaluationsQueued kills a real `proctor serve`
// (SIGKILL) that runs one evaluation and holds two more in its queue: the
// database opens cleanly, the running evaluation keeps every simulation it
// reported and each decodes, the queued ones left nothing behind, and a
// new `proctor serve` starts on the database and serves it. (What the
// restart says of the A2A tasks is TestServeCrashAndResume's and the
// server's restart tests' concern.)
func TestServeKilledWithEvaluationsQueued(t *testing.T) {
	buildProctor(t)
	db := tempDB(t)
	slow := agenttest.Start(t, agenttest.Delayed(60*time.Millisecond, agenttest.Sorry))
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()

	cmd, stderr, stderrDone, base := startServeArgs(ctx, t, db, "--max-concurrent", "1")
	c := a2aClient(ctx, t, base)
	running := startEvaluation(ctx, t, c, map[string]any{"agent_url": slow.URL, "concurrency": 1})
	var queued []*a2a.Task
	for range 2 {
		queued = append(queued, startEvaluation(ctx, t, c, map[string]any{"agent_url": slow.URL, "concurrency": 1}))
	}
	var evalID string
	task := pollTask(ctx, t, c, running.ID, func(task *a2a.Task) bool {
		d := statusData(task)
		evalID, _ = d["evaluation_id"].(string)
		done, _ := d["done"].(float64)
		return done >= 2
	})
	reported := int(statusData(task)["done"].(float64))
	for _, q := range queued {
		q = pollTask(ctx, t, c, q.ID, func(task *a2a.Task) bool { return statusData(task)["queued"] == true })
		if statusData(q)["queued"] != true {
			t.Fatalf("task %s is not queued: %s %q", q.ID, q.Status.State, statusText(q))
		}
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-stderrDone
	_ = cmd.Wait()

	ro, err := store.Open(db, store.WithReadOnly())
	if err != nil {
		t.Fatalf("open the database after the kill: %v", err)
	}
	evals, err := ro.ListEvaluations(ctx, store.ListFilter{Limit: -1})
	if err != nil || len(evals) != 1 || evals[0].ID != evalID || evals[0].Status != string(result.StatusRunning) {
		t.Fatalf("stored evaluations %+v (%v), want only %s, running", evals, err, evalID)
	}
	sims, err := ro.Simulations(ctx, evalID)
	if err != nil || len(sims) < reported {
		t.Fatalf("%d simulations stored (%v), %d were reported done", len(sims), err, reported)
	}
	for _, s := range sims {
		if _, err := decodeSimulation(s); err != nil {
			t.Errorf("simulation %s: %v", s.ID, err)
		}
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}

	serve2, stderr2, stderr2Done, base2 := startServeArgs(ctx, t, db)
	c2 := a2aClient(ctx, t, base2)
	if _, err := c2.SendMessage(ctx, skillRequest("get_results", map[string]any{"id": evalID})); err != nil {
		t.Fatalf("get_results after the restart: %v\n%s", err, stderr2.String())
	}
	if err := serve2.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	<-stderr2Done
	_ = serve2.Wait()
	if strings.Contains(stderr.String()+stderr2.String(), "panic") {
		t.Errorf("a panic in the logs:\n%s\n%s", stderr.String(), stderr2.String())
	}
}

// startServeArgs is startServe with more flags.
func startServeArgs(ctx context.Context, t *testing.T, db string, args ...string) (*exec.Cmd, *lockedBuffer, <-chan struct{}, string) {
	t.Helper()
	cmd, _, stderr, _, stderrDone := startProctor(ctx, t, 0, append([]string{"serve", "--port", "0", "--grpc-port", "-1", "--db", db}, args...)...)
	for {
		if m := servingLine.FindStringSubmatch(stderr.String()); m != nil {
			return cmd, stderr, stderrDone, m[1]
		}
		select {
		case <-stderrDone:
			t.Fatalf("proctor serve ended before serving:\n%s", stderr.String())
		case <-ctx.Done():
			t.Fatalf("proctor serve did not start in time:\n%s", stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// decodeSimulation reads a stored simulation's record.
func decodeSimulation(s store.Simulation) (*result.Simulation, error) {
	var sim result.Simulation
	return &sim, json.Unmarshal(s.Data, &sim)
}
