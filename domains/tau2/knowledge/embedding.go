package knowledge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/llm/openai"
)

// EmbeddingSpec is a dense configuration's embedder, as tau2's
// EMBEDDER_REGISTRY makes it: OpenAIEmbedder (the OpenAI client's
// defaults: OPENAI_API_KEY, OPENAI_BASE_URL, vectors as base64 float32s)
// or OpenRouterEmbedder (the same wire at OpenRouter, OPENROUTER_API_KEY,
// vectors as JSON floats, queries prefixed with Qwen's instruction).
type EmbeddingSpec struct {
	// Type is tau2's embedder_type: "openai" or "openrouter".
	Type string
	// Model is the model the API is asked for.
	Model string
	// Encoding is the vectors' wire encoding (openai.EncodingBase64 or
	// openai.EncodingFloat).
	Encoding string
	// QueryInstruction, if set, makes a query's text
	// "Instruct: {QueryInstruction}\nQuery:{query}"; documents go as they are.
	QueryInstruction string
	// BaseURL and KeyEnv reach OpenRouter; empty for OpenAI (llm.Config's
	// defaults).
	BaseURL string
	KeyEnv  string
}

// The embedders of tau2's dense configurations.
var (
	openaiEmbedding = EmbeddingSpec{Type: "openai", Model: "text-embedding-3-large", Encoding: openai.EncodingBase64}
	qwenEmbedding   = EmbeddingSpec{
		Type: "openrouter", Model: "qwen/qwen3-embedding-8b", Encoding: openai.EncodingFloat,
		QueryInstruction: "Given a web search query, retrieve relevant passages that answer the query",
		BaseURL:          "https://openrouter.ai/api/v1", KeyEnv: "OPENROUTER_API_KEY",
	}
)

// Spec is the llm model spec of the embedder ("openai:<model>": both are
// the OpenAI wire, so llm.Limits counts OpenRouter's calls under openai).
func (s EmbeddingSpec) Spec() string { return "openai:" + s.Model }

// key names the embedder's vectors: its model and encoding.
func (s EmbeddingSpec) key() string { return s.Type + ":" + s.Model + ":" + s.Encoding }

// queryText is the text embedded for a query.
func (s EmbeddingSpec) queryText(q string) string {
	if s.QueryInstruction == "" {
		return q
	}
	return "Instruct: " + s.QueryInstruction + "\nQuery:" + q
}

// NewEmbedder returns the embedder cfg's KB_search needs from src (its
// keys, limits and cassette), or nil for a configuration without one.
// OpenRouter's key and base URL are read from OPENROUTER_API_KEY and
// OpenRouter's API unless src's Config sets them.
func NewEmbedder(src *llm.Source, cfg Config) (Embedder, error) {
	if cfg.Embedding == nil {
		return nil, nil
	}
	s := *cfg.Embedding
	if s.Type == "openrouter" {
		getenv := src.Config.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		routed := &llm.Source{Config: src.Config, Prices: src.Prices, Cassette: src.Cassette, Sink: src.Sink, TracerProvider: src.TracerProvider, Limits: src.Limits}
		routed.Config.BaseURL = s.BaseURL
		routed.Config.APIKey = getenv(s.KeyEnv)
		if routed.Config.APIKey == "" && (src.Cassette == nil || src.Cassette.Mode() == llm.ModeRecord) {
			return nil, fmt.Errorf("knowledge: %s needs an OpenRouter key: set %s", cfg.Name, s.KeyEnv)
		}
		src = routed
	}
	e, err := src.Embedder(s.Spec(), llm.EmbedOptions{Encoding: s.Encoding})
	if err != nil {
		return nil, fmt.Errorf("knowledge: %s: %w", cfg.Name, err)
	}
	return e, nil
}

// Prepare embeds the documents for cfg now, if it ranks by embeddings, so
// that a run fails before its first simulation when the embeddings
// service does (tau2 indexes when it builds the tools). Later toolsets
// share the vectors.
func (b *Base) Prepare(ctx context.Context, cfg Config, e Embedder) error {
	if cfg.Embedding == nil {
		return nil
	}
	if e == nil {
		return fmt.Errorf("knowledge: %s ranks by embeddings but has no embedder", cfg.Name)
	}
	_, err := b.dense(ctx, cfg.Embedding.key(), e)
	return err
}

// Dense ranks the documents for query as tau2's embedding pipeline does:
// the query's vector (cached per process), cosine similarity with every
// document, the best min(topK, n). A falsy or blank query is tau2's
// ValueError.
func (b *Base) Dense(ctx context.Context, spec EmbeddingSpec, e Embedder, query string, topK int) ([]Hit, error) {
	if strings.TrimFunc(query, pyIsSpace) == "" {
		return nil, errBlankQuery
	}
	ix, err := b.dense(ctx, spec.key(), e)
	if err != nil {
		return nil, err
	}
	q, err := ix.query(ctx, e, spec.queryText(query))
	if err != nil {
		return nil, err
	}
	return b.rankDense(ix.cosine(q), topK), nil
}

// errBlankQuery is EmbeddingEncoder's ValueError for an empty query.
var errBlankQuery = errors.New("Empty or missing input for key 'query': cannot generate embedding from blank text.")
