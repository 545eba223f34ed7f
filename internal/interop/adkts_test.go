//go:build unix

package interop

import (
	"testing"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/result"
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
	peers := map[agentMode]*launchedPeer{}
	for _, mode := range agentModes {
		peers[mode] = launchNode(t, adktsProject, "server.mjs", "--mode", string(mode), "--port", "0", "--host", "127.0.0.1")
	}
	bases := map[agentMode]string{}
	for mode, p := range peers {
		bases[mode] = p.wait(t)
	}
	return bases
}

// adktsBindings are the interfaces toA2a's card declares: JSON-RPC (its
// url and preferredTransport) and HTTP+JSON, both at protocol 0.3.
var adktsBindings = []a2aclient.Transport{a2aclient.TransportJSONRPC, a2aclient.TransportREST}

// adktsDeviations are @google/adk 2.0.0's deviations from the A2A
// specification, as toA2a serves an agent.
func adktsDeviations() []deviation {
	// toA2a imports DefaultRequestHandler from @a2a-js/sdk's ES module build
	// but loads the express handlers with require, from its CommonJS build:
	// two A2AError classes, so the handlers' instanceof checks fail and
	// every A2A error the request handler throws is answered as an internal
	// error (dist/esm/a2a/agent_to_a2a.js, loadExpressBindings).
	dualPackage := "toA2a mixes @a2a-js/sdk's ES module and CommonJS builds, so every A2A error reaches the client as " +
		"-32603 (REST: HTTP 500)"
	return []deviation{
		{conformance.ReqTaskNotFound, "JSONRPC 0.3", "0.3 §8.2 TaskNotFoundError is -32001; " + dualPackage, false},
		{conformance.ReqTaskNotFound, "HTTP+JSON 0.3", "0.3 §8.2 TaskNotFoundError (HTTP 404); " + dualPackage, false},
		{conformance.ReqNotCancelable, "JSONRPC 0.3", "0.3 §8.2 TaskNotCancelableError is -32002; " + dualPackage, false},
		{conformance.ReqNotCancelable, "HTTP+JSON 0.3", "0.3 §8.2 (HTTP 400 or 409); " + dualPackage, false},
		{conformance.ReqInvalidParams, "JSONRPC 0.3", "JSON-RPC 2.0 §5.1 and 0.3 §8.1: invalid params is -32602; " + dualPackage, false},
		{conformance.ReqParseError, "JSONRPC 0.3", "JSON-RPC 2.0 §5.1 and 0.3 §8.1: a body that is not JSON is -32700; toA2a mounts " +
			"express.json() in front of the JSON-RPC handler, which answers it with an HTML HTTP 400 page", false},
	}
}

// TestADKTS evaluates agents built with ADK for TypeScript and served with
// its toA2a, from the card toA2a makes: both scripted agents, on both
// bindings, streamed and not, and checks the refusing agent's conformance.
// The agents start once and serve every subtest.
func TestADKTS(t *testing.T) {
	t.Parallel()
	bases := startADKTS(t)
	t.Run("conformance", func(t *testing.T) {
		t.Parallel()
		rep, err := conformance.Run(t.Context(), bases[modeRefuse])
		if err != nil {
			t.Fatal(err)
		}
		assertDeviations(t, rep, adktsDeviations())
	})
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
					checkADKTSTokens(t, a2aclient.StreamingMode(streaming), sim)
					if len(sim.NonConformant) > 0 {
						t.Errorf("flagged non-conformant: %q", sim.NonConformant)
					}
				})
			}
		}
	}
}

// checkADKTSTokens: streamed, every artifact update carries the model's
// usage as adk_usage_metadata (100 in, 10 out a call), which proctor
// reports; unstreamed, toA2a's completed task drops every event's
// metadata, so proctor can only estimate.
func checkADKTSTokens(t *testing.T, streaming a2aclient.StreamingMode, sim result.Simulation) {
	t.Helper()
	if streaming == a2aclient.StreamingOff {
		checkTokens(t, sim, 0, 0)
		return
	}
	checkTokens(t, sim, 100, 10)
}
