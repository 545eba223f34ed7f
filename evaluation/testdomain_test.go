package evaluation_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/translation"
)

// counterDB is the database of a tiny domain used to test the orchestrator
// without depending on the mock domain's content.
type counterDB struct {
	Count int      `json:"count"`
	Log   []string `json:"log"`
}

func counterDomain(t testing.TB) *domains.Domain {
	t.Helper()
	tasks := []domains.Task{
		{
			ID:           "add-two",
			UserScenario: domains.UserScenario{Script: []string{"Please add 2 to the counter."}},
			EvaluationCriteria: &domains.EvaluationCriteria{
				Actions:         []domains.Action{{ActionID: "a1", Name: "add", Arguments: map[string]any{"n": 2.0}}},
				CommunicateInfo: []string{"count is 2"},
				RewardBasis:     []domains.Basis{domains.BasisDB, domains.BasisAction, domains.BasisCommunicate},
			},
		},
		{
			ID:           "add-three",
			UserScenario: domains.UserScenario{Script: []string{"Please add 3 to the counter.", "Thanks!"}},
			EvaluationCriteria: &domains.EvaluationCriteria{
				Actions:     []domains.Action{{ActionID: "a1", Name: "add", Arguments: map[string]any{"n": 3.0}}},
				RewardBasis: []domains.Basis{domains.BasisDB},
			},
		},
	}
	return counterDomainWith(t, "counter", tasks)
}

// counterDomainWith is the counter domain with other tasks. Its tools: add
// n, get, and increment (the same as add 1, down to the log: two call
// sequences that reach one database).
func counterDomainWith(t testing.TB, name string, tasks []domains.Task) *domains.Domain {
	t.Helper()
	tb := domains.NewToolbox[counterDB]()
	tb.Register("add", "Add n to the counter.", `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`,
		func(db *counterDB, args domains.Args) (any, error) {
			n, err := args.Int("n")
			if err != nil {
				return nil, err
			}
			db.Count += n
			db.Log = append(db.Log, fmt.Sprintf("add %d", n))
			return map[string]int{"count": db.Count}, nil
		})
	tb.Register("get", "Read the counter.", `{"type":"object","properties":{}}`,
		func(db *counterDB, _ domains.Args) (any, error) { return map[string]int{"count": db.Count}, nil })
	tb.Register("increment", "Add 1 to the counter.", `{"type":"object","properties":{}}`,
		func(db *counterDB, _ domains.Args) (any, error) {
			db.Count++
			db.Log = append(db.Log, "add 1")
			return map[string]int{"count": db.Count}, nil
		})
	d, err := domains.NewDomain(domains.Spec[counterDB]{
		Name: name, Description: "a counter", Policy: "Add what the user asks for.",
		DB: []byte(`{"count":0,"log":[]}`), Tasks: tasks, Tools: tb,
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// counterAgent solves the counter domain: it calls add with the number the
// user names, then reports the count.
func counterAgent(_ context.Context, _, text string) string {
	if i := strings.Index(text, translation.AgentBeatsToolResultPrefix); i >= 0 {
		res := text[i:]
		if j := strings.Index(res, `"count":`); j >= 0 {
			n := strings.TrimRight(strings.TrimSpace(res[j+len(`"count":`):]), "}")
			return fmt.Sprintf(`{"name":"respond","arguments":{"content":"Done, the count is %s."}}`, n)
		}
		return `{"name":"respond","arguments":{"content":"Something went wrong."}}`
	}
	for _, n := range []string{"2", "3"} {
		if strings.Contains(text, "add "+n) {
			return fmt.Sprintf(`<json>{"name":"add","arguments":{"n":%s}}</json>`, n)
		}
	}
	return `{"name":"respond","arguments":{"content":"You're welcome."}}`
}

func dial(t testing.TB, url string, opts ...a2aclient.Option) *a2aclient.Client {
	t.Helper()
	c, err := a2aclient.Dial(context.Background(), url, opts...)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

type failingUser struct{}

func (failingUser) Reply(context.Context, string) (string, error) {
	return "", errors.New("user model unavailable")
}

type slowUser struct{ d time.Duration }

func (u slowUser) Reply(ctx context.Context, _ string) (string, error) {
	select {
	case <-time.After(u.d):
		return "hello", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// play plays one simulation and scores it leniently, as a Runner does.
func play(ctx context.Context, sim *rollout.Simulator, task *domains.Task, trial int, agent rollout.Agent, user rollout.UserSimulator) (result.Simulation, bool) {
	return evaluation.Simulate(ctx, sim, scoring.NewScorer(sim.Domain(), false), task, trial, agent, user)
}
