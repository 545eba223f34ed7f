package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
)

// fakeUserSecret is the API key the tests give the fake provider; it must
// never reach results, logs, cassettes or the database.
const fakeUserSecret = "sk-proctor-test-7f3a9c"

// scriptedLLMUser is a fake provider's script that plays the mock domain's
// users as an LLM would: it recognises the task by the instructions in its
// system prompt and says the task's script, a line per turn, then stops.
func scriptedLLMUser(t *testing.T) func(llmtest.Request) llmtest.Reply {
	t.Helper()
	d, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	return func(r llmtest.Request) llmtest.Reply {
		for _, task := range d.Tasks {
			in, _ := task.UserScenario.Instructions.(string)
			if in == "" || !strings.Contains(r.System, in) {
				continue
			}
			said := 0
			for _, m := range r.Messages {
				if m.Role == "assistant" {
					said++
				}
			}
			text := rollout.StopToken
			if said < len(task.UserScenario.Script) {
				text = task.UserScenario.Script[said]
			}
			return llmtest.Reply{Text: text, InputTokens: 200 + 10*len(r.Messages), OutputTokens: 12}
		}
		return llmtest.Reply{Status: 400, ErrorMessage: "no task matches this system prompt"}
	}
}

func readEval(t *testing.T, path string) result.Evaluation {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ev result.Evaluation
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

func TestLLMUserRecordsAndReplaysOffline(t *testing.T) {
	srv := llmtest.NewOpenAI(t, scriptedLLMUser(t))
	t.Setenv("OPENAI_API_KEY", fakeUserSecret)
	dir := t.TempDir()
	db, cassette := filepath.Join(dir, "p.db"), filepath.Join(dir, "cassette.json")
	recorded, replayed := filepath.Join(dir, "rec.json"), filepath.Join(dir, "rep.json")
	tasks := "mock-01,mock-04,mock-05,mock-09,mock-11"
	common := []string{"run", "--domain", "mock", "--agent", "builtin", "--task-ids", tasks, "--num-trials", "2",
		"--user", "llm", "--user-model", "openai:gpt-4.1-mini", "--db", db, "--format", "json", "--progress", "none",
		"--llm-cassette", cassette, "--seed", "3"}
	rec := mustCLI(t, 0, append(common, "--llm-base-url", srv.URL, "--llm-mode", "record", "--out", recorded)...)
	ev := readEval(t, recorded)
	if ev.Config.User != "llm" || ev.Config.UserModel != "openai:gpt-4.1-mini" || *ev.Config.Seed != 3 {
		t.Errorf("config = %+v", ev.Config)
	}
	if ev.Summary.NumSimulations != 10 || ev.Summary.PassHatK["1"] != 1 {
		t.Fatalf("the LLM user playing the scripts: %d simulations, pass^1 %v; terminations %v", ev.Summary.NumSimulations, ev.Summary.PassHatK["1"], ev.Summary.TerminationReasons)
	}
	u := ev.Metrics.LLMUsage[llm.RoleUser]
	calls := len(srv.Requests())
	if u.Calls != calls || u.InputTokens == 0 || u.OutputTokens != int64(12*calls) || u.CostUSD <= 0 {
		t.Errorf("user usage %+v over %d provider calls", u, calls)
	}
	for _, r := range srv.Requests() {
		if r.Header.Get("Authorization") != "Bearer "+fakeUserSecret || r.Seed == nil || *r.Seed != 3 {
			t.Fatalf("request headers/seed: auth %q seed %v", r.Header.Get("Authorization"), r.Seed)
		}
	}

	// Offline: no key, no server, the same transcripts and rewards.
	t.Setenv("OPENAI_API_KEY", "")
	rep := mustCLI(t, 0, append(common, "--llm-base-url", "http://127.0.0.1:1", "--llm-mode", "replay", "--out", replayed)...)
	ev2 := readEval(t, replayed)
	if len(srv.Requests()) != calls {
		t.Fatalf("the replay reached the provider (%d calls, had %d)", len(srv.Requests()), calls)
	}
	if len(ev2.Simulations) != len(ev.Simulations) {
		t.Fatalf("%d simulations replayed, %d recorded", len(ev2.Simulations), len(ev.Simulations))
	}
	for i := range ev.Simulations {
		a, b := ev.Simulations[i], ev2.Simulations[i]
		type replayed struct {
			ID       string
			Reward   float64
			Messages []result.Message
			Info     result.RewardInfo
		}
		if diff := cmp.Diff(replayed{a.ID, a.Reward, a.Messages, a.RewardInfo}, replayed{b.ID, b.Reward, b.Messages, b.RewardInfo}); diff != "" {
			t.Fatalf("simulation %s differs on replay (-recorded +replayed):\n%s", a.ID, diff)
		}
		if len(a.LLMCalls) != len(b.LLMCalls) {
			t.Errorf("%s: %d model calls recorded, %d replayed", a.ID, len(a.LLMCalls), len(b.LLMCalls))
		}
	}

	// Secrets never reach output, results, the cassette or the database.
	for name, content := range map[string]string{"stdout": rec.stdout + rep.stdout, "stderr": rec.stderr + rep.stderr} {
		if strings.Contains(content, fakeUserSecret) {
			t.Errorf("the API key is in %s", name)
		}
	}
	for _, f := range []string{db, cassette, recorded, replayed} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), fakeUserSecret) {
			t.Errorf("the API key is in %s", filepath.Base(f))
		}
	}

	// The table says what the user model cost.
	table := mustCLI(t, 0, "results", ev.ID, "--db", db)
	if !strings.Contains(table.stdout, "user model") || !strings.Contains(table.stdout, fmt.Sprintf("%d calls", calls)) {
		t.Errorf("results table lacks the user model's usage:\n%s", table.stdout)
	}

	// A replay that asks something the recording did not is a clear error
	// (of the only simulation: the evaluation failed).
	miss := mustCLI(t, exitNoOutcome, "run", "--domain", "mock", "--agent", "builtin", "--task-ids", "mock-02", "--user", "llm",
		"--user-model", "openai:gpt-4.1-mini", "--db", db, "--format", "json", "--progress", "none",
		"--llm-cassette", cassette, "--llm-mode", "replay", "--seed", "3")
	var ev3 result.Evaluation
	if err := json.Unmarshal([]byte(miss.stdout), &ev3); err != nil {
		t.Fatal(err)
	}
	s := ev3.Simulations[0]
	if s.TerminationReason != result.TermUserError || !strings.Contains(s.Error, "no recorded reply") || !strings.Contains(s.Error, "mock-02/0/user") {
		t.Errorf("replay miss: %s %q", s.TerminationReason, s.Error)
	}
}

