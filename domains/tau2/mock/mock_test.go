package mock

import (
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/internal/tau2test"
)

// Fresh hashes from the spec (section 1.6).
const (
	freshHash     = "107f83a70b7bf4f616e283b0b0b8451346fe7681173398d4498a1ec15c5fdfc6"
	freshUserHash = "4cf3d22eed6962ba202c8738421d8a2286d2b5a0cad1372922c928be09ccbfac"
)

func testDomain(t *testing.T) (*domains.Domain, string) {
	t.Helper()
	dir := tau2test.Dir(t, "mock")
	d, err := New(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	return d, dir
}

func TestNew(t *testing.T) {
	d, dir := testDomain(t)
	if d.Name != Name || len(d.Tasks) != 10 || !d.HasUserSide() {
		t.Fatalf("name %s, %d tasks, user side %v", d.Name, len(d.Tasks), d.HasUserSide())
	}
	if got, want := strings.Join(d.ToolNames(), ","), "create_task,get_users,update_task_status,transfer_to_human_agents"; got != want {
		t.Errorf("agent tools %s, want %s", got, want)
	}
	var user []string
	for _, s := range d.UserTools {
		user = append(user, s.Name)
	}
	if got := strings.Join(user, ","); got != "check_notifications,dismiss_notification" {
		t.Errorf("user tools %s", got)
	}
	base, err := New(dir, "base")
	if err != nil || len(base.Tasks) != 10 {
		t.Fatalf("base split: %v", err)
	}
	if _, err := New(dir, "nope"); err == nil {
		t.Error("unknown split accepted")
	}
}

func TestFreshHashes(t *testing.T) {
	d, _ := testDomain(t)
	env, err := d.NewEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	a, u, err := domains.SideHashes(env)
	if err != nil {
		t.Fatal(err)
	}
	if a != freshHash || u != freshUserHash {
		t.Errorf("fresh hashes %s / %s, want %s / %s", a, u, freshHash, freshUserHash)
	}
	if h, _ := env.Hash(); h != freshHash+":"+freshUserHash {
		t.Errorf("Hash = %s", h)
	}
}

// TestGoldReplay replays every task's gold actions on its side of a fresh
// environment (initial state applied) and compares each call's error flag
// and output, both sides' final hashes and the env assertions with what
// tau2's own code produced (expected_replay.json).
func TestGoldReplay(t *testing.T) {
	d, dir := testDomain(t)
	want := tau2test.LoadReplay(t, dir)
	if want.FreshDBHash != freshHash || want.FreshUserDBHash != freshUserHash {
		t.Errorf("fixture fresh hashes %s / %s differ from the spec's", want.FreshDBHash, want.FreshUserDBHash)
	}
	if len(want.Tasks) != len(d.Tasks) {
		t.Errorf("fixture covers %d tasks, tasks.json has %d", len(want.Tasks), len(d.Tasks))
	}
	matched, actions, hashes, asserts := 0, 0, 0, 0
	for _, wt := range want.Tasks {
		t.Run(wt.TaskID, func(t *testing.T) {
			task, ok := d.Task(wt.TaskID)
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
			c := tau2test.ReplayActions(t, env, gold, wt.Actions, tau2test.SameValue)
			actions += c.Actions
			ok = c.OK
			agent, user, err := domains.SideHashes(env)
			if err != nil {
				t.Fatal(err)
			}
			if agent != wt.GoldDBHash {
				ok = false
				t.Errorf("gold agent hash %s, tau2 %s", agent, wt.GoldDBHash)
			}
			if user != wt.GoldUserDBHash {
				ok = false
				t.Errorf("gold user hash %s, tau2 %s", user, wt.GoldUserDBHash)
			}
			hashes += 2
			combined, _ := env.Hash()
			if gh, err := d.GoldHash(task); err != nil || gh != combined {
				ok = false
				t.Errorf("Domain.GoldHash = %s, %v; want %s", gh, err, combined)
			}
			if wt.EnvAssertionsOnGold != nil {
				var crit []domains.EnvAssertion
				if task.EvaluationCriteria != nil {
					crit = task.EvaluationCriteria.EnvAssertions
				}
				if len(crit) != len(*wt.EnvAssertionsOnGold) {
					t.Fatalf("%d env assertions, fixture has %d", len(crit), len(*wt.EnvAssertionsOnGold))
				}
				for i, a := range crit {
					got, err := domains.CheckEnvAssertion(env, a)
					met := err == nil && got == a.Expected()
					asserts++
					if met != (*wt.EnvAssertionsOnGold)[i] {
						ok = false
						t.Errorf("env assertion %s: met = %v (got %v, %v), tau2 %v", a.FuncName, met, got, err, (*wt.EnvAssertionsOnGold)[i])
					}
				}
			}
			if ok {
				matched++
			}
		})
	}
	t.Logf("%d/%d tasks replay exactly (%d actions, %d hashes, %d env assertions)", matched, len(want.Tasks), actions, hashes, asserts)
}
