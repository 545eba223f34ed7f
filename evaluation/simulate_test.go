package evaluation_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
)

func TestSimulationOutcomes(t *testing.T) {
	d := counterDomain(t)
	task, _ := d.Task("add-two")
	hang := agenttest.HangingAgent(t)
	cases := []struct {
		name        string
		url         string
		limits      rollout.Limits
		opts        []a2aclient.Option
		user        rollout.UserSimulator
		wantTerm    result.TerminationReason
		wantReward  float64
		wantErrors  int    // requests that failed
		wantStatus  string // a status code key that must be counted
		wantNonConf bool
	}{
		{name: "solved", url: agenttest.Start(t, counterAgent).URL, wantTerm: result.TermUserStop, wantReward: 1, wantStatus: "200"},
		{name: "sorry agent", url: agenttest.Start(t, agenttest.Sorry).URL, wantTerm: result.TermUserStop, wantReward: 0, wantStatus: "200"},
		{name: "agent stop", url: agenttest.Start(t, func(context.Context, string, string) string {
			return `{"name":"respond","arguments":{"content":"Goodbye ###STOP###"}}`
		}).URL, wantTerm: result.TermAgentStop, wantReward: 0},
		{name: "max steps", url: agenttest.Start(t, func(context.Context, string, string) string {
			return `{"name":"get","arguments":{}}`
		}).URL, limits: rollout.Limits{MaxSteps: 9}, wantTerm: result.TermMaxSteps},
		{name: "too many errors", url: agenttest.Start(t, func(context.Context, string, string) string {
			return `{"name":"no_such_tool","arguments":{}}`
		}).URL, limits: rollout.Limits{MaxErrors: 3}, wantTerm: result.TermTooManyErrors},
		{name: "http 500", url: agenttest.StatusAgent(t, http.StatusInternalServerError).URL, wantTerm: result.TermAgentError, wantErrors: 1, wantStatus: "500"},
		{name: "garbage", url: agenttest.RawAgent(t, "application/json", "this is not json {{{").URL, wantTerm: result.TermAgentError, wantErrors: 1, wantStatus: "200"},
		{name: "hang past simulation timeout", url: hang.URL, limits: rollout.Limits{Timeout: 300 * time.Millisecond}, wantTerm: result.TermTimeout, wantErrors: 1, wantStatus: "none"},
		{name: "hang past request timeout", url: hang.URL, opts: []a2aclient.Option{a2aclient.WithRequestTimeout(200 * time.Millisecond)}, wantTerm: result.TermAgentError, wantErrors: 1},
		{name: "0.3-style reply read tolerantly", url: agenttest.RawResultAgent(t, func(ctxID string) any {
			return map[string]any{"kind": "message", "messageId": "m1", "role": "agent", "contextId": ctxID,
				"parts": []any{map[string]any{"kind": "text", "text": `{"name":"respond","arguments":{"content":"the count is 2"}}`}}}
		}).URL, wantTerm: result.TermUserStop, wantReward: 0, wantNonConf: true},
		{name: "user simulator fails", url: agenttest.Start(t, counterAgent).URL, user: failingUser{}, wantTerm: result.TermUserError},
		{name: "slow user past timeout", url: agenttest.Start(t, counterAgent).URL, user: slowUser{time.Minute}, limits: rollout.Limits{Timeout: 200 * time.Millisecond}, wantTerm: result.TermTimeout},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			client := dial(t, tc.url, tc.opts...)
			sim := rollout.NewSimulator(d, agent.ProfileAgentBeats, tc.limits)
			user := tc.user
			if user == nil {
				var err error
				if user, err = rollout.NewScriptedUser(task); err != nil {
					t.Fatal(err)
				}
			}
			res, aborted := play(context.Background(), sim, task, 0, a2aagent.New(client), user)
			if aborted {
				t.Fatal("simulation reported aborted")
			}
			if res.TerminationReason != tc.wantTerm {
				t.Fatalf("termination = %s (error %q), want %s", res.TerminationReason, res.Error, tc.wantTerm)
			}
			if res.Reward != tc.wantReward {
				t.Errorf("reward = %v, want %v (info %+v)", res.Reward, tc.wantReward, res.RewardInfo)
			}
			if res.Metrics.Errors != tc.wantErrors {
				t.Errorf("request errors = %d, want %d (%+v)", res.Metrics.Errors, tc.wantErrors, res.Metrics)
			}
			if tc.wantStatus != "" && res.Metrics.StatusCodes[tc.wantStatus] == 0 {
				t.Errorf("status codes %v lack %s", res.Metrics.StatusCodes, tc.wantStatus)
			}
			if (len(res.NonConformant) > 0) != tc.wantNonConf {
				t.Errorf("non-conformant = %v, want %v", res.NonConformant, tc.wantNonConf)
			}
			if tc.wantErrors > 0 && res.Error == "" {
				t.Error("a failed simulation must say why")
			}
			if len(res.Messages) == 0 || res.Messages[0].Role != result.RoleAssistant || res.Messages[0].Content != rollout.AgentGreeting {
				t.Errorf("transcript must open with the greeting: %+v", res.Messages)
			}
		})
	}
}

