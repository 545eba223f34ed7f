package llm_test

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/llm/openai"
)

func newEmbedder(t *testing.T, srv *llmtest.Server, opts llm.EmbedOptions) llm.Embedder {
	t.Helper()
	e, err := llm.NewEmbedder("openai:text-embedding-test", llm.Config{
		APIKey: testKey, BaseURL: srv.URL, MaxRetryWait: 5 * time.Millisecond,
		Getenv: func(string) string { return "" },
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func fakeVectors(texts ...string) [][]float64 {
	out := make([][]float64, len(texts))
	for i, text := range texts {
		out[i] = llmtest.Embedding(text)
	}
	return out
}

// TestEmbedderWire checks the request an embedder sends (model, input,
// encoding_format, key), its batches and the vectors it decodes in both
// encodings.
func TestEmbedderWire(t *testing.T) {
	texts := []string{"overdraft fee", "credit card limit", "", "wire transfer", "overdraft fee"}
	for _, c := range []struct {
		name      string
		opts      llm.EmbedOptions
		format    string
		batches   [][]string
		wantError string
	}{
		{name: "default is base64, one request", format: "base64", batches: [][]string{texts}},
		{name: "float", opts: llm.EmbedOptions{Encoding: openai.EncodingFloat}, format: "float", batches: [][]string{texts}},
		{name: "batches of 2", opts: llm.EmbedOptions{BatchSize: 2}, format: "base64", batches: [][]string{texts[:2], texts[2:4], texts[4:]}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAI(t, func(llmtest.Request) llmtest.Reply { return llmtest.Reply{InputTokens: 7} })
			got, err := newEmbedder(t, srv, c.opts).Embed(testCtx(t), texts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := gocmp.Diff(fakeVectors(texts...), got); diff != "" {
				t.Errorf("vectors (-want +got):\n%s", diff)
			}
			var batches [][]string
			for _, r := range srv.Requests() {
				batches = append(batches, r.Input)
				if r.Model != "text-embedding-test" || r.EncodingFormat != c.format || r.Header.Get("Authorization") != "Bearer "+testKey {
					t.Errorf("request model %q, encoding_format %q, authorization %q", r.Model, r.EncodingFormat, r.Header.Get("Authorization"))
				}
			}
			if diff := gocmp.Diff(c.batches, batches); diff != "" {
				t.Errorf("batches (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEmbedderFailures checks retries after 429 (Retry-After honoured)
// and that malformed or failed replies are ProviderErrors without the key.
func TestEmbedderFailures(t *testing.T) {
	for _, c := range []struct {
		name     string
		replies  []llmtest.Reply
		requests int
		want     string // "" means success
	}{
		{name: "429 then ok", replies: []llmtest.Reply{{Status: 429, RetryAfter: "1ms", ErrorMessage: "slow down"}, {}}, requests: 2},
		{name: "400", replies: []llmtest.Reply{{Status: 400, ErrorMessage: "input is invalid"}}, requests: 1, want: "HTTP 400: input is invalid"},
		{name: "too few vectors", replies: []llmtest.Reply{{Embeddings: [][]float64{{1}}}}, requests: 1, want: "1 vectors for 2 texts"},
		{name: "ragged", replies: []llmtest.Reply{{Embeddings: [][]float64{{1, 2}, {1}}}}, requests: 1, want: "data[1]: 1 dimensions, data[0] has 2"},
		{name: "not finite", replies: []llmtest.Reply{{Raw: `{"data":[{"embedding":"AACAfw=="},{"embedding":"AACAfw=="}]}`}}, requests: 1, want: "not finite"},
		{name: "not json", replies: []llmtest.Reply{{Raw: `{"data":`}}, requests: 1, want: "malformed embeddings reply"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAI(t, llmtest.Sequence(c.replies...))
			got, err := newEmbedder(t, srv, llm.EmbedOptions{}).Embed(testCtx(t), []string{"a b", "c"})
			if n := len(srv.Requests()); n != c.requests {
				t.Errorf("%d requests, want %d", n, c.requests)
			}
			if c.want == "" {
				if err != nil || len(got) != 2 {
					t.Fatalf("Embed = %d vectors, %v", len(got), err)
				}
				return
			}
			var pe *llm.ProviderError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Embed error = %v, want a ProviderError saying %q", err, c.want)
			}
			checkNoKey(t, err)
		})
	}
}

// TestEmbedderCassetteRoundTrip records embeddings through a Source, then
// replays them with the server stopped and no API key.
func TestEmbedderCassetteRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	srv := llmtest.NewOpenAI(t, func(llmtest.Request) llmtest.Reply { return llmtest.Reply{} })
	rec, err := llm.OpenCassette(path, llm.ModeRecord)
	if err != nil {
		t.Fatal(err)
	}
	src := &llm.Source{Config: llm.Config{APIKey: testKey, BaseURL: srv.URL, Getenv: func(string) string { return "" }}, Cassette: rec}
	e, err := src.Embedder("openai:text-embedding-test", llm.EmbedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	calls := [][]string{{"doc one", "doc two"}, {"a query"}, {"doc one", "doc two"}}
	var recorded [][][]float64
	for _, texts := range calls {
		vs, err := e.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		recorded = append(recorded, vs)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("recording made %d requests, want 2 (a repeated request is answered from the recording)", n)
	}
	if err := rec.Save(); err != nil {
		t.Fatal(err)
	}
	srv.Close()

	rep, err := llm.OpenCassette(path, llm.ModeReplay)
	if err != nil {
		t.Fatal(err)
	}
	replaySrc := &llm.Source{Config: llm.Config{Getenv: func(string) string { return "" }}, Cassette: rep}
	re, err := replaySrc.Embedder("openai:text-embedding-test", llm.EmbedOptions{})
	if err != nil {
		t.Fatalf("a replaying Source needs no key: %v", err)
	}
	for i := len(calls) - 1; i >= 0; i-- { // any order
		got, err := re.Embed(ctx, calls[i])
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(recorded[i], got); diff != "" {
			t.Errorf("replay of call %d (-recorded +replayed):\n%s", i, diff)
		}
	}
	_, err = re.Embed(ctx, []string{"never recorded"})
	if !errors.Is(err, llm.ErrCassetteMiss) || !strings.Contains(err.Error(), "never recorded") {
		t.Fatalf("a replay miss should be ErrCassetteMiss naming the text, got %v", err)
	}
	other, _ := replaySrc.Embedder("openai:text-embedding-test", llm.EmbedOptions{Encoding: openai.EncodingFloat})
	if _, err := other.Embed(ctx, calls[1]); !errors.Is(err, llm.ErrCassetteMiss) {
		t.Fatalf("another encoding is another request, got %v", err)
	}
}

// TestEmbedderLimits checks that a Source's Limits cap embeddings calls.
func TestEmbedderLimits(t *testing.T) {
	gate := make(chan struct{})
	srv := llmtest.NewOpenAI(t, func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Hold: gate} })
	limits := llm.NewLimits(0, map[string]int{"openai": 1})
	src := &llm.Source{Config: llm.Config{APIKey: testKey, BaseURL: srv.URL, Getenv: func(string) string { return "" }}, Limits: limits}
	e, err := src.Embedder("openai:text-embedding-test", llm.EmbedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { _, errs[i] = e.Embed(ctx, []string{"q"}) })
	}
	waitFor(ctx, t, func() bool { return limits.Waiting("openai") == 1 && srv.InFlight() == 1 })
	close(gate)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if srv.MaxInFlight() != 1 {
		t.Fatalf("%d embeddings calls in flight at once, the limit is 1", srv.MaxInFlight())
	}
}
