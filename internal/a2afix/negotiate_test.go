package a2afix

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"
)

// TestJSONRPCEndpointNegotiation: an explicit A2A-Version must be one the
// URL declares; without one, the method names the version, and a method
// of a version the URL does not serve is refused.
func TestJSONRPCEndpointNegotiation(t *testing.T) {
	handler := Handler(fakeHandler{}) // every task is unknown: -32001
	both := map[a2a.ProtocolVersion]http.Handler{a2a.Version: a2asrv.NewJSONRPCHandler(handler), a2av0.Version: a2av0.NewJSONRPCHandler(handler)}
	only10 := map[a2a.ProtocolVersion]http.Handler{a2a.Version: both[a2a.Version]}
	endpoints := map[string]JSONRPCEndpoint{
		"1.0 path": {Declared: []a2a.ProtocolVersion{a2a.Version}, Handlers: both},
		"0.3 path": {Declared: []a2a.ProtocolVersion{a2av0.Version}, Handlers: both},
		"root":     {Declared: []a2a.ProtocolVersion{a2a.Version, a2av0.Version}, Handlers: both},
		"1.0 only": {Declared: []a2a.ProtocolVersion{a2a.Version}, Handlers: only10},
	}
	const served, refused, unknown = -32001, -32009, -32601
	for _, tc := range []struct {
		endpoint, header, method string
		want                     int
		inferred                 a2a.ProtocolVersion
	}{
		{"1.0 path", "", "GetTask", served, "1.0"},
		{"1.0 path", "", "tasks/get", served, "0.3"},
		{"1.0 path", "1.0", "GetTask", served, ""},
		{"1.0 path", "1.0.2", "GetTask", served, ""},
		{"1.0 path", "1.0", "tasks/get", unknown, ""},
		{"1.0 path", "0.3", "GetTask", refused, ""},
		{"1.0 path", "0.3", "tasks/get", refused, ""},
		{"1.0 path", "9.9", "GetTask", refused, ""},
		{"1.0 path", "", "NoSuchMethod", unknown, ""},
		{"0.3 path", "", "tasks/get", served, "0.3"},
		{"0.3 path", "", "GetTask", served, "1.0"},
		{"0.3 path", "0.3", "tasks/get", served, ""},
		{"0.3 path", "1.0", "GetTask", refused, ""},
		{"0.3 path", "1.0", "tasks/get", refused, ""},
		{"root", "", "GetTask", served, "1.0"},
		{"root", "", "tasks/get", served, "0.3"},
		{"root", "1.0", "GetTask", served, ""},
		{"root", "0.3", "tasks/get", served, ""},
		{"root", "0.3", "GetTask", unknown, ""},
		{"root", "9.9", "tasks/get", refused, ""},
		{"1.0 only", "", "GetTask", served, "1.0"},
		{"1.0 only", "", "tasks/get", refused, ""},
		{"1.0 only", "0.3", "tasks/get", refused, ""},
	} {
		var inferred a2a.ProtocolVersion
		ep := endpoints[tc.endpoint]
		ep.Served = func(_ *http.Request, v a2a.ProtocolVersion, byMethod bool) {
			if byMethod {
				inferred = v
			}
		}
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"`+tc.method+`","params":{"id":"nope"}}`))
		if tc.header != "" {
			req.Header.Set(a2a.SvcParamVersion, tc.header)
		}
		rec := httptest.NewRecorder()
		ep.ServeHTTP(rec, req)
		var resp struct {
			ID    json.RawMessage
			Error struct{ Code int }
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
			t.Fatalf("%s, A2A-Version %q, %s: %v in %s", tc.endpoint, tc.header, tc.method, err, rec.Body)
		}
		got := []any{resp.Error.Code, string(resp.ID), inferred}
		if diff := cmp.Diff([]any{tc.want, "7", tc.inferred}, got); diff != "" {
			t.Errorf("%s, A2A-Version %q, %s: code, id, inferred version (-want +got):\n%s", tc.endpoint, tc.header, tc.method, diff)
		}
	}
}
