// Package a2afix corrects a2a-go v2.4.0's servers where they deviate from
// the A2A specification, as proctor's conformance suite and the official
// A2A TCK found:
//
//   - JSON-RPC: a request whose members have the wrong JSON types (a
//     number for "method", a string for "params") is answered -32602
//     (invalid params) instead of -32600 (invalid request, JSON-RPC 2.0
//     §5.1 and §7). JSONRPC checks the envelope before a2a-go sees it.
//   - SubscribeToTask on a task in a terminal state is answered
//     TaskNotFoundError instead of UnsupportedOperationError (A2A 1.0
//     §3.1.6). Handler answers it from the stored task.
//   - ListTasks answers invalid parameters -32700 or -32600 (a bad page
//     token or timestamp, a page size out of range) where A2A 1.0 §3.3.2
//     and §9.5 say InvalidParamsError, and accepts an unknown status and a
//     negative historyLength. JSONRPC, REST and GRPCUnary check what
//     a2a-go's decoders would garble, Handler the rest, on every binding.
//   - Tasks may carry no status timestamp, which a statusTimestampAfter
//     filter then lets through. Store stamps every status it saves.
//   - No version negotiation: every A2A-Version is served as the
//     interface's version (A2A 1.0 §3.6.2). Version, GRPCUnary and
//     GRPCStream refuse other versions with VersionNotSupportedError, and
//     serve a request without the header as the interface's version;
//     JSONRPCEndpoint serves one without the header by the version its
//     method belongs to, at a URL that may serve both versions.
//   - HTTP+JSON at 0.3 reads only JSON field names, where ProtoJSON takes
//     proto names too, and sends a stream's errors as events 0.3 clients
//     cannot read. REST03 renames and answers them (see there).
//
// The transport wrappers mark a request to refuse; Handler answers it, so
// that a2a-go writes the error in each binding's own form.
//
// Usage:
//
//	handler := a2afix.Handler(a2asrv.NewHandler(executor, a2asrv.WithTaskStore(a2afix.Store(store))))
//	mux.Handle("/a2a/jsonrpc", a2afix.JSONRPCEndpoint{Declared: []a2a.ProtocolVersion{a2a.Version},
//		Handlers: map[a2a.ProtocolVersion]http.Handler{a2a.Version: a2asrv.NewJSONRPCHandler(handler), a2av0.Version: a2av0.NewJSONRPCHandler(handler)}})
//	mux.Handle("/a2a/rest/", a2afix.Version(a2a.Version, http.StripPrefix("/a2a/rest", a2afix.REST(a2asrv.NewRESTHandler(handler)))))
//	mux.Handle("/a2a/v0.3/rest/", a2afix.Version(a2av0.Version, http.StripPrefix("/a2a/v0.3/rest", a2afix.REST03(a2av0.NewRESTHandler(handler)))))
//	grpc.NewServer(grpc.ChainUnaryInterceptor(a2afix.GRPCUnary(a2a.Version)), grpc.ChainStreamInterceptor(a2afix.GRPCStream(a2a.Version)))
package a2afix

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// maxEnvelopeBytes bounds what JSONRPC reads to check an envelope; bigger
// bodies go to the handler unchecked (servers bound bodies before this).
const maxEnvelopeBytes = 64 << 20

// JSONRPC answers requests that are JSON but not JSON-RPC 2.0 requests
// with -32600 itself, marks ListTasks requests with invalid params to be
// refused -32602 by [Handler] (which next must serve), and hands
// everything else (unparsable bodies included, which a2a-go answers
// -32700 correctly) to next.
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
			writeJSONRPCError(w, id, -32600, "Invalid Request: not a JSON-RPC 2.0 request object")
			return
		}
		if cleared, v := checkListTasks(body); v != nil {
			// The refusal answers (-32602); a2a-go, which would answer
			// a bad timestamp -32700, must get as far as asking.
			r = r.WithContext(withRefusal(r.Context(), v.err()))
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(cleared)), int64(len(cleared))
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

// checkListTasks validates the params of a ListTasks request; when they
// are invalid it returns the request with empty params.
func checkListTasks(body []byte) ([]byte, *violation) {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return nil, nil
	}
	var method string
	if json.Unmarshal(m["method"], &method) != nil || method != "ListTasks" {
		return nil, nil
	}
	v := jsonrpcListTasksViolation(m["params"])
	if v == nil {
		return nil, nil
	}
	m["params"] = json.RawMessage("{}")
	cleared, err := json.Marshal(m)
	if err != nil {
		return nil, nil
	}
	return cleared, v
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
