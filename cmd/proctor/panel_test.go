package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/internal/tau2test"
	"github.com/proctor-eval/proctor/result"
)

// storedAirline stores an evaluation of airline's tasks taskIDs, played
// by an agent that only apologises and an LLM user faked at the wire that
// opens with first, then stops. It returns tau2's data root, the
// database, the evaluation and the fake user.
func storedAirline(t *testing.T, taskIDs, first string) (root, db string, src result.Evaluation, user *llmtest.Server) {
	t.Helper()
	root = filepath.Dir(tau2test.Dir(t, "airline"))
	user = llmtest.NewOpenAI(t, askThenStop(first))
	t.Setenv("OPENAI_API_KEY", fakeUserSecret)
	agent := agenttest.Start(t, agenttest.Sorry)
	db = tempDB(t)
	r := mustCLI(t, exitOK, "run", "--domain", "airline", "--tau2-data", root, "--agent", agent.URL, "--task-ids", taskIDs,
		"--user", "llm", "--user-model", "openai:gpt-4.1-mini", "--llm-base-url", user.URL,
		"--db", db, "--format", "json", "--progress", "none")
	if err := json.Unmarshal([]byte(r.stdout), &src); err != nil {
		t.Fatal(err)
	}
	return root, db, src, user
}

// panelJudges answers the judge prompt for three judge models: judge-a and
// judge-b find every assertion met, judge-c finds the first one not met.
func panelJudges(r llmtest.Request) llmtest.Reply {
	n := strings.Count(r.Messages[len(r.Messages)-1].Text, "\n")
	var results []string
	for i := 1; i <= n; i++ {
		met := r.Model != "judge-c" || i != 1
		v, _ := json.Marshal(map[string]any{"index": i, "met": met, "reasoning": "as the transcript shows"})
		results = append(results, string(v))
	}
	return llmtest.Reply{Text: `{"results": [` + strings.Join(results, ",") + `]}`}
}

// TestJudgePanelOverAirline: a panel of three judges over a stored airline
// evaluation (NL assertions graded although airline's reward leaves them
// out) costs each judge one call per conversation and sample and nothing
// else, and reports the one assertion per conversation that judge-c sees
// differently: not unanimous, outcome changed with the judge, all of the
// outcomes' variance the judges'.
func TestJudgePanelOverAirline(t *testing.T) {
	root, db, src, user := storedAirline(t, "0,1,2,3,4", "Hi, I need help with my reservation.")
	userCalls := len(user.Requests())
	judges := llmtest.NewOpenAI(t, panelJudges)
	out := mustCLI(t, exitOK, "rescore", src.ID, "--db", db, "--tau2-data", root, "--llm-base-url", judges.URL,
		"--judge-model", "openai:judge-a", "--judge-model", "openai:judge-b", "--judge-model", "openai:judge-c",
		"--judge-samples", "1", "--format", "json", "--progress", "none")
	var panel result.JudgePanel
	if err := json.Unmarshal([]byte(out.stdout), &panel); err != nil {
		t.Fatalf("%v\n%s", err, clip(out.stdout))
	}
	perModel := map[string]int{}
	for _, req := range judges.Requests() {
		perModel[req.Model]++
	}
	if diff := cmp.Diff(map[string]int{"judge-a": 5, "judge-b": 5, "judge-c": 5}, perModel); diff != "" {
		t.Errorf("judge requests by model (-want +got):\n%s", diff)
	}
	if len(user.Requests()) != userCalls {
		t.Errorf("the panel called the user model: %d calls, had %d", len(user.Requests()), userCalls)
	}
	var ids []string
	items := 0
	for _, s := range panel.Simulations {
		ids = append(ids, s.ID)
		items += len(s.Assertions)
		if s.NLInReward || s.Agreement[0] != 1.0/3 || cmp.Diff([]float64{1, 1, 0}, s.Outcomes) != "" {
			t.Errorf("%s: nl in reward %v, agreement %v, outcomes %v; want false, 1/3 first, [1 1 0]", s.ID, s.NLInReward, s.Agreement, s.Outcomes)
		}
	}
	got := []any{len(panel.Simulations), panel.Assertions, panel.Unanimous, panel.JudgeCalls, panel.OutcomeChanges, panel.JudgeVarianceShare, panel.AgentVarianceShare}
	want := []any{5, items, items - 5, []int{5, 5, 5}, ids, 1.0, 0.0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("panel (simulations, assertions, unanimous, calls, changes, judge share, agent share) (-want +got):\n%s", diff)
	}
	if panel.FleissKappa == nil || *panel.FleissKappa >= 0 {
		t.Errorf("Fleiss' kappa %v: want a negative value (judge-c disagrees beyond chance)", panel.FleissKappa)
	}

	table := mustCLI(t, exitOK, "rescore", src.ID, "--db", db, "--tau2-data", root, "--llm-base-url", judges.URL,
		"--judge-model", "openai:judge-a", "--judge-model", "openai:judge-c", "--judge-samples", "1", "--progress", "none")
	for _, want := range []string{"Fleiss' kappa", "5 simulations change outcome with the judge", "not met"} {
		if !strings.Contains(table.stdout, want) {
			t.Errorf("table report lacks %q:\n%s", want, table.stdout)
		}
	}
}

// TestJudgePanelBadRequests: flags a panel cannot honour, and bad panels,
// are usage errors that say what to do.
func TestJudgePanelBadRequests(t *testing.T) {
	db := tempDB(t)
	mustCLI(t, exitOK, "run", "--domain", "mock", "--agent", "builtin", "--task-ids", "mock-01", "--db", db, "--progress", "none")
	two := []string{"--judge-model", "openai:a", "--judge-model", "openai:b"}
	nine := []string{}
	for _, m := range strings.Split("a b c d e f g h i", " ") {
		nine = append(nine, "--judge-model", "openai:"+m)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append([]string{"--strict"}, two...), "--strict: a judge panel"},
		{append([]string{"--format", "tau2"}, two...), "--format tau2: a judge panel"},
		{[]string{"--judge-model", "openai:a", "--judge-model", "bad"}, `--judge-model "bad": want provider:model`},
		{[]string{"--judge-model", "openai:a", "--judge-model", "openai:a"}, "judge_models"},
		{nine, "judge_models"},
	} {
		r := cli(t, append([]string{"rescore", "mock", "--db", db}, c.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, r.code, r.stderr, exitUsage, c.want)
		}
	}
}
