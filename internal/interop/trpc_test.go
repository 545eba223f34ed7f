//go:build unix

package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
)

const (
	// trpcPeerDir is the Go module of the tRPC-Agent-Go peer: its own
	// go.mod, so that the framework stays out of proctor's.
	trpcPeerDir = "testdata/trpcpeer"
	// trpcBuildTimeout bounds downloading the peer's modules and building
	// it with a cold cache.
	trpcBuildTimeout = 10 * time.Minute
)

// Texts of testdata/trpcpeer/main.go's scripts.
const (
	trpcRefusal = "I'm sorry, but I can't help with that."
	trpcWelcome = "You're welcome."
	trpcFound   = "I found your account, Omar Haddad (user id u-1002). What else can I do for you?"
)

// trpcCardNote is what proctor records about the peer's card: server/a2a
// publishes url alone, and A2A 0.3 (§5.5, AgentCard.preferredTransport and
// protocolVersion) says the agent then speaks JSON-RPC at url, protocol
// 0.3.0.
const trpcCardNote = "card has no preferredTransport; assumed JSONRPC at url, protocol 0.3.0"

// buildTRPCPeer builds testdata/trpcpeer into a temporary directory and
// returns the binary. The Go build cache makes later builds quick. When the
// peer's modules cannot be downloaded the test is skipped, unless CI is set.
func buildTRPCPeer(t *testing.T) string {
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if inCI() {
			t.Fatalf("%s (CI is set, so the tRPC-Agent-Go interop tests must run)", msg)
		}
		t.Skipf("%s; skipping the tRPC-Agent-Go interop tests", msg)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		unavailable("go is not on PATH")
	}
	ctx, cancel := context.WithTimeout(t.Context(), trpcBuildTimeout)
	defer cancel()
	goCmd := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, goBin, args...)
		cmd.Dir = trpcPeerDir
		cmd.Env = append(os.Environ(), "GOWORK=off")
		return cmd.CombinedOutput()
	}
	if out, err := goCmd("mod", "download"); err != nil {
		unavailable("the tRPC-Agent-Go peer's modules cannot be downloaded (%s); run `cd internal/interop/testdata/trpcpeer && go mod download` with access to the Go module proxy",
			strings.TrimSpace(string(out)))
	}
	bin := filepath.Join(t.TempDir(), "trpcpeer")
	if out, err := goCmd("build", "-o", bin, "."); err != nil {
		t.Fatalf("build %s: %v\n%s", trpcPeerDir, err, out)
	}
	return bin
}

// trpcMode is a script of the tRPC peer, as its --mode flag takes it.
type trpcMode string

const (
	trpcRefuse   trpcMode = "refuse"
	trpcToolCall trpcMode = "toolcall"
)

// startTRPCPeers starts one peer per mode, all at once, and returns their
// base URLs by mode.
func startTRPCPeers(t *testing.T, bin string, modes ...trpcMode) map[trpcMode]string {
	t.Helper()
	launched := make(map[trpcMode]*launchedPeer, len(modes))
	for _, m := range modes {
		launched[m] = launchPeer(t, "tRPC-Agent-Go peer", trpcPeerDir, bin, "--mode", string(m), "--port", "0", "--host", "127.0.0.1")
	}
	bases := make(map[trpcMode]string, len(modes))
	for m, p := range launched {
		bases[m] = p.wait(t)
	}
	return bases
}

// trpcTranscript is the transcript of task mock-01 against a peer: the
// scripted user's lines and exactly what the peer's script says, its tool
// call parsed from server/a2a's function-call data part and answered by the
// mock domain.
func trpcTranscript(t *testing.T, mode trpcMode) []result.Message {
	t.Helper()
	_, task, _ := mockTask(t)
	script := task.UserScenario.Script
	if len(script) != 2 {
		t.Fatalf("task mock-01 scripts %d user lines, want 2", len(script))
	}
	first, last := trpcRefusal, trpcRefusal
	var toolTurn []result.Message
	if mode == trpcToolCall {
		call := domains.ToolCall{ID: "call_find_user_1", Name: "find_user_by_email", Arguments: map[string]any{"email": "omar.haddad@example.com"}}
		toolTurn = []result.Message{
			{Role: result.RoleAssistant, ToolCalls: []domains.ToolCall{call}},
			{Role: result.RoleTool, Content: `{"name":"Omar Haddad","user_id":"u-1002"}`, ToolCallID: call.ID, Name: call.Name},
		}
		first, last = trpcFound, trpcWelcome
	}
	msgs := []result.Message{
		{Role: result.RoleAssistant, Content: rollout.AgentGreeting},
		{Role: result.RoleUser, Content: script[0]},
	}
	msgs = append(msgs, toolTurn...)
	return append(msgs,
		result.Message{Role: result.RoleAssistant, Content: first},
		result.Message{Role: result.RoleUser, Content: script[1]},
		result.Message{Role: result.RoleAssistant, Content: last},
		result.Message{Role: result.RoleUser, Content: rollout.StopToken},
	)
}

