package llm

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/internal/tracing"
)

// Attributes of a model call's span ("chat MODEL"), after OpenTelemetry's
// generative-AI conventions, with the role proctor's model plays.
const (
	AttrOperation    = attribute.Key("gen_ai.operation.name")
	AttrProvider     = attribute.Key("gen_ai.provider.name")
	AttrRequestModel = attribute.Key("gen_ai.request.model")
	AttrInputTokens  = attribute.Key("gen_ai.usage.input_tokens")
	AttrOutputTokens = attribute.Key("gen_ai.usage.output_tokens")
	AttrRole         = attribute.Key("proctor.llm.role")
	AttrCostUSD      = attribute.Key("proctor.llm.cost_usd")
)

// WithTracing makes a span per call, under the caller's span, naming the
// provider (ProviderOpenAI, ProviderGemini) the model comes from.
func WithTracing(tp trace.TracerProvider, provider string) MeterOption {
	return func(m *metered) {
		if tp != nil {
			m.tracer, m.provider = tracing.Tracer(tp), provider
		}
	}
}

// endCallSpan records a call's outcome and ends its span.
func endCallSpan(span trace.Span, c Call) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(AttrInputTokens.Int64(c.InputTokens), AttrOutputTokens.Int64(c.OutputTokens))
	if c.Priced {
		span.SetAttributes(AttrCostUSD.Float64(c.CostUSD))
	}
	if c.Error != "" {
		span.SetStatus(codes.Error, c.Error)
	}
}
