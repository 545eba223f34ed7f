package a2aagent_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/translation"
)

// TestStepResolvesTheProfileByName: a request names its profile (an
// agent.ProfileName) and the adapter renders and parses through the
// translation profile of that name; no name sends the input as it is; an
// unknown name is an error that lists the known ones, and nothing is sent.
func TestStepResolvesTheProfileByName(t *testing.T) {
	setup := agent.NewSetup("Be kind.", []domains.ToolSpec{{Name: "get_user", Description: "Look up a user.", Parameters: []byte(`{"type":"object"}`)}})
	in := agent.Input{UserText: "I am u-1."}
	agentBeats, err := translation.ProfileByName(agent.ProfileAgentBeats)
	if err != nil {
		t.Fatal(err)
	}
	call := `{"name": "get_user", "arguments": {"id": "u-1"}}`
	cases := []struct {
		name      string
		profile   agent.ProfileName
		reply     string
		wantSent  []string
		wantReply agent.Reply
		wantErr   string
	}{
		{"agentbeats renders and parses", agent.ProfileAgentBeats, call,
			[]string{agentBeats.Render(setup, true, in)[0].Text()},
			agent.Reply{ToolCalls: []domains.ToolCall{{ID: "call-1", Name: "get_user", Arguments: map[string]any{"id": "u-1"}}}, Format: agent.ReplyFormatJSON}, ""},
		{"no profile sends the input as is", "", call, []string{in.UserText}, agent.Reply{Text: call}, ""},
		{"unknown profile", "nope", call, nil, agent.Reply{}, `unknown profile "nope" (known: agentbeats, structured, tau2-a2a)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var sent []string
			srv := agenttest.Start(t, func(_ context.Context, _, text string) string {
				mu.Lock()
				defer mu.Unlock()
				sent = append(sent, text)
				return tc.reply
			})
			client, err := a2aclient.Dial(t.Context(), srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = client.Close() })
			out, err := a2aagent.New(client).NewConversation().Step(t.Context(), agent.Request{Setup: setup, First: true, Input: in, Profile: tc.profile})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Step error = %v, want one saying %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if diff := cmp.Diff(tc.wantReply, out.Reply); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(tc.wantSent, sent); diff != "" {
				t.Errorf("what the agent was sent (-want +got):\n%s", diff)
			}
		})
	}
}
