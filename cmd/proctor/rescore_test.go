package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/internal/tau2test"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
)

// rescore runs proctor rescore on a stored evaluation and returns the new
// evaluation, checking that it names its source and is stored.
func rescore(t *testing.T, db string, src *result.Evaluation, args ...string) *result.Evaluation {
	t.Helper()
	r := mustCLI(t, exitOK, append([]string{"rescore", src.ID, "--db", db, "--format", "json", "--progress", "none"}, args...)...)
	var ev result.Evaluation
	if err := json.Unmarshal([]byte(r.stdout), &ev); err != nil {
		t.Fatalf("rescore output: %v\n%s", err, clip(r.stdout))
	}
	if ev.RescoredFrom != src.ID || ev.ID == src.ID || ev.Status != result.StatusCompleted {
		t.Fatalf("rescore of %s: id %s, rescored_from %q, status %s", src.ID, ev.ID, ev.RescoredFrom, ev.Status)
	}
	stored := mustCLI(t, exitOK, "results", ev.ID, "--db", db, "--format", "json")
	var back result.Evaluation
	if err := json.Unmarshal([]byte(stored.stdout), &back); err != nil || back.RescoredFrom != src.ID {
		t.Fatalf("the rescore is not stored with its source: %v %q", err, back.RescoredFrom)
	}
	return &ev
}

// askThenStop is an LLM user that says what it wants, then stops the
// conversation as soon as the agent has answered.
func askThenStop(ask string) func(llmtest.Request) llmtest.Reply {
	return func(r llmtest.Request) llmtest.Reply {
		for _, m := range r.Messages {
			if m.Role == "assistant" {
				return llmtest.Reply{Text: "###STOP###"}
			}
		}
		return llmtest.Reply{Text: ask}
	}
}

// sameScores fails unless two evaluations of the same simulations scored
// them alike: every reward and reward_info, the transcripts untouched, and
// the summary.
func sameScores(t *testing.T, want, got *result.Evaluation) {
	t.Helper()
	type scored struct {
		ID          string
		Reward      float64
		Termination result.TerminationReason
		Info        result.RewardInfo
		Messages    []result.Message
	}
	pick := func(e *result.Evaluation) []scored {
		out := make([]scored, len(e.Simulations))
		for i, s := range e.Simulations {
			out[i] = scored{s.ID, s.Reward, s.TerminationReason, s.RewardInfo, s.Messages}
		}
		return out
	}
	if diff := cmp.Diff(pick(want), pick(got)); diff != "" {
		t.Errorf("rescored simulations differ (-original +rescored):\n%s", diff)
	}
	if diff := cmp.Diff(want.Summary, got.Summary); diff != "" {
		t.Errorf("rescored summary differs (-original +rescored):\n%s", diff)
	}
}

// TestRescoreReproducesMock: the reference agent's mock run, scored again
// with its own settings, gets exactly its rewards; the same recording
// scored strictly adds ACTION, which the reference agent meets.
func TestRescoreReproducesMock(t *testing.T) {
	db := tempDB(t)
	r := mustCLI(t, exitOK, "run", "--domain", "mock", "--agent", "builtin", "--num-trials", "2", "--db", db, "--format", "json", "--progress", "none")
	var src result.Evaluation
	if err := json.Unmarshal([]byte(r.stdout), &src); err != nil {
		t.Fatal(err)
	}
	sameScores(t, &src, rescore(t, db, &src))
	if src.Metrics.Requests == 0 {
		t.Fatal("no requests recorded")
	}
	strict := rescore(t, db, &src, "--strict")
	if !strict.Config.Strict || strict.Summary.PassHatK["1"] > src.Summary.PassHatK["1"] {
		t.Errorf("strict rescore: strict %v, pass^1 %v (lenient %v)", strict.Config.Strict, strict.Summary.PassHatK["1"], src.Summary.PassHatK["1"])
	}
	for _, s := range strict.Simulations {
		if s.RewardInfo.AddedByStrict != nil && !slices.Contains(s.RewardInfo.RewardBasis, domains.BasisAction) {
			t.Errorf("%s: strict bases %v", s.ID, s.RewardInfo.RewardBasis)
		}
	}
	if diff := cmp.Diff(src.Metrics.Requests, strict.Metrics.Requests); diff != "" {
		t.Errorf("request metrics not carried over: %s", diff)
	}
	// Scoring it back leniently gives the original again.
	sameScores(t, &src, rescore(t, db, strict, "--strict=false"))
}