func TestLLMUserProviderStormIsUserError(t *testing.T) {
	var hits atomic.Int64
	srv := llmtest.NewGemini(t, func(llmtest.Request) llmtest.Reply {
		hits.Add(1)
		return llmtest.Reply{Status: 500, ErrorMessage: "backend overloaded"}
	})
	t.Setenv("GEMINI_API_KEY", fakeUserSecret)
	t.Setenv("GOOGLE_API_KEY", "")
	r := mustCLI(t, exitNoOutcome, "run", "--domain", "mock", "--agent", "builtin", "--task-ids", "mock-01,mock-02", "--user", "llm",
		"--user-model", "gemini:gemini-2.5-flash", "--llm-base-url", srv.URL, "--llm-retries", "2",
		"--db", tempDB(t), "--format", "json", "--progress", "none")
	var ev result.Evaluation
	if err := json.Unmarshal([]byte(r.stdout), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Summary.TerminationReasons[string(result.TermUserError)] != 2 || ev.Summary.PassHatK["1"] != 0 {
		t.Fatalf("terminations %v", ev.Summary.TerminationReasons)
	}
	for _, s := range ev.Simulations {
		if !strings.Contains(s.Error, "500") || strings.Contains(s.Error, fakeUserSecret) {
			t.Errorf("%s: error %q", s.ID, s.Error)
		}
		if len(s.LLMCalls) != 1 || s.LLMCalls[0].Error == "" {
			t.Errorf("%s: llm calls %+v", s.ID, s.LLMCalls)
		}
	}
	if hits.Load() != 6 { // 2 simulations x (1 + 2 retries)
		t.Errorf("provider hit %d times, want 6 (bounded retries)", hits.Load())
	}
	if strings.Contains(r.stdout+r.stderr, fakeUserSecret) {
		t.Error("the API key reached the output")
	}
}

func TestLLMFlagErrors(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"llm user without model", []string{"--user", "llm"}, "--user llm needs --user-model"},
		{"bad spec", []string{"--user", "llm", "--user-model", "gpt-4.1"}, "want provider:model"},
		{"unknown provider", []string{"--user", "llm", "--user-model", "acme:x"}, "acme"},
		{"missing key", []string{"--user", "llm", "--user-model", "openai:gpt-4.1"}, "OPENAI_API_KEY"},
		{"mode without cassette", []string{"--llm-mode", "replay"}, "--llm-mode needs --llm-cassette"},
		{"bad mode", []string{"--llm-cassette", "x.json", "--llm-mode", "rewind"}, "want record or replay"},
		{"replay of a missing cassette", []string{"--llm-cassette", "/nonexistent/c.json", "--llm-mode", "replay"}, "no such file"},
		{"bad user", []string{"--user", "robot"}, `--user "robot": want one of scripted, llm`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := tempDB(t)
			r := mustCLI(t, exitUsage, append([]string{"run", "--domain", "mock", "--db", db}, tc.args...)...)
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr %q lacks %q", r.stderr, tc.want)
			}
			if _, err := os.Stat(db); err == nil {
				t.Error("a rejected command created the database")
			}
		})
	}
}
