package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

// lifecycleMessages drive agenttest's lifecycle agent through every check.
func lifecycleMessages() conformance.Messages {
	return conformance.Messages{Basic: "hello", Slow: agenttest.LifecycleSlow, MultiTurn: agenttest.LifecycleAsk}
}

// rpcCall is a JSON-RPC request as a middleware sees it.
type rpcCall struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params map[string]any  `json:"params"`
}

// onRPC calls fn for every JSON-RPC request to path; fn answers it itself
// (and returns true) or lets the agent answer.
func onRPC(path string, fn func(w http.ResponseWriter, r *http.Request, call rpcCall, next http.Handler) bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != path || r.Method != http.MethodPost {
				next.ServeHTTP(w, r)
				return
			}
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var call rpcCall
			if json.Unmarshal(body, &call) == nil && fn(w, r, call, next) {
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r)
		})
	}
}

func rpcError(w http.ResponseWriter, id json.RawMessage, code int) {
	if id == nil {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": "broken on purpose"}})
}

// rewrite lets the agent answer into a recorder, then writes what edit
// makes of the body.
func rewrite(w http.ResponseWriter, r *http.Request, next http.Handler, edit func([]byte) []byte) {
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(edit(rec.Body.Bytes()))
}

// sseFilter passes an SSE stream through edit, event by event.
type sseFilter struct {
	http.ResponseWriter
	buf  []byte
	edit func(data []byte) [][]byte
}

func (f *sseFilter) Write(p []byte) (int, error) {
	f.buf = append(f.buf, p...)
	for {
		i := bytes.Index(f.buf, []byte("\n\n"))
		if i < 0 {
			return len(p), nil
		}
		event := f.buf[:i]
		f.buf = f.buf[i+2:]
		var data []byte
		for _, line := range bytes.Split(event, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				data = d
			}
		}
		if data == nil {
			if _, err := f.ResponseWriter.Write(append(event, '\n', '\n')); err != nil {
				return 0, err
			}
			continue
		}
		for _, d := range f.edit(data) {
			if _, err := f.ResponseWriter.Write([]byte("data: " + string(d) + "\n\n")); err != nil {
				return 0, err
			}
		}
	}
}

