package rollout_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/rollout"
)

// TestPlayScenario lets an LLM user (a fake OpenAI provider on loopback)
// drive a scenario against the ADK agent: it opens with the starting
// prompt, sees the agent's answers and never its thoughts, and ends with
// the stop signal.
func TestPlayScenario(t *testing.T) {
	base, _, _ := startWeatherAgent(t, "jsonrpc", true)
	srv := llmtest.NewOpenAI(t, llmtest.Sequence(
		llmtest.Reply{Text: recallQuestion, InputTokens: 100, OutputTokens: 8},
		llmtest.Reply{Text: "done", InputTokens: 120, OutputTokens: 1},
	))
	m, err := llm.New(t.Context(), "openai:user-model", llm.Config{APIKey: "test-key", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	three := 3
	c := &evalset.Case{ID: "scenario", Scenario: &evalset.Scenario{
		StartingPrompt: weatherQuestion, Plan: "Ask about the weather, then check the agent remembers.", StopSignal: "DONE", MaxInvocations: &three,
	}}
	player := rollout.NewCasePlayer(rollout.CaseOptions{ScenarioUser: rollout.LLMUserConfig{Model: llm.Meter(m, "user", nil)}})
	rec, err := player.Play(t.Context(), dialAgent(t, base), c)
	if err != nil || rec.Error != "" {
		t.Fatalf("err %v, recording error %q", err, rec.Error)
	}
	want := []*evalset.Invocation{
		{UserContent: userMsg(weatherQuestion), FinalResponse: assistantMsg(weatherAnswer, weatherThought),
			Tools: []*evalset.Tool{{ID: "call-1", Name: "get_weather", Arguments: map[string]any{"city": "Paris"},
				Result: map[string]any{"forecast": "sunny", "temp_c": float64(21)}}}},
		{UserContent: userMsg(recallQuestion), FinalResponse: assistantMsg("You first asked: "+weatherQuestion, "")},
	}
	if diff := cmp.Diff(want, rec.Actual, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("actual invocations (-want +got):\n%s", diff)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d user-model calls, want 2", len(reqs))
	}
	for _, r := range reqs {
		for _, msg := range r.Messages {
			if strings.Contains(msg.Text, weatherThought) {
				t.Errorf("the user simulator was shown the agent's thought: %q", msg.Text)
			}
		}
	}
	if got := reqs[0].Messages[len(reqs[0].Messages)-1].Text; got != weatherAnswer {
		t.Errorf("the user simulator's first call answered %q, want the agent's answer %q", got, weatherAnswer)
	}
	if !strings.Contains(reqs[0].System, "Conversation plan:\nAsk about the weather") || !strings.Contains(reqs[0].System, "DONE") {
		t.Errorf("system prompt lacks the plan or the stop signal:\n%s", reqs[0].System)
	}
	if len(rec.LLMCalls) != 2 || rec.LLMCalls[0].Role != "user" || rec.LLMCalls[0].InputTokens != 100 {
		t.Errorf("model calls %+v; want the user's 2", rec.LLMCalls)
	}
}

// TestPlayScenarioBounds: the scenario's maxAllowedInvocations ends it
// without an error, and a scenario that could never end or has no model is
// refused.
func TestPlayScenarioBounds(t *testing.T) {
	base, _, _ := startWeatherAgent(t, "jsonrpc", false)
	srv := llmtest.NewOpenAI(t, func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "Hello?"} })
	m, err := llm.New(t.Context(), "openai:user-model", llm.Config{APIKey: "test-key", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	two := 2
	player := rollout.NewCasePlayer(rollout.CaseOptions{ScenarioUser: rollout.LLMUserConfig{Model: m}})
	rec, err := player.Play(t.Context(), dialAgent(t, base), &evalset.Case{ID: "chatty", Scenario: &evalset.Scenario{Plan: "Chat.", MaxInvocations: &two}})
	if err != nil || rec.Error != "" || len(rec.Actual) != 2 {
		t.Fatalf("err %v, recording error %q, %d invocations; want 2 and no error", err, rec.Error, len(rec.Actual))
	}
	for name, tc := range map[string]struct {
		player *rollout.CasePlayer
		c      *evalset.Case
		want   string
	}{
		"no end":   {player, &evalset.Case{ID: "x", Scenario: &evalset.Scenario{Plan: "Chat."}}, "give a stopSignal or a maxAllowedInvocations"},
		"no model": {rollout.NewCasePlayer(rollout.CaseOptions{}), &evalset.Case{ID: "x", Scenario: &evalset.Scenario{Plan: "Chat.", StopSignal: "X"}}, "no user simulator model"},
		"no plan":  {player, &evalset.Case{ID: "x", Scenario: &evalset.Scenario{StopSignal: "X"}}, "conversationPlan is empty"},
	} {
		if _, err := tc.player.Play(t.Context(), dialAgent(t, base), tc.c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", name, err, tc.want)
		}
	}
}

// noAgent fails the test if a conversation is opened.
type noAgent struct{ t *testing.T }

func (a noAgent) NewConversation() rollout.Conversation {
	a.t.Fatal("a trace-mode case contacted the agent")
	return nil
}

// TestPlayTrace records a trace-mode case's actual conversation (else its
// conversation) without contacting any agent.
func TestPlayTrace(t *testing.T) {
	actual := []*evalset.Invocation{{UserContent: userMsg("hi"), FinalResponse: assistantMsg("hello", "")}}
	expected := []*evalset.Invocation{{UserContent: userMsg("hi"), FinalResponse: assistantMsg("hey", "")}}
	ctxMsgs := []*evalset.Message{{Role: evalset.RoleSystem, Content: "be kind"}}
	for name, tc := range map[string]struct {
		c    *evalset.Case
		want []*evalset.Invocation
	}{
		"actualConversation": {&evalset.Case{Mode: evalset.ModeTrace, Conversation: expected, ActualConversation: actual}, actual},
		"conversation":       {&evalset.Case{Mode: evalset.ModeTrace, Conversation: expected}, expected},
	} {
		tc.c.ContextMessages = ctxMsgs
		rec, err := rollout.NewCasePlayer(rollout.CaseOptions{}).Play(context.Background(), noAgent{t}, tc.c)
		if err != nil {
			t.Fatal(err)
		}
		want := []*evalset.Invocation{{ContextMessages: ctxMsgs, UserContent: tc.want[0].UserContent, FinalResponse: tc.want[0].FinalResponse}}
		if diff := cmp.Diff(want, rec.Actual); diff != "" || len(rec.Requests) != 0 || rec.ContextID != "" {
			t.Errorf("%s: actual (-want +got):\n%s; %d requests, context %q", name, diff, len(rec.Requests), rec.ContextID)
		}
	}
}

// TestContextText renders context messages as one block, roles named.
func TestContextText(t *testing.T) {
	got := rollout.ContextText([]*evalset.Message{
		{Role: evalset.RoleSystem, Content: "You are a travel agent."}, nil, {Content: " I live in Paris. "}, {Role: evalset.RoleAssistant},
	})
	want := "<context>\nsystem: You are a travel agent.\nuser: I live in Paris.\n</context>\n\n"
	if got != want || rollout.ContextText(nil) != "" {
		t.Errorf("ContextText = %q, want %q", got, want)
	}
}
