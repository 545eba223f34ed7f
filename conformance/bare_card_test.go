package conformance_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

// A 0.3 card with only url, neither preferredTransport nor protocolVersion
// (Mastra, VoltAgent, Gemini CLI, tRPC-Agent-Go), is judged with A2A 0.3's
// defaults, JSON-RPC at url and protocol 0.3.0: the missing fields are
// their own (SHOULD) finding, card-defaults, and the interface is checked
// rather than "none" (issue 12).
func TestCardWithoutPreferredTransport(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.Handle("/a2a", a2av0.NewJSONRPCHandler(a2asrv.NewHandler(agenttest.Executor(agenttest.Sorry))))
	mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"name":"mastra agent","description":"a Mastra-style card","url":"` + srv.URL + `/a2a",` +
			`"version":"1.0.0","capabilities":{},"defaultInputModes":["text"],"defaultOutputModes":["text"],` +
			`"skills":[{"id":"chat","name":"chat","description":"chat","tags":["chat"]}]}`))
	})

	rep, err := conformance.Run(t.Context(), srv.URL, conformance.WithTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Interfaces) != 1 || !rep.Interfaces[0].Checked || rep.Interfaces[0].Name != "JSONRPC 0.3" || rep.Interfaces[0].URL != srv.URL+"/a2a" {
		t.Fatalf("interfaces = %+v, want JSONRPC 0.3 at %s/a2a, checked", rep.Interfaces, srv.URL)
	}
	byID := map[string]conformance.Result{}
	for _, r := range rep.Results {
		if len(r.Transports) == 1 && r.Transports[0] == "HTTP" {
			byID[r.ID] = r
		}
	}
	if r := byID[conformance.ReqCardRequiredFields]; r.Status != conformance.Pass {
		t.Errorf("%s: %s %q, want a pass: judged with 0.3's defaults, nothing required is missing", r.ID, r.Status, r.Message)
	}
	if r := byID[conformance.ReqCardDefaults]; r.Status != conformance.Fail || r.Level != conformance.Should ||
		!strings.Contains(r.Message, "no protocolVersion") || !strings.Contains(r.Message, "no preferredTransport") {
		t.Errorf("%s: %s %s %q, want a SHOULD failure naming both missing fields", r.ID, r.Level, r.Status, r.Message)
	}
	r := byID[conformance.ReqCardInterfaces]
	if r.Status != conformance.Pass || !strings.Contains(r.Message, "JSONRPC 0.3") ||
		!strings.Contains(r.Message, "no preferredTransport: JSONRPC assumed") || !strings.Contains(r.Message, "no protocolVersion: 0.3.0 assumed") {
		t.Errorf("%s: %s %q, want a pass that names the defaults", r.ID, r.Status, r.Message)
	}
	checkedOn := 0
	for _, res := range rep.Results {
		if len(res.Transports) > 0 && res.Transports[0] == "JSONRPC 0.3" && res.Status == conformance.Pass {
			checkedOn++
		}
	}
	if checkedOn == 0 {
		t.Errorf("no check passed on the JSONRPC 0.3 interface: %+v", rep.Results)
	}
}
