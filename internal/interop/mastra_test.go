//go:build unix

package interop

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aclient"
)

// mastraProject is testdata/mastra: agents built with Mastra (@mastra/core
// with its Hono server adapter, @mastra/hono, and an explicit in-memory A2A
// task store), driven by the AI SDK's scripted mock model.
func mastraProject() nodeProject {
	return nodeProject{dir: "testdata/mastra", pkg: "@mastra/core", version: "1.71.0"}
}

// TestMastra evaluates both Mastra agents from their own, unmodified cards
// (0.3 style, with only url: JSON-RPC 0.3 by A2A 0.3's defaults), on every
// interface the card declares, streaming off and on.
func TestMastra(t *testing.T) {
	t.Parallel()
	peers := startFrameworkPeers(t, mastraProject())
	for _, mode := range scriptModes {
		ifaces := declaredInterfaces(t, peers[mode])
		if diff := cmp.Diff([]string{"JSONRPC 0.3.0"}, ifaces); diff != "" {
			t.Fatalf("%s agent's card declares (-want +got):\n%s", mode, diff)
		}
	}
	cardNote := "card has no preferredTransport; assumed JSONRPC at url"
	for _, mode := range scriptModes {
		for _, streaming := range []a2aclient.StreamingMode{a2aclient.StreamingOff, a2aclient.StreamingOn} {
			cell := frameworkCell{
				mode: mode, transport: string(a2aclient.TransportJSONRPC), protocol: string(a2aclient.Protocol03),
				streaming: streaming, cardNote: cardNote,
			}
			t.Run(fmt.Sprintf("%s/jsonrpc-0.3/streaming-%s", mode, streaming), func(t *testing.T) {
				t.Parallel()
				runFrameworkCell(t, peers, cell)
			})
		}
	}
}
