//go:build unix

package interop

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
)

// agentMode is which scripted agent a framework's peer plays: the same two
// in every framework (the script of testdata/adkts/server.mjs, and the fake
// Gemini API of the Gemini CLI test).
type agentMode string

const (
	// modeRefuse answers every turn with refusalText.
	modeRefuse agentMode = "refuse"
	// modeToolCall answers its first turn (the one carrying the policy)
	// with a find_user_by_email call as JSON, and every later turn with
	// finalText.
	modeToolCall agentMode = "toolcall"
)

// agentModes are both scripted agents.
var agentModes = []agentMode{modeRefuse, modeToolCall}

// The scripted agents' words, as the framework scripts write them.
const (
	refusalText  = "I'm sorry, but I can't help with that request."
	toolCallText = `{"name":"find_user_by_email","arguments":{"email":"omar.haddad@example.com"}}`
	finalText    = "I have looked up your account. Is there anything else I can do for you?"
	lookupTool   = "find_user_by_email"
	lookupEmail  = "omar.haddad@example.com"
)

// said is what a transcript message must be: the agent's and the user's
// exact words and the agent's parsed tool calls. A tool result's content is
// proctor's own mock environment talking, so only its tool and error flag
// are compared.
type said struct {
	Role    result.Role
	Content string
	Calls   []domains.ToolCall
	Tool    string
	Error   bool
}

func saidOf(msgs []result.Message) []said {
	out := make([]said, 0, len(msgs))
	for _, m := range msgs {
		s := said{Role: m.Role, Content: m.Content, Calls: m.ToolCalls, Tool: m.Name, Error: m.Error}
		if m.Role == result.RoleTool {
			s.Content = ""
		}
		for i := range s.Calls {
			s.Calls[i].ID = "" // proctor numbers calls; the agent did not name them
		}
		out = append(out, s)
	}
	return out
}

// wantSaid is the transcript task mock-01 gives against the agent in mode:
// proctor's greeting, the scripted user's two lines and stop, and the
// agent's fixed answers.
func wantSaid(t *testing.T, mode agentMode) []said {
	t.Helper()
	_, task, _ := mockTask(t)
	script := task.UserScenario.Script
	if len(script) != 2 {
		t.Fatalf("task mock-01 has %d scripted user lines, the expected transcripts assume 2", len(script))
	}
	user := func(s string) said { return said{Role: result.RoleUser, Content: s} }
	agent := func(s string) said { return said{Role: result.RoleAssistant, Content: s} }
	greeting := agent(rollout.AgentGreeting)
	switch mode {
	case modeRefuse:
		return []said{greeting, user(script[0]), agent(refusalText), user(script[1]), agent(refusalText), user(rollout.StopToken)}
	case modeToolCall:
		call := said{Role: result.RoleAssistant, Calls: []domains.ToolCall{{Name: lookupTool, Arguments: map[string]any{"email": lookupEmail}}}}
		return []said{
			greeting, user(script[0]), call, {Role: result.RoleTool, Tool: lookupTool},
			agent(finalText), user(script[1]), agent(finalText), user(rollout.StopToken),
		}
	}
	t.Fatalf("unknown agent mode %q", mode)
	return nil
}

// checkScripted fails the test unless the simulation of the agent in mode
// gave exactly the expected transcript, ended with the user's stop, with
// no error and reward 0 (neither agent lists the user's tasks, so neither
// can earn the reward).
func checkScripted(t *testing.T, mode agentMode, sim result.Simulation) {
	t.Helper()
	if diff := cmp.Diff(wantSaid(t, mode), saidOf(sim.Messages)); diff != "" {
		t.Errorf("transcript (-want +got):\n%s\nfull transcript:\n%s", diff, formatTranscript(sim.Messages))
	}
	if sim.Reward != 0 || sim.TerminationReason != result.TermUserStop || sim.Error != "" {
		t.Errorf("reward %v, termination %s, error %q; want 0, %s, no error", sim.Reward, sim.TerminationReason, sim.Error, result.TermUserStop)
	}
}

// scriptedOptions are the client options of one simulation: the binding
// chosen from the agent's card and the streaming mode, nothing else.
func scriptedOptions(transport a2aclient.Transport, streaming a2aclient.StreamingMode) []a2aclient.Option {
	return []a2aclient.Option{a2aclient.WithTransport(transport), a2aclient.WithStreaming(streaming)}
}
