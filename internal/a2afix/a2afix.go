// Package a2afix corrects a2a-go v2.4.0's servers where they deviate from
// the A2A specification, as proctor's conformance suite found:
//
//   - JSON-RPC: a request whose members have the wrong JSON types (a
//     number for "method", a string for "params") is answered -32602
//     (invalid params) instead of -32600 (invalid request, JSON-RPC 2.0
//     §5.1 and §7). JSONRPC checks the envelope before a2a-go sees it.
//   - SubscribeToTask on a task in a terminal state is answered
//     TaskNotFoundError instead of UnsupportedOperationError (A2A 1.0
//     §3.1.6). Handler answers it from the stored task.
//
// Usage:
//
//	handler := a2afix.Handler(a2asrv.NewHandler(executor))
//	mux.Handle("/a2a/jsonrpc", a2afix.JSONRPC(a2asrv.NewJSONRPCHandler(handler)))
package a2afix

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// maxEnvelopeBytes bounds what JSONRPC reads to check an envelope; bigger
// bodies go to the handler unchecked (servers bound bodies before this).
const maxEnvelopeBytes = 64 << 20

// JSONRPC answers requests that are JSON but not JSON-RPC 2.0 requests
// with -32600 itself, and hands everything else (unparsable bodies
// included, which a2a-go answers -32700 correctly) to next.
func JSONRPC(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxEnvelopeBytes+1))
		if err != nil {
			// A body over the server's limit, or a broken connection:
			// a2a-go reports it as it reads the rest.
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
			next.ServeHTTP(w, r)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if len(body) > maxEnvelopeBytes {
			next.ServeHTTP(w, r)
			return
		}
		if id, ok := invalidEnvelope(body); ok {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id,
				"error": map[string]any{"code": -32600, "message": "Invalid Request: not a JSON-RPC 2.0 request object"}})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// invalidEnvelope reports whether body is valid JSON that is not a
// JSON-RPC 2.0 request object, and the id to answer with (null unless the
// request's id could be read).
func invalidEnvelope(body []byte) (id json.RawMessage, invalid bool) {
	if !json.Valid(body) {
		return nil, false // a parse error: a2a-go answers -32700
	}
	null := json.RawMessage("null")
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return null, true // an array (batches are not supported), a string, null
	}
	id = null
	if raw, ok := m["id"]; ok {
		switch kind(raw) {
		case '"', '0', 'n':
			id = raw
		default:
			return null, true
		}
	}
	var version string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" {
		return id, true
	}
	if kind(m["method"]) != '"' {
		return id, true
	}
	if raw, ok := m["params"]; ok && kind(raw) != '{' && kind(raw) != '[' {
		return id, true
	}
	return nil, false
}

// kind classifies a JSON value by its first byte: '"', '{', '[', 'n'
// (null), 'b' (boolean), '0' (number), or 0.
func kind(raw json.RawMessage) byte {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return 0
	}
	switch c := t[0]; {
	case c == '"' || c == '{' || c == '[' || c == 'n':
		return c
	case c == 't' || c == 'f':
		return 'b'
	case c == '-' || (c >= '0' && c <= '9'):
		return '0'
	}
	return 0
}

// Handler wraps a request handler so that SubscribeToTask on a task in a
// terminal state is refused with UnsupportedOperationError.
func Handler(h a2asrv.RequestHandler) a2asrv.RequestHandler { return handler{h} }

type handler struct{ a2asrv.RequestHandler }

// SubscribeToTask implements a2asrv.RequestHandler.
func (h handler) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	if req != nil {
		if task, err := h.GetTask(ctx, &a2a.GetTaskRequest{ID: req.ID}); err == nil && task.Status.State.Terminal() {
			return func(yield func(a2a.Event, error) bool) {
				yield(nil, a2a.NewError(a2a.ErrUnsupportedOperation, "task "+string(req.ID)+" is "+string(task.Status.State)+": there is nothing left to subscribe to"))
			}
		}
	}
	return h.RequestHandler.SubscribeToTask(ctx, req)
}
