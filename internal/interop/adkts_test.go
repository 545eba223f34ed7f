//go:build unix

package interop

import (
	"testing"

	"github.com/proctor-eval/proctor/a2aclient"
)

const (
	// adktsDir holds server.mjs, the ADK for TypeScript agents, and its npm
	// project.
	adktsDir = "testdata/adkts"
	// adktsVersion is the @google/adk version package.json pins.
	adktsVersion = "2.0.0"
)

var adktsProject = nodeProject{dir: adktsDir, pkg: "@google/adk", version: adktsVersion}

// startADKTS launches both scripted agents at once and returns their base
// URLs by mode, once both are ready.
func startADKTS(t *testing.T) map[agentMode]string {
	t.Helper()
	peers := map[agentMode]*nodePeer{}
	for _, mode := range agentModes {
		peers[mode] = launchNode(t, adktsProject, nil, "server.mjs", "--mode", string(mode), "--port", "0", "--host", "127.0.0.1")
	}
	bases := map[agentMode]string{}
	for mode, p := range peers {
		bases[mode] = p.await(t)
	}
	return bases
}

// adktsBindings are the interfaces toA2a's card declares: JSON-RPC (its
// url and preferredTransport) and HTTP+JSON, both at protocol 0.3.
var adktsBindings = []a2aclient.Transport{a2aclient.TransportJSONRPC, a2aclient.TransportREST}

// TestADKTS evaluates agents built with ADK for TypeScript and served with
// its toA2a, from the card toA2a makes: both scripted agents, on both
// bindings, streamed and not. The agents start once and serve every
// subtest.
func TestADKTS(t *testing.T) {
	t.Parallel()
	bases := startADKTS(t)
	for _, mode := range agentModes {
		for _, transport := range adktsBindings {
			for _, streaming := range streamingModes {
				name := string(mode) + "/" + string(transport) + "/streaming-" + streaming
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					sim, client := simulate(t, bases[mode], scriptedOptions(transport, a2aclient.StreamingMode(streaming))...)
					ep := client.Endpoint()
					if want := bindings[string(transport)]; string(ep.ProtocolBinding) != want || ep.ProtocolVersion != "0.3" {
						t.Errorf("client uses %s %s at %s, want %s 0.3", ep.ProtocolBinding, ep.ProtocolVersion, ep.URL, want)
					}
					checkScripted(t, mode, sim)
					if len(sim.NonConformant) > 0 {
						t.Errorf("flagged non-conformant: %q", sim.NonConformant)
					}
				})
			}
		}
	}
}
