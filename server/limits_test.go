package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestBodyLimits: a body over MaxRequestBytes gets 413 on every HTTP
// binding and protocol version, whether it says its length or is chunked
// (issue 13: a chunked one used to get 200 with JSON-RPC -32700), and gRPC
// answers ResourceExhausted (see TestMissingTokens). A caller without a
// token gets 401 before the body is read at all (or 413, when the length
// it states is already too much).
func TestBodyLimits(t *testing.T) {
	const limit = 64 << 10
	srv := startServer(t, Config{GRPCPort: -1, AuthTokens: []string{testToken}, MaxRequestBytes: limit})
	filler := strings.Repeat("a", 2*limit)
	parts := `[{"text":"` + filler + `"}]`
	bodies := []struct{ binding, path, body string }{
		{"JSON-RPC 1.0", PathJSONRPC, sendMessage(parts)},
		{"REST 1.0", PathREST + "/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","parts":` + parts + `}}`},
		{"JSON-RPC 0.3", PathJSONRPC03, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"messageId":"m","role":"user","kind":"message","parts":[{"kind":"text","text":"` + filler + `"}]}}}`},
		{"REST 0.3", PathREST03 + "/v1/message:send", `{"message":{"messageId":"m","role":"user","kind":"message","parts":[{"kind":"text","text":"` + filler + `"}]}}`},
	}
	for _, b := range bodies {
		for _, chunked := range []bool{false, true} {
			for _, token := range []string{testToken, ""} {
				name := b.binding
				if chunked {
					name += ", chunked"
				}
				want := http.StatusRequestEntityTooLarge
				if token == "" {
					name += ", no token"
					if chunked { // a stated length over the limit is refused first
						want = http.StatusUnauthorized
					}
				}
				t.Run(name, func(t *testing.T) {
					var body io.Reader = strings.NewReader(b.body)
					if chunked {
						body = struct{ io.Reader }{body} // hides the length: sent chunked
					}
					h := http.Header{}
					if token != "" {
						h.Set("Authorization", "Bearer "+token)
					}
					if r := post(t, srv.URL()+b.path, body, h); r.status != want {
						t.Fatalf("HTTP %d %s, want %d", r.status, clip(r.body), want)
					}
				})
			}
		}
	}
	serverAlive(t, srv, http.Header{"Authorization": {"Bearer " + testToken}})
}
