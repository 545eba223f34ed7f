package evaluation_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"google.golang.org/adk/model"
	"google.golang.org/genai"
)

// fakeModel is a model.LLM whose replies a test scripts; it keeps every
// request.
type fakeModel struct {
	mu    sync.Mutex
	reqs  []*model.LLMRequest
	reply func(n int, req *model.LLMRequest) (*genai.Content, error)
}

func (m *fakeModel) Name() string { return "fake" }

func (m *fakeModel) GenerateContent(_ context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		m.mu.Lock()
		n := len(m.reqs)
		m.reqs = append(m.reqs, req)
		m.mu.Unlock()
		c, err := m.reply(n, req)
		if err != nil {
			yield(nil, err)
			return
		}
		yield(&model.LLMResponse{Content: c, UsageMetadata: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 100, CandidatesTokenCount: 10}}, nil)
	}
}

func (m *fakeModel) requests() []*model.LLMRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*model.LLMRequest(nil), m.reqs...)
}

func text(s string) *genai.Content { return genai.NewContentFromText(s, genai.RoleModel) }

func contentText(c *genai.Content) string {
	var b strings.Builder
	for _, p := range c.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func TestLLMUserPlaysATask(t *testing.T) {
	d := counterDomainWith(t, "counter", []domains.Task{{
		ID: "add-two",
		UserScenario: domains.UserScenario{Persona: "Ada, terse.", Instructions: map[string]any{
			"reason_for_call": "You want 2 added to the counter.", "known_info": "The counter starts at 0.", "extra_hint": "be brief"}},
		EvaluationCriteria: &domains.EvaluationCriteria{
			Actions:     []domains.Action{{Name: "add", Arguments: map[string]any{"n": 2.0}}},
			RewardBasis: []domains.Basis{domains.BasisDB, domains.BasisAction},
		},
	}})
	task, _ := d.Task("add-two")
	fm := &fakeModel{reply: func(n int, _ *model.LLMRequest) (*genai.Content, error) {
		if n == 0 {
			return text("Please add 2 to the counter."), nil
		}
		return text("Thanks! " + rollout.StopToken), nil
	}}
	temp, seed := 0.0, int64(7)
	user, err := rollout.NewLLMUser(rollout.LLMUserConfig{Model: llm.Meter(fm, llm.RoleUser, llm.Prices{"fake": {InputPerMTok: 1}}), Temperature: &temp, Seed: &seed}, task)
	if err != nil {
		t.Fatal(err)
	}
	client := dial(t, agenttest.Start(t, counterAgent).URL)
	res, _ := play(context.Background(), rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}), task, 0, a2aagent.New(client), user)
	if res.TerminationReason != result.TermUserStop || res.Reward != 1 {
		t.Fatalf("termination %s reward %v (%s); messages %+v", res.TerminationReason, res.Reward, res.Error, res.Messages)
	}
	reqs := fm.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	sys := contentText(reqs[0].Config.SystemInstruction)
	for _, want := range []string{"Ada, terse.", "Reason for call:\nYou want 2 added", "Known info:", "extra hint:\nbe brief", rollout.StopToken, rollout.TransferToken} {
		if !strings.Contains(sys, want) {
			t.Errorf("system instruction lacks %q:\n%s", want, sys)
		}
	}
	if *reqs[0].Config.Temperature != 0 || *reqs[0].Config.Seed != 7 {
		t.Errorf("temperature/seed not passed: %v %v", reqs[0].Config.Temperature, reqs[0].Config.Seed)
	}
	// Roles flipped: the agent speaks as "user", the user model's own
	// utterances are "model" turns; the agent's tool call never shows.
	last := reqs[1].Contents
	var roles []string
	for _, c := range last {
		roles = append(roles, c.Role)
		if s := contentText(c); strings.Contains(s, `"add"`) || strings.Contains(s, `"count"`) {
			t.Errorf("the user model saw the agent's tool traffic: %q", s)
		}
	}
	if got := strings.Join(roles, ","); got != "user,model,user" {
		t.Errorf("roles = %s, want user,model,user", got)
	}
	if contentText(last[0]) != rollout.AgentGreeting || !strings.Contains(contentText(last[2]), "the count is 2") {
		t.Errorf("contents = %q / %q", contentText(last[0]), contentText(last[2]))
	}
	u := res.Metrics.LLMUsage[llm.RoleUser]
	if len(res.LLMCalls) != 2 || u.Calls != 2 || u.InputTokens != 200 || u.OutputTokens != 20 || u.CostUSD != 200.0/1e6 {
		t.Errorf("llm usage = %+v, calls %+v", u, res.LLMCalls)
	}
}

