package a2aclient

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/metadata"

	"github.com/proctor-eval/proctor/internal/tracing"
)

// Attributes of an agent request's span ("a2a SendMessage", …).
const (
	AttrA2AMethod          = attribute.Key("a2a.method")
	AttrA2ATransport       = attribute.Key("a2a.transport")
	AttrA2AProtocolVersion = attribute.Key("a2a.protocol_version")
	AttrA2AContextID       = attribute.Key("a2a.context_id")
	AttrA2ATaskID          = attribute.Key("a2a.task_id")
	AttrA2ATaskState       = attribute.Key("a2a.task_state")
	AttrA2AStreaming       = attribute.Key("a2a.streaming")
	AttrA2ARetries         = attribute.Key("a2a.retries")
	AttrHTTPStatus         = attribute.Key("http.response.status_code")
	AttrGRPCCode           = attribute.Key("rpc.grpc.status_code")
	AttrErrorType          = attribute.Key("error.type")
)

// WithTracerProvider makes a span for every call to the agent (one per
// Send, retries and polling included) under the caller's span, and sends
// the agent its W3C trace context (traceparent, tracestate) on every
// request: as HTTP headers over JSON-RPC and HTTP+JSON, as metadata over
// gRPC. With a no-op provider (the default) no span is made and, unless the
// caller's context already carries a span, nothing is sent.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) { o.tracer = tracing.Tracer(tp) }
}

// startSpan opens the span of one Send.
func (cv *Conversation) startSpan(ctx context.Context, method string) (context.Context, trace.Span) {
	c := cv.client
	ctx, span := c.opts.tracer.Start(ctx, "a2a "+method, trace.WithSpanKind(trace.SpanKindClient))
	if span.IsRecording() {
		span.SetAttributes(
			AttrA2AMethod.String(method),
			AttrA2ATransport.String(string(bindingName(c.endpoint.ProtocolBinding))),
			AttrA2AProtocolVersion.String(string(c.endpoint.ProtocolVersion)),
			AttrA2AContextID.String(cv.contextID),
			AttrA2AStreaming.Bool(c.streaming),
		)
	}
	return ctx, span
}

// endSpan records a Send's outcome on its span and ends it.
func endSpan(span trace.Span, resp *Response, err error) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	m := resp.Metrics
	if m.HTTPStatus != 0 {
		span.SetAttributes(AttrHTTPStatus.Int(m.HTTPStatus))
	}
	if m.GRPCCode != "" {
		span.SetAttributes(AttrGRPCCode.String(m.GRPCCode))
	}
	if m.Retries > 0 {
		span.SetAttributes(AttrA2ARetries.Int(m.Retries))
	}
	if resp.TaskID != "" {
		span.SetAttributes(AttrA2ATaskID.String(string(resp.TaskID)), AttrA2ATaskState.String(stateName(resp.State)))
	}
	if err != nil {
		span.SetAttributes(AttrErrorType.String(string(m.ErrorClass)))
		span.SetStatus(codes.Error, m.Error)
	}
}

// injectHeader adds ctx's trace context to an outgoing HTTP request's
// headers; it reports whether there was one.
func traceHeaders(ctx context.Context) http.Header {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	h := http.Header{}
	tracing.Propagator().Inject(ctx, propagation.HeaderCarrier(h))
	return h
}

// withTraceMetadata sends ctx's trace context as gRPC metadata.
func withTraceMetadata(ctx context.Context) context.Context {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	md := metadata.MD{}
	tracing.Propagator().Inject(ctx, metadataCarrier(md))
	pairs := make([]string, 0, 2*len(md))
	for k, vs := range md {
		for _, v := range vs {
			pairs = append(pairs, k, v)
		}
	}
	return metadata.AppendToOutgoingContext(ctx, pairs...)
}

// metadataCarrier carries trace context in gRPC metadata.
type metadataCarrier metadata.MD

func (c metadataCarrier) Get(key string) string {
	if vs := metadata.MD(c).Get(key); len(vs) > 0 {
		return vs[0]
	}
	return ""
}

func (c metadataCarrier) Set(key, value string) { metadata.MD(c).Set(key, value) }

func (c metadataCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}
