package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// countingDomains is the built-in domains, counting the domains looked
// up: one lookup per resolution of a request's tasks.
type countingDomains struct {
	*domains.Registry
	lookups atomic.Int64
}

func (c *countingDomains) Get(name string) (*domains.Domain, error) {
	c.lookups.Add(1)
	return c.Registry.Get(name)
}

// TestRunEvaluationResolvesItsTasksOnce: a run_evaluation request, new or
// a resume, is validated and its tasks resolved once (skills.Plan), though
// the server checks it, counts its simulations against the tenant's limit
// and starts it. Before the plan, a new request on the built-in agent
// looked its domain up four times (Check twice, Simulations, Prepare) and
// a resume twice (ResumeSimulations, Prepare).
func TestRunEvaluationResolvesItsTasksOnce(t *testing.T) {
	tests := []struct {
		name   string
		params func(t *testing.T, db *store.DB) string
	}{
		{"new", func(*testing.T, *store.DB) string {
			return `{"agent_url": "builtin", "task_ids": ["mock-01", "mock-02"], "concurrency": 1}`
		}},
		{"resume", func(t *testing.T, db *store.DB) string {
			return fmt.Sprintf(`{"resume": %q}`, storeInterrupted(t, db))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			reg, err := catalog.Builtin()
			if err != nil {
				t.Fatal(err)
			}
			db := testDB(t)
			doms := &countingDomains{Registry: reg}
			srv, err := New(Config{Host: "127.0.0.1", GRPCPort: -1, MaxConcurrent: 1, TaskStore: db.TaskStore(store.WithAnonymousTaskList())},
				&skills.Service{Domains: doms, Store: db})
			if err != nil {
				t.Fatal(err)
			}
			serveInBackground(t, srv)
			id := sendRequest(ctx, t, srv, `{"skill": "run_evaluation", "params": `+tt.params(t, db)+`}`)
			waitTask(ctx, t, srv, id, func(*a2a.Task) bool { return false })
			type outcome struct {
				State   a2a.TaskState
				Lookups int64
			}
			got := outcome{getTask(ctx, t, srv, id).Status.State, doms.lookups.Load()}
			if diff := cmp.Diff(outcome{a2a.TaskStateCompleted, 1}, got); diff != "" {
				t.Errorf("run_evaluation (-want +got):\n%s\n%s", diff, statusText(getTask(ctx, t, srv, id)))
			}
		})
	}
}

// storeInterrupted stores an interrupted evaluation of the built-in agent
// that has run none of its two tasks, and returns its id.
func storeInterrupted(t *testing.T, db *store.DB) string {
	t.Helper()
	eval := result.Evaluation{ID: store.NewID(), Domain: "mock", Status: result.StatusInterrupted, Config: result.Config{
		Domain: "mock", Agent: skills.BuiltinAgent, NumTrials: 1, TaskIDs: []string{"mock-01", "mock-02"}, Concurrency: 1,
		MaxSteps: rollout.DefaultMaxSteps, MaxErrors: rollout.DefaultMaxErrors,
		Timeout: result.Duration(rollout.DefaultTimeout), RequestTimeout: result.Duration(a2aclient.DefaultRequestTimeout)}}
	data, err := json.Marshal(eval)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutEvaluation(context.Background(), store.Evaluation{ID: eval.ID, Domain: "mock", AgentURL: skills.BuiltinAgent,
		Status: string(result.StatusInterrupted), Data: data}); err != nil {
		t.Fatal(err)
	}
	return eval.ID
}