func (f *sseFilter) Flush() {
	if fl, ok := f.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

func terminalEvent(data []byte) bool {
	s := string(data)
	return strings.Contains(s, `"statusUpdate"`) && (strings.Contains(s, "TASK_STATE_COMPLETED") || strings.Contains(s, "TASK_STATE_CANCELED"))
}

// requireToken answers 401 with a challenge to every request without the
// token, the agent card included when card is set.
func requireToken(card bool, challenge bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer tok" && (card || !strings.HasPrefix(r.URL.Path, "/.well-known/")) {
				if challenge {
					w.Header().Set("WWW-Authenticate", `Bearer realm="test"`)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				if r.URL.Path == rpcPath {
					rpcError(w, nil, -31401)
					return
				}
				_, _ = io.WriteString(w, `{"error": {"code": 401, "status": "UNAUTHENTICATED", "message": "token required"}}`)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func bearerCard(c *a2a.AgentCard) {
	c.SecuritySchemes = a2a.NamedSecuritySchemes{"bearer": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"}}
	c.SecurityRequirements = a2a.SecurityRequirementsOptions{{"bearer": a2a.SecuritySchemeScopes{}}}
}

const rpcPath = agenttest.LifecyclePathJSONRPC

// TestBrokenAgents: agents broken in exactly one way each fail exactly the
// requirement that way breaks, on top of a baseline that is full.
func TestBrokenAgents(t *testing.T) {
	var dead atomic.Bool
	cases := []struct {
		name       string
		transports []string
		middleware func(http.Handler) http.Handler
		card       func(*a2a.AgentCard)
		token      bool
		want       []string
		level      conformance.Level
	}{
		{name: "baseline"},
		{name: "baseline on HTTP+JSON", transports: []string{"rest"}},
		{name: "baseline on gRPC", transports: []string{"grpc"}},
		{name: "baseline with every interface", transports: []string{"jsonrpc", "rest", "grpc"}},
		// skills is required but may be empty (1.0 §8.4.1): both card
		// checks agree.
		{name: "no skills", card: func(c *a2a.AgentCard) { c.Skills = []a2a.AgentSkill{} }},
		{name: "gRPC URL with a scheme", transports: []string{"grpc"},
			card: func(c *a2a.AgentCard) {
				for _, in := range c.SupportedInterfaces {
					if in.ProtocolBinding == a2a.TransportProtocolGRPC {
						in.URL = "http://" + in.URL
					}
				}
			},
			want: []string{conformance.ReqInterfaceURLs}, level: conformance.LevelMinimal},
		{name: "unknown method answered -32603",
			middleware: onRPC(rpcPath, func(w http.ResponseWriter, _ *http.Request, c rpcCall, _ http.Handler) bool {
				if strings.Contains(c.Method, "noSuchMethod") {
					rpcError(w, c.ID, -32603)
					return true
				}
				return false
			}),
			want: []string{conformance.ReqMethodNotFound}},
		{name: "card without a description",
			middleware: func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if !strings.HasPrefix(r.URL.Path, "/.well-known/") {
						next.ServeHTTP(w, r)
						return
					}
					rewrite(w, r, next, func(b []byte) []byte {
						var m map[string]any
						_ = json.Unmarshal(b, &m)
						delete(m, "description")
						out, _ := json.Marshal(m)
						return out
					})
				})
			},
			want: []string{conformance.ReqCardRequiredFields}},
		{name: "streaming advertised, answered with JSON",
			middleware: onRPC(rpcPath, func(w http.ResponseWriter, r *http.Request, c rpcCall, next http.Handler) bool {
				if c.Method != "SendStreamingMessage" {
					return false
				}
				c.Method = "SendMessage"
				body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.ID, "method": "SendMessage", "params": c.Params})
				r.Body = io.NopCloser(bytes.NewReader(body))
				next.ServeHTTP(w, r)
				return true
			}),
			want: []string{conformance.ReqStreamHTTP}},
		{name: "stream without a final event",
			middleware: onRPC(rpcPath, func(w http.ResponseWriter, r *http.Request, c rpcCall, next http.Handler) bool {
				if c.Method != "SendStreamingMessage" {
					return false
				}
				next.ServeHTTP(&sseFilter{ResponseWriter: w, edit: func(d []byte) [][]byte {
					if terminalEvent(d) {
						return nil
					}
					return [][]byte{d}
				}}, r)
				return true
			}),
			want: []string{conformance.ReqStreamFinal}},
		{name: "an event after the final one",
			middleware: onRPC(rpcPath, func(w http.ResponseWriter, r *http.Request, c rpcCall, next http.Handler) bool {
				if c.Method != "SendStreamingMessage" {
					return false
				}
				next.ServeHTTP(&sseFilter{ResponseWriter: w, edit: func(d []byte) [][]byte {
					if terminalEvent(d) {
						return [][]byte{d, bytes.Replace(d, []byte("TASK_STATE_COMPLETED"), []byte("TASK_STATE_WORKING"), 1)}
					}
					return [][]byte{d}
				}}, r)
				return true
			}),
			want: []string{conformance.ReqStreamClosed}},
		{name: "cancel of a completed task succeeds",
			middleware: onRPC(rpcPath, func(w http.ResponseWriter, r *http.Request, c rpcCall, next http.Handler) bool {
				if c.Method != "CancelTask" {
					return false
				}
				get, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.ID, "method": "GetTask", "params": c.Params})
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodPost, rpcPath, bytes.NewReader(get))
				req.Header.Set("A2A-Version", "1.0")
				next.ServeHTTP(rec, req)
				if !strings.Contains(rec.Body.String(), "TASK_STATE_COMPLETED") {
					return false // running: cancel it for real
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(rec.Body.Bytes())
				return true
			}),
			want: []string{conformance.ReqCancelTerminal}},
		// The slow task "completes" as the cancel arrives, and the cancel
		// is answered with an odd error: cancel-running looks the task up
		// and skips (issue 12), whatever the code.
		{name: "task completed before the cancel",
			card: func(c *a2a.AgentCard) { c.Capabilities.Streaming = false },
			middleware: func() func(http.Handler) http.Handler {
				var mu sync.Mutex
				ended := map[string]bool{}
				return onRPC(rpcPath, func(w http.ResponseWriter, r *http.Request, c rpcCall, next http.Handler) bool {
					id, _ := c.Params["id"].(string)
					mu.Lock()
					defer mu.Unlock()
					switch {
					case c.Method == "CancelTask":
						ended[id] = true
						w.Header().Set("Content-Type", "application/json")
						_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"too late"}}`, c.ID)
						return true
					case c.Method == "GetTask" && ended[id]:
						rewrite(w, r, next, func(b []byte) []byte {
							b = bytes.ReplaceAll(b, []byte("TASK_STATE_SUBMITTED"), []byte("TASK_STATE_COMPLETED"))
							return bytes.ReplaceAll(b, []byte("TASK_STATE_WORKING"), []byte("TASK_STATE_COMPLETED"))
						})
						return true
					}
					return false
				})
			}(),
			want: []string{conformance.ReqNotCancelable}},
		{name: "cancel of a completed task answered -32603",
			middleware: onRPC(rpcPath, func(w http.ResponseWriter, r *http.Request, c rpcCall, next http.Handler) bool {
				if c.Method != "CancelTask" {
					return false
				}
				rewrite(w, r, next, func(b []byte) []byte { return bytes.Replace(b, []byte("-32002"), []byte("-32603"), 1) })
				return true
			}),
			want: []string{conformance.ReqNotCancelable}},
		{name: "slow task completed before the cancel, answered -32603",
			// As ADK for TypeScript's toA2a does: its scripted agents end
			// at once, and its A2A errors reach the client as -32603.
			middleware: onRPC(rpcPath, func(w http.ResponseWriter, r *http.Request, c rpcCall, next http.Handler) bool {
				switch c.Method {
				case "SendMessage":
					body, _ := io.ReadAll(r.Body)
					if !bytes.Contains(body, []byte(agenttest.LifecycleSlow)) {
						return false
					}
					// A message that completes, sent blocking; its answer
					// says the task is still working.
					body = bytes.Replace(body, []byte(agenttest.LifecycleSlow), []byte("hello"), 1)
					body = bytes.Replace(body, []byte(`"returnImmediately":true`), []byte(`"returnImmediately":false`), 1)
					r.Body = io.NopCloser(bytes.NewReader(body))
					rewrite(w, r, next, func(b []byte) []byte {
						return bytes.Replace(b, []byte("TASK_STATE_COMPLETED"), []byte("TASK_STATE_WORKING"), 1)
					})
					return true
				case "CancelTask":
					rewrite(w, r, next, func(b []byte) []byte { return bytes.Replace(b, []byte("-32002"), []byte("-32603"), 1) })
					return true
				}
				return false
			}),
			// Without streaming: a2a-go refuses to subscribe to the task
			// that has ended, which is right, but no running task to judge
			// it by.
			card: func(c *a2a.AgentCard) { c.Capabilities.Streaming = false },
			want: []string{conformance.ReqNotCancelable}},
		{name: "unknown task answered -32603",
			middleware: onRPC(rpcPath, func(w http.ResponseWriter, r *http.Request, c rpcCall, next http.Handler) bool {
				if c.Method != "GetTask" {
					return false
				}
				rewrite(w, r, next, func(b []byte) []byte { return bytes.Replace(b, []byte("-32001"), []byte("-32603"), 1) })
				return true
			}),
			want: []string{conformance.ReqTaskNotFound}},
		{name: "parse error answered -32600",
			middleware: func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					body, _ := io.ReadAll(r.Body)
					if r.URL.Path == rpcPath && !json.Valid(body) {
						rpcError(w, nil, -32600)
						return
					}
					r.Body = io.NopCloser(bytes.NewReader(body))
					next.ServeHTTP(w, r)
				})
			},
			want: []string{conformance.ReqParseError}},
		{name: "historyLength ignored",
			middleware: onRPC(rpcPath, func(w http.ResponseWriter, r *http.Request, c rpcCall, next http.Handler) bool {
				if c.Method != "GetTask" || c.Params["historyLength"] == nil {
					return false
				}
				delete(c.Params, "historyLength")
				body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.ID, "method": "GetTask", "params": c.Params})
				r.Body = io.NopCloser(bytes.NewReader(body))
				next.ServeHTTP(w, r)
				return true
			}),
			want: []string{conformance.ReqHistoryLength}},
		{name: "contextId replaced",
			middleware: onRPC(rpcPath, func(w http.ResponseWriter, r *http.Request, c rpcCall, next http.Handler) bool {
				if c.Method != "SendMessage" {
					return false
				}
				msg, _ := c.Params["message"].(map[string]any)
				ctxID, _ := msg["contextId"].(string)
				if parts, _ := msg["parts"].([]any); ctxID == "" || len(parts) == 0 || parts[0].(map[string]any)["text"] != "hello" {
					return false // the basic message only
				}
				rewrite(w, r, next, func(b []byte) []byte {
					return bytes.ReplaceAll(b, []byte(`"contextId":"`+ctxID+`"`), []byte(`"contextId":"another-context"`))
				})
				return true
			}),
			want: []string{conformance.ReqContextID}},
		{name: "blocking send answered at once",
			middleware: onRPC(rpcPath, func(w http.ResponseWriter, r *http.Request, c rpcCall, next http.Handler) bool {
				if c.Method != "SendMessage" {
					return false
				}
				c.Params["configuration"] = map[string]any{"returnImmediately": true}
				body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.ID, "method": "SendMessage", "params": c.Params})
				r.Body = io.NopCloser(bytes.NewReader(body))
				next.ServeHTTP(w, r)
				return true
			}),
			want: []string{conformance.ReqSendBlocking}},
		{name: "subscription without the task first",
			middleware: onRPC(rpcPath, func(w http.ResponseWriter, r *http.Request, c rpcCall, next http.Handler) bool {
				if c.Method != "SubscribeToTask" {
					return false
				}
				next.ServeHTTP(&sseFilter{ResponseWriter: w, edit: func(d []byte) [][]byte {
					if bytes.Contains(d, []byte(`"result":{"task"`)) {
						return nil
					}
					return [][]byte{d}
				}}, r)
				return true
			}),
			want: []string{conformance.ReqSubscribe}},
		{name: "response ids not echoed",
			middleware: onRPC(rpcPath, func(w http.ResponseWriter, r *http.Request, c rpcCall, next http.Handler) bool {
				if c.Method != "GetTask" {
					return false
				}
				rewrite(w, r, next, func(b []byte) []byte {
					return bytes.Replace(b, []byte(`"id":`+string(c.ID)), []byte(`"id":"not-the-request-id"`), 1)
				})
				return true
			}),
			want: []string{conformance.ReqJSONRPCEnvelope}},
		{name: "the server dies after a bad request",
			middleware: func(next http.Handler) http.Handler {
				return onRPC(rpcPath, func(w http.ResponseWriter, r *http.Request, c rpcCall, next http.Handler) bool {
					if msg, ok := c.Params["message"].(string); ok && msg != "" {
						next.ServeHTTP(w, r)
						dead.Store(true)
						return true
					}
					return false
				})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if dead.Load() {
						http.Error(w, "gone", http.StatusServiceUnavailable)
						return
					}
					next.ServeHTTP(w, r)
				}))
			},
			want: []string{conformance.ReqServerSurvives}},
		{name: "card behind auth", middleware: requireToken(true, true), card: bearerCard, token: true,
			want: []string{conformance.ReqCardPublic}},
		{name: "security declared, not enforced", card: bearerCard, token: true,
			want: []string{conformance.ReqAuthRequired}},
		{name: "401 without a challenge", middleware: requireToken(false, false), card: bearerCard, token: true,
			want: []string{conformance.ReqAuthChallenge}, level: conformance.LevelMinimal},
		{name: "auth enforced, not declared", middleware: requireToken(false, true), token: true,
			want: []string{conformance.ReqAuthDeclared}, level: conformance.LevelMinimal},
		{name: "a skill without tags", card: func(c *a2a.AgentCard) { c.Skills[0].Tags = nil },
			want: []string{conformance.ReqCardSkills}},
		{name: "streaming declared as a string",
			middleware: func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if !strings.HasPrefix(r.URL.Path, "/.well-known/") {
						next.ServeHTTP(w, r)
						return
					}
					rewrite(w, r, next, func(b []byte) []byte {
						return bytes.Replace(b, []byte(`"streaming":true`), []byte(`"streaming":"yes"`), 1)
					})
				})
			},
			want: []string{conformance.ReqCardCapabilities}},
		{name: "a declared interface that does not answer",
			card: func(c *a2a.AgentCard) {
				c.SupportedInterfaces = append(c.SupportedInterfaces, &a2a.AgentInterface{
					URL: c.SupportedInterfaces[0].URL + "-nowhere", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version})
			},
			want: []string{conformance.ReqInterfaceAnswers}},
		{name: "an interface without a usable URL",
			card: func(c *a2a.AgentCard) {
				c.SupportedInterfaces = append(c.SupportedInterfaces, &a2a.AgentInterface{
					URL: "grpc.example.com", ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2a.Version})
			},
			want: []string{conformance.ReqCardInterfaces}},
		{name: "a requirement naming an undeclared scheme", middleware: requireToken(false, true), token: true,
			card: func(c *a2a.AgentCard) {
				bearerCard(c)
				c.SecurityRequirements = a2a.SecurityRequirementsOptions{{"oauth": a2a.SecuritySchemeScopes{}}}
			},
			want: []string{conformance.ReqCardSecurity}},
		{name: "REST: malformed JSON answered 500", transports: []string{"rest"},
			middleware: func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					body, _ := io.ReadAll(r.Body)
					if strings.HasSuffix(r.URL.Path, "/message:send") && !json.Valid(body) {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusInternalServerError)
						_, _ = io.WriteString(w, `{"error": {"code": 500, "message": "oops"}}`)
						return
					}
					r.Body = io.NopCloser(bytes.NewReader(body))
					next.ServeHTTP(w, r)
				})
			},
			want: []string{conformance.ReqParseError}},
		{name: "REST: unknown task answered 400", transports: []string{"rest"},
			middleware: func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "no-such-task") {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusBadRequest)
						_, _ = io.WriteString(w, `{"error": {"code": 400, "message": "bad"}}`)
						return
					}
					next.ServeHTTP(w, r)
				})
			},
			want: []string{conformance.ReqTaskNotFound}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dead.Store(false)
			transports := tc.transports
			if transports == nil {
				transports = []string{"jsonrpc"}
			}
			base := agenttest.StartLifecycle(t, agenttest.LifecycleOptions{Protocols: []string{"1.0"}, Transports: transports,
				Fixed: true, Middleware: tc.middleware, Card: tc.card})
			opts := []conformance.Option{conformance.WithMessages(lifecycleMessages())}
			if tc.token {
				opts = append(opts, conformance.WithAuthToken("tok"))
			}
			rep, err := conformance.Run(context.Background(), base, opts...)
			if err != nil {
				t.Fatal(err)
			}
			got := rep.FailedIDs()
			want := tc.want
			if want == nil {
				want = []string{}
			}
			if got == nil {
				got = []string{}
			}
			if !slices.Equal(got, want) {
				for _, f := range rep.Failed() {
					t.Logf("%s [%s]: %s", f.ID, strings.Join(f.Transports, ", "), f.Message)
				}
				t.Fatalf("failed %v, want %v", got, want)
			}
			level := tc.level
			switch {
			case level != "":
			case len(tc.want) == 0:
				level = conformance.LevelFull
			default:
				level = conformance.LevelNonConformant
			}
			if rep.Level != level {
				t.Errorf("level %s, want %s", rep.Level, level)
			}
			for _, f := range rep.Failed() {
				if f.Message == "" || f.Remediation == "" || len(f.Exchanges) == 0 && f.ID != conformance.ReqServerSurvives {
					t.Errorf("%s: a failure must say what was expected and received, how to fix it, and show the exchange: %+v", f.ID, f)
				}
			}
			if tc.name == "baseline with every interface" {
				// Everything but the auth checks (no security) ran.
				for _, r := range rep.Results {
					if r.Status == conformance.Skip && !strings.HasPrefix(r.ID, "auth-") && r.ID != conformance.ReqCardSecurity && r.ID != conformance.ReqCardDefaults {
						t.Errorf("%s [%s] skipped: %s", r.ID, strings.Join(r.Transports, ", "), r.Message)
					}
				}
			}
		})
	}
}