// TestTRPC evaluates an agent built with tRPC-Agent-Go v1.11.2 (its LLM
// agent behind server/a2a, with a scripted model) from its own card, which
// names only url: proctor must assume JSON-RPC 0.3 there, flag the card, and
// read every reply exactly, streamed and unstreamed. Then proctor's
// conformance checker judges the same server.
func TestTRPC(t *testing.T) {
	bin := buildTRPCPeer(t)
	bases := startTRPCPeers(t, bin, trpcRefuse, trpcToolCall)

	t.Run("card", func(t *testing.T) {
		for mode, base := range bases {
			card := fetchCard(t, base, "")
			if card.URL != base || card.PreferredTransport != "" || card.ProtocolVersion != "" || card.SupportedInterfaces != nil {
				t.Errorf("%s card: url %q, preferredTransport %q, protocolVersion %q, supportedInterfaces %v; want url %q alone",
					mode, card.URL, card.PreferredTransport, card.ProtocolVersion, card.SupportedInterfaces, base)
			}
		}
	})

	t.Run("stream-replaces-chunks", func(t *testing.T) {
		checkTRPCStream(t, bases[trpcRefuse])
	})

	for mode, base := range bases {
		t.Run("conformance/"+string(mode), func(t *testing.T) {
			t.Parallel()
			rep, err := conformance.Run(t.Context(), base)
			if err != nil {
				t.Fatal(err)
			}
			// The card's url alone: JSON-RPC 0.3 there, as A2A 0.3 says.
			want := []conformance.Interface{{Name: "JSONRPC 0.3", URL: base, ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3", Checked: true}}
			if diff := cmp.Diff(want, rep.Interfaces); diff != "" {
				t.Errorf("interfaces checked (-want +got):\n%s", diff)
			}
			assertDeviations(t, rep, trpcDeviations())
		})
	}

	for _, mode := range []trpcMode{trpcRefuse, trpcToolCall} {
		for _, streaming := range streamingModes {
			t.Run(fmt.Sprintf("%s/streaming-%s", mode, streaming), func(t *testing.T) {
				t.Parallel()
				sim, client := simulate(t, bases[mode], a2aclient.WithStreaming(a2aclient.StreamingMode(streaming)))
				checkEndpoint(t, client, string(a2aclient.TransportJSONRPC), string(a2aclient.Protocol03))
				checkTRPCSimulation(t, mode, sim)
				method := "SendMessage"
				if streaming == string(a2aclient.StreamingOn) {
					method = "SendStreamingMessage"
				}
				for i, r := range sim.Requests {
					if r.Method != method || r.ErrorClass != "" || r.Retries != 0 {
						t.Errorf("request %d: %s, error class %q, %d retries; want %s, no error, no retry", i, r.Method, r.ErrorClass, r.Retries, method)
					}
				}
			})
		}
	}
}

// checkTRPCSimulation asserts a simulation's transcript exactly, its
// outcome (neither script solves the task), and that the only deviation
// proctor recorded is the card's.
func checkTRPCSimulation(t *testing.T, mode trpcMode, sim result.Simulation) {
	t.Helper()
	if diff := cmp.Diff(trpcTranscript(t, mode), sim.Messages, cmpopts.IgnoreFields(result.Message{}, "Turn"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if sim.Reward != 0 || sim.TerminationReason != result.TermUserStop || sim.Error != "" {
		t.Errorf("reward %v, termination %s, error %q; want 0, %s, no error", sim.Reward, sim.TerminationReason, sim.Error, result.TermUserStop)
	}
	if diff := cmp.Diff([]string{trpcCardNote}, sim.NonConformant); diff != "" {
		t.Errorf("non-conformant notes (-want +got):\n%s", diff)
	}
}

// tRPC-Agent-Go v1.11.2's deviations (server/a2a and the trpc-a2a-go
// server under it), as proctor's checker finds them on the card server/a2a
// builds itself.
func trpcDeviations() []deviation {
	const jsonrpc = "JSONRPC 0.3"
	unstoredTask := "A2A 0.3 §7.3 (tasks/get) and §7.4 (tasks/cancel): a task message/send returned can be got and canceled by id; " +
		"server/a2a answers an unstreamed turn of several events with a Task it makes up (buildMessageProcessingResult, " +
		"id \"task-<messageId>-<ns>\") and never stores, so tasks/get and tasks/cancel answer TaskNotFoundError (-32001)"
	return []deviation{
		{conformance.ReqCardRequiredFields, "HTTP", "A2A 0.3 §5.5 (AgentCard.version is required): server/a2a's " +
			"NewAgentCard (agent_card.go) leaves it empty", false},
		{conformance.ReqCardDefaults, "HTTP", "A2A 0.3 §5.5 (protocolVersion: required, default 0.3.0; preferredTransport: default " +
			"JSONRPC): server/a2a's NewAgentCard (agent_card.go) sets neither; proctor assumes JSON-RPC at 0.3.0", false},
		{conformance.ReqCardSkills, "HTTP", "A2A 0.3 §5.5.4 (AgentSkill.id is required): server/a2a's buildSkillsFromCardTools " +
			"(agent_card.go) gives its skills no id", false},
		{conformance.ReqSendMessage, jsonrpc, "A2A 0.3 §6.4 (Message.parts is required): the Task server/a2a returns carries one " +
			"history message without parts per preprocessing event of the runner (convertMetadataOnlyToA2AMessageResult, converter.go)", false},
		{conformance.ReqTaskGet, jsonrpc, unstoredTask, false},
		{conformance.ReqHistoryLength, jsonrpc, unstoredTask, false},
		{conformance.ReqNotCancelable, jsonrpc, unstoredTask, false},
		{conformance.ReqStreamOrder, jsonrpc, "A2A 0.3 §6.7 (Artifact.artifactId and parts are required): server/a2a streams an " +
			"artifact-update without artifactId or parts per preprocessing event, and ends with an empty one without artifactId " +
			"(sendFinalArtifactEvent, server.go)", false},
		{conformance.ReqInvalidRequest, jsonrpc, "JSON-RPC 2.0 §5.1: valid JSON that is not a request object is -32600; trpc-a2a-go's " +
			"server decodes the envelope into a struct and answers the type error as a parse error, -32700 (server/server.go " +
			"parseJSONRPCRequest)", false},
		{conformance.ReqJSONRPCEnvelope, jsonrpc, "JSON-RPC 2.0 §5 (a response's id is required, null when the request's could not " +
			"be read): trpc-a2a-go's Response has `json:\"id,omitempty\"` (internal/jsonrpc/types.go), so its error responses to " +
			"unreadable requests have no id", false},
	}
}

// checkTRPCStream pins down the stream shape that proctor must read as one
// text: server/a2a sends the model's deltas as artifact updates, then the
// whole message again under the same artifactId, none with append set
// (issue 12, item 2). Were a release to stop doing so, the streamed
// simulations would no longer prove that proctor replaces rather than
// appends.
func checkTRPCStream(t *testing.T, base string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"kind":"message","messageId":"m1",` +
		`"role":"user","contextId":"c1","parts":[{"kind":"text","text":"hello"}]}}}`
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	type update struct {
		id, text string
		append   bool
	}
	var texts []update
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 1<<20))
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Result struct {
				Kind     string `json:"kind"`
				Append   bool   `json:"append"`
				Artifact struct {
					ArtifactID string `json:"artifactId"`
					Parts      []struct {
						Text string `json:"text"`
					} `json:"parts"`
				} `json:"artifact"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("stream event %q: %v", data, err)
		}
		if ev.Result.Kind == "artifact-update" && len(ev.Result.Artifact.Parts) == 1 && ev.Result.Artifact.Parts[0].Text != "" {
			texts = append(texts, update{ev.Result.Artifact.ArtifactID, ev.Result.Artifact.Parts[0].Text, ev.Result.Append})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(texts) < 2 {
		t.Fatalf("text artifact updates %+v: want deltas, then the whole text", texts)
	}
	var joined strings.Builder
	for i, u := range texts {
		if u.id == "" || u.id != texts[0].id || u.append {
			t.Errorf("text update %d %+v: want artifactId %q, no append", i, u, texts[0].id)
		}
		if i < len(texts)-1 {
			joined.WriteString(u.text)
		}
	}
	if last := texts[len(texts)-1].text; last != trpcRefusal || joined.String() != trpcRefusal {
		t.Errorf("deltas %q then %q; want deltas of %q, then all of it", joined.String(), last, trpcRefusal)
	}
}
