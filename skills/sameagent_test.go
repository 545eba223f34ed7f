package skills_test

import (
	"testing"

	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
)

// TestSameAgent: results --agent-url finds an evaluation by the URL as it
// was typed and as it resolved, however the user writes it again.
func TestSameAgent(t *testing.T) {
	stored := result.Evaluation{
		Agent:  result.AgentInfo{URL: "http://127.0.0.1:9019/a2a", CardURL: "http://localhost:9019/.well-known/agent-card.json"},
		Config: result.Config{Agent: "http://localhost:9019"},
	}
	tests := []struct {
		typed string
		want  bool
	}{
		{"http://localhost:9019", true},                         // as typed
		{"http://localhost:9019/", true},                        // trailing slash
		{"http://127.0.0.1:9019/a2a", true},                     // as resolved: the interface
		{"http://127.0.0.1:9019", true},                         // the resolved host, the typed path
		{"127.0.0.1:9019", true},                                // no scheme
		{"HTTP://LOCALHOST:9019", true},                         // case
		{"http://[::1]:9019/.well-known/agent-card.json", true}, // the card, at another loopback name
		{"http://127.0.0.1:9019/.well-known/agent.json", true},  // the older card path
		{"http://localhost:9020", false},                        // another port
		{"https://localhost:9019", false},                       // another scheme
		{"http://example.com:9019", false},                      // another host
		{"builtin", false},                                      // not this one
		{"http://127.0.0.1:9019/a2a/other", false},              // another path
	}
	for _, tc := range tests {
		if got := skills.SameAgent(tc.typed, "", stored); got != tc.want {
			t.Errorf("SameAgent(%q) = %v, want %v", tc.typed, got, tc.want)
		}
	}
	builtin := result.Evaluation{Agent: result.AgentInfo{URL: "http://127.0.0.1:40000/", Builtin: true}, Config: result.Config{Agent: "builtin"}}
	if !skills.SameAgent("builtin", "", builtin) || !skills.SameAgent(" builtin ", "", builtin) {
		t.Error("builtin does not find the built-in agent's evaluation")
	}
	default80 := result.Evaluation{Config: result.Config{Agent: "http://agent.example.com/"}}
	if !skills.SameAgent("http://agent.example.com:80", "", default80) {
		t.Error("an explicit default port does not match")
	}
}