// TestActionMatchFlag: a run records how ACTION matched (tau2's reading
// unless --action-match says exact), a rescore keeps it or changes it and
// says so, and a bad value is a usage error that names the choices.
func TestActionMatchFlag(t *testing.T) {
	db := tempDB(t)
	r := mustCLI(t, exitOK, "run", "--domain", "mock", "--agent", "builtin", "--strict", "--db", db, "--format", "json", "--progress", "none")
	var src result.Evaluation
	if err := json.Unmarshal([]byte(r.stdout), &src); err != nil {
		t.Fatal(err)
	}
	if src.Config.ActionMatch != result.ActionMatchTau2 {
		t.Errorf("run recorded action_match %q, want tau2", src.Config.ActionMatch)
	}
	exact := rescore(t, db, &src, "--action-match", "exact")
	if exact.Config.ActionMatch != result.ActionMatchExact || !exact.Config.Strict {
		t.Errorf("rescore --action-match exact recorded %q (strict %v)", exact.Config.ActionMatch, exact.Config.Strict)
	}
	// The reference agent lists mock-12's tasks without the expected
	// status filter: a call missing an argument, which tau2 matches and
	// the exact reading does not. Every other reward is the same.
	for i, s := range exact.Simulations {
		want := src.Simulations[i].Reward
		if s.TaskID == "mock-12" {
			want = 0
		}
		if s.Reward != want {
			t.Errorf("%s: exact reward %v, want %v (tau2 %v)", s.ID, s.Reward, want, src.Simulations[i].Reward)
		}
	}
	if again := rescore(t, db, exact); again.Config.ActionMatch != result.ActionMatchExact {
		t.Errorf("a rescore without --action-match recorded %q, want the source's exact", again.Config.ActionMatch)
	}
	table := mustCLI(t, exitOK, "results", exact.ID, "--db", db)
	if !strings.Contains(table.stdout, "action match") || !strings.Contains(table.stdout, "exact:") {
		t.Errorf("the table does not say that actions were matched exactly:\n%s", table.stdout)
	}
	sameScores(t, &src, rescore(t, db, exact, "--action-match", "tau2"))
	for _, args := range [][]string{
		{"run", "--domain", "mock", "--action-match", "fuzzy", "--db", tempDB(t)},
		{"rescore", src.ID, "--action-match", "fuzzy", "--db", db},
	} {
		r := mustCLI(t, exitUsage, args...)
		if !strings.Contains(r.stderr, `--action-match "fuzzy": want one of tau2, exact`) {
			t.Errorf("%s: stderr %q", args[0], r.stderr)
		}
	}
}

// TestRescoreDoNothingAirlineStrict: an agent that only apologises, on
// airline's 50 base tasks with an LLM user faked at the wire, passes the
// 23 vacuous tasks; scored again strictly, without the agent or the user,
// it passes the 7 that expect no action at all.
func TestRescoreDoNothingAirlineStrict(t *testing.T) {
	root := filepath.Dir(tau2test.Dir(t, "airline"))
	user := llmtest.NewOpenAI(t, askThenStop("Hi, I need help with my reservation."))
	t.Setenv("OPENAI_API_KEY", fakeUserSecret)
	agent := agenttest.Start(t, agenttest.Sorry)
	db := tempDB(t)
	r := mustCLI(t, exitOK, "run", "--domain", "airline", "--tau2-data", root, "--agent", agent.URL, "--concurrency", "8",
		"--user", "llm", "--user-model", "openai:gpt-4.1-mini", "--llm-base-url", user.URL,
		"--db", db, "--format", "json", "--progress", "none")
	var src result.Evaluation
	if err := json.Unmarshal([]byte(r.stdout), &src); err != nil {
		t.Fatal(err)
	}
	passed := func(e *result.Evaluation) int {
		n := 0
		for i := range e.Simulations {
			if e.Simulations[i].Passed() {
				n++
			}
		}
		return n
	}
	if got := passed(&src); got != 23 || len(src.Summary.VacuousTasks) != 23 {
		t.Fatalf("do-nothing agent passed %d of %d, %d vacuous; want 23 (terminations %v)",
			got, len(src.Simulations), len(src.Summary.VacuousTasks), src.Summary.TerminationReasons)
	}
	calls := len(user.Requests())
	sameScores(t, &src, rescore(t, db, &src, "--tau2-data", root))
	strict := rescore(t, db, &src, "--strict", "--tau2-data", root)
	if got := passed(strict); got != 7 || len(strict.Summary.VacuousTasks) != 7 || strict.Summary.DoNothingBaseline.PassHat1 != 0.14 {
		t.Errorf("strict rescore: passed %d, vacuous %v, baseline %+v; want 7, 7, 0.14", got, strict.Summary.VacuousTasks, strict.Summary.DoNothingBaseline)
	}
	if len(user.Requests()) != calls {
		t.Errorf("rescoring called the user model: %d calls, had %d", len(user.Requests()), calls)
	}
}

