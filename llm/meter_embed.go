package llm

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// meteredEmbedder is an Embedder that records each call, as a Call of
// RoleEmbedding, in the context's ledger and an optional sink.
type meteredEmbedder struct {
	Embedder
	m *metered // its role, prices, sink and tracer
}

// MeterEmbedder wraps e so that every Embed call is recorded, as a Call of
// RoleEmbedding, in the ledger of the call's context (WithLedger): its
// model (e.Name()), input tokens (the replies' usage.prompt_tokens, summed
// over a call's batches), latency and cost. A reply without usage makes
// the call unpriced, with the tokens the others reported. Options are
// Meter's.
func MeterEmbedder(e Embedder, prices Prices, opts ...MeterOption) Embedder {
	m := &metered{role: RoleEmbedding, prices: prices}
	for _, o := range opts {
		o(m)
	}
	return &meteredEmbedder{Embedder: e, m: m}
}

// Embed implements Embedder.
func (e *meteredEmbedder) Embed(ctx context.Context, texts []string) (vs [][]float64, err error) {
	start := time.Now()
	c := Call{Role: e.m.role, Model: e.Name()}
	ctx, stats := withCallStats(ctx)
	span := trace.SpanFromContext(context.Background()) // no-op
	if e.m.tracer != nil {
		ctx, span = e.m.tracer.Start(ctx, "embeddings "+c.Model, trace.WithSpanKind(trace.SpanKindClient))
		if span.IsRecording() {
			span.SetAttributes(AttrOperation.String("embeddings"), AttrProvider.String(e.m.provider),
				AttrRequestModel.String(c.Model), AttrRole.String(e.m.role))
		}
	}
	defer func() {
		slotWait, throttled := stats.snapshot()
		c.SlotWaitMS = float64(slotWait.Microseconds()) / 1000
		c.Throttled = throttled
		c.LatencyMS = float64((time.Since(start) - slotWait).Microseconds()) / 1000
		tokens, reported := stats.usage()
		c.InputTokens = tokens
		c.CostUSD, c.Priced = e.m.prices.Cost(c.Model, c.InputTokens, 0)
		if !reported {
			c.CostUSD, c.Priced = 0, false
		}
		if err != nil {
			c.Error = err.Error()
		}
		endCallSpan(span, c)
		if l := LedgerFrom(ctx); l != nil {
			l.Add(c)
		}
		if e.m.sink != nil {
			e.m.sink(c)
		}
	}()
	return e.Embedder.Embed(ctx, texts)
}
