package ecp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/coder/websocket"
	"go.opentelemetry.io/otel/propagation"

	"github.com/proctor-eval/proctor/internal/tracing"
)

// Handler is an ECP agent: what Serve and WebSocketHandler serve. Errors
// that are *RPCError keep their code; others answer -32603.
type Handler interface {
	// Initialize answers agent/initialize.
	Initialize(ctx context.Context, p InitializeParams) (InitializeResult, error)
	// Reset clears all state (agent/reset answers true when it returns nil).
	Reset(ctx context.Context) error
	// Step does one unit of work (agent/step).
	Step(ctx context.Context, p StepParams) (StepResult, error)
	// Inspect returns the value at path (agent/inspect answers {"value"}).
	Inspect(ctx context.Context, path string) (any, error)
}

// Serve answers ECP requests read from r with h, writing responses to w,
// until r ends (nil) or ctx ends. The framing is the client's: detected
// from each request. Requests are answered one at a time.
func Serve(ctx context.Context, r io.Reader, w io.Writer, h Handler, maxMessage int64) error {
	if maxMessage <= 0 {
		maxMessage = DefaultMaxResponseBytes
	}
	frames := newFrameReader(r, FramingAuto, maxMessage)
	frames.everyMessage = true
	var out []byte
	for ctx.Err() == nil {
		msg, err := frames.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var reply []byte
		if err != nil {
			var fe *FrameError
			if !errors.As(err, &fe) || fe.Kind == ErrBadHeader {
				return fmt.Errorf("ecp: read request: %w", err)
			}
			reply = encodeResponse(nil, nil, &RPCError{Code: CodeParseError, Message: err.Error()})
		} else {
			reply = dispatch(ctx, h, msg)
		}
		if reply == nil {
			continue
		}
		out = appendFrame(out[:0], frames.Framing(), reply)
		if _, err := w.Write(out); err != nil {
			return fmt.Errorf("ecp: write response: %w", err)
		}
	}
	return ctx.Err()
}

// dispatch answers one message; nil for a notification.
func dispatch(ctx context.Context, h Handler, msg []byte) []byte {
	var env envelope
	if err := decodeJSON(msg, &env); err != nil {
		return encodeResponse(nil, nil, &RPCError{Code: CodeParseError, Message: err.Error()})
	}
	if env.JSONRPC != "2.0" || env.Method == "" {
		return encodeResponse(env.ID, nil, &RPCError{Code: CodeInvalidRequest, Message: `want {"jsonrpc": "2.0", "method", "id"}`})
	}
	result, err := call(extractMeta(ctx, env.Params), h, env)
	if len(env.ID) == 0 {
		return nil
	}
	if err != nil {
		var rpc *RPCError
		if !errors.As(err, &rpc) {
			rpc = &RPCError{Code: CodeInternalError, Message: err.Error()}
		}
		return encodeResponse(env.ID, nil, rpc)
	}
	return encodeResponse(env.ID, result, nil)
}

// call runs the method env names.
func call(ctx context.Context, h Handler, env envelope) (any, error) {
	params := func(v any) error {
		if len(env.Params) == 0 || string(env.Params) == "null" {
			return nil
		}
		if err := json.Unmarshal(env.Params, v); err != nil {
			return &RPCError{Code: CodeInvalidParams, Message: err.Error()}
		}
		return nil
	}
	switch env.Method {
	case MethodInitialize:
		var p InitializeParams
		if err := params(&p); err != nil {
			return nil, err
		}
		return h.Initialize(ctx, p)
	case MethodReset:
		if err := h.Reset(ctx); err != nil {
			return nil, err
		}
		return true, nil
	case MethodStep:
		var p StepParams
		if err := params(&p); err != nil {
			return nil, err
		}
		return h.Step(ctx, p)
	case MethodInspect:
		var p struct {
			Path string `json:"path"`
		}
		if err := params(&p); err != nil {
			return nil, err
		}
		v, err := h.Inspect(ctx, p.Path)
		return map[string]any{"value": v}, err
	}
	return nil, &RPCError{Code: CodeMethodNotFound, Message: "unknown method " + env.Method}
}

// encodeResponse encodes a response (id null when id is empty).
func encodeResponse(id json.RawMessage, result any, rpcErr *RPCError) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(response{JSONRPC: "2.0", ID: id, Result: result, Error: rpcErr})
	if err != nil {
		b, _ = json.Marshal(response{JSONRPC: "2.0", ID: id, Error: &RPCError{Code: CodeInternalError, Message: "result does not encode: " + err.Error()}})
	}
	return b
}

// WebSocketHandler serves ECP over WebSocket: every connection is one
// agent, made by newAgent, answered one request at a time.
func WebSocketHandler(newAgent func() Handler, maxMessage int64) http.Handler {
	if maxMessage <= 0 {
		maxMessage = DefaultMaxResponseBytes
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return // Accept answered the client
		}
		conn.SetReadLimit(maxMessage)
		// The connection's requests belong to the trace of the call that
		// opened it, unless their own "_meta" says otherwise.
		ctx := tracing.Propagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		serveConn(ctx, conn, newAgent())
	})
}

// serveConn answers one WebSocket connection until it closes.
func serveConn(ctx context.Context, conn *websocket.Conn, h Handler) {
	defer conn.CloseNow()
	for {
		_, msg, err := conn.Read(ctx)
		if err != nil {
			return
		}
		reply := dispatch(ctx, h, msg)
		if reply == nil {
			continue
		}
		if err := conn.Write(ctx, websocket.MessageText, reply); err != nil {
			return
		}
	}
}
