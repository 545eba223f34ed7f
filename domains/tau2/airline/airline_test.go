package airline

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/proctor-eval/proctor/domains"

	"github.com/proctor-eval/proctor/internal/tau2test"
)

// needData returns the airline data directory; tau2test skips the test when
// the data is absent, except under CI, where that is a failure.
func needData(t testing.TB) string {
	t.Helper()
	return tau2test.Dir(t, "airline")
}

var (
	domainOnce sync.Once
	domainVal  *domains.Domain
	domainErr  error
)

// testDomain builds the domain once per test binary (decoding 7 MB of JSON
// is slow under the race detector).
func testDomain(t testing.TB) *domains.Domain {
	t.Helper()
	dir := needData(t)
	domainOnce.Do(func() { domainVal, domainErr = New(dir, "") })
	if domainErr != nil {
		t.Fatal(domainErr)
	}
	return domainVal
}

// The airline fresh-DB hash from the spec (section 1.6).
const freshHash = "124e39a664b56402bcd09cb8a6a9cece6acb8462337c969799d5658e3250f263"

func TestFreshHash(t *testing.T) {
	d := testDomain(t)
	env, err := d.NewEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := env.Hash()
	if err != nil {
		t.Fatal(err)
	}
	if got != freshHash {
		t.Fatalf("fresh hash = %s, want %s", got, freshHash)
	}
}

// TestGoldReplay replays the expected actions of every task in tasks.json
// (whatever the split) on a fresh environment and compares each call's
// error flag and output, and the final database hash, with what tau2's own
// code produced (expected_replay.json).
func TestGoldReplay(t *testing.T) {
	d := testDomain(t)
	dir := needData(t)
	want := tau2test.LoadReplay(t, dir)
	if want.FreshDBHash != freshHash {
		t.Errorf("expected_replay.json fresh hash %s, spec says %s", want.FreshDBHash, freshHash)
	}
	rawTasks, err := os.ReadFile(filepath.Join(dir, TasksFile))
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := domains.ParseTasks(rawTasks)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*domains.Task{}
	for i := range tasks {
		byID[tasks[i].ID] = &tasks[i]
	}
	if len(want.Tasks) != len(tasks) {
		t.Errorf("expected_replay.json covers %d tasks, tasks.json has %d", len(want.Tasks), len(tasks))
	}
	matched, actions, goldChecks := 0, 0, 0
	for _, wt := range want.Tasks {
		t.Run(wt.TaskID, func(t *testing.T) {
			task, ok := byID[wt.TaskID]
			if !ok {
				t.Fatalf("task %s not in tasks.json", wt.TaskID)
			}
			var gold []domains.Action
			if task.EvaluationCriteria != nil {
				gold = task.EvaluationCriteria.Actions
			}
			env, err := d.NewEnv(task)
			if err != nil {
				t.Fatal(err)
			}
			c := tau2test.ReplayActions(t, env, gold, wt.Actions, tau2test.SameLiterals)
			actions += c.Actions
			ok = c.OK
			got, err := env.Hash()
			if err != nil {
				t.Fatal(err)
			}
			if got != wt.GoldDBHash {
				ok = false
				t.Errorf("gold hash %s, tau2 %s", got, wt.GoldDBHash)
			}
			if len(gold) > 0 && goldChecks < 5 {
				// Domain.GoldHash replays the same way (checked on a few tasks:
				// each hash is costly under the race detector).
				goldChecks++
				if gh, err := d.GoldHash(task); err != nil || gh != got {
					t.Errorf("Domain.GoldHash = %s, %v; want %s", gh, err, got)
				}
			}
			if ok {
				matched++
			}
		})
	}
	t.Logf("%d/%d tasks replay exactly (%d actions)", matched, len(want.Tasks), actions)
}
