package conformance_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

// verdict is one result of a report: its status and whether its message
// calls the agent strict.
type verdict struct {
	Status conformance.Status
	Strict bool
}

// verdicts are a report's results for the requirements ids, by
// "id [interface]".
func verdicts(rep *conformance.Report, ids ...string) map[string]verdict {
	out := map[string]verdict{}
	for _, r := range rep.Results {
		for _, id := range ids {
			if r.ID == id {
				out[id+" ["+strings.Join(r.Transports, ", ")+"]"] = verdict{r.Status, strings.HasPrefix(r.Message, "strict")}
			}
		}
	}
	return out
}

// TestVersionNegotiationVerdicts: a 1.0 interface that serves a request
// without A2A-Version passes version-default, one that refuses it as 0.3
// passes it as strict, one that answers it otherwise fails it; on 0.3
// interfaces neither version-default nor version-unsupported applies
// (0.3.0 defines neither the header nor the error); a 0.3 subscription may
// begin with any event of the task, a 1.0 one only with the Task.
func TestVersionNegotiationVerdicts(t *testing.T) {
	headerless := func(code int) func(http.Handler) http.Handler {
		return onRPC(rpcPath, func(w http.ResponseWriter, r *http.Request, c rpcCall, _ http.Handler) bool {
			if r.Header.Get("A2A-Version") != "" {
				return false
			}
			rpcError(w, c.ID, code)
			return true
		})
	}
	// noTaskFirst drops a subscription's events that hold the Task, and
	// those that hold any of drop.
	noTaskFirst := func(path, method string, drop ...string) func(http.Handler) http.Handler {
		drop = append(drop, `"kind":"task"`, `"result":{"task"`)
		return onRPC(path, func(w http.ResponseWriter, r *http.Request, c rpcCall, next http.Handler) bool {
			if c.Method != method {
				return false
			}
			next.ServeHTTP(&sseFilter{ResponseWriter: w, edit: func(d []byte) [][]byte {
				for _, s := range drop {
					if bytes.Contains(d, []byte(s)) {
						return nil
					}
				}
				return [][]byte{d}
			}}, r)
			return true
		})
	}
	pass, strict, fail, skip := verdict{Status: conformance.Pass}, verdict{conformance.Pass, true}, verdict{Status: conformance.Fail}, verdict{Status: conformance.Skip}
	for _, tc := range []struct {
		name       string
		protocols  []string
		middleware func(http.Handler) http.Handler
		want       map[string]verdict
	}{
		{name: "1.0 serving header-less requests", protocols: []string{"1.0"},
			want: map[string]verdict{"version-default [JSONRPC 1.0]": pass, "version-unsupported [JSONRPC 1.0]": pass, "subscribe [JSONRPC 1.0]": pass}},
		{name: "1.0 refusing header-less requests as 0.3", protocols: []string{"1.0"}, middleware: headerless(-32009),
			want: map[string]verdict{"version-default [JSONRPC 1.0]": strict, "version-unsupported [JSONRPC 1.0]": pass, "subscribe [JSONRPC 1.0]": pass}},
		{name: "1.0 answering header-less requests -32603", protocols: []string{"1.0"}, middleware: headerless(-32603),
			want: map[string]verdict{"version-default [JSONRPC 1.0]": fail, "version-unsupported [JSONRPC 1.0]": pass, "subscribe [JSONRPC 1.0]": pass}},
		{name: "1.0 subscription without the Task first", protocols: []string{"1.0"}, middleware: noTaskFirst(rpcPath, "SubscribeToTask"),
			want: map[string]verdict{"version-default [JSONRPC 1.0]": pass, "version-unsupported [JSONRPC 1.0]": pass, "subscribe [JSONRPC 1.0]": fail}},
		{name: "0.3", protocols: []string{"0.3"},
			want: map[string]verdict{"version-default [JSONRPC 0.3]": skip, "version-unsupported [JSONRPC 0.3]": skip, "subscribe [JSONRPC 0.3]": pass}},
		{name: "0.3 subscription without the Task first", protocols: []string{"0.3"},
			middleware: noTaskFirst(agenttest.LifecyclePathJSONRPC03, "tasks/resubscribe"),
			want:       map[string]verdict{"version-default [JSONRPC 0.3]": skip, "version-unsupported [JSONRPC 0.3]": skip, "subscribe [JSONRPC 0.3]": pass}},
		{name: "0.3 subscription whose first event is the final one", protocols: []string{"0.3"},
			middleware: noTaskFirst(agenttest.LifecyclePathJSONRPC03, "tasks/resubscribe", `"state":"working"`, `"state":"submitted"`),
			want:       map[string]verdict{"version-default [JSONRPC 0.3]": skip, "version-unsupported [JSONRPC 0.3]": skip, "subscribe [JSONRPC 0.3]": pass}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := agenttest.StartLifecycle(t, agenttest.LifecycleOptions{Protocols: tc.protocols, Transports: []string{"jsonrpc"},
				Fixed: true, Middleware: tc.middleware})
			rep, err := conformance.Run(context.Background(), base, conformance.WithMessages(lifecycleMessages()))
			if err != nil {
				t.Fatal(err)
			}
			got := verdicts(rep, conformance.ReqVersionDefault, conformance.ReqVersionUnsupported, conformance.ReqSubscribe)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				for _, f := range rep.Failed() {
					t.Logf("%s [%s]: %s", f.ID, strings.Join(f.Transports, ", "), f.Message)
				}
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
		})
	}
}
