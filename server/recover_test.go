package server

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// TestRecoverTasks restarts on a database a killed server left behind: each
// unfinished A2A task ends as its evaluation did. A task whose evaluation
// completed (its Result artifact already attached) stays completed; one
// whose evaluation was interrupted fails naming its resume request; one
// that never reached an evaluation fails saying to send it again; finished
// tasks are left alone.
func TestRecoverTasks(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for id, status := range map[string]result.Status{"eval-done": result.StatusCompleted, "eval-cut": result.StatusInterrupted} {
		if err := db.PutEvaluation(ctx, store.Evaluation{ID: id, Domain: "mock", Status: string(status), CreatedAt: time.Now(), Data: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	tasks := db.TaskStore(store.WithAnonymousTaskList())
	progress := func(evalID string) *a2a.Message {
		return a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("running"), a2a.NewDataPart(map[string]any{"evaluation_id": evalID, "done": 17.0}))
	}
	tests := []struct {
		id        a2a.TaskID
		state     a2a.TaskState
		status    *a2a.Message
		artifact  bool
		wantState a2a.TaskState
		wantText  string
	}{
		{"t-completed-eval", a2a.TaskStateWorking, progress("eval-done"), true, a2a.TaskStateCompleted, `get_results {"id": "eval-done"}`},
		{"t-interrupted-eval", a2a.TaskStateWorking, progress("eval-cut"), false, a2a.TaskStateFailed, `run_evaluation {"resume": "eval-cut"}`},
		{"t-queued", a2a.TaskStateWorking, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("Queued")), false, a2a.TaskStateFailed, "Send the request again"},
		{"t-finished", a2a.TaskStateCompleted, progress("eval-done"), true, a2a.TaskStateCompleted, "running"},
	}
	for _, tt := range tests {
		task := &a2a.Task{ID: tt.id, ContextID: "c", Status: a2a.TaskStatus{State: tt.state, Message: tt.status}}
		if tt.artifact {
			task.Artifacts = []*a2a.Artifact{{ID: "a", Name: ResultArtifact, Parts: a2a.ContentParts{a2a.NewTextPart("# results")}}}
		}
		if _, err := tasks.Create(ctx, task); err != nil {
			t.Fatal(err)
		}
	}

	ids, err := RecoverTasks(ctx, db)
	if err != nil || len(ids) != 3 {
		t.Fatalf("RecoverTasks = %v, %v; want the 3 unfinished tasks", ids, err)
	}
	for _, tt := range tests {
		got, err := tasks.Get(ctx, tt.id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Task.Status.State != tt.wantState || !strings.Contains(statusText(got.Task), tt.wantText) {
			t.Errorf("%s: %s %q; want %s naming %q", tt.id, got.Task.Status.State, statusText(got.Task), tt.wantState, tt.wantText)
		}
		if tt.artifact && len(got.Task.Artifacts) != 1 {
			t.Errorf("%s: artifacts %v, want the Result kept", tt.id, got.Task.Artifacts)
		}
	}
	cut, _ := tasks.Get(ctx, "t-interrupted-eval")
	if d := dataOf(cut.Task.Status.Message); d["evaluation_id"] != "eval-cut" || d["resume"] == nil {
		t.Errorf("failed task's status data %v: want evaluation_id and the resume request", d)
	}
	if again, err := RecoverTasks(ctx, db); err != nil || len(again) != 0 {
		t.Errorf("second RecoverTasks = %v, %v; want nothing left", again, err)
	}
}

func statusText(task *a2a.Task) string {
	if task.Status.Message == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range task.Status.Message.Parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

func dataOf(m *a2a.Message) map[string]any {
	if m == nil {
		return nil
	}
	for _, p := range m.Parts {
		if d, ok := p.Data().(map[string]any); ok {
			return d
		}
	}
	return nil
}
