package llm

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/openai/openai-go/v3/option"

	"github.com/proctor-eval/proctor/llm/openai"
)

// Embedder turns texts into vectors through an embeddings endpoint.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float64, error)
	// Name returns the embedder's model spec.
	Name() string
}

// EmbedOptions are an embedder's request settings.
type EmbedOptions struct {
	// Encoding is the vectors' wire encoding: openai.EncodingBase64
	// (float32s; the default, and what OpenAI's Python client asks for) or
	// openai.EncodingFloat (JSON numbers).
	Encoding string
	// BatchSize is how many texts one request carries: 0 means all of a
	// call's texts in one request, as tau2 sends them.
	BatchSize int
}

func (o EmbedOptions) encoding() string {
	if o.Encoding == "" {
		return openai.EncodingBase64
	}
	return o.Encoding
}

// NewEmbedder returns the embedder a spec names: "openai:<model>" is the
// embeddings endpoint (POST {base}/embeddings) of any OpenAI-compatible
// API, reached with Config's key, base URL and retries as New reaches the
// chat endpoint (OPENAI_API_KEY, OPENAI_BASE_URL). Gemini's embeddings are
// not offered. NewEmbedder makes no network call. A call that fails once
// its request was sent fails with a *ProviderError.
func NewEmbedder(spec string, cfg Config, opts EmbedOptions) (Embedder, error) {
	provider, name, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	if provider != ProviderOpenAI {
		return nil, fmt.Errorf("llm: embeddings %q: only openai (any OpenAI-compatible embeddings endpoint) is offered, not %q", spec, provider)
	}
	if opts.BatchSize < 0 {
		return nil, fmt.Errorf("llm: embeddings %q: batch size %d: want 0 (all texts in one request) or more", spec, opts.BatchSize)
	}
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	key := first(cfg.APIKey, getenv("OPENAI_API_KEY"))
	if key == "" {
		return nil, fmt.Errorf("llm: embeddings %s: no API key: set OPENAI_API_KEY (for a local OpenAI-compatible server that checks no key, any value)", spec)
	}
	base, err := baseURL(spec, first(cfg.BaseURL, getenv("OPENAI_BASE_URL"), openai.DefaultBaseURL))
	if err != nil {
		return nil, err
	}
	inner, err := openai.NewEmbedder(name, opts.encoding(),
		option.WithAPIKey(key),
		option.WithBaseURL(base),
		option.WithHTTPClient(httpClient(cfg)),
		option.WithMaxRetries(0), // one retry policy: ours
	)
	if err != nil {
		return nil, fmt.Errorf("llm: embeddings %s: %w", spec, err)
	}
	return &providerEmbedder{
		spec: spec, inner: inner, batch: opts.BatchSize,
		errs: providerModel{provider: provider, key: redactor(key)},
	}, nil
}

// providerEmbedder gives embeddings the providers' error contract (see
// providerModel) and splits a call into batches.
type providerEmbedder struct {
	spec  string
	inner *openai.Embedder
	batch int
	errs  providerModel // for fail only
}

func (e *providerEmbedder) Name() string { return e.spec }

// Embed implements Embedder.
func (e *providerEmbedder) Embed(ctx context.Context, texts []string) ([][]float64, error) {
	if len(texts) == 0 {
		return nil, fmt.Errorf("llm: %s: no text to embed", e.errs.provider)
	}
	size := e.batch
	if size == 0 || size > len(texts) {
		size = len(texts)
	}
	var out [][]float64
	for start := 0; start < len(texts); start += size {
		vs, err := e.embedBatch(ctx, texts[start:min(start+size, len(texts))])
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && len(vs[0]) != len(out[0]) {
			return nil, &ProviderError{Provider: e.errs.provider, Status: 200, Attempts: 1,
				Message: fmt.Sprintf("batches of %d and %d dimensions", len(out[0]), len(vs[0]))}
		}
		out = append(out, vs...)
	}
	return out, nil
}

func (e *providerEmbedder) embedBatch(ctx context.Context, texts []string) (vs [][]float64, err error) {
	ctx, st := withCallState(ctx)
	ctx = withResponseLimit(ctx, openai.MaxEmbeddingResponseBytes)
	defer func() {
		if r := recover(); r != nil { // the SDK decoding an untrusted reply
			vs, err = nil, e.errs.fail(ctx, st, fmt.Errorf("malformed reply: decoding it panicked: %v", r))
		}
	}()
	vs, usage, err := e.inner.EmbedUsage(ctx, texts)
	if err == nil {
		if _, _, _, bodyErr := st.snapshot(); bodyErr != nil {
			err = bodyErr
		}
	}
	if err != nil {
		return nil, e.errs.fail(ctx, st, err)
	}
	statsFrom(ctx).embedded(usage.PromptTokens, usage.Reported)
	return vs, nil
}

// limitedEmbedder is an Embedder whose calls take one of its provider's
// slots.
type limitedEmbedder struct {
	Embedder
	limits   *Limits
	provider string
}

// Embed implements Embedder: it waits for a slot and holds it until the
// call ends.
func (e *limitedEmbedder) Embed(ctx context.Context, texts []string) ([][]float64, error) {
	release, waited, err := e.limits.acquire(ctx, e.provider)
	statsFrom(ctx).waited(waited)
	if err != nil {
		return nil, err
	}
	defer release()
	return e.Embedder.Embed(ctx, texts)
}

// Embedder returns the embedder a spec names ("openai:text-embedding-3-large"),
// reached as s.Config says, its calls capped by s.Limits like the user
// simulator's and the judge's, and, with a cassette, recorded or replayed:
// a replaying cassette needs no provider and no API key. Its calls are
// metered (MeterEmbedder) with s.Prices, s.Sink and s.TracerProvider.
func (s *Source) Embedder(spec string, opts EmbedOptions) (Embedder, error) {
	provider, _, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	var e Embedder
	if s.Cassette == nil || s.Cassette.Mode() == ModeRecord {
		if e, err = NewEmbedder(spec, s.Config, opts); err != nil {
			return nil, err
		}
		if s.Limits.Max(provider) > 0 {
			e = &limitedEmbedder{Embedder: e, limits: s.Limits, provider: provider}
		}
	} else if provider != ProviderOpenAI {
		return nil, fmt.Errorf("llm: embeddings %q: only openai (any OpenAI-compatible embeddings endpoint) is offered, not %q", spec, provider)
	}
	if s.Cassette != nil {
		e = s.Cassette.WrapEmbedder(e, spec, opts.encoding())
	}
	prices := s.Prices
	if prices == nil {
		prices = DefaultPrices()
	}
	mopts := []MeterOption{WithTracing(s.TracerProvider, provider)}
	if s.Sink != nil {
		mopts = append(mopts, WithSink(s.Sink))
	}
	return MeterEmbedder(e, prices, mopts...), nil
}

// errNoEmbedder is a recording cassette's failure without an embedder.
var errNoEmbedder = errors.New("no embedder to record from")