func TestSolvedTranscript(t *testing.T) {
	d := counterDomain(t)
	task, _ := d.Task("add-two")
	client := dial(t, agenttest.Start(t, counterAgent).URL)
	user, _ := rollout.NewScriptedUser(task)
	res, _ := play(context.Background(), rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}), task, 0, a2aagent.New(client), user)

	var roles []string
	for _, m := range res.Messages {
		roles = append(roles, string(m.Role))
	}
	if got, want := strings.Join(roles, ","), "assistant,user,assistant,tool,assistant,user"; got != want {
		t.Fatalf("roles = %s, want %s", got, want)
	}
	call := res.Messages[2].ToolCalls
	if len(call) != 1 || call[0].Name != "add" || call[0].Arguments["n"] != json.Number("2") {
		t.Errorf("tool call = %+v", call)
	}
	if res.Messages[3].Content != `{"count":2}` || res.Messages[3].Name != "add" {
		t.Errorf("tool message = %+v", res.Messages[3])
	}
	if !res.RewardInfo.DBCheck.DBMatch || res.RewardInfo.RewardBreakdown[domains.BasisAction] != 1 || !res.RewardInfo.CommunicateChecks[0].Met {
		t.Errorf("reward info = %+v", res.RewardInfo)
	}
	if res.Metrics.Requests != 2 || res.Metrics.InputTokens == 0 || !res.Metrics.TokensEstimated {
		t.Errorf("metrics = %+v", res.Metrics)
	}
	if res.ContextID == "" {
		t.Error("context id not recorded")
	}
}

func TestOneContextPerSimulation(t *testing.T) {
	d := counterDomain(t)
	task, _ := d.Task("add-three")
	seen := make(chan string, 16)
	client := dial(t, agenttest.Start(t, func(ctx context.Context, contextID, text string) string {
		seen <- contextID
		return counterAgent(ctx, contextID, text)
	}).URL)
	sim := rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{})
	for trial := range 2 {
		user, _ := rollout.NewScriptedUser(task)
		if res, _ := play(context.Background(), sim, task, trial, a2aagent.New(client), user); res.Reward != 1 {
			t.Fatalf("trial %d: reward %v (%s %s)", trial, res.Reward, res.TerminationReason, res.Error)
		}
	}
	close(seen)
	perContext := map[string]int{}
	for id := range seen {
		perContext[id]++
	}
	// add-three: tool call, report, "Thanks!" answer: three requests per simulation.
	if len(perContext) != 2 {
		t.Fatalf("contexts = %v, want 2 distinct", perContext)
	}
	for id, n := range perContext {
		if n != 3 {
			t.Errorf("context %s got %d messages, want 3", id, n)
		}
	}
}

func TestAbortedSimulationIsNotAResult(t *testing.T) {
	d := counterDomain(t)
	task, _ := d.Task("add-two")
	client := dial(t, agenttest.HangingAgent(t).URL)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	user, _ := rollout.NewScriptedUser(task)
	if _, aborted := play(ctx, rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}), task, 0, a2aagent.New(client), user); !aborted {
		t.Fatal("a simulation cut short by its caller must report aborted")
	}
}
