package llm_test

import (
	"context"
	"iter"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/proctor-eval/proctor/llm"
	"google.golang.org/adk/model"
	"google.golang.org/genai"
)

func TestMeterRecordsPerRoleInTheContextLedger(t *testing.T) {
	prices := llm.Prices{"fake-model": {InputPerMTok: 2, OutputPerMTok: 8}}
	var mu sync.Mutex
	var sunk []llm.Call
	user := llm.Meter(&counting{}, llm.RoleUser, prices, llm.WithSink(func(c llm.Call) { mu.Lock(); sunk = append(sunk, c); mu.Unlock() }))
	judge := llm.Meter(&counting{}, llm.RoleJudge, prices)
	broken := llm.Meter(&counting{fail: true}, llm.RoleJudge, llm.Prices{})

	var ledger llm.Ledger
	ctx := llm.WithLedger(context.Background(), &ledger)
	for _, stream := range []bool{false, true} {
		if _, err := ask(t, ctx, user, "hi", stream); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ask(t, ctx, judge, "judge this", false); err != nil {
		t.Fatal(err)
	}
	if _, err := ask(t, ctx, broken, "judge this", false); err == nil {
		t.Fatal("want an error")
	}
	// Calls outside a ledger context are not lost for the sink.
	if _, err := ask(t, context.Background(), user, "hi", false); err != nil {
		t.Fatal(err)
	}

	calls := ledger.Calls()
	if len(calls) != 4 {
		t.Fatalf("ledger has %d calls, want 4: %+v", len(calls), calls)
	}
	if len(sunk) != 3 {
		t.Fatalf("sink got %d calls, want 3", len(sunk))
	}
	byRole := llm.UsageByRole(calls)
	u, j := byRole[llm.RoleUser], byRole[llm.RoleJudge]
	wantCost := (2*1000*2.0 + 2*500*8.0) / 1e6
	if u.Calls != 2 || u.InputTokens != 2000 || u.OutputTokens != 1000 || math.Abs(u.CostUSD-wantCost) > 1e-12 || u.Unpriced != 0 {
		t.Fatalf("user usage = %+v, want 2 calls, 2000/1000 tokens, $%g", u, wantCost)
	}
	if j.Calls != 2 || j.Errors != 1 || j.Unpriced != 1 {
		t.Fatalf("judge usage = %+v, want 2 calls, 1 error, 1 unpriced", j)
	}
	if calls[3].Error == "" || calls[3].Priced {
		t.Fatalf("failed call recorded as %+v", calls[3])
	}
	total := llm.MergeUsage(byRole, map[string]llm.Usage{llm.RoleUser: {Calls: 1, CostUSD: 1}})
	if total[llm.RoleUser].Calls != 3 || total[llm.RoleJudge].Calls != 2 {
		t.Fatalf("merged usage = %+v", total)
	}
}

func TestMeterBillsThoughtsAsOutput(t *testing.T) {
	var ledger llm.Ledger
	m := llm.Meter(thinking{}, llm.RoleJudge, llm.Prices{"thinker": {OutputPerMTok: 10}})
	if _, err := ask(t, llm.WithLedger(context.Background(), &ledger), m, "x", false); err != nil {
		t.Fatal(err)
	}
	c := ledger.Calls()[0]
	if c.OutputTokens != 700 || c.CostUSD != 700*10/1e6 {
		t.Fatalf("call %+v: want 500 candidate + 200 thought tokens billed as output", c)
	}
}

// thinking reports reasoning tokens beside the answer's.
type thinking struct{}

func (thinking) Name() string { return "thinker" }

func (thinking) GenerateContent(_ context.Context, _ *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		yield(&model.LLMResponse{Content: genai.NewContentFromText("ok", genai.RoleModel),
			UsageMetadata: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 10, CandidatesTokenCount: 500, ThoughtsTokenCount: 200}}, nil)
	}
}

func TestPrices(t *testing.T) {
	p := llm.DefaultPrices()
	if c, ok := p.Cost("openai:gpt-4.1", 1_000_000, 1_000_000); !ok || c != 10 {
		t.Fatalf("gpt-4.1 by spec: %v %v, want 10 true", c, ok)
	}
	if _, ok := p.Cost("openai:my-finetune", 1, 1); ok {
		t.Fatal("an unknown model has no price")
	}
	extra, err := llm.ReadPrices(strings.NewReader(`{"openai:my-finetune": {"input_per_mtok": 1, "output_per_mtok": 3}, "gpt-4.1": {"input_per_mtok": 0, "output_per_mtok": 0}}`))
	if err != nil {
		t.Fatal(err)
	}
	q := p.With(extra)
	if c, ok := q.Cost("openai:my-finetune", 1_000_000, 0); !ok || c != 1 {
		t.Fatalf("extended table: %v %v", c, ok)
	}
	if c, _ := q.Cost("gpt-4.1", 5, 5); c != 0 {
		t.Fatalf("override did not win: %v", c)
	}
	if c, _ := p.Cost("gpt-4.1", 1_000_000, 0); c != 2 {
		t.Fatalf("With changed its receiver: %v", c)
	}
	for _, bad := range []string{`[]`, `{"m": {"input_per_mtok": -1}}`, `{"m": {"input": 1}}`, `{"": {}}`, `{"m": {"input_per_mtok": 1e999}}`, strings.Repeat(" ", 2<<20)} {
		if _, err := llm.ReadPrices(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadPrices(%.40q) accepted", bad)
		}
	}
}

func FuzzReadPrices(f *testing.F) {
	f.Add(`{"gpt-4.1": {"input_per_mtok": 2, "output_per_mtok": 8}}`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := llm.ReadPrices(strings.NewReader(s))
		if err != nil {
			return
		}
		for name := range p {
			if c, ok := p.Cost(name, 10, 10); !ok || c < 0 || math.IsNaN(c) {
				t.Fatalf("%s: cost %v %v", name, c, ok)
			}
		}
	})
}
