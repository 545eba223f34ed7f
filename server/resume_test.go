package server

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// TestRecoverResumableTasks restarts, resuming, on a database a stopped
// server left behind: the tasks whose work can go on are kept as they were
// and listed (with the evaluation each resumes, or none to run its request
// again); those whose request held credentials (stored redacted, so not
// sendable again), whose evaluation completed or failed, or that asked for
// no long work end as RecoverTasks ends them.
func TestRecoverResumableTasks(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for id, status := range map[string]result.Status{"eval-done": result.StatusCompleted, "eval-cut": result.StatusInterrupted, "eval-bad": result.StatusFailed} {
		if err := db.PutEvaluation(ctx, store.Evaluation{ID: id, Domain: "mock", Status: string(status), CreatedAt: time.Now(), Data: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	tasks := db.TaskStore(store.WithAnonymousTaskList())
	request := func(skill string, params map[string]any) *a2a.Message {
		return redactMessage(a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"skill": skill, "params": params})))
	}
	evaluate := request("run_evaluation", map[string]any{"agent_url": "http://127.0.0.1:1"})
	withHeaders := request("run_evaluation", map[string]any{"agent_url": "http://127.0.0.1:1", "headers": map[string]any{"Authorization": "Bearer x"}})
	progress := func(evalID string) *a2a.Message {
		return a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("running"), a2a.NewDataPart(map[string]any{"evaluation_id": evalID}))
	}
	queued := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("Queued"))
	tests := []struct {
		id        a2a.TaskID
		request   *a2a.Message
		status    *a2a.Message
		wantState a2a.TaskState // unspecified: kept
		wantText  string
	}{
		{"t-cut", evaluate, progress("eval-cut"), "", ""},
		{"t-queued", evaluate, queued, "", ""},
		{"t-evalset", request("run_evalset", map[string]any{"agent_url": "http://127.0.0.1:1"}), queued, "", ""},
		{"t-conformance-token", request("check_conformance", map[string]any{"agent_url": "http://127.0.0.1:1", "auth_token": "s3cret"}), queued, a2a.TaskStateFailed, "Send the request again"},
		{"t-headers", withHeaders, progress("eval-cut"), a2a.TaskStateFailed, `run_evaluation {"resume": "eval-cut"}`},
		{"t-done", evaluate, progress("eval-done"), a2a.TaskStateCompleted, `get_results {"id": "eval-done"}`},
		{"t-failed-eval", evaluate, progress("eval-bad"), a2a.TaskStateFailed, `run_evaluation {"resume": "eval-bad"}`},
		{"t-no-request", nil, queued, a2a.TaskStateFailed, "Send the request again"},
	}
	for _, tt := range tests {
		task := &a2a.Task{ID: tt.id, ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Message: tt.status}}
		if tt.request != nil {
			task.History = []*a2a.Message{tt.request}
		}
		if _, err := tasks.Create(ctx, task); err != nil {
			t.Fatal(err)
		}
	}

	ended, resumable, err := RecoverResumableTasks(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	want := []ResumableTask{{ID: "t-cut", EvaluationID: "eval-cut"}, {ID: "t-evalset"}, {ID: "t-queued"}}
	if diff := cmp.Diff(want, resumable); diff != "" {
		t.Errorf("resumable tasks (-want +got):\n%s", diff)
	}
	if len(ended) != 5 {
		t.Errorf("ended %v, want the 5 others", ended)
	}
	for _, tt := range tests {
		got, err := tasks.Get(ctx, tt.id)
		if err != nil {
			t.Fatal(err)
		}
		wantState := tt.wantState
		if wantState == "" {
			wantState = a2a.TaskStateWorking
		}
		if got.Task.Status.State != wantState || !strings.Contains(statusText(got.Task), tt.wantText) {
			t.Errorf("%s: %s %q; want %s naming %q", tt.id, got.Task.Status.State, statusText(got.Task), wantState, tt.wantText)
		}
	}
}
