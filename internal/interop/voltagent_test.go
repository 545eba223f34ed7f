//go:build unix

package interop

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aclient"
)

// voltAgentProject is testdata/voltagent: agents built with VoltAgent
// (@voltagent/core, @voltagent/a2a-server through @voltagent/server-hono's
// routes), driven by the AI SDK's scripted mock model.
func voltAgentProject() nodeProject {
	return nodeProject{dir: "testdata/voltagent", pkg: "@voltagent/core", version: "2.10.0"}
}

// TestVoltAgent evaluates both VoltAgent agents from their own, unmodified
// cards (0.3 style, with only url and no protocolVersion: JSON-RPC 0.3 by
// A2A 0.3's defaults), on every interface the card declares, streaming off
// and on.
func TestVoltAgent(t *testing.T) {
	t.Parallel()
	peers := startFrameworkPeers(t, voltAgentProject())
	for _, mode := range scriptModes {
		ifaces := declaredInterfaces(t, peers[mode])
		if diff := cmp.Diff([]string{"JSONRPC 0.3.0"}, ifaces); diff != "" {
			t.Fatalf("%s agent's card declares (-want +got):\n%s", mode, diff)
		}
	}
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
	for _, mode := range scriptModes {
		for _, streaming := range []a2aclient.StreamingMode{a2aclient.StreamingOff, a2aclient.StreamingOn} {
			cell := frameworkCell{
				mode: mode, transport: string(a2aclient.TransportJSONRPC), protocol: string(a2aclient.Protocol03),
				streaming: streaming, cardNote: cardNote, turnNotes: turnNotes[streaming],
			}
			t.Run(fmt.Sprintf("%s/jsonrpc-0.3/streaming-%s", mode, streaming), func(t *testing.T) {
				t.Parallel()
				runFrameworkCell(t, peers, cell)
			})
		}
	}
}
