package server

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// TestDrainCheckpointsAndResumeTakesTurns stops a server (drain timeout 0:
// checkpoint at once) running one evaluation and holding another in its
// queue: both tasks stay working, the first's evaluation interrupted with
// what it finished. A second server on the database carries both on under
// their ids, through its queue of one: the first resumes its evaluation,
// the second (never started) runs its request, after waiting its turn;
// both end completed with every simulation.
func TestDrainCheckpointsAndResumeTakesTurns(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db := testDB(t)
	agent := agenttest.Start(t, agenttest.Delayed(5*time.Millisecond, agenttest.Sorry))
	request := fmt.Sprintf(`{"skill": "run_evaluation", "params": {"agent_url": %q, "task_ids": ["mock-01", "mock-02", "mock-03", "mock-04"], "concurrency": 1}}`, agent.URL)

	first, stop := serveOn(t, db)
	running, queued := sendRequest(ctx, t, first, request), sendRequest(ctx, t, first, request)
	evalID := waitTask(ctx, t, first, running, func(task *a2a.Task) bool { return statusData(task)["done"] != nil })
	waitTask(ctx, t, first, queued, func(task *a2a.Task) bool { return statusData(task)["queued"] == true })
	stop()
	for _, id := range []a2a.TaskID{running, queued} {
		task := getTask(ctx, t, first, id)
		if task.Status.State != a2a.TaskStateWorking || statusData(task)["checkpointed"] != true {
			t.Errorf("task %s after the drain: %s %q; want working, checkpointed", id, task.Status.State, statusText(task))
		}
	}
	if rec, err := db.GetEvaluation(ctx, evalID); err != nil || rec.Status != string(result.StatusInterrupted) {
		t.Fatalf("evaluation %s after the drain: %+v, %v; want interrupted", evalID, rec, err)
	}

	ended, resumable, err := RecoverResumableTasks(ctx, db)
	if err != nil || len(ended) != 0 || len(resumable) != 2 {
		t.Fatalf("RecoverResumableTasks = %v, %v, %v; want both tasks to carry on", ended, resumable, err)
	}
	second, _ := serveOn(t, db)
	if err := second.Resume(ctx, resumable); err != nil {
		t.Fatal(err)
	}
	for _, id := range []a2a.TaskID{running, queued} {
		waitTask(ctx, t, second, id, func(*a2a.Task) bool { return false })
		task := getTask(ctx, t, second, id)
		if task.Status.State != a2a.TaskStateCompleted || statusData(task)["total"] != 4.0 {
			t.Errorf("task %s after the restart: %s %q; want completed, 4 simulations", id, task.Status.State, statusText(task))
		}
		if id == running && statusData(task)["evaluation_id"] != evalID {
			t.Errorf("task %s completed evaluation %v, want %s resumed", id, statusData(task)["evaluation_id"], evalID)
		}
	}
	// One of the two waited for the other's slot after the restart.
	waited := 0
	for _, id := range []a2a.TaskID{running, queued} {
		if texts := historyTexts(getTask(ctx, t, second, id)); strings.Contains(texts[strings.LastIndex(texts, "proctor restarted"):], "Queued: position 1") {
			waited++
		}
	}
	if waited != 1 {
		t.Errorf("%d resumed tasks waited in the queue, want 1 (--max-concurrent 1)", waited)
	}
}

// testDB is a fresh store, closed when the test ends, after the servers
// serving it stop.
func testDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// serveOn serves a server of one evaluation slot on db, whose callers are
// the tenants given (anyone without); stop drains it (checkpointing at
// once) and waits for Serve to return.
func serveOn(t *testing.T, db *store.DB, tenants ...Tenant) (*Server, func()) {
	t.Helper()
	return serveWith(t, db, func(c *Config) {
		c.Tenants = tenants
		if len(tenants) > 0 {
			c.TaskStore = db.TaskStore(store.WithTenantTasks())
		}
	})
}

// serveWith serves the built-in domains on db, one long task at a time,
// with tweak's changes to the config.
func serveWith(t *testing.T, db *store.DB, tweak func(*Config)) (*Server, func()) {
	t.Helper()
	reg, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Host: "127.0.0.1", GRPCPort: -1, MaxConcurrent: 1, TaskStore: db.TaskStore(store.WithAnonymousTaskList())}
	tweak(&cfg)
	srv, err := New(cfg, &skills.Service{Domains: reg, Store: db})
	if err != nil {
		t.Fatal(err)
	}
	return srv, serveInBackground(t, srv)
}

func sendRequest(ctx context.Context, t *testing.T, s *Server, text string) a2a.TaskID {
	t.Helper()
	res, err := s.handler.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)),
		Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("SendMessage answered %T", res)
	}
	return task.ID
}

