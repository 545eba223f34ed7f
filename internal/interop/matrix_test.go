//go:build unix

package interop

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/result"
)

// matrixRow is one peer configuration of TestMatrix.
type matrixRow struct {
	sdk                 string // "js", "a2a-go" or "adk"
	transport, protocol string
	extra               []string // further flags of server.mjs
}

func (r matrixRow) name() string {
	n := r.sdk + "-" + r.transport + "-" + r.protocol
	if len(r.extra) > 0 {
		n += "-" + strings.Join(r.extra, "-")
	}
	return strings.ReplaceAll(n, "--", "")
}

// start starts the row's peer and returns its base URL.
func (r matrixRow) start(t *testing.T) string {
	switch r.sdk {
	case "a2a-go":
		return startGoPeer(t, r.transport, r.protocol)
	case "adk":
		return startADKPeer(t)
	}
	return startJSPeer(t, r.transport, r.protocol, r.extra...)
}

// matrixRows are the six transport x protocol cells served by the
// JavaScript SDK and by a2a-go, a JavaScript peer that answers with
// completed Tasks carrying artifacts instead of Messages, and an ADK agent
// (which answers with tasks and artifacts of its own making).
func matrixRows() []matrixRow {
	var rows []matrixRow
	for _, sdk := range []string{"js", "a2a-go"} {
		for _, transport := range transports {
			for _, protocol := range protocols {
				rows = append(rows, matrixRow{sdk: sdk, transport: transport, protocol: protocol})
			}
		}
	}
	return append(rows,
		matrixRow{sdk: "js", transport: string(a2aclient.TransportJSONRPC), protocol: string(a2aclient.Protocol10), extra: []string{"--reply", "task"}},
		matrixRow{sdk: "adk", transport: string(a2aclient.TransportJSONRPC), protocol: string(a2aclient.Protocol10)},
	)
}

// streamingModes are run against every peer: its card declares streaming,
// so both SendMessage and SendStreamingMessage must work.
var streamingModes = []string{string(a2aclient.StreamingOff), string(a2aclient.StreamingOn)}

// transcriptEntry is what must be identical across peer configurations: the
// parts of a message that the agent's behaviour determines.
type transcriptEntry struct {
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolCalls  json.RawMessage `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	Name       string          `json:"name,omitempty"`
	Error      bool            `json:"error,omitempty"`
	Interim    bool            `json:"interim,omitempty"`
}

func transcriptOf(msgs []result.Message) []transcriptEntry {
	out := make([]transcriptEntry, 0, len(msgs))
	for _, m := range msgs {
		e := transcriptEntry{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name, Error: m.Error, Interim: m.Interim}
		if len(m.ToolCalls) > 0 {
			// Arguments are maps: JSON gives them one canonical form.
			e.ToolCalls, _ = json.Marshal(m.ToolCalls)
		}
		out = append(out, e)
	}
	return out
}

// matrixResult is the outcome of one simulation of TestMatrix.
type matrixResult struct {
	cell       string
	reward     float64
	transcript []transcriptEntry
}

// TestMatrix plays task mock-01 against the JavaScript peer in every
// configuration, choosing the transport and protocol version with
// a2aclient's options, unstreamed and streamed. Every run must earn reward 1
// and end with the user's stop, and all runs must produce the same
// transcript: the peer's script does not depend on how it is reached.
func TestMatrix(t *testing.T) {
	var (
		mu      sync.Mutex
		results []matrixResult
	)
	t.Run("cells", func(t *testing.T) {
		for _, row := range matrixRows() {
			t.Run(row.name(), func(t *testing.T) {
				t.Parallel()
				base := row.start(t)
				for _, mode := range streamingModes {
					t.Run("streaming-"+mode, func(t *testing.T) {
						sim, client := simulate(t, base,
							a2aclient.WithTransport(a2aclient.Transport(row.transport)),
							a2aclient.WithProtocol(a2aclient.ProtocolVersion(row.protocol)),
							a2aclient.WithStreaming(a2aclient.StreamingMode(mode)),
						)
						checkEndpoint(t, client, row.transport, row.protocol)
						checkSolved(t, sim)
						if row.sdk == "adk" && mode == string(a2aclient.StreamingOn) && (sim.Metrics.TokensEstimated || sim.Metrics.InputTokens == 0) {
							// ADK reports the model's usage in the metadata of its
							// artifact updates (adk_usage_metadata). Unstreamed, the
							// task a2a-go's server returns has dropped it, and the
							// estimate is all there is.
							t.Errorf("tokens from the ADK agent: %+v, want its reported usage", sim.Metrics)
						}
						mu.Lock()
						results = append(results, matrixResult{cell: t.Name(), reward: sim.Reward, transcript: transcriptOf(sim.Messages)})
						mu.Unlock()
					})
				}
			})
		}
	})

	if len(results) < 2 {
		return // nothing to compare (the cells failed or were skipped)
	}
	// The JSON-RPC 1.0 cell is the reference when it ran: it is the one
	// proctor has supported longest.
	slices.SortStableFunc(results, func(a, b matrixResult) int {
		return strings.Compare(a.cell, b.cell)
	})
	ref := results[0]
	for _, r := range results {
		if strings.Contains(r.cell, "/js-"+string(a2aclient.TransportJSONRPC)+"-"+string(a2aclient.Protocol10)+"/streaming-"+string(a2aclient.StreamingOff)) {
			ref = r
			break
		}
	}
	for _, r := range results {
		if r.cell == ref.cell {
			continue
		}
		if r.reward != ref.reward {
			t.Errorf("%s: reward %v, but %s got %v", r.cell, r.reward, ref.cell, ref.reward)
		}
		if diff := transcriptDiff(ref.transcript, r.transcript); diff != "" {
			t.Errorf("%s: transcript differs from %s:\n%s", r.cell, ref.cell, diff)
		}
	}
}

// transcriptDiff describes the first differences between two transcripts,
// or returns "" when they are equal.
func transcriptDiff(want, got []transcriptEntry) string {
	var b strings.Builder
	for i := range max(len(want), len(got)) {
		var w, g string
		if i < len(want) {
			w = jsonCompact(want[i])
		}
		if i < len(got) {
			g = jsonCompact(got[i])
		}
		if w != g {
			fmt.Fprintf(&b, "  message %d:\n    want %s\n    got  %s\n", i, orNone(w), orNone(g))
		}
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
