package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/server"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// disk is storage that fills up: after its budget of writes, every write
// fails with ENOSPC, as on a full disk.
type disk struct {
	mu   sync.Mutex
	left int
}

func (d *disk) write(what string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.left <= 0 {
		return fmt.Errorf("write %s: %w", what, syscall.ENOSPC)
	}
	d.left--
	return nil
}

// fullTasks is an A2A task store on a disk that fills up.
type fullTasks struct {
	taskstore.Store
	disk *disk
}

func (s fullTasks) Create(ctx context.Context, task *a2a.Task) (taskstore.TaskVersion, error) {
	if err := s.disk.write("a2a task"); err != nil {
		return taskstore.TaskVersionMissing, err
	}
	return s.Store.Create(ctx, task)
}

func (s fullTasks) Update(ctx context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	if err := s.disk.write("a2a task"); err != nil {
		return taskstore.TaskVersionMissing, err
	}
	return s.Store.Update(ctx, req)
}

// fullEvaluations is the evaluations' store on the same disk.
type fullEvaluations struct {
	*store.DB
	disk *disk
}

func (s fullEvaluations) PutEvaluation(ctx context.Context, e store.Evaluation) error {
	if err := s.disk.write("evaluation"); err != nil {
		return err
	}
	return s.DB.PutEvaluation(ctx, e)
}

func (s fullEvaluations) PutEvaluationWith(ctx context.Context, e store.Evaluation, sims []store.Simulation) error {
	if err := s.disk.write("evaluation"); err != nil {
		return err
	}
	for range sims {
		if err := s.disk.write("simulation"); err != nil {
			return err
		}
	}
	return s.DB.PutEvaluationWith(ctx, e, sims)
}

func (s fullEvaluations) PutSimulations(ctx context.Context, evalID string, sims []store.Simulation) error {
	for range sims {
		if err := s.disk.write("simulation"); err != nil {
			return err
		}
	}
	return s.DB.PutSimulations(ctx, evalID, sims)
}

// TestFullDiskEndsTheTask fills the disk at different points of an
// evaluation run for a client that polls (returnImmediately): wherever the
// writes start failing (a progress update of the A2A task, a simulation,
// the evaluation's record, the final status), the task ends failed, saying
// why and, once the evaluation exists, with the request that resumes it;
// it never stays working while /healthz says nothing runs.
func TestFullDiskEndsTheTask(t *testing.T) {
	tests := []struct {
		name string
		// taskWrites and evalWrites are the writes the A2A task store and
		// the evaluations' store may make; shared, they fill one disk.
		taskWrites, evalWrites int
		shared                 bool
	}{
		{name: "evaluation record", taskWrites: 2, shared: true},
		{name: "progress update", taskWrites: 4, shared: true},
		{name: "early", taskWrites: 7, shared: true},
		{name: "mid-run", taskWrites: 12, shared: true},
		{name: "later", taskWrites: 20, shared: true},
		{name: "late", taskWrites: 30, shared: true},
		{name: "evaluation store only", taskWrites: 1000, evalWrites: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, err := catalog.Builtin()
			if err != nil {
				t.Fatal(err)
			}
			db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.WithNoSync())
			if err != nil {
				t.Fatal(err)
			}
			taskDisk, evalDisk := &disk{left: tt.taskWrites}, &disk{left: tt.evalWrites}
			if tt.shared {
				evalDisk = taskDisk
			}
			srv, err := server.New(server.Config{Host: "127.0.0.1", GRPCPort: -1,
				TaskStore: fullTasks{db.TaskStore(store.WithAnonymousTaskList()), taskDisk}},
				&skills.Service{Domains: reg, Store: db, EvaluationStore: fullEvaluations{db, evalDisk}})
			if err != nil {
				t.Fatal(err)
			}
			server.ServeInBackground(t, srv, db)

			c := client(t, srv.URL())
			slow := agenttest.Start(t, agenttest.Delayed(5*time.Millisecond, agenttest.Sorry))
			res, err := c.SendMessage(context.Background(), skill(server.SkillRunEvaluation, map[string]any{
				"agent_url": slow.URL, "concurrency": 2, "include_transcripts": false}))
			if err != nil {
				t.Fatal(err)
			}
			task := awaitEnd(t, c, res.(*a2a.Task), 30*time.Second)
			said := text(task.Status.Message.Parts)
			if task.Status.State == a2a.TaskStateCompleted {
				t.Fatalf("completed on a full disk: %q", said)
			}
			if task.Status.State != a2a.TaskStateFailed || !strings.Contains(said, "no space left on device") {
				t.Fatalf("ended %s %q; want failed naming the storage error", task.Status.State, said)
			}
			evalID := evaluationOf(task)
			if evalID != "" && !strings.Contains(said, fmt.Sprintf(`run_evaluation {"resume": %q}`, evalID)) {
				t.Errorf("ended %q; want the resume request of evaluation %s", said, evalID)
			}
			// The executor winds down just after the task shows its end.
			for deadline := time.Now().Add(5 * time.Second); healthOf(t, srv.URL()).Running != 0; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("/healthz still says an evaluation runs 5 s after its task ended")
				}
			}
			t.Logf("%s: %q", task.Status.State, said)
		})
	}
}

// evaluationOf is the evaluation id a task reported, "" if none.
func evaluationOf(task *a2a.Task) string {
	msgs := append([]*a2a.Message{task.Status.Message}, task.History...)
	for _, m := range msgs {
		if m == nil {
			continue
		}
		for _, p := range m.Parts {
			if d, ok := p.Data().(map[string]any); ok {
				if id, ok := d["evaluation_id"].(string); ok {
					return id
				}
			}
		}
	}
	return ""
}

type healthReport struct {
	Running int `json:"running"`
	Queued  int `json:"queued"`
}

func healthOf(t *testing.T, base string) healthReport {
	t.Helper()
	resp, err := http.Get(base + server.PathHealth)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h healthReport
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h
}
