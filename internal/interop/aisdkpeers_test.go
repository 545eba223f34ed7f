//go:build unix

package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
)

// Framework peers: A2A agents built with frameworks nobody on the team
// wrote (Mastra, VoltAgent), each an npm project under testdata whose
// server.mjs drives the framework's agent with the AI SDK's scripted mock
// model, in one of two modes:
//
//   - refuse: every turn answers scriptRefusal;
//   - toolcall: the first turn answers scriptToolCall, a tool call as JSON
//     text (what proctor's agentbeats profile asks for), every later turn
//     scriptFinal.
//
// The texts here are the ones server.mjs sends, byte for byte.
const (
	scriptRefusal  = "I'm sorry, but I can't help with Taskly accounts."
	scriptToolCall = `{"name":"find_user_by_email","arguments":{"email":"omar.haddad@example.com"}}`
	scriptFinal    = "I looked up your account, but I cannot say more about your tasks."
)

// The two agents each framework peer plays.
var scriptModes = []string{"refuse", "toolcall"}

// frameworkPeers are one framework's running agents, by mode: the URL of
// each one's agent card.
type frameworkPeers map[string]string

// startFrameworkPeers starts project p's server.mjs once per mode, all at
// once, and returns the card URLs their READY lines name.
func startFrameworkPeers(t *testing.T, p nodeProject) frameworkPeers {
	t.Helper()
	var argLists [][]string
	for _, mode := range scriptModes {
		argLists = append(argLists, []string{"server.mjs", "--mode", mode, "--port", "0", "--host", "127.0.0.1"})
	}
	urls := startNodePeers(t, p, argLists...)
	peers := frameworkPeers{}
	for i, mode := range scriptModes {
		peers[mode] = urls[i]
	}
	return peers
}

// The user's lines of task mock-01 (domains/mock/data/tasks.json) and the
// scripted user's stop.
const (
	mockUserFirst  = "Hi, I'm Omar, my email is omar.haddad@example.com. How many of my tasks are not done yet, and which of them is high priority?"
	mockUserSecond = "Perfect, thanks. That's all."
	mockUserStop   = rollout.StopToken
)

// wantTranscript is the exact transcript task mock-01 must produce against
// the agent of mode: every message's role, text and tool calls.
func wantTranscript(t *testing.T, mode string) []transcriptEntry {
	t.Helper()
	switch mode {
	case "refuse":
		return []transcriptEntry{
			{Role: "assistant", Content: rollout.AgentGreeting},
			{Role: "user", Content: mockUserFirst},
			{Role: "assistant", Content: scriptRefusal},
			{Role: "user", Content: mockUserSecond},
			{Role: "assistant", Content: scriptRefusal},
			{Role: "user", Content: mockUserStop},
		}
	case "toolcall":
		return []transcriptEntry{
			{Role: "assistant", Content: rollout.AgentGreeting},
			{Role: "user", Content: mockUserFirst},
			{Role: "assistant", ToolCalls: []byte(`[{"id":"call-1","name":"find_user_by_email","arguments":{"email":"omar.haddad@example.com"}}]`)},
			{Role: "tool", Content: omarLookup, ToolCallID: "call-1", Name: "find_user_by_email"},
			{Role: "assistant", Content: scriptFinal},
			{Role: "user", Content: mockUserSecond},
			{Role: "assistant", Content: scriptFinal},
			{Role: "user", Content: mockUserStop},
		}
	}
	t.Fatalf("unknown mode %q", mode)
	return nil
}

// omarLookup is the tool message of the mock domain's find_user_by_email
// for omar.haddad@example.com.
const omarLookup = `{"name":"Omar Haddad","user_id":"u-1002"}`

// declaredInterfaces dials the card at cardURL as proctor does (0.3 cards
// without preferredTransport read as JSON-RPC at url, protocol 0.3.0) and
// returns "BINDING VERSION" for every interface it declares.
func declaredInterfaces(t *testing.T, cardURL string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	c, err := a2aclient.Dial(ctx, cardURL)
	if err != nil {
		t.Fatalf("Dial %s: %v", cardURL, err)
	}
	defer c.Close()
	var out []string
	for _, iface := range c.Card().SupportedInterfaces {
		out = append(out, string(iface.ProtocolBinding)+" "+string(iface.ProtocolVersion))
	}
	return out
}

// The token usage peerkit.mjs's scripted model reports for every call.
const (
	scriptInputTokens  = 10
	scriptOutputTokens = 5
)

// frameworkFacts is what is known of an AI SDK framework's agents: what
// proctor records of their cards and turns, whether their replies carry
// the model's token usage, and their conformance deviations.
type frameworkFacts struct {
	// cardNote is the deviation of the agent's card that the first turn
	// records; turnNotes are those every turn records, in order, by
	// streaming mode.
	cardNote  string
	turnNotes map[a2aclient.StreamingMode][]string
	// usage holds the streaming modes in which each reply carries the
	// scripted model's usage; in the others proctor estimates tokens.
	usage map[a2aclient.StreamingMode]bool
	// interim is, by streaming mode, the text the agent reports as working
	// before each of its answers (an interim message of the transcript).
	interim map[a2aclient.StreamingMode]string
	devs    []deviation
}

// frameworkCell is one simulation a framework test runs: an agent, an
// interface of its card, a streaming mode, and the framework's facts,
// which say what must come of it.
type frameworkCell struct {
	mode                string // "refuse" or "toolcall"
	transport, protocol string
	streaming           a2aclient.StreamingMode
	facts               frameworkFacts
}