func TestLLMUserFailureIsUserError(t *testing.T) {
	d := counterDomain(t)
	task, _ := d.Task("add-two")
	task.UserScenario.Instructions = "You want 2 added."
	fm := &fakeModel{reply: func(int, *model.LLMRequest) (*genai.Content, error) {
		return nil, errors.New("openai: HTTP 500: overloaded (5 attempts)")
	}}
	user, _ := rollout.NewLLMUser(rollout.LLMUserConfig{Model: llm.Meter(fm, llm.RoleUser, nil)}, task)
	client := dial(t, agenttest.Start(t, counterAgent).URL)
	res, _ := play(context.Background(), rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}), task, 0, a2aagent.New(client), user)
	if res.TerminationReason != result.TermUserError || !strings.Contains(res.Error, "overloaded") || res.Reward != 0 {
		t.Fatalf("termination %s error %q", res.TerminationReason, res.Error)
	}
	if u := res.Metrics.LLMUsage[llm.RoleUser]; u.Calls != 1 || u.Errors != 1 {
		t.Errorf("usage = %+v", u)
	}
}

func TestNewLLMUserNeedsAScenario(t *testing.T) {
	task := &domains.Task{ID: "t", UserScenario: domains.UserScenario{Script: []string{"hi"}}}
	if _, err := rollout.NewLLMUser(rollout.LLMUserConfig{Model: &fakeModel{}}, task); err == nil || !strings.Contains(err.Error(), "no user persona or instructions") {
		t.Fatalf("err = %v", err)
	}
	if _, err := rollout.NewLLMUser(rollout.LLMUserConfig{}, &domains.Task{ID: "t", UserScenario: domains.UserScenario{Persona: "x"}}); err == nil {
		t.Fatal("no model: want an error")
	}
}

type lampDB struct {
	On bool `json:"on"`
}

type phoneDB struct {
	Restarted int `json:"restarted"`
}

// phoneDomain has a user side: the user restarts their own phone, the
// agent only talks.
func phoneDomain(t *testing.T) *domains.Domain {
	t.Helper()
	tb := domains.NewToolbox[lampDB]()
	tb.Register("check", "Check.", `{"type":"object","properties":{}}`, func(db *lampDB, _ domains.Args) (any, error) { return db.On, nil })
	ub := domains.NewToolbox[phoneDB]()
	ub.Register("restart_phone", "Restart the phone.", `{"type":"object","properties":{"hard":{"type":"boolean"}}}`,
		func(db *phoneDB, _ domains.Args) (any, error) {
			db.Restarted++
			return "phone restarted", nil
		})
	ub.Register("factory_reset", "Erase the phone.", `{"type":"object","properties":{}}`, func(*phoneDB, domains.Args) (any, error) {
		return "erased", nil
	})
	ub.RegisterEnvFunc("was_restarted", func(db *phoneDB, _ domains.Args) (any, error) { return db.Restarted > 0, nil })
	d, err := domains.NewDomain(domains.Spec[lampDB]{Name: "phone", DB: []byte(`{"on":false}`), Tools: tb,
		User: domains.NewSide([]byte(`{"restarted":0}`), ub),
		Tasks: []domains.Task{{ID: "restart", UserTools: []string{"restart_phone"},
			UserScenario: domains.UserScenario{Instructions: "Your phone is stuck. Do what the agent says."},
			EvaluationCriteria: &domains.EvaluationCriteria{
				Actions:       []domains.Action{{Requestor: "user", Name: "restart_phone", Arguments: map[string]any{}, CompareArgs: []string{}}},
				EnvAssertions: []domains.EnvAssertion{{EnvType: "user", FuncName: "was_restarted"}},
				RewardBasis:   []domains.Basis{domains.BasisEnvAssertion, domains.BasisAction},
			}}}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLLMUserUsesItsTools(t *testing.T) {
	d := phoneDomain(t)
	task, _ := d.Task("restart")
	fm := &fakeModel{reply: func(n int, req *model.LLMRequest) (*genai.Content, error) {
		switch n {
		case 0:
			return text("My phone is stuck."), nil
		case 1:
			// Asked to restart: the user calls a tool it may not use, then
			// the one it may.
			return &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
				{FunctionCall: &genai.FunctionCall{Name: "factory_reset", Args: map[string]any{}}},
				{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "restart_phone", Args: map[string]any{"hard": true}}},
			}}, nil
		case 2:
			return text("Done, it restarted."), nil
		default:
			return text(rollout.StopToken), nil
		}
	}}
	var agentSaw []string
	var mu sync.Mutex
	respond := func(_ context.Context, _, text string) string {
		mu.Lock()
		agentSaw = append(agentSaw, text)
		mu.Unlock()
		return `{"name":"respond","arguments":{"content":"Please restart your phone."}}`
	}
	user, _ := rollout.NewLLMUser(rollout.LLMUserConfig{Model: fm}, task)
	client := dial(t, agenttest.Start(t, respond).URL)
	res, _ := play(context.Background(), rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}), task, 0, a2aagent.New(client), user)
	if res.TerminationReason != result.TermUserStop || res.Reward != 1 {
		t.Fatalf("termination %s reward %v %s: %+v", res.TerminationReason, res.Reward, res.RewardInfo.Note, res.Messages)
	}
	reqs := fm.requests()
	decls := reqs[1].Config.Tools[0].FunctionDeclarations
	if len(decls) != 1 || decls[0].Name != "restart_phone" {
		t.Fatalf("the user was offered %+v, want only its task's restart_phone", decls)
	}
	// The tool results went back to the user model, the refused call as an
	// error.
	resp := reqs[2].Contents[len(reqs[2].Contents)-1]
	if len(resp.Parts) != 2 || resp.Parts[0].FunctionResponse.Response["error"] == nil || resp.Parts[1].FunctionResponse.Response["result"] != "phone restarted" {
		t.Fatalf("function responses = %+v", resp.Parts)
	}
	var userCalls, userResults int
	for _, m := range res.Messages {
		if m.Role == result.RoleUser && len(m.ToolCalls) > 0 {
			userCalls++
			if m.ToolCalls[0].Requestor != domains.RequestorUser {
				t.Errorf("user call requestor = %q", m.ToolCalls[0].Requestor)
			}
		}
		if m.Role == result.RoleTool && m.Requestor == domains.RequestorUser {
			userResults++
		}
	}
	if userCalls != 1 || userResults != 1 {
		t.Errorf("transcript has %d user calls and %d user tool results, want 1 and 1 (the refused call never ran)", userCalls, userResults)
	}
	for _, s := range agentSaw {
		if strings.Contains(s, "restart_phone") && !strings.Contains(s, "Done, it restarted") {
			t.Errorf("the agent saw the user's tool call: %q", s)
		}
	}
}

