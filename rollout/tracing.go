package rollout

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/internal/tracing"
	"github.com/proctor-eval/proctor/result"
)

// Attributes of a tool call's span ("execute_tool NAME").
const (
	AttrToolName      = attribute.Key("gen_ai.tool.name")
	AttrToolCallID    = attribute.Key("gen_ai.tool.call.id")
	AttrToolRequestor = attribute.Key("proctor.tool.requestor")
	AttrToolError     = attribute.Key("proctor.tool.error")
	AttrToolRefused   = attribute.Key("proctor.tool.refused")
)

// WithTracerProvider makes the simulator record a span per tool call (the
// agent's and the user's) under the span of the simulation's context; nil
// (the default) records none.
func (s *Simulator) WithTracerProvider(tp trace.TracerProvider) *Simulator {
	s.tracer = tracing.Tracer(tp)
	return s
}

// toolSpan opens the span of one tool call.
func (s *Simulator) toolSpan(ctx context.Context, call domains.ToolCall) trace.Span {
	if s.tracer == nil {
		return trace.SpanFromContext(context.Background()) // a no-op span
	}
	_, span := s.tracer.Start(ctx, "execute_tool "+call.Name, trace.WithAttributes(
		AttrToolName.String(call.Name), AttrToolCallID.String(call.ID), AttrToolRequestor.String(call.Requestor)))
	return span
}

// endToolSpan records a tool call's outcome and ends its span.
func endToolSpan(span trace.Span, out domains.ToolResult, refused bool) {
	if span.IsRecording() {
		span.SetAttributes(AttrToolError.Bool(out.Error), AttrToolRefused.Bool(refused))
		if out.Error {
			span.SetStatus(codes.Error, "tool error")
		}
	}
	span.End()
}

// Attributes of an eval case invocation's span ("proctor.invocation").
const (
	AttrInvocationID     = attribute.Key("proctor.invocation.id")
	AttrInvocationNumber = attribute.Key("proctor.invocation.number")
	// SpanInvocation names an invocation's span.
	SpanInvocation = "proctor.invocation"
)

// startInvocationSpan opens the span of the n-th invocation of a case.
func (p *CasePlayer) startInvocationSpan(ctx context.Context, id string, n int) (context.Context, trace.Span) {
	if p.opts.TracerProvider == nil {
		return ctx, trace.SpanFromContext(context.Background())
	}
	ctx, span := tracing.Tracer(p.opts.TracerProvider).Start(ctx, SpanInvocation)
	if span.IsRecording() {
		span.SetAttributes(AttrInvocationID.String(id), AttrInvocationNumber.Int(n))
	}
	return ctx, span
}

// endInvocationSpan records the invocation's outcome (the last turn) and
// ends its span.
func endInvocationSpan(span trace.Span, turns []result.Turn) {
	defer span.End()
	if !span.IsRecording() || len(turns) == 0 {
		return
	}
	if e := turns[len(turns)-1].Error; e != "" {
		span.SetStatus(codes.Error, e)
	}
}
