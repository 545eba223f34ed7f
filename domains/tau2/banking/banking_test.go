package banking

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/internal/tau2test"
)

// replayFixture is testdata/expected_replay.json, made by hand with
// tau2-bench's own code (not committed; nothing of tau2's data is either):
// a script put tau2's src/ on PYTHONPATH (pyenv's python3.11 with pydantic
// 2; the third-party packages tau2 imports but this path never uses, such
// as loguru and litellm, stubbed; addict replaced by a 30-line Dict with
// its recursive update), and for the tasks of tasks/task_*.json in name
// order built get_environment(retrieval_variant="no_knowledge", task=task,
// read_log_allowlist=_derive_read_log_allowlist(task)), applied set_state
// with the task's initial state, ran every expected action with
// make_tool_call (an exception becoming "Error: ..." with error true, the
// result through Environment.to_json_str, as get_response does), and
// wrote get_db_hash() and get_user_db_hash(). Each output is kept as its
// SHA-256 so that the fixture holds none of the data.
type replayFixture struct {
	FreshDBHash     string `json:"fresh_db_hash"`
	FreshUserDBHash string `json:"fresh_user_db_hash"`
	Tasks           []struct {
		TaskID  string `json:"task_id"`
		Actions []struct {
			ActionID      string `json:"action_id"`
			Requestor     string `json:"requestor"`
			Name          string `json:"name"`
			Error         bool   `json:"error"`
			ContentSHA256 string `json:"content_sha256"`
		} `json:"actions"`
		GoldDBHash     string `json:"gold_db_hash"`
		GoldUserDBHash string `json:"gold_user_db_hash"`
	} `json:"tasks"`
}

func loadFixture(t *testing.T) replayFixture {
	t.Helper()
	raw, err := os.ReadFile("testdata/expected_replay.json")
	if err != nil {
		t.Fatal(err)
	}
	var f replayFixture
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func testDomain(t *testing.T) *domains.Domain {
	t.Helper()
	d, err := New(tau2test.Dir(t, Name), "policy")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestFreshHash(t *testing.T) {
	d, want := testDomain(t), loadFixture(t)
	env, err := d.NewEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	a, u, err := domains.SideHashes(env)
	if err != nil {
		t.Fatal(err)
	}
	if a != want.FreshDBHash || u != want.FreshUserDBHash {
		t.Errorf("fresh hashes %s / %s, tau2 %s / %s", a, u, want.FreshDBHash, want.FreshUserDBHash)
	}
}

// TestGoldReplay replays every task's expected actions on a fresh
// environment with its initial state and compares each call's error flag
// and output (by SHA-256) and both sides' final hashes with tau2's.
func TestGoldReplay(t *testing.T) {
	d, want := testDomain(t), loadFixture(t)
	if len(want.Tasks) != 97 || len(d.Tasks) != 97 {
		t.Fatalf("fixture has %d tasks, the data %d; want 97", len(want.Tasks), len(d.Tasks))
	}
	hashes, outputs, actions := 0, 0, 0
	for _, wt := range want.Tasks {
		task, ok := d.Task(wt.TaskID)
		if !ok {
			t.Errorf("task %s not in the data", wt.TaskID)
			continue
		}
		env, err := d.NewEnv(task)
		if err != nil {
			t.Errorf("task %s: %v", wt.TaskID, err)
			continue
		}
		gold := task.EvaluationCriteria.Actions
		if len(gold) != len(wt.Actions) {
			t.Fatalf("task %s: %d actions, fixture %d", wt.TaskID, len(gold), len(wt.Actions))
		}
		for i, a := range gold {
			res := env.Call(domains.ToolCall{Name: a.Name, Arguments: a.Arguments, Requestor: a.Requestor})
			sum := sha256.Sum256([]byte(res.Content))
			actions++
			if w := wt.Actions[i]; res.Error == w.Error && hex.EncodeToString(sum[:]) == w.ContentSHA256 {
				outputs++
			} else {
				t.Errorf("%s %s: output differs from tau2's (error %v): %.300q", w.ActionID, a.Name, res.Error, res.Content)
			}
		}
		a, u, err := domains.SideHashes(env)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case a == wt.GoldDBHash && u == wt.GoldUserDBHash:
			hashes++
		default:
			t.Errorf("task %s: gold hash %s, tau2 %s", wt.TaskID, a, wt.GoldDBHash)
		}
	}
	t.Logf("%d/97 gold hashes as tau2's, %d/%d outputs", hashes, outputs, actions)
}

// TestEveryDiscoverableToolHasABody checks that each discoverable tool
// tau2 defines, the agent's and the user's, has its body in proctor.
func TestEveryDiscoverableToolHasABody(t *testing.T) {
	for _, side := range []struct {
		infos  []toolInfo
		bodies map[string]discoverableFunc
	}{{agentDiscoverableInfos, agentBodies()}, {userDiscoverableInfos, userBodies()}} {
		for _, info := range side.infos {
			if side.bodies[info.Name] == nil {
				t.Errorf("discoverable tool %s has no body", info.Name)
			}
		}
		if len(side.bodies) != len(side.infos) {
			t.Errorf("%d bodies for %d tools", len(side.bodies), len(side.infos))
		}
	}
}
