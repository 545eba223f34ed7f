package skills_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/server"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// TestRunEvalSetValidatesItsRequestOnce: a run_evalset request, good or
// rejected when it starts (the agent cannot be reached), is validated
// once (skills.Service.PlanEvalSets), though the server checks it when it
// comes and starts it when a slot is free. Before the plan it was
// validated twice: CheckEvalSets, then PrepareEvalSets.
func TestRunEvalSetValidatesItsRequestOnce(t *testing.T) {
	agent := agenttest.StartCalculator(t, agenttest.CalculatorOptions{})
	yamlAdd := "case: add\ninput:\n  content: calc add 2 3\nexpected:\n  final_response:\n    contains: \"5\"\n"
	tests := []struct {
		name     string
		agentURL string
		want     a2a.TaskState
	}{
		{"played", agent.URL, a2a.TaskStateCompleted},
		{"agent unreachable", "http://127.0.0.1:1", a2a.TaskStateFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.WithNoSync())
			if err != nil {
				t.Fatal(err)
			}
			svc := &skills.Service{Store: db}
			validations := skills.CountEvalSetValidations(svc)
			c := serveSkills(ctx, t, svc, db)
			task := sendUntilDone(ctx, t, c, map[string]any{"skill": "run_evalset", "params": map[string]any{
				"agent_url": tt.agentURL, "yaml_cases": []any{yamlAdd}, "retries": 0}})
			type outcome struct {
				State       a2a.TaskState
				Validations int64
			}
			if diff := cmp.Diff(outcome{tt.want, 1}, outcome{task.Status.State, validations.Load()}); diff != "" {
				t.Errorf("run_evalset (-want +got):\n%s", diff)
			}
		})
	}
}

// serveSkills serves svc's skills on loopback until the test ends, and
// returns a client of the server.
func serveSkills(ctx context.Context, t *testing.T, svc *skills.Service, db *store.DB) *sdkclient.Client {
	t.Helper()
	srv, err := server.New(server.Config{Host: "127.0.0.1", GRPCPort: -1, MaxConcurrent: 1}, svc)
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = srv.Serve(serveCtx); close(done) }()
	t.Cleanup(func() { stop(); <-done; _ = db.Close() })
	card, err := agentcard.DefaultResolver.Resolve(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	c, err := sdkclient.NewFromCard(ctx, card)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

// sendUntilDone sends a skill request as a data part and follows its
// task's stream to its last event, returning the task as it ended.
func sendUntilDone(ctx context.Context, t *testing.T, c *sdkclient.Client, request map[string]any) *a2a.Task {
	t.Helper()
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(request))
	var id a2a.TaskID
	for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: msg}) {
		if err != nil {
			t.Fatal(err)
		}
		id = ev.TaskInfo().TaskID
	}
	task, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return task
}
