package server_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/server"
	"github.com/proctor-eval/proctor/store"
)

// TestResumeMeetsTheRequestGuards: an evaluation the CLI started with an
// ecp+stdio: agent and left interrupted, resumed through run_evaluation on
// a server that allow-lists no command, is refused as a new request for
// that agent would be, and launches nothing.
func TestResumeMeetsTheRequestGuards(t *testing.T) {
	f := startTenants(t, server.TenantLimits{})
	marker := filepath.Join(t.TempDir(), "launched")
	eval := result.Evaluation{ID: store.NewID(), Domain: "mock", Status: result.StatusInterrupted, Config: result.Config{
		Domain: "mock", Agent: "ecp+stdio:touch " + marker, NumTrials: 1, TaskIDs: []string{"mock-01"}, Concurrency: 1}}
	data, err := json.Marshal(eval)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.db.PutEvaluation(context.Background(), store.Evaluation{ID: eval.ID, Domain: "mock", AgentURL: eval.Config.Agent,
		Status: string(result.StatusInterrupted), Data: data}); err != nil {
		t.Fatal(err)
	}
	answer := f.skill(t, rootToken, "run_evaluation", map[string]any{"resume": eval.ID})
	if !strings.Contains(answer, "TASK_STATE_REJECTED") || !strings.Contains(answer, "--ecp-allow-command") {
		t.Errorf("resuming an evaluation of a command off the allow-list: %s", clipText(answer))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the resume launched the command")
	}
}

// TestResumeCountsTowardTheTenantLimit: a resume runs the simulations its
// evaluation has left, and --tenant-max-simulations bounds them as it
// bounds a new request's.
func TestResumeCountsTowardTheTenantLimit(t *testing.T) {
	f := startTenants(t, server.TenantLimits{MaxSimulations: 2})
	ctx := store.WithTenant(context.Background(), store.Tenant{Name: "alice"})
	eval := result.Evaluation{ID: store.NewID(), Domain: "mock", Status: result.StatusInterrupted, Config: result.Config{
		Domain: "mock", Agent: "builtin", NumTrials: 1, TaskIDs: []string{"mock-01", "mock-02", "mock-03"}, Concurrency: 1}}
	data, err := json.Marshal(eval)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.db.PutEvaluation(ctx, store.Evaluation{ID: eval.ID, Domain: "mock", AgentURL: "builtin",
		Status: string(result.StatusInterrupted), Data: data}); err != nil {
		t.Fatal(err)
	}
	answer := f.skill(t, aliceToken, "run_evaluation", map[string]any{"resume": eval.ID})
	if !strings.Contains(answer, "TASK_STATE_REJECTED") || !strings.Contains(answer, server.FlagTenantMaxSimulations) {
		t.Errorf("resuming 3 simulations under a limit of 2: %s", clipText(answer))
	}
}
