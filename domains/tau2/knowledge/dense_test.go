package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
)

// testdata/dense.json holds what tau2's own embedding pipeline returns
// over the fake embeddings endpoint (fixtureVector): made by
// testdata/dense/gen_dense_fixture.py, which imports tau2's embedders,
// indexer, encoder, CosineRetriever and RetrievalPipeline and points them
// at this package's TestServeFakeEmbeddings, under numpy 1.24.2 with the
// reference BLAS. Its cases cover the real 698 documents at 3072
// dimensions, 30 synthetic ones whose vectors tie (numpy's argsort order,
// reversed), zero vectors (a query without words scores every document
// 0), blank queries (tau2's ValueError), top_k 3, 10 and 30, and
// OpenRouter's Qwen query instruction with float vectors.
type denseFixture struct {
	Synthetic []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		Text  string `json:"text"`
	} `json:"synthetic"`
	Cases []struct {
		Documents    string       `json:"documents"`
		EmbedderType string       `json:"embedder_type"`
		Model        string       `json:"model"`
		TopK         int          `json:"top_k"`
		Query        string       `json:"query"`
		Hits         []fixtureHit `json:"hits"`
		Text         string       `json:"text"`
		Error        string       `json:"error"`
	} `json:"cases"`
}

func loadDense(t *testing.T) denseFixture {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "dense.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f denseFixture
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func denseBases(t *testing.T, f denseFixture) map[string]*Base {
	t.Helper()
	real, err := realBase()
	if err != nil {
		t.Skipf("tau2's banking_knowledge documents: %v", err)
	}
	var docs []Document
	for _, d := range f.Synthetic {
		docs = append(docs, Document{ID: d.ID, Title: d.Title, Content: d.Text})
	}
	syn, err := New(docs)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Base{"banking": real, "synthetic": syn}
}

// denseConfig is the configuration of a fixture case's embedder.
func denseConfig(etype, model string, topK int) Config {
	spec := openaiEmbedding
	if etype == "openrouter" {
		spec = qwenEmbedding
	}
	spec.Model = model
	return Config{Name: "dense-" + etype, KBSearch: true, TopK: topK, Embedding: &spec}
}

func testSource(srv *llmtest.Server, c *llm.Cassette) *llm.Source {
	env := map[string]string{"OPENROUTER_API_KEY": "test-key"}
	return &llm.Source{Cassette: c, Config: llm.Config{
		APIKey: "test-key", BaseURL: srv.URL, MaxRetryWait: 5 * time.Millisecond,
		Getenv: func(k string) string { return env[k] },
	}}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestDenseMatchesTau2 runs every fixture case through proctor's KB_search
// (the llm embedder, the fake endpoint, the shared index) and compares ids,
// raw scores (bit for bit) and the tool's text with tau2's.
func TestDenseMatchesTau2(t *testing.T) {
	f := loadDense(t)
	bases := denseBases(t, f)
	srv := llmtest.NewOpenAI(t, fixtureScript)
	ctx := testCtx(t)
	for _, c := range f.Cases {
		cfg := denseConfig(c.EmbedderType, c.Model, c.TopK)
		if cfg.Embedding.BaseURL != "" {
			cfg.Embedding.BaseURL = srv.URL // the fake stands in for OpenRouter too
		}
		e, err := NewEmbedder(testSource(srv, nil), cfg)
		if err != nil {
			t.Fatal(err)
		}
		tools := bases[c.Documents].Toolset(cfg, WithEmbedder(e))
		got, err := tools.CallContext(ctx, KBSearchTool, map[string]any{"query": c.Query})
		name := c.Documents + "/" + c.Model + "/" + c.Query
		if c.Error != "" {
			if err == nil || err.Error() != c.Error {
				t.Errorf("%s: error %v, tau2 raises %q", name, err, c.Error)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := gocmp.Diff(c.Text, got); diff != "" {
			t.Errorf("%s: KB_search text (-tau2 +proctor):\n%s", name, diff)
		}
		hits, err := bases[c.Documents].Dense(ctx, *cfg.Embedding, e, c.Query, c.TopK)
		if err != nil {
			t.Fatal(err)
		}
		var gotHits []fixtureHit
		for _, h := range hits {
			gotHits = append(gotHits, fixtureHit{ID: h.ID, Score: FormatScore(h.Score), Raw: h.Score})
		}
		if diff := gocmp.Diff(c.Hits, gotHits); diff != "" {
			t.Errorf("%s: hits (-tau2 +proctor):\n%s", name, diff)
		}
	}
	// Documents are embedded once per base and embedder; queries once each.
	docCalls := map[int]int{}
	for _, r := range srv.Requests() {
		if len(r.Input) > 1 {
			docCalls[len(r.Input)]++
		}
	}
	if diff := gocmp.Diff(map[int]int{698: 1, 30: 2}, docCalls); diff != "" {
		t.Errorf("document embedding calls by size (-want +got):\n%s", diff)
	}
}

// TestDenseCassetteRoundTrip records a dense KB_search, then replays it
// with the fake endpoint stopped: same text, and a query never recorded
// is a cassette miss wrapped as an embeddings failure.
func TestDenseCassetteRoundTrip(t *testing.T) {
	f := loadDense(t)
	docs := []Document{}
	for _, d := range f.Synthetic {
		docs = append(docs, Document{ID: d.ID, Title: d.Title, Content: d.Text})
	}
	cfg := denseConfig("openai", "fake", 5)
	path := filepath.Join(t.TempDir(), "cassette.json")
	srv := llmtest.NewOpenAI(t, fixtureScript)
	ctx := testCtx(t)
	search := func(c *llm.Cassette, query string) (string, error) {
		b, err := New(docs) // a fresh process's base
		if err != nil {
			t.Fatal(err)
		}
		e, err := NewEmbedder(testSource(srv, c), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return b.Toolset(cfg, WithEmbedder(e)).CallContext(ctx, KBSearchTool, map[string]any{"query": query})
	}
	rec, err := llm.OpenCassette(path, llm.ModeRecord)
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := search(rec, "overdraft fee")
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Save(); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	rep, err := llm.OpenCassette(path, llm.ModeReplay)
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := search(rep, "overdraft fee")
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(recorded, replayed); diff != "" {
		t.Errorf("replayed KB_search (-recorded +replayed):\n%s", diff)
	}
	_, err = search(rep, "credit card")
	if !errors.Is(err, llm.ErrCassetteMiss) || !errors.Is(err, ErrEmbedding) {
		t.Fatalf("an unrecorded query = %v, want a cassette miss wrapped in ErrEmbedding", err)
	}
}

// TestDenseArguments checks KB_search's argument handling with
// embeddings: tau2's EmbeddingEncoder errors, and no embedder.
func TestDenseArguments(t *testing.T) {
	f := loadDense(t)
	b := denseBases(t, f)["synthetic"]
	srv := llmtest.NewOpenAI(t, fixtureScript)
	cfg := denseConfig("openai", "fake", 10)
	e, err := NewEmbedder(testSource(srv, nil), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": ""}, string(errBlankQuery.Error())},
		{map[string]any{"query": nil}, string(errBlankQuery.Error())},
		{map[string]any{"query": " \t\u001c"}, string(errBlankQuery.Error())},
		{map[string]any{"query": 3.0}, "'float' object has no attribute 'strip'"},
		{map[string]any{}, "KBSearchMixin.KB_search() missing 1 required positional argument: 'query'"},
	} {
		_, err := b.Toolset(cfg, WithEmbedder(e)).Call(KBSearchTool, c.args)
		if err == nil || err.Error() != c.want {
			t.Errorf("KB_search(%v) error %v, want %q", c.args, err, c.want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("bad arguments made %d embeddings calls", n)
	}
	if _, err := b.Toolset(cfg).Call(KBSearchTool, map[string]any{"query": "fee"}); !errors.Is(err, ErrEmbedding) {
		t.Errorf("a dense toolset without an embedder: %v", err)
	}
}
