package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pycompat"
)

// The agent-facing retrieval tools, named and described as tau2's
// docstrings and pydantic schemas present them.
const (
	KBSearchTool = "KB_search"
	GrepTool     = "grep"
)

var (
	kbSearchSpec = domains.ToolSpec{
		Name:        KBSearchTool,
		Description: "Search the knowledge base for relevant documents.",
		Parameters:  json.RawMessage(`{"properties":{"query":{"description":"The search query to find relevant documents","title":"Query","type":"string"}},"required":["query"],"title":"parameters","type":"object"}`),
	}
	grepSpec = domains.ToolSpec{
		Name:        GrepTool,
		Description: "Search for a regex pattern in all knowledge base documents.\n\nReturns documents ranked by number of matches, with full content.",
		Parameters:  json.RawMessage(`{"properties":{"pattern":{"description":"The regex pattern to search for (e.g., 'credit.*card', 'fee|charge')","title":"Pattern","type":"string"}},"required":["pattern"],"title":"parameters","type":"object"}`),
	}
)

// kbSearchTiming ends every KB_search result. tau2 prints its wall-clock
// retrieval time in whole milliseconds; proctor's tool messages never
// depend on the clock, and a search takes well under a millisecond, so it
// is always 0.
const kbSearchTiming = "\n\n[Timing: retrieval=0ms, total=0ms]"

// Toolset is the retrieval tools one configuration gives an agent. It is
// cheap to make per simulation: it only refers to the shared Base.
type Toolset struct {
	base     *Base
	cfg      Config
	embedder Embedder
}

// ToolsetOption configures a Toolset.
type ToolsetOption func(*Toolset)

// WithEmbedder gives a dense configuration's KB_search its embedder (see
// NewEmbedder); configurations without embeddings ignore it.
func WithEmbedder(e Embedder) ToolsetOption { return func(t *Toolset) { t.embedder = e } }

// Toolset returns the retrieval tools of a configuration over b. A dense
// configuration's KB_search needs WithEmbedder; every toolset of a base
// shares the documents' vectors.
func (b *Base) Toolset(cfg Config, opts ...ToolsetOption) *Toolset {
	t := &Toolset{base: b, cfg: cfg}
	for _, o := range opts {
		o(t)
	}
	return t
}

// Specs returns the tools' specs for the agent: KB_search and/or grep, or
// none (no_knowledge, full_kb, golden_retrieval).
func (t *Toolset) Specs() []domains.ToolSpec {
	var specs []domains.ToolSpec
	if t.cfg.KBSearch {
		specs = append(specs, kbSearchSpec)
	}
	if t.cfg.Grep {
		specs = append(specs, grepSpec)
	}
	return specs
}

// Has reports whether the configuration gives the agent a tool of this name.
func (t *Toolset) Has(name string) bool {
	return (name == KBSearchTool && t.cfg.KBSearch) || (name == GrepTool && t.cfg.Grep)
}

// Call runs a retrieval tool on a call's decoded JSON arguments and
// returns tau2's tool message, or an error whose text is the one tau2's
// Python raises (tau2 shows it after "Error: "). It is CallContext without
// a deadline.
func (t *Toolset) Call(name string, args map[string]any) (string, error) {
	return t.CallContext(context.Background(), name, args)
}

// CallContext is Call under ctx, which bounds a dense KB_search's
// embeddings call. An error wrapping ErrEmbedding is the embeddings
// service's failure, not a message for the agent.
func (t *Toolset) CallContext(ctx context.Context, name string, args map[string]any) (string, error) {
	switch {
	case name == KBSearchTool && t.cfg.KBSearch:
		if err := pycompat.CheckKwargs("KBSearchMixin", KBSearchTool, args, []string{"query"}); err != nil {
			return "", err
		}
		if t.cfg.Embedding != nil {
			return t.denseSearch(ctx, args["query"])
		}
		return t.kbSearch(args["query"])
	case name == GrepTool && t.cfg.Grep:
		if err := pycompat.CheckKwargs("GrepMixin", GrepTool, args, []string{"pattern"}); err != nil {
			return "", err
		}
		return t.grep(args["pattern"])
	}
	return "", fmt.Errorf("Tool '%s' not found.", name) // tau2's message
}

