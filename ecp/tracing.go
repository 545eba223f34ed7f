package ecp

import (
	"bytes"
	"context"
	"errors"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/internal/tracing"
)

// MetaMember is the params member under which proctor sends an ECP agent
// the W3C trace context of a request (ECP 0.1.0 has no field for it):
// "_meta": {"traceparent": "00-…", "tracestate": "…"}, on every request
// while tracing is on. An agent that does not know it ignores it, as
// JSON-RPC params members it does not know.
const MetaMember = "_meta"

// Attributes of an ECP request's span ("ecp agent/step", …).
const (
	AttrRPCSystem     = attribute.Key("rpc.system")
	AttrRPCMethod     = attribute.Key("rpc.method")
	AttrECPTransport  = attribute.Key("ecp.transport")
	AttrErrorType     = attribute.Key("error.type")
	AttrJSONRPCCode   = attribute.Key("rpc.jsonrpc.error_code")
	transportStdio    = "stdio"
	transportWS       = "websocket"
	rpcSystemJSONRPC  = "jsonrpc"
	spanNamePrefixECP = "ecp "
)

// startCallSpan opens the span of one call.
func (c *Client) startCallSpan(ctx context.Context, method string) (context.Context, trace.Span) {
	if c.tracer == nil {
		return ctx, trace.SpanFromContext(context.Background())
	}
	ctx, span := c.tracer.Start(ctx, spanNamePrefixECP+method, trace.WithSpanKind(trace.SpanKindClient))
	if span.IsRecording() {
		span.SetAttributes(AttrRPCSystem.String(rpcSystemJSONRPC), AttrRPCMethod.String(method), AttrECPTransport.String(c.transportName))
	}
	return ctx, span
}

// endCallSpan records a call's outcome and ends its span.
func endCallSpan(span trace.Span, err error) {
	defer span.End()
	if err == nil || !span.IsRecording() {
		return
	}
	var ce *CallError
	if errors.As(err, &ce) {
		span.SetAttributes(AttrErrorType.String(string(ce.Kind)))
	}
	var rpc *RPCError
	if errors.As(err, &rpc) {
		span.SetAttributes(AttrJSONRPCCode.Int(int(rpc.Code)))
	}
	span.SetStatus(codes.Error, err.Error())
}

// appendMeta adds "_meta" with ctx's trace context to the params object
// that ends msg (…}), or adds params holding only "_meta" when msg has
// none; msg is returned as it is when ctx has no span to propagate or the
// params are not an object.
func appendMeta(ctx context.Context, msg []byte, hadParams bool) []byte {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return msg
	}
	carrier := propagation.MapCarrier{}
	tracing.Propagator().Inject(ctx, carrier)
	meta := []byte(`"_meta":{"traceparent":`)
	meta = appendJSONString(meta, carrier.Get("traceparent"))
	if ts := carrier.Get("tracestate"); ts != "" {
		meta = append(meta, `,"tracestate":`...)
		meta = appendJSONString(meta, ts)
	}
	meta = append(meta, '}')
	if !hadParams {
		// msg ends with the envelope's '}'.
		out := append(msg[:len(msg)-1:len(msg)-1], `,"params":{`...)
		out = append(out, meta...)
		return append(out, "}}"...)
	}
	// msg ends with the params' '}' and the envelope's '}'.
	body := bytes.TrimRight(msg[:len(msg)-1], " \t\r\n")
	if len(body) == 0 || body[len(body)-1] != '}' {
		return msg // params that are not an object
	}
	out := append([]byte(nil), body[:len(body)-1]...)
	if trimmed := bytes.TrimRight(out, " \t\r\n"); trimmed[len(trimmed)-1] != '{' {
		out = append(out, ',')
	}
	out = append(out, meta...)
	return append(out, "}}"...)
}

// traceHeader is the WebSocket upgrade request's trace context: the span
// of the call that opens the connection.
func traceHeader(ctx context.Context) http.Header {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	h := http.Header{}
	tracing.Propagator().Inject(ctx, propagation.HeaderCarrier(h))
	return h
}

// extractMeta returns ctx carrying the trace context a request's params
// send in "_meta", if any: the span an agent served by Serve or
// WebSocketHandler sees as its caller's.
func extractMeta(ctx context.Context, params []byte) context.Context {
	if !bytes.Contains(params, []byte(`"`+MetaMember+`"`)) {
		return ctx
	}
	var p struct {
		Meta map[string]string `json:"_meta"`
	}
	if decodeJSON(params, &p) != nil || len(p.Meta) == 0 {
		return ctx
	}
	return tracing.Propagator().Extract(ctx, propagation.MapCarrier(p.Meta))
}
