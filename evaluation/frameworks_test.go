package evaluation_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
)

// A 0.3 JSON-RPC agent whose card has only url, neither preferredTransport
// nor protocolVersion (Mastra, VoltAgent, Gemini CLI, tRPC-Agent-Go), is
// evaluated as A2A 0.3 says to read it, and the deviation is recorded
// (issue 12).
func TestSimulationCardWithoutPreferredTransport(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.Handle("/a2a", a2av0.NewJSONRPCHandler(a2asrv.NewHandler(agenttest.Executor(counterAgent))))
	mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"name":"counter","description":"counts","url":"` + srv.URL + `/a2a","version":"1.0.0",` +
			`"capabilities":{},"defaultInputModes":["text"],"defaultOutputModes":["text"],` +
			`"skills":[{"id":"count","name":"count","description":"counts","tags":["count"]}]}`))
	})

	d := counterDomain(t)
	task, _ := d.Task("add-two")
	client := dial(t, srv.URL)
	user, err := rollout.NewScriptedUser(task)
	if err != nil {
		t.Fatal(err)
	}
	res, aborted := play(context.Background(), rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}), task, 0, a2aagent.New(client), user)
	if aborted || res.TerminationReason != result.TermUserStop || res.Reward != 1 {
		t.Fatalf("termination %s, reward %v, aborted %v, error %q", res.TerminationReason, res.Reward, aborted, res.Error)
	}
	if len(res.Messages) != 6 {
		t.Fatalf("transcript has %d messages, want 6: %+v", len(res.Messages), res.Messages)
	}
	call := res.Messages[2].ToolCalls
	if res.Messages[2].Role != result.RoleAssistant || len(call) != 1 || call[0].Name != "add" || call[0].Arguments["n"] != json.Number("2") {
		t.Errorf("agent's first turn = %+v, want the tool call add(n=2)", res.Messages[2])
	}
	if m := res.Messages[4]; m.Role != result.RoleAssistant || m.Content != "Done, the count is 2." {
		t.Errorf("agent's second turn = %+v, want %q", m, "Done, the count is 2.")
	}
	want := []string{"card has no preferredTransport; assumed JSONRPC at url, protocol 0.3.0"}
	if diff := cmp.Diff(want, res.NonConformant); diff != "" {
		t.Errorf("NonConformant (-want +got):\n%s", diff)
	}
}