func getTask(ctx context.Context, t *testing.T, s *Server, id a2a.TaskID) *a2a.Task {
	t.Helper()
	ctx, _ = a2asrv.NewCallContext(ctx, nil)
	task, err := s.handler.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// waitTask polls a task until until says so or it ends, and returns the
// evaluation its status names.
func waitTask(ctx context.Context, t *testing.T, s *Server, id a2a.TaskID, until func(*a2a.Task) bool) string {
	t.Helper()
	for {
		task := getTask(ctx, t, s, id)
		if until(task) || task.Status.State.Terminal() {
			evalID, _ := statusData(task)["evaluation_id"].(string)
			return evalID
		}
		select {
		case <-ctx.Done():
			t.Fatalf("task %s still %s: %s", id, task.Status.State, statusText(task))
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func statusData(task *a2a.Task) map[string]any { return dataOf(task.Status.Message) }

// historyTexts joins the texts of a task's history and status.
func historyTexts(task *a2a.Task) string {
	var b strings.Builder
	for _, m := range append(task.History, task.Status.Message) {
		for _, p := range m.Parts {
			b.WriteString(p.Text())
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestResumedTaskKeepsItsTenant drains a tenant's evaluation and resumes
// it on a server with tenants: the task carries on for its owner (who
// alone sees it, as before the restart) and its evaluation stays hers.
func TestResumedTaskKeepsItsTenant(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db := testDB(t)
	agent := agenttest.Start(t, agenttest.Delayed(5*time.Millisecond, agenttest.Sorry))
	request := fmt.Sprintf(`{"skill": "run_evaluation", "params": {"agent_url": %q, "task_ids": ["mock-01", "mock-02", "mock-03", "mock-04"], "concurrency": 1}}`, agent.URL)
	alice := store.WithTenant(ctx, store.Tenant{Name: "alice"})
	bob := store.WithTenant(ctx, store.Tenant{Name: "bob"})
	tenants := []Tenant{{Name: "alice", Tokens: []string{"a-token"}}, {Name: "bob", Tokens: []string{"b-token"}}}

	first, stop := serveOn(t, db, tenants...)
	id := sendRequest(alice, t, first, request)
	evalID := waitTask(alice, t, first, id, func(task *a2a.Task) bool { return statusData(task)["done"] != nil })
	stop()

	_, resumable, err := RecoverResumableTasks(ctx, db)
	if err != nil || len(resumable) != 1 || resumable[0].Owner != "alice" {
		t.Fatalf("RecoverResumableTasks = %+v, %v; want alice's task to carry on", resumable, err)
	}
	second, _ := serveOn(t, db, tenants...)
	if err := second.Resume(ctx, resumable); err != nil {
		t.Fatal(err)
	}
	waitTask(alice, t, second, id, func(*a2a.Task) bool { return false })
	task := getTask(alice, t, second, id)
	if task.Status.State != a2a.TaskStateCompleted || statusData(task)["evaluation_id"] != evalID {
		t.Fatalf("alice's task after the restart: %s %q; want completed, evaluation %s", task.Status.State, statusText(task), evalID)
	}
	if _, err := second.handler.GetTask(bob, &a2a.GetTaskRequest{ID: id}); err == nil {
		t.Error("bob sees alice's resumed task")
	}
	if _, err := db.GetEvaluation(bob, evalID); err == nil {
		t.Error("bob sees alice's resumed evaluation")
	}
	if rec, err := db.GetEvaluation(alice, evalID); err != nil || rec.Status != string(result.StatusCompleted) {
		t.Errorf("alice's evaluation after the restart: %+v, %v; want completed", rec, err)
	}
}

// TestChatStartsNoEvaluationWhileDraining: during a drain the chat front
// door's run_evaluation tool answers that proctor is draining, as a
// structured run_evaluation is, and stores nothing.
func TestChatStartsNoEvaluationWhileDraining(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fake := llmtest.NewOpenAI(t, func(r llmtest.Request) llmtest.Reply {
		if last := r.Messages[len(r.Messages)-1]; last.Role == "tool" {
			return llmtest.Reply{Text: "TOOL SAID " + last.ToolResult}
		}
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "run_evaluation", Args: map[string]any{"agent_url": "builtin", "domain": "mock"}}}}
	})
	m, err := llm.New(ctx, "openai:gpt-4.1", llm.Config{APIKey: "sk-chat-test", BaseURL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	db := testDB(t)
	srv, _ := serveWith(t, db, func(c *Config) { c.ChatModel = m })
	srv.executor.drain.start()
	res, err := srv.handler.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("Evaluate builtin on mock."))})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(reply), "TOOL SAID") || !strings.Contains(string(reply), drainingReason) {
		t.Errorf("chat during a drain: %.2000s", reply)
	}
	if evals, err := db.ListEvaluations(ctx, store.ListFilter{}); err != nil || len(evals) != 0 {
		t.Errorf("evaluations stored during the drain: %d (%v), want none", len(evals), err)
	}
}
