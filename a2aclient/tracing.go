package a2aclient

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc/metadata"

	"github.com/proctor-eval/proctor/internal/tracing"
)

// Attributes of an agent request's span ("a2a SendMessage", …).
const (
	AttrA2AMethod          = attribute.Key("a2a.method")
	AttrA2ATransport       = attribute.Key("a2a.transport")
	AttrA2AProtocolVersion = attribute.Key("a2a.protocol_version")
	AttrA2ATaskID          = attribute.Key("a2a.task_id")
	AttrA2ATaskState       = attribute.Key("a2a.task_state")
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
	if _, off := c.opts.tracer.(noop.Tracer); off && !trace.SpanContextFromContext(ctx).IsValid() {
		// Tracing is off and there is no span to carry on: the no-op
		// tracer would only wrap ctx around a no-op span.
		return ctx, trace.SpanFromContext(ctx)
	}
	// The attributes are set once, when the span ends (endSpan): one
	// allocation per span rather than two.
	return c.opts.tracer.Start(ctx, "a2a "+method, trace.WithSpanKind(trace.SpanKindClient))
}

// endSpan records a Send's call and outcome on its span and ends it.
func (cv *Conversation) endSpan(span trace.Span, resp *Response, err error) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	c, m := cv.client, resp.Metrics
	attrs := make([]attribute.KeyValue, 0, 9)
	attrs = append(attrs, AttrA2AMethod.String(m.Method),
		AttrA2ATransport.String(string(bindingName(c.endpoint.ProtocolBinding))),
		AttrA2AProtocolVersion.String(string(c.endpoint.ProtocolVersion)))
	if m.HTTPStatus != 0 {
		attrs = append(attrs, AttrHTTPStatus.Int(m.HTTPStatus))
	}
	if m.GRPCCode != "" {
		attrs = append(attrs, AttrGRPCCode.String(m.GRPCCode))
	}
	if m.Retries > 0 {
		attrs = append(attrs, AttrA2ARetries.Int(m.Retries))
	}
	if resp.TaskID != "" {
		attrs = append(attrs, AttrA2ATaskID.String(string(resp.TaskID)), AttrA2ATaskState.String(stateName(resp.State)))
	}
	if err != nil {
		attrs = append(attrs, AttrErrorType.String(string(m.ErrorClass)))
		span.SetStatus(codes.Error, m.Error)
	}
	span.SetAttributes(attrs...)
}

// injectTraceContext sets traceparent (and tracestate) on a request of
// proctor's own (a clone) from its context's span.
func injectTraceContext(req *http.Request) {
	tracing.Propagator().Inject(req.Context(), propagation.HeaderCarrier(req.Header))
}

// withTraceMetadata sends ctx's trace context as gRPC metadata.
func withTraceMetadata(ctx context.Context) context.Context {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	md := metadata.MD{}
	tracing.Propagator().Inject(ctx, tracing.MetadataCarrier(md))
	pairs := make([]string, 0, 2*len(md))
	for k, vs := range md {
		for _, v := range vs {
			pairs = append(pairs, k, v)
		}
	}
	return metadata.AppendToOutgoingContext(ctx, pairs...)
}
