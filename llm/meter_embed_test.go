package llm_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
)

// ignoreTimes leaves out of a comparison what a call's timing decides.
var ignoreTimes = cmpopts.IgnoreFields(llm.Call{}, "LatencyMS", "SlotWaitMS")

// embedCalls returns the calls an embedder made under a ledger and the
// ones its Source's sink received.
func embedCalls(t *testing.T, src *llm.Source, spec string, opts llm.EmbedOptions, texts []string) (ledger, sink []llm.Call) {
	t.Helper()
	var mu sync.Mutex
	src.Sink = func(c llm.Call) { mu.Lock(); sink = append(sink, c); mu.Unlock() }
	e, err := src.Embedder(spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	l := &llm.Ledger{}
	_, _ = e.Embed(llm.WithLedger(testCtx(t), l), texts)
	return l.Calls(), sink
}

// TestEmbedderMetered checks that a Source's embeddings calls are
// recorded in the context's ledger and the sink, as role "embedding", with
// the replies' usage.prompt_tokens and the price table's cost.
func TestEmbedderMetered(t *testing.T) {
	texts := []string{"overdraft fee", "credit card limit", "wire transfer"}
	large := "openai:text-embedding-3-large"
	for _, c := range []struct {
		name  string
		spec  string
		opts  llm.EmbedOptions
		reply llmtest.Reply
		want  llm.Call
	}{
		{name: "usage priced", spec: large, reply: llmtest.Reply{InputTokens: 1000},
			want: llm.Call{Role: llm.RoleEmbedding, Model: large, InputTokens: 1000, CostUSD: 1000 * 0.13 / 1e6, Priced: true}},
		{name: "batches summed", spec: "openai:text-embedding-3-small", opts: llm.EmbedOptions{BatchSize: 2}, reply: llmtest.Reply{InputTokens: 500},
			want: llm.Call{Role: llm.RoleEmbedding, Model: "openai:text-embedding-3-small", InputTokens: 1000, CostUSD: 1000 * 0.02 / 1e6, Priced: true}},
		{name: "no usage is unpriced", spec: large, reply: llmtest.Reply{Raw: `{"data":[{"embedding":[1]},{"embedding":[2]},{"embedding":[3]}]}`},
			want: llm.Call{Role: llm.RoleEmbedding, Model: large}},
		{name: "unknown model", spec: "openai:text-embedding-test", reply: llmtest.Reply{InputTokens: 9},
			want: llm.Call{Role: llm.RoleEmbedding, Model: "openai:text-embedding-test", InputTokens: 9}},
		{name: "failure", spec: large, reply: llmtest.Reply{Status: 400, ErrorMessage: "input is invalid"},
			want: llm.Call{Role: llm.RoleEmbedding, Model: large, Priced: true,
				Error: "llm: openai: HTTP 400: input is invalid"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAI(t, func(llmtest.Request) llmtest.Reply { return c.reply })
			src := &llm.Source{Config: llm.Config{APIKey: testKey, BaseURL: srv.URL, Getenv: func(string) string { return "" }}}
			ledger, sink := embedCalls(t, src, c.spec, c.opts, texts)
			want := []llm.Call{c.want}
			if diff := gocmp.Diff(want, ledger, ignoreTimes, cmpopts.EquateApprox(0, 1e-15)); diff != "" {
				t.Errorf("ledger (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(want, sink, ignoreTimes, cmpopts.EquateApprox(0, 1e-15)); diff != "" {
				t.Errorf("sink (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEmbedderMeteredCassette checks that recorded and replayed
// embeddings calls are metered alike, with the usage the recording kept,
// and that a repeated request answered from the recording counts too.
func TestEmbedderMeteredCassette(t *testing.T) {
	spec := "openai:text-embedding-3-large"
	path := filepath.Join(t.TempDir(), "c.json")
	srv := llmtest.NewOpenAI(t, func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{InputTokens: 100 * len(r.Input)} })
	want := []llm.Call{
		{Role: llm.RoleEmbedding, Model: spec, InputTokens: 200, CostUSD: 200 * 0.13 / 1e6, Priced: true},
		{Role: llm.RoleEmbedding, Model: spec, InputTokens: 100, CostUSD: 100 * 0.13 / 1e6, Priced: true},
		{Role: llm.RoleEmbedding, Model: spec, InputTokens: 200, CostUSD: 200 * 0.13 / 1e6, Priced: true},
	}
	run := func(src *llm.Source) []llm.Call {
		e, err := src.Embedder(spec, llm.EmbedOptions{})
		if err != nil {
			t.Fatal(err)
		}
		l := &llm.Ledger{}
		ctx := llm.WithLedger(testCtx(t), l)
		for _, texts := range [][]string{{"doc one", "doc two"}, {"a query"}, {"doc one", "doc two"}} {
			if _, err := e.Embed(ctx, texts); err != nil {
				t.Fatal(err)
			}
		}
		return l.Calls()
	}
	rec, err := llm.OpenCassette(path, llm.ModeRecord)
	if err != nil {
		t.Fatal(err)
	}
	recorded := run(&llm.Source{Config: llm.Config{APIKey: testKey, BaseURL: srv.URL, Getenv: func(string) string { return "" }}, Cassette: rec})
	if err := rec.Save(); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	rep, err := llm.OpenCassette(path, llm.ModeReplay)
	if err != nil {
		t.Fatal(err)
	}
	replayed := run(&llm.Source{Config: llm.Config{Getenv: func(string) string { return "" }}, Cassette: rep})
	// A cassette recorded before usage was kept replays unpriced.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]any
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	for _, e := range file["embeddings"].([]any) {
		delete(e.(map[string]any), "input_tokens")
	}
	old := filepath.Join(t.TempDir(), "old.json")
	if raw, err = json.Marshal(file); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	oldRep, err := llm.OpenCassette(old, llm.ModeReplay)
	if err != nil {
		t.Fatal(err)
	}
	unpriced := run(&llm.Source{Config: llm.Config{Getenv: func(string) string { return "" }}, Cassette: oldRep})
	if len(unpriced) != 3 {
		t.Errorf("replay of a cassette without usage: %d calls metered, want 3", len(unpriced))
	}
	for i := range unpriced {
		if c := unpriced[i]; c.InputTokens != 0 || c.Priced || c.CostUSD != 0 {
			t.Errorf("replay of a cassette without usage: call %d = %+v, want 0 tokens, unpriced", i, c)
		}
	}
	for name, got := range map[string][]llm.Call{"recording": recorded, "replay": replayed} {
		if diff := gocmp.Diff(want, got, ignoreTimes, cmpopts.EquateApprox(0, 1e-15)); diff != "" {
			t.Errorf("%s's calls (-want +got):\n%s", name, diff)
		}
	}
}
