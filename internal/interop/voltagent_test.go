//go:build unix

package interop

import (
	"testing"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/conformance"
)

// voltAgentProject is testdata/voltagent: agents built with VoltAgent
// (@voltagent/core, @voltagent/a2a-server through @voltagent/server-hono's
// routes), driven by the AI SDK's scripted mock model.
func voltAgentProject() nodeProject {
	return nodeProject{dir: "testdata/voltagent", pkg: "@voltagent/core", version: "2.10.0"}
}

// VoltAgent's deviations from the A2A specification (@voltagent/core 2.10.0,
// @voltagent/a2a-server 2.0.3, @voltagent/server-hono 2.0.14 with
// @voltagent/server-core 2.1.20).
func voltAgentDeviations() []deviation {
	bareTask := "A2A 0.3 §6.1 Task: kind is \"task\" (the discriminator of every result object); @voltagent/a2a-server's " +
		"task records (createTaskRecord) carry no kind, in replies, GetTask answers and stream events alike"
	return []deviation{
		// Its "skills": [] (an agent without tools) is valid: skills is
		// required but may be empty (A2A 1.0 §8.4.1).
		{conformance.ReqCardDefaults, "HTTP", "A2A 0.3 §5.5 AgentCard: protocolVersion is required (default 0.3.0) and " +
			"preferredTransport defaults to JSONRPC; @voltagent/a2a-server's buildAgentCard sets neither, and proctor assumes " +
			"JSON-RPC at 0.3.0", false},
		{conformance.ReqSendMessage, "JSONRPC 0.3", bareTask, false},
		{conformance.ReqTaskGet, "JSONRPC 0.3", bareTask, false},
		{conformance.ReqHistoryLength, "JSONRPC 0.3", "A2A 0.3 §7.3 tasks/get: historyLength limits the history returned; " +
			"@voltagent/a2a-server's handleTaskGet ignores it (and its history holds the user's message twice)", false},
		{conformance.ReqStreamFirstEvent, "JSONRPC 0.3", "A2A 0.3 §7.2 and the SSE specification: each event's data is the " +
			"JSON-RPC response; @voltagent/server-hono's A2A route writes a record separator byte (0x1E) before it " +
			"(\"data: \\x1e{...}\"), so no event is JSON", false},
		{conformance.ReqInvalidRequest, "JSONRPC 0.3", "JSON-RPC 2.0 §5.1: a body that is not a request is -32600; server-core's " +
			"parseJsonRpcRequest throws its own copy of VoltA2AError, which the @voltagent/a2a-server normalizeError that " +
			"server-hono calls does not recognise (instanceof fails across the two classes), so it answers -32603", false},
	}
}

// TestVoltAgent evaluates both VoltAgent agents from their own, unmodified
// cards (0.3 style, with only url and no protocolVersion: JSON-RPC 0.3 by
// A2A 0.3's defaults), on every interface the card declares, streaming off
// and on, and checks each with proctor's conformance checker.
func TestVoltAgent(t *testing.T) {
	t.Parallel()
	// What VoltAgent gets wrong, and proctor reads tolerantly and records:
	// its card lacks preferredTransport and protocolVersion, its replies
	// and stream events are tasks without "kind", and its SSE writer puts
	// a record separator byte before every event's JSON.
	cardNote := "card has no preferredTransport; assumed JSONRPC at url, protocol 0.3.0"
	turnNotes := map[a2aclient.StreamingMode][]string{
		a2aclient.StreamingOff: {"a task reply has no kind; read as one"},
		a2aclient.StreamingOn: {
			"event-stream data starts with a stray record separator byte (0x1E, JSON text sequence framing), " +
				"which is not JSON: the agent's SSE writer is broken; the byte was ignored",
			"a streamed task event has no kind; read as one",
		},
	}
	testCardURLFramework(t, voltAgentProject(), frameworkFacts{
		cardNote: cardNote, turnNotes: turnNotes,
		// The completed task's metadata.usage, in replies and in the
		// stream's last task event alike.
		usage: map[a2aclient.StreamingMode]bool{a2aclient.StreamingOff: true, a2aclient.StreamingOn: true},
		devs:  voltAgentDeviations(),
	})
}
