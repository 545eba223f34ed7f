package llm

import "context"

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
	c := Call{Role: e.m.role, Model: e.Name()}
	ctx, t := e.m.begin(ctx, "embeddings", c.Model)
	defer func() {
		tokens, reported := t.stats.usage()
		c.InputTokens = tokens
		if err != nil {
			c.Error = err.Error()
		}
		e.m.end(ctx, t, c, reported)
	}()
	return e.Embedder.Embed(ctx, texts)
}