// runFrameworkCell plays task mock-01 against the cell's agent and checks
// the outcome: the exact transcript, the refusing agent's reward 0 and
// every simulation's user stop, no errors, and exactly the deviations the
// cell expects.
func runFrameworkCell(t *testing.T, peers frameworkPeers, cell frameworkCell) {
	t.Helper()
	sim, client := simulate(t, peers[cell.mode],
		a2aclient.WithTransport(a2aclient.Transport(cell.transport)),
		a2aclient.WithProtocol(a2aclient.ProtocolVersion(cell.protocol)),
		a2aclient.WithStreaming(cell.streaming),
	)
	checkEndpoint(t, client, cell.transport, cell.protocol)
	if sim.TerminationReason != result.TermUserStop || sim.Error != "" || sim.Metrics.Errors != 0 {
		t.Errorf("termination %s, error %q, %d request errors; want %s and none\ntranscript:\n%s",
			sim.TerminationReason, sim.Error, sim.Metrics.Errors, result.TermUserStop, formatTranscript(sim.Messages))
	}
	if cell.mode == "refuse" && sim.Reward != 0 {
		t.Errorf("the refusing agent earned reward %v, want 0", sim.Reward)
	}
	if diff := cmp.Diff(withInterim(wantTranscript(t, cell.mode), cell.facts.interim[cell.streaming]), transcriptOf(sim.Messages), cmp.Comparer(jsonEqual)); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(cell.wantNonConformant(sim.Messages), sim.NonConformant, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("recorded deviations (-want +got):\n%s", diff)
	}
	if cell.facts.usage[cell.streaming] {
		checkTokens(t, sim, scriptInputTokens, scriptOutputTokens)
	} else {
		checkTokens(t, sim, 0, 0)
	}
}

// checkTokens checks a simulation's token metrics: when in or out is not
// zero, every agent turn reported a model call's usage of in input and
// out output tokens; otherwise the replies carried none, and proctor
// estimated them.
func checkTokens(t *testing.T, sim result.Simulation, in, out int64) {
	t.Helper()
	type tokens struct {
		In, Out   int64
		Estimated bool
	}
	got := tokens{sim.Metrics.InputTokens, sim.Metrics.OutputTokens, sim.Metrics.TokensEstimated}
	if in == 0 && out == 0 {
		if !got.Estimated {
			t.Errorf("tokens %+v: want them estimated, the replies carry no usage", got)
		}
		return
	}
	turns := int64(agentTurns(sim.Messages))
	if diff := cmp.Diff(tokens{in * turns, out * turns, false}, got); diff != "" {
		t.Errorf("tokens over %d turns, each reporting %d in and %d out (-want +got):\n%s", turns, in, out, diff)
	}
}

// withInterim is a transcript with an interim agent message saying text
// before each of the agent's answers (an assistant message after a user
// or tool message); the transcript itself without text.
func withInterim(want []transcriptEntry, text string) []transcriptEntry {
	if text == "" {
		return want
	}
	var out []transcriptEntry
	for i, e := range want {
		if i > 0 && e.Role == string(result.RoleAssistant) && want[i-1].Role != string(result.RoleAssistant) {
			out = append(out, transcriptEntry{Role: string(result.RoleAssistant), Content: text, Interim: true})
		}
		out = append(out, e)
	}
	return out
}

// agentTurns counts the agent's replies in msgs, after proctor's greeting.
func agentTurns(msgs []result.Message) int {
	n := 0
	for _, m := range msgs[1:] {
		if m.Role == result.RoleAssistant && !m.Interim {
			n++
		}
	}
	return n
}

// jsonEqual compares two JSON documents by value, so that key order and
// spacing do not matter.
func jsonEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return string(a) == string(b)
	}
	return reflect.DeepEqual(va, vb)
}

// wantNonConformant is what the simulation must record as deviations: per
// agent turn, the turn's deviations joined with "; ", the card's first.
func (c frameworkCell) wantNonConformant(msgs []result.Message) []string {
	var out []string
	for i := range agentTurns(msgs) {
		notes := c.facts.turnNotes[c.streaming]
		if i == 0 {
			notes = append([]string{c.facts.cardNote}, notes...)
		}
		if len(notes) > 0 {
			out = append(out, strings.Join(notes, "; "))
		}
	}
	return out
}

// testCardURLFramework evaluates both scripted agents of an AI SDK framework
// whose card is 0.3 style with only url (JSON-RPC 0.3 by A2A 0.3's
// defaults), streaming off and on, and checks each simulation and each
// agent's conformance deviations against facts.
func testCardURLFramework(t *testing.T, p nodeProject, facts frameworkFacts) {
	t.Helper()
	peers := startFrameworkPeers(t, p)
	for _, mode := range scriptModes {
		ifaces := declaredInterfaces(t, peers[mode])
		if diff := cmp.Diff([]string{"JSONRPC 0.3.0"}, ifaces); diff != "" {
			t.Fatalf("%s agent's card declares (-want +got):\n%s", mode, diff)
		}
	}
	for _, mode := range scriptModes {
		for _, streaming := range []a2aclient.StreamingMode{a2aclient.StreamingOff, a2aclient.StreamingOn} {
			cell := frameworkCell{
				mode: mode, transport: string(a2aclient.TransportJSONRPC), protocol: string(a2aclient.Protocol03),
				streaming: streaming, facts: facts,
			}
			t.Run(fmt.Sprintf("%s/jsonrpc-0.3/streaming-%s", mode, streaming), func(t *testing.T) {
				t.Parallel()
				runFrameworkCell(t, peers, cell)
			})
		}
	}
	for _, mode := range scriptModes {
		t.Run("conformance/"+mode, func(t *testing.T) {
			t.Parallel()
			rep, err := conformance.Run(t.Context(), peers[mode])
			if err != nil {
				t.Fatal(err)
			}
			assertDeviations(t, rep, facts.devs)
		})
	}
}
