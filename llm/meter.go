package llm

import (
	"context"
	"iter"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/adk/model"

	"github.com/proctor-eval/proctor/measure"
)

// Roles a metered model plays; results account for each separately.
const (
	RoleUser  = "user"  // the user simulator
	RoleJudge = "judge" // the NL_ASSERTION judge
	RoleChat  = "chat"  // proctor's chat front door
	RoleAgent = "agent" // the baseline participant agent
	// RoleEmbedding is the embeddings calls' (MeterEmbedder): a
	// retrieval configuration's document and query vectors.
	RoleEmbedding = "embedding"
)

// Call is one metered model call (measure.LLMCall, which the result model
// stores without depending on this package).
type Call = measure.LLMCall

// Ledger collects the calls made under a context (see WithLedger). It is
// safe for concurrent use.
type Ledger struct {
	mu    sync.Mutex
	calls []Call
}

// Add records a call.
func (l *Ledger) Add(c Call) {
	l.mu.Lock()
	l.calls = append(l.calls, c)
	l.mu.Unlock()
}

// Calls returns the calls recorded so far, in order.
func (l *Ledger) Calls() []Call {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Call(nil), l.calls...)
}

type ledgerKey struct{}

// WithLedger returns a context under which metered models record their
// calls in l.
func WithLedger(ctx context.Context, l *Ledger) context.Context {
	return context.WithValue(ctx, ledgerKey{}, l)
}

// LedgerFrom returns the context's ledger, or nil.
func LedgerFrom(ctx context.Context) *Ledger {
	l, _ := ctx.Value(ledgerKey{}).(*Ledger)
	return l
}

// Usage sums calls (measure.LLMUsage).
type Usage = measure.LLMUsage

// UsageByRole sums calls per role; nil when there are none.
func UsageByRole(calls []Call) map[string]Usage { return measure.UsageByRole(calls) }

// MergeUsage adds the per-role usage b into a copy of a.
func MergeUsage(a, b map[string]Usage) map[string]Usage { return measure.MergeUsage(a, b) }

// metered is a model.LLM that records each call in the context's ledger
// and in an optional sink.
type metered struct {
	model.LLM
	role   string
	prices Prices
	sink   func(Call)
	// tracer, when set, makes a span per call (WithTracing); provider
	// names the model's provider in it.
	tracer   trace.Tracer
	provider string
}

// MeterOption configures Meter.
type MeterOption func(*metered)

// WithSink also hands every call to fn (for totals kept beyond one
// context, such as a server's). fn must be safe for concurrent use.
func WithSink(fn func(Call)) MeterOption { return func(m *metered) { m.sink = fn } }

// Meter wraps m so that every call is recorded, with its tokens and cost, in
// the ledger of the call's context (WithLedger), as played by role.
func Meter(m model.LLM, role string, prices Prices, opts ...MeterOption) model.LLM {
	mt := &metered{LLM: m, role: role, prices: prices}
	for _, o := range opts {
		o(mt)
	}
	return mt
}

// callTimer is a metered call under way: when it started, its slot waits
// and throttling, and its span.
type callTimer struct {
	start time.Time
	stats *callStats
	span  trace.Span
}

// begin starts a call of operation op ("chat", "embeddings") to model: its
// stats and, when tracing, its span, both carried by the returned context.
func (m *metered) begin(ctx context.Context, op, model string) (context.Context, callTimer) {
	t := callTimer{start: time.Now(), span: trace.SpanFromContext(context.Background())} // no-op span
	ctx, t.stats = withCallStats(ctx)
	if m.tracer != nil {
		ctx, t.span = m.tracer.Start(ctx, op+" "+model, trace.WithSpanKind(trace.SpanKindClient))
		if t.span.IsRecording() {
			t.span.SetAttributes(AttrOperation.String(op), AttrProvider.String(m.provider),
				AttrRequestModel.String(model), AttrRole.String(m.role))
		}
	}
	return ctx, t
}

// end completes c with its slot wait, throttling and own time (the wait
// for a provider slot is counted apart) and, when priced, its cost from
// the price table; then ends its span and records it in ctx's ledger and
// the sink.
func (m *metered) end(ctx context.Context, t callTimer, c Call, priced bool) {
	slotWait, throttled := t.stats.snapshot()
	c.SlotWaitMS = float64(slotWait.Microseconds()) / 1000
	c.Throttled = throttled
	c.LatencyMS = float64((time.Since(t.start) - slotWait).Microseconds()) / 1000
	if priced {
		c.CostUSD, c.Priced = m.prices.Cost(c.Model, c.InputTokens, c.OutputTokens)
	}
	endCallSpan(t.span, c)
	if l := LedgerFrom(ctx); l != nil {
		l.Add(c)
	}
	if m.sink != nil {
		m.sink(c)
	}
}

// GenerateContent implements model.LLM.
func (m *metered) GenerateContent(ctx context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		c := Call{Role: m.role, Model: m.Name()}
		if req != nil && req.Model != "" {
			c.Model = req.Model
		}
		ctx, t := m.begin(ctx, "chat", c.Model)
		defer func() { m.end(ctx, t, c, true) }()
		for resp, err := range m.LLM.GenerateContent(ctx, req, stream) {
			if err != nil {
				c.Error = err.Error()
			} else if resp != nil && resp.UsageMetadata != nil {
				// Streams may report usage on several chunks; the
				// last report is the total.
				c.InputTokens = int64(resp.UsageMetadata.PromptTokenCount)
				// Reasoning ("thoughts") tokens are billed as output but
				// counted apart from the candidates'.
				c.OutputTokens = int64(resp.UsageMetadata.CandidatesTokenCount) + int64(resp.UsageMetadata.ThoughtsTokenCount)
			}
			if !yield(resp, err) {
				return
			}
		}
	}
}