func TestLLMJudgeMajorityVote(t *testing.T) {
	task := &domains.Task{ID: "t", EvaluationCriteria: &domains.EvaluationCriteria{NLAssertions: []string{"The agent greets.", "The agent apologizes.", "The agent is rude."}}}
	msgs := []result.Message{{Role: result.RoleAssistant, Content: "Hello!"}, {Role: result.RoleUser, Content: "hi"}}
	replies := []string{
		"```json\n{\"results\": [{\"index\": 1, \"met\": true, \"reasoning\": \"says hello\"}, {\"index\": 2, \"met\": true, \"reasoning\": \"r\"}, {\"index\": 3, \"met\": false, \"reasoning\": \"r\"}]}\n```",
		`{"results": [{"index": 1, "met": true, "reasoning": "hello"}, {"index": 2, "met": false, "reasoning": "no sorry"}, {"index": 3, "met": true, "reasoning": "r"}]}`,
		`I think... not JSON`,
		`{"results": [{"index": 1, "met": true, "reasoning": "yes"}, {"index": 2, "met": true, "reasoning": "r"}]}`,
	}
	fm := &fakeModel{reply: func(n int, req *model.LLMRequest) (*genai.Content, error) { return text(replies[n]), nil }}
	j, err := scoring.NewLLMJudge(scoring.LLMJudgeConfig{Model: llm.Meter(fm, llm.RoleJudge, nil), Samples: 4})
	if err != nil {
		t.Fatal(err)
	}
	var ledger llm.Ledger
	checks, err := j.Assess(llm.WithLedger(context.Background(), &ledger), task, msgs)
	if err != nil {
		t.Fatal(err)
	}
	// Votes: 1 met 3/4, 2 met 2/4 (a tie fails), 3 met 1/4.
	want := []struct {
		met   bool
		votes int
	}{{true, 3}, {false, 2}, {false, 1}}
	for i, w := range want {
		if checks[i].Met != w.met || checks[i].MetVotes != w.votes || checks[i].Samples != 4 {
			t.Errorf("assertion %d: %+v, want met=%v votes=%d", i+1, checks[i], w.met, w.votes)
		}
	}
	if !strings.Contains(checks[0].Reasoning, "says hello") || !strings.Contains(checks[0].Reasoning, "unreadable reply") {
		t.Errorf("reasoning not kept: %q", checks[0].Reasoning)
	}
	prompt := contentText(fm.requests()[0].Contents[0])
	if !strings.Contains(prompt, "agent: Hello!") || !strings.Contains(prompt, "3. The agent is rude.") {
		t.Errorf("judge prompt = %q", prompt)
	}
	if u := llm.UsageByRole(ledger.Calls())[llm.RoleJudge]; u.Calls != 4 {
		t.Errorf("judge usage = %+v", u)
	}

	failing := &fakeModel{reply: func(int, *model.LLMRequest) (*genai.Content, error) { return nil, errors.New("down") }}
	j2, _ := scoring.NewLLMJudge(scoring.LLMJudgeConfig{Model: failing})
	if _, err := j2.Assess(context.Background(), task, msgs); err == nil || !strings.Contains(err.Error(), "down") {
		t.Errorf("a failing judge model: err = %v", err)
	}
}