// TestRescoreJudgeFromCassette: retail's NL_ASSERTION, judged by a model
// faked at the wire and recorded to a cassette, is judged again offline
// from the cassette, with the same votes; a rescore with a judge that
// now disagrees changes exactly the NL_ASSERTION basis.
func TestRescoreJudgeFromCassette(t *testing.T) {
	root := filepath.Dir(tau2test.Dir(t, "retail"))
	met := true
	fake := llmtest.NewOpenAI(t, func(r llmtest.Request) llmtest.Reply {
		if strings.Contains(r.System, "You judge a conversation") {
			n := strings.Count(r.Messages[len(r.Messages)-1].Text, "\n")
			var results []string
			for i := 1; i <= n; i++ {
				v, _ := json.Marshal(map[string]any{"index": i, "met": met, "reasoning": "as said"})
				results = append(results, string(v))
			}
			return llmtest.Reply{Text: `{"results": [` + strings.Join(results, ",") + `]}`}
		}
		return askThenStop("Hello, I want to return an item.")(r)
	})
	t.Setenv("OPENAI_API_KEY", fakeUserSecret)
	agent := agenttest.Start(t, agenttest.Sorry)
	db, cassette := tempDB(t), filepath.Join(t.TempDir(), "judge.cassette.json")
	r := mustCLI(t, exitOK, "run", "--domain", "retail", "--tau2-data", root, "--task-ids", "2,3", "--agent", agent.URL,
		"--user", "llm", "--user-model", "openai:gpt-4.1-mini", "--judge-model", "openai:gpt-4.1", "--llm-base-url", fake.URL,
		"--llm-cassette", cassette, "--llm-mode", "record", "--db", db, "--format", "json", "--progress", "none")
	var src result.Evaluation
	if err := json.Unmarshal([]byte(r.stdout), &src); err != nil {
		t.Fatal(err)
	}
	if src.Metrics.LLMUsage[llm.RoleJudge].Calls == 0 {
		t.Fatal("nothing was judged")
	}
	calls := len(fake.Requests())
	t.Setenv("OPENAI_API_KEY", "")
	replayed := rescore(t, db, &src, "--tau2-data", root, "--llm-cassette", cassette, "--llm-mode", "replay", "--llm-base-url", "http://127.0.0.1:1")
	sameScores(t, &src, replayed)
	if len(fake.Requests()) != calls {
		t.Errorf("the replayed rescore reached the provider")
	}
	if diff := cmp.Diff(src.Metrics.LLMUsage[llm.RoleJudge].Calls, replayed.Metrics.LLMUsage[llm.RoleJudge].Calls); diff != "" {
		t.Errorf("judge calls (-original +rescored): %s", diff)
	}

	// A live judge that now says "not met": only NL_ASSERTION moves.
	t.Setenv("OPENAI_API_KEY", fakeUserSecret)
	met = false
	live := rescore(t, db, &src, "--tau2-data", root, "--llm-base-url", fake.URL, "--judge-samples", "1")
	if live.Config.JudgeSamples != 1 || len(fake.Requests()) == calls {
		t.Fatalf("the live rescore did not judge: samples %d", live.Config.JudgeSamples)
	}
	for i, s := range live.Simulations {
		o := src.Simulations[i]
		if _, judged := o.RewardInfo.RewardBreakdown["NL_ASSERTION"]; !judged {
			continue
		}
		if s.RewardInfo.RewardBreakdown["NL_ASSERTION"] != 0 || s.RewardInfo.RewardBreakdown["DB"] != o.RewardInfo.RewardBreakdown["DB"] {
			t.Errorf("%s: breakdown %v, was %v", s.ID, s.RewardInfo.RewardBreakdown, o.RewardInfo.RewardBreakdown)
		}
	}
}

// TestRescoreNeedsAKnownEvaluation: unknown ids and bad flags are usage
// errors that say what to do.
func TestRescoreNeedsAKnownEvaluation(t *testing.T) {
	db := tempDB(t)
	mustCLI(t, exitOK, "run", "--domain", "mock", "--agent", "builtin", "--task-ids", "mock-01", "--db", db, "--progress", "none")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"rescore", "0000000000", "--db", db}, "not found"},
		{[]string{"rescore", "x", "--db", db, "--format", "yaml"}, "--format"},
		{[]string{"rescore", "x", "--db", db, "--judge-samples", "0"}, "--judge-samples"},
		{[]string{"rescore", "--db", db}, "accepts 1 arg"},
	} {
		r := cli(t, c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, r.code, r.stderr, exitUsage, c.want)
		}
	}
}

// TestRescoreTau2Mock: tau2's mock domain, with its user side and env
// assertions, played by an agent that only apologises and an LLM user
// faked at the wire, scores the same again from the recording.
func TestRescoreTau2Mock(t *testing.T) {
	root := filepath.Dir(tau2test.Dir(t, "mock"))
	user := llmtest.NewOpenAI(t, askThenStop("Please create a task for me."))
	t.Setenv("OPENAI_API_KEY", fakeUserSecret)
	agent := agenttest.Start(t, agenttest.Sorry)
	db := tempDB(t)
	r := mustCLI(t, exitOK, "run", "--domain", "tau2-mock", "--tau2-data", root, "--agent", agent.URL,
		"--user", "llm", "--user-model", "openai:gpt-4.1-mini", "--llm-base-url", user.URL,
		"--db", db, "--format", "json", "--progress", "none")
	var src result.Evaluation
	if err := json.Unmarshal([]byte(r.stdout), &src); err != nil {
		t.Fatal(err)
	}
	if src.Summary.NumSimulations != 10 {
		t.Fatalf("%d simulations, want 10", src.Summary.NumSimulations)
	}
	sameScores(t, &src, rescore(t, db, &src, "--tau2-data", root))
	sameScores(t, &src, rescore(t, db, &src, "--tau2-data", root, "--strict=false"))
}
