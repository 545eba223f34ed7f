//go:build unix

package interop

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/translation"
)

const (
	// geminiCLIDir holds server.mjs, which runs Gemini CLI's A2A server, and
	// its npm project.
	geminiCLIDir = "testdata/geminicli"
	// geminiCLIVersion is the @google/gemini-cli-a2a-server version
	// package.json pins.
	geminiCLIVersion = "0.25.2"
)

// geminiCLIDeviations are what a simulation flags about the server: its
// card is a 0.3 card with url but no preferredTransport, which A2A 0.3
// §5.5 reads as JSON-RPC at url.
var geminiCLIDeviations = []string{"card has no preferredTransport; assumed JSONRPC at url"}

// slowMessage is the conformance run's message for a task that keeps
// running: the fake Gemini API holds its answer.
const slowMessage = "please work slowly on this"

var geminiCLIProject = nodeProject{dir: geminiCLIDir, pkg: "@google/gemini-cli-a2a-server", version: geminiCLIVersion}

// geminiScript is the fake Gemini API's script for the agent in mode: what
// the CLI's model says to the message proctor sent this turn (the last user
// message of the request). The CLI streams every chat turn; the text comes
// in several chunks, so that proctor must put them together. The answer to
// slowMessage waits until hold is closed, so that the conformance run finds
// that task still working when it subscribes to it and cancels it.
func geminiScript(mode agentMode, hold <-chan struct{}) func(llmtest.Request) llmtest.Reply {
	return func(req llmtest.Request) llmtest.Reply {
		last := ""
		if n := len(req.Messages); n > 0 {
			last = req.Messages[n-1].Text
		}
		text := finalText
		switch {
		case mode == modeRefuse:
			text = refusalText
		case strings.Contains(last, translation.PolicyOpen):
			text = toolCallText
		}
		reply := llmtest.Reply{Text: text, Chunks: 4, InputTokens: 100, OutputTokens: 10}
		if strings.Contains(last, slowMessage) {
			reply.Hold = hold
		}
		return reply
	}
}

// startGeminiCLI starts a fake Gemini API and a Gemini CLI A2A server using
// it for each agent mode, all at once, and returns the servers' base URLs
// once they are ready.
func startGeminiCLI(t *testing.T) map[agentMode]string {
	t.Helper()
	peers := map[agentMode]*launchedPeer{}
	hold := make(chan struct{})
	for _, mode := range agentModes {
		model := llmtest.NewGemini(t, geminiScript(mode, hold))
		// The test's own directory for the server's HOME: removed even if
		// the server is killed.
		peers[mode] = launchNode(t, geminiCLIProject, "server.mjs", "--model-url", model.URL, "--home", t.TempDir(),
			"--port", "0", "--host", "127.0.0.1")
	}
	// Before the fake APIs close, which waits for their requests.
	t.Cleanup(func() { close(hold) })
	bases := map[agentMode]string{}
	for mode, p := range peers {
		bases[mode] = p.wait(t)
	}
	return bases
}

// TestGeminiCLI evaluates Gemini CLI's A2A server, its coder agent talking
// to a fake Gemini API, from the card the server publishes: both scripted
// agents, on the one binding the card declares (JSON-RPC), streamed and
// not, and checks the refusing agent's conformance: its deviations are
// the card's missing preferredTransport (read with 0.3's default, and
// reported as card-defaults) and no version negotiation. The servers
// start once and serve every subtest.
func TestGeminiCLI(t *testing.T) {
	t.Parallel()
	bases := startGeminiCLI(t)
	t.Run("conformance", func(t *testing.T) {
		t.Parallel()
		rep, err := conformance.Run(t.Context(), bases[modeRefuse],
			conformance.WithMessages(conformance.Messages{Slow: slowMessage}))
		if err != nil {
			t.Fatal(err)
		}
		assertDeviations(t, rep, []deviation{
			{conformance.ReqCardDefaults, "HTTP", "A2A 0.3 §5.5: preferredTransport defaults to JSONRPC, which proctor assumes; " +
				"the server's card states protocolVersion but no preferredTransport", false},
		})
		// The held answer keeps the task running: cancel and subscribe are
		// judged on a working task, whatever the machine's load.
		for _, res := range rep.Results {
			if (res.ID == conformance.ReqCancelRunning || res.ID == conformance.ReqSubscribe) && res.Status != conformance.Pass {
				t.Errorf("%s: %s (%s), want a pass on the running task", res.ID, res.Status, res.Message)
			}
		}
		if len(rep.Interfaces) != 1 || rep.Interfaces[0].ProtocolBinding != "JSONRPC" || rep.Interfaces[0].ProtocolVersion != "0.3" {
			t.Errorf("interfaces checked: %+v, want JSON-RPC 0.3 at the card's url", rep.Interfaces)
		}
	})
	for _, mode := range agentModes {
		for _, streaming := range streamingModes {
			t.Run(string(mode)+"/streaming-"+streaming, func(t *testing.T) {
				t.Parallel()
				sim, client := simulate(t, bases[mode], scriptedOptions(a2aclient.TransportJSONRPC, a2aclient.StreamingMode(streaming))...)
				ep := client.Endpoint()
				if ep.ProtocolBinding != "JSONRPC" || ep.ProtocolVersion != "0.3" {
					t.Errorf("client uses %s %s at %s, want JSONRPC 0.3", ep.ProtocolBinding, ep.ProtocolVersion, ep.URL)
				}
				checkScripted(t, mode, sim)
				if diff := cmp.Diff(geminiCLIDeviations, sim.NonConformant); diff != "" {
					t.Errorf("deviations flagged (-want +got):\n%s", diff)
				}
			})
		}
	}
}
