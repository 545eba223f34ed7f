package server_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/server"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// inFlight counts the conversations an agent is answering at once, and
// says when a number of them is first reached.
type inFlight struct {
	mu        sync.Mutex
	now, peak int
	target    int
	reached   chan struct{}
}

// hold is a ReplyFunc that never answers: it counts itself in flight until
// the caller gives up.
func (f *inFlight) hold(ctx context.Context, _, _ string) string {
	f.mu.Lock()
	f.now++
	f.peak = max(f.peak, f.now)
	if f.now == f.target {
		close(f.reached)
		f.target = -1
	}
	f.mu.Unlock()
	<-ctx.Done()
	f.mu.Lock()
	f.now--
	f.mu.Unlock()
	return agenttest.SorryReply
}

func (f *inFlight) maxSeen() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.peak
}

// TestSimulationConcurrencyIsBounded sends the attack of issue 13 (num_trials
// 1000, concurrency 10000) twice at once to a server whose
// MaxSimulationConcurrency is 16, against an agent that never answers: the
// two evaluations together hold at most 16 conversations, each says its
// concurrency was lowered, and CancelTask stops each within the documented
// 5 seconds, leaving it interrupted and resumable.
func TestSimulationConcurrencyIsBounded(t *testing.T) {
	const limit = 16
	reg, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Host: "127.0.0.1", GRPCPort: -1},
		&skills.Service{Domains: reg, Store: db, MaxSimulationConcurrency: limit})
	if err != nil {
		t.Fatal(err)
	}
	server.ServeInBackground(t, srv, db)

	agent := &inFlight{target: limit, reached: make(chan struct{})}
	hung := agenttest.Start(t, agent.hold)
	c := client(t, srv.URL())
	var tasks []*a2a.Task
	for range 2 {
		res, err := c.SendMessage(context.Background(), skill(server.SkillRunEvaluation, map[string]any{
			"agent_url": hung.URL, "num_trials": 1000, "concurrency": 10000, "retries": 0}))
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, res.(*a2a.Task))
	}
	for _, task := range tasks {
		awaitStatus(t, c, task.ID, "the lowered concurrency", func(d map[string]any) bool { return d["evaluation_id"] != nil })
	}
	select {
	case <-agent.reached:
	case <-time.After(30 * time.Second):
		t.Fatalf("the agent never held %d conversations at once (peak %d)", limit, agent.maxSeen())
	}

	// The agent's executions outlive the calls proctor gives up (a2a-go
	// detaches them), so the count is read before any is canceled.
	if peak := agent.maxSeen(); peak > limit {
		t.Errorf("the agent held %d conversations at once; the server's limit is %d", peak, limit)
	}
	for _, task := range tasks {
		got, err := c.GetTask(context.Background(), &a2a.GetTaskRequest{ID: task.ID})
		if err != nil {
			t.Fatal(err)
		}
		if !mentions(got, "Concurrency 16: the 10000 asked for is above this server's --max-simulation-concurrency") {
			t.Errorf("task %s never says its concurrency was lowered: %q", task.ID, text(got.Status.Message.Parts))
		}
		start := time.Now()
		canceled, err := c.CancelTask(context.Background(), &a2a.CancelTaskRequest{ID: task.ID})
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if took > server.DefaultCancelWait || canceled.Status.State != a2a.TaskStateCanceled {
			t.Errorf("CancelTask took %v and left %s; want canceled within %v", took, canceled.Status.State, server.DefaultCancelWait)
		}
		evalID, _ := data(t, canceled.Status.Message.Parts)["evaluation_id"].(string)
		rec, err := db.GetEvaluation(context.Background(), evalID)
		if err != nil || rec.Status != string(result.StatusInterrupted) {
			t.Errorf("evaluation %s after cancel: %q (%v), want interrupted", evalID, rec.Status, err)
		}
		t.Logf("CancelTask of %s answered in %v", task.ID, took)
	}
}

// mentions reports whether a task's status or history says s.
func mentions(task *a2a.Task, s string) bool {
	for _, m := range append([]*a2a.Message{task.Status.Message}, task.History...) {
		if m != nil && strings.Contains(text(m.Parts), s) {
			return true
		}
	}
	return false
}
