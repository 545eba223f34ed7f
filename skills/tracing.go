package skills

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/tracing"
)

// Attributes of a conformance run's span ("proctor.conformance").
const (
	AttrConformanceLevel  = attribute.Key("proctor.conformance.level")
	AttrConformancePassed = attribute.Key("proctor.conformance.passed")
	AttrConformanceFailed = attribute.Key("proctor.conformance.failed")
	// SpanConformance names a conformance run's span.
	SpanConformance = "proctor.conformance"
)

// startConformanceSpan opens the span of a conformance run, the parent of
// the agent requests' trace context.
func (s *Service) startConformanceSpan(ctx context.Context, agentURL string) (context.Context, trace.Span) {
	if s.TracerProvider == nil {
		return ctx, trace.SpanFromContext(context.Background())
	}
	ctx, span := tracing.Tracer(s.TracerProvider).Start(ctx, SpanConformance)
	span.SetAttributes(evaluation.AttrAgentURL.String(evaluation.RedactURL(agentURL)))
	return ctx, span
}

// endConformanceSpan records a conformance run's outcome and ends its span.
func endConformanceSpan(span trace.Span, rep *conformance.Report, err error) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	if rep != nil {
		span.SetAttributes(AttrConformanceLevel.String(string(rep.Level)),
			AttrConformancePassed.Int(rep.Summary.Passed), AttrConformanceFailed.Int(rep.Summary.Failed))
	}
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
}