// kbSearch is KB_search: BM25Retriever finds nothing for a falsy or blank
// query and calls strip() on anything else.
func (t *Toolset) kbSearch(query any) (string, error) {
	if pyFalsy(query) {
		return "No relevant documents found." + kbSearchTiming, nil
	}
	q, ok := query.(string)
	if !ok {
		return "", noStrip(query)
	}
	return t.KBSearch(q), nil
}

// KBSearch returns a BM25 KB_search's message for a query.
func (t *Toolset) KBSearch(query string) string {
	hits := t.base.BM25(query, t.cfg.TopK)
	if len(hits) == 0 {
		return "No relevant documents found." + kbSearchTiming
	}
	return t.base.formatHits(hits) + kbSearchTiming
}

// denseSearch is a dense KB_search: EmbeddingEncoder raises its ValueError
// for a falsy query and calls strip() on anything else.
func (t *Toolset) denseSearch(ctx context.Context, query any) (string, error) {
	if pyFalsy(query) {
		return "", errBlankQuery
	}
	q, ok := query.(string)
	if !ok {
		return "", noStrip(query)
	}
	return t.KBSearchContext(ctx, q)
}

// KBSearchContext returns KB_search's message for a query, ranked by the
// configuration's retriever: a dense one embeds the query under ctx.
func (t *Toolset) KBSearchContext(ctx context.Context, query string) (string, error) {
	if t.cfg.Embedding == nil {
		return t.KBSearch(query), nil
	}
	if t.embedder == nil {
		return "", fmt.Errorf("knowledge: %s ranks by embeddings but its toolset has no embedder (use WithEmbedder): %w", t.cfg.Name, ErrEmbedding)
	}
	hits, err := t.base.Dense(ctx, *t.cfg.Embedding, t.embedder, query, t.cfg.TopK)
	if err != nil {
		return "", err
	}
	if len(hits) == 0 {
		return "No relevant documents found." + kbSearchTiming, nil
	}
	return t.base.formatHits(hits) + kbSearchTiming, nil
}

// grep is the grep tool: GrepRetriever calls strip() on the pattern
// whatever its type.
func (t *Toolset) grep(pattern any) (string, error) {
	p, ok := pattern.(string)
	if !ok {
		return "", noStrip(pattern)
	}
	return t.Grep(p)
}

// Grep returns the grep tool's message for a pattern; the only error is a
// pattern that backtracks too long.
func (t *Toolset) Grep(pattern string) (string, error) {
	hits, err := t.base.Grep(pattern, t.cfg.GrepTopK, t.cfg.CaseSensitive)
	if err != nil {
		return "", err
	}
	if len(hits) == 0 {
		return "No matches found for pattern: " + pattern, nil
	}
	return t.base.formatHits(hits), nil
}

// formatHits writes ranked documents as tau2's retrieval tools do.
func (b *Base) formatHits(hits []Hit) string {
	var sb strings.Builder
	for i, h := range hits {
		if i > 0 {
			sb.WriteByte('\n')
		}
		doc, _ := b.Document(h.ID)
		title := doc.Title
		if title == "" {
			title = "Untitled"
		}
		fmt.Fprintf(&sb, "%d. %s\n   ID: %s\n   Score: %s\n   Content: %s\n",
			i+1, title, h.ID, FormatScore(h.Score), doc.Content)
	}
	return sb.String()
}

// FormatScore writes a score as tau2 prints it, Python's f"{score:.4f}".
func FormatScore(s float64) string { return strconv.FormatFloat(s, 'f', 4, 64) }

// pyFalsy is Python's `not v` for a decoded JSON value.
func pyFalsy(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == ""
	case float64:
		return x == 0
	case int:
		return x == 0
	case json.Number:
		f, err := x.Float64()
		return err == nil && f == 0
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// noStrip is the AttributeError of calling str.strip on another type.
func noStrip(v any) error {
	return fmt.Errorf("'%s' object has no attribute 'strip'", pycompat.TypeName(v))
}
