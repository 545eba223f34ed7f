package a2aclient

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

// testCtx returns a context bounded well below the test binary's timeout, so
// that a hang shows up as a failed test rather than a killed binary.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// dial connects to target and closes the client when the test ends.
func dial(t *testing.T, target string, opts ...Option) *Client {
	t.Helper()
	c, err := Dial(testCtx(t), target, opts...)
	if err != nil {
		t.Fatalf("Dial(%q): %v", target, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// say sends one text message on conv.
func say(t *testing.T, conv *Conversation, text string) (*Response, error) {
	t.Helper()
	return conv.Send(testCtx(t), []*a2a.Part{a2a.NewTextPart(text)})
}

// serveRPC serves rpc at "/" beside a 1.0 agent card pointing at it, like
// agenttest's servers, for handlers the tests build themselves.
func serveRPC(t *testing.T, rpc http.Handler) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(agenttest.Card(srv.URL)))
	mux.Handle("/", rpc)
	return srv
}

// execFunc is an a2a-go AgentExecutor made of a function.
type execFunc func(ctx context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool)

func (f execFunc) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) { f(ctx, ec, yield) }
}

func (execFunc) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// startExecutor serves a real a2a-go JSON-RPC agent around exec.
func startExecutor(t *testing.T, exec execFunc, opts ...a2asrv.RequestHandlerOption) *httptest.Server {
	t.Helper()
	return serveRPC(t, a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(exec, opts...)))
}

// rpcCall is one JSON-RPC request a test server received.
type rpcCall struct {
	Method string
	Params json.RawMessage
	Header http.Header
}

// recorder keeps the JSON-RPC requests that reach the handler it wraps.
type recorder struct {
	mu    sync.Mutex
	calls []rpcCall
}

func (rec *recorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(body, &req)
		rec.mu.Lock()
		rec.calls = append(rec.calls, rpcCall{Method: req.Method, Params: req.Params, Header: r.Header.Clone()})
		rec.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

func (rec *recorder) all() []rpcCall {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]rpcCall(nil), rec.calls...)
}

// sentMessage decodes the message of a SendMessage call.
func (c rpcCall) sentMessage(t *testing.T) *a2a.Message {
	t.Helper()
	var req a2a.SendMessageRequest
	if err := json.Unmarshal(c.Params, &req); err != nil {
		t.Fatalf("decode %s params %s: %v", c.Method, c.Params, err)
	}
	if req.Message == nil {
		t.Fatalf("%s params carry no message: %s", c.Method, c.Params)
	}
	return req.Message
}

// rpcFunc answers one JSON-RPC call: a result, or an error object when
// errObj is non-nil.
type rpcFunc func(method string, params json.RawMessage) (result any, errObj map[string]any)

// jsonRPC is a hand-made JSON-RPC server for agents whose behaviour the
// tests script call by call.
func jsonRPC(answer rpcFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     any             `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		res, errObj := answer(req.Method, req.Params)
		out := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if errObj != nil {
			out["error"] = errObj
		} else {
			out["result"] = res
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
}

// mustJSON decodes a JSON literal for use as a raw server result.
func mustJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON literal %s: %v", s, err)
	}
	return v
}

// partsText is PartsText, named for the assertions.
func partsText(parts []*a2a.Part) string { return PartsText(parts) }
