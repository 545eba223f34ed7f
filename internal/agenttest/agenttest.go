// Package agenttest starts real A2A agents on loopback for proctor's tests
// and benchmarks: well-behaved ones built on a2a-go's server, and broken ones
// that fail the way real network services do.
//
// Usage:
//
//	srv := agenttest.Start(t, func(ctx context.Context, contextID, text string) string {
//		return `{"name":"respond","arguments":{"content":"Sorry, I cannot help with that."}}`
//	})
//	client, err := a2aclient.Dial(ctx, srv.URL)
package agenttest

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// ReplyFunc computes an agent's text reply to the text of a user message.
type ReplyFunc func(ctx context.Context, contextID, text string) string

// SorryReply always declines, as a plain-text agent.
const SorryReply = "Sorry, I cannot help with that."

// Sorry is a ReplyFunc that always declines.
func Sorry(context.Context, string, string) string { return SorryReply }

type executor struct{ reply ReplyFunc }

func (e executor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		var texts []string
		if ec.Message != nil {
			for _, p := range ec.Message.Parts {
				texts = append(texts, p.Text())
			}
		}
		msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(e.reply(ctx, ec.ContextID, strings.Join(texts, "\n"))))
		msg.ContextID = ec.ContextID
		yield(msg, nil)
	}
}

func (e executor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// Card returns an agent card for a JSON-RPC 1.0 agent at url.
func Card(url string) *a2a.AgentCard {
	return &a2a.AgentCard{
		Name:                "test agent",
		Description:         "an agent started by a proctor test",
		Version:             "0.0.1",
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(url+"/", a2a.TransportProtocolJSONRPC)},
		DefaultInputModes:   []string{"text/plain"},
		DefaultOutputModes:  []string{"text/plain"},
		Skills:              []a2a.AgentSkill{{ID: "chat", Name: "chat", Description: "chat", Tags: []string{"test"}}},
	}
}

// Start serves a real a2a-go JSON-RPC agent whose replies come from reply.
// The server closes when the test ends.
func Start(tb testing.TB, reply ReplyFunc) *httptest.Server {
	tb.Helper()
	return serve(tb, a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(executor{reply})))
}

// Executor returns the a2a-go executor of Start's agents, for servers that
// mount it on another binding or protocol version.
func Executor(reply ReplyFunc) a2asrv.AgentExecutor { return executor{reply} }

// Handler returns the http.Handler of a real agent, for servers built by hand.
func Handler(reply ReplyFunc) http.Handler {
	return a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(executor{reply}))
}

// serve mounts rpc at "/" beside an agent card pointing at it.
func serve(tb testing.TB, rpc http.Handler) *httptest.Server {
	tb.Helper()
	srv := ServeWithCard(rpc)
	tb.Cleanup(srv.Close)
	return srv
}

// ServeWithCard serves rpc at "/" beside an agent card pointing at it, on
// loopback, for processes without a test (a benchmark's agent in a child
// process). The caller closes the server.
func ServeWithCard(rpc http.Handler) *httptest.Server {
	mux := http.NewServeMux()
	srv := httptest.NewUnstartedServer(mux)
	srv.Start()
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(Card(srv.URL)))
	mux.Handle("/", rpc)
	return srv
}

// StatusAgent serves a valid card but answers every A2A call with the HTTP
// status code.
func StatusAgent(tb testing.TB, code int) *httptest.Server {
	return serve(tb, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, http.StatusText(code), code)
	}))
}

// HangingAgent serves a valid card but never answers A2A calls (until the
// client gives up or the test ends).
func HangingAgent(tb testing.TB) *httptest.Server {
	done := make(chan struct{})
	srv := serve(tb, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	tb.Cleanup(func() { close(done) })
	return srv
}

// RawAgent serves a valid card and answers every A2A call with body, as is,
// with status 200.
func RawAgent(tb testing.TB, contentType, body string) *httptest.Server {
	return serve(tb, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write([]byte(body))
	}))
}

// RawResultAgent answers every JSON-RPC call with a result object of its own
// making, echoing the request id: for agents whose replies bend the spec.
func RawResultAgent(tb testing.TB, result func(contextID string) any) *httptest.Server {
	return serve(tb, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     any `json:"id"`
			Params struct {
				Message struct {
					ContextID string `json:"contextId"`
				} `json:"message"`
			} `json:"params"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result(req.Params.Message.ContextID)})
	}))
}

// Delayed wraps a ReplyFunc so that every reply takes d (or until ctx ends).
func Delayed(d time.Duration, reply ReplyFunc) ReplyFunc {
	return func(ctx context.Context, contextID, text string) string {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		return reply(ctx, contextID, text)
	}
}

// StartLean serves a minimal but spec-valid protocol 1.0 JSON-RPC agent:
// SendMessage answered with a Message, nothing else. It costs far less CPU
// than a2a-go's full server (no task store, no event pipes), so benchmarks
// that run the agent in proctor's own process measure proctor, not the
// agent's SDK.
func StartLean(tb testing.TB, reply ReplyFunc) *httptest.Server {
	tb.Helper()
	return serve(tb, LeanHandler(reply))
}

// LeanHandler is the JSON-RPC handler of StartLean's agents.
func LeanHandler(reply ReplyFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
			Params struct {
				Message struct {
					ContextID string `json:"contextId"`
					Parts     []struct {
						Text string `json:"text"`
					} `json:"parts"`
				} `json:"message"`
			} `json:"params"`
		}
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil,
				"error": map[string]any{"code": -32700, "message": "parse error"}})
			return
		}
		if req.Method != "SendMessage" {
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
				"error": map[string]any{"code": -32601, "message": "method not found"}})
			return
		}
		texts := make([]string, len(req.Params.Message.Parts))
		for i, p := range req.Params.Message.Parts {
			texts[i] = p.Text
		}
		ctxID := req.Params.Message.ContextID
		msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(reply(r.Context(), ctxID, strings.Join(texts, "\n"))))
		msg.ContextID = ctxID
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": a2a.StreamResponse{Event: msg}})
	})
}
