package a2aclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/internal/agenttest"
)

// Regression tests for issue 25: agents served by fasta2a (pydantic-ai's
// Agent.to_a2a()) publish a 0.2.5 card and answer HTTP 500 to a
// message/send whose configuration lacks acceptedOutputModes.

func echo(_ context.Context, _, text string) string { return "echo: " + text }

func TestFastA2AAgent(t *testing.T) {
	const (
		versionNote   = "card declares protocol 0.2.5; evaluated as 0.3"
		transportNote = "card has no preferredTransport; assumed JSONRPC at url; "
		tolerated     = "reply rejected by the A2A types ("
	)
	text := func(s string) []*a2a.Part { return []*a2a.Part{a2a.NewTextPart(s)} }
	cases := []struct {
		name     string
		opts     agenttest.FastA2AOptions
		protocol ProtocolVersion
		want     func(text string) []*a2a.Part
		wantNote string
	}{
		{"history", agenttest.FastA2AOptions{}, "", text, transportNote + versionNote},
		{"history/protocol 0.3", agenttest.FastA2AOptions{}, Protocol03, text, transportNote + versionNote},
		{"history/preferredTransport", agenttest.FastA2AOptions{PreferredTransport: "JSONRPC"}, "", text, versionNote},
		{"text artifact", agenttest.FastA2AOptions{Reply: agenttest.FastA2ATextArtifact}, "", text, transportNote + versionNote},
		{"data artifact", agenttest.FastA2AOptions{Reply: agenttest.FastA2ADataArtifact}, "", func(s string) []*a2a.Part {
			return []*a2a.Part{a2a.NewDataPart(map[string]any{"result": s})}
		}, transportNote + versionNote},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			peer := agenttest.StartFastA2A(t, tc.opts, echo)
			c := dial(t, peer.URL, WithProtocol(tc.protocol))
			ep := c.Endpoint()
			if ep.URL != peer.URL || bindingName(ep.ProtocolBinding) != TransportJSONRPC || versionName(ep.ProtocolVersion) != Protocol03 {
				t.Fatalf("endpoint = %+v, want JSONRPC 0.3 at %s", ep, peer.URL)
			}
			if c.Streaming() {
				t.Error("the client streams, though the card says streaming false")
			}
			conv := c.NewConversation()
			for i, text := range []string{"hello", "again"} {
				resp, err := say(t, conv, text)
				if err != nil {
					t.Fatalf("turn %d: %v", i, err)
				}
				if diff := cmp.Diff(partsText(tc.want("echo: "+text)), partsText(resp.Parts)); diff != "" {
					t.Errorf("turn %d reply (-want +got):\n%s", i, diff)
				}
				// The timestamps without a UTC offset fail a2a-go's decoder: the
				// reply is read tolerantly, and says so, every turn; the card's
				// deviations are reported on the first.
				wantNote := tolerated
				if i == 0 {
					wantNote = tc.wantNote + "; " + tolerated
				}
				if !strings.HasPrefix(resp.NonConformant, wantNote) || !strings.Contains(resp.NonConformant, "parsing time") {
					t.Errorf("turn %d NonConformant = %q, want %q… about parsing time", i, resp.NonConformant, wantNote)
				}
			}
			if n := peer.Refused(); n != 0 {
				t.Errorf("the peer answered HTTP 500 to %d requests", n)
			}
		})
	}
}

// Every message proctor sends names the output modes it reads, on the 0.3
// wire (which a2a-go fills with blocking alone) and on the 1.0 wire, in
// SendMessage and in SendStreamingMessage.
func TestAcceptedOutputModes(t *testing.T) {
	for _, v := range []ProtocolVersion{Protocol10, Protocol03} {
		for _, streaming := range []StreamingMode{StreamingOff, StreamingOn} {
			t.Run(string(v)+"/streaming="+string(streaming), func(t *testing.T) {
				rec := &recorder{}
				handler := a2asrv.NewHandler(agenttest.Executor(echo))
				var srv *httptest.Server
				if v == Protocol03 {
					srv = startBareCardPeer(t, rec.wrap(a2av0.NewJSONRPCHandler(handler)))
				} else {
					srv = serveRPC(t, rec.wrap(a2asrv.NewJSONRPCHandler(handler)))
				}
				if _, err := say(t, dial(t, srv.URL, WithStreaming(streaming)).NewConversation(), "hi"); err != nil {
					t.Fatal(err)
				}
				calls := rec.all()
				if len(calls) != 1 {
					t.Fatalf("calls = %+v, want one", calls)
				}
				var params struct {
					Configuration struct {
						AcceptedOutputModes []string `json:"acceptedOutputModes"`
					} `json:"configuration"`
				}
				if err := json.Unmarshal(calls[0].Params, &params); err != nil {
					t.Fatal(err)
				}
				want := []string{"text/plain", "text", "application/json"}
				if diff := cmp.Diff(want, params.Configuration.AcceptedOutputModes); diff != "" {
					t.Errorf("%s acceptedOutputModes (-want +got):\n%s", calls[0].Method, diff)
				}
			})
		}
	}
}

// startBareCardPeer serves rpc at /a2a beside a 0.3 card that points at it.
func startBareCardPeer(t *testing.T, rpc http.Handler) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.Handle("/a2a", rpc)
	mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"name":"0.3 agent","description":"d","protocolVersion":"0.3.0","preferredTransport":"JSONRPC",` +
			`"url":"` + srv.URL + `/a2a","version":"1.0.0","capabilities":{"streaming":true},` +
			`"defaultInputModes":["text"],"defaultOutputModes":["text"],"skills":[]}`))
	})
	return srv
}
