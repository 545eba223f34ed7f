package knowledge

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// PromptKind is how a configuration's policy prompt is composed.
type PromptKind int

// The prompt kinds of tau2's retrieval variants.
const (
	// PromptStandard substitutes the prompt components only.
	PromptStandard PromptKind = iota
	// PromptFullKB also inlines every document ({{full_knowledge_base}}).
	PromptFullKB
	// PromptGolden also inlines the task's required documents
	// ({{required_documents}}).
	PromptGolden
)

// Config is one retrieval configuration, as tau2's --retrieval-config
// names it: the agent's prompt template and its retrieval tools.
type Config struct {
	Name string
	// Template is the prompt template's file name in the domain's prompts/.
	Template string
	Prompt   PromptKind
	// KBSearch gives the agent KB_search, ranked by BM25 or, with
	// Embedding, by cosine similarity of embeddings, the first TopK.
	KBSearch  bool
	TopK      int
	Embedding *EmbeddingSpec
	// Grep gives the agent grep, the first GrepTopK documents by matches.
	Grep          bool
	GrepTopK      int
	CaseSensitive bool
}

// offered are the configurations proctor runs: all of tau2's that need
// neither an LLM reranker nor a shell sandbox.
var offered = []Config{
	{Name: "no_knowledge", Template: "no_knowledge.md"},
	{Name: "full_kb", Template: "full_kb.md", Prompt: PromptFullKB},
	{Name: "golden_retrieval", Template: "required_docs.md", Prompt: PromptGolden},
	{Name: "bm25", Template: "classic_rag_bm25_no_grep.md", KBSearch: true},
	{Name: "bm25_grep", Template: "classic_rag_bm25.md", KBSearch: true, Grep: true},
	{Name: "grep_only", Template: "grep_only.md", Grep: true},
	{Name: "openai_embeddings", Template: "classic_rag_openai_no_grep.md", KBSearch: true, Embedding: &openaiEmbedding},
	{Name: "openai_embeddings_grep", Template: "classic_rag_openai.md", KBSearch: true, Grep: true, Embedding: &openaiEmbedding},
	{Name: "qwen_embeddings", Template: "classic_rag_qwen_no_grep.md", KBSearch: true, Embedding: &qwenEmbedding},
	{Name: "qwen_embeddings_grep", Template: "classic_rag_qwen.md", KBSearch: true, Grep: true, Embedding: &qwenEmbedding},
}

// notOffered says, for each of tau2's other configurations, what it needs
// that proctor does not have.
var notOffered = map[string]string{
	"openai_embeddings_reranker":      "OpenAI embeddings and an LLM reranker, not offered yet",
	"openai_embeddings_reranker_grep": "OpenAI embeddings and an LLM reranker, not offered yet",
	"qwen_embeddings_reranker":        "OpenRouter embeddings and an LLM reranker, not offered yet",
	"qwen_embeddings_reranker_grep":   "OpenRouter embeddings and an LLM reranker, not offered yet",
	"bm25_reranker":                   "an LLM reranker (tau2's pointwise_llm_reranker), not offered yet",
	"bm25_reranker_grep":              "an LLM reranker (tau2's pointwise_llm_reranker), not offered yet",
	"terminal_use":                    "tau2's shell sandbox (sandbox-runtime), which proctor does not offer",
	"terminal_use_write":              "tau2's shell sandbox (sandbox-runtime), which proctor does not offer",
	"alltools":                        "OpenAI embeddings and tau2's shell sandbox, which proctor does not offer",
	"alltools-qwen":                   "OpenRouter embeddings and tau2's shell sandbox, which proctor does not offer",
}

// ConfigNames returns the names of the configurations proctor offers.
func ConfigNames() []string {
	names := make([]string, len(offered))
	for i, c := range offered {
		names[i] = c.Name
	}
	return names
}

// NotOffered returns tau2's configurations proctor refuses, each with
// what it would need, sorted by name.
func NotOffered() [][2]string {
	var out [][2]string
	for name, why := range notOffered {
		out = append(out, [2]string{name, why})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out
}

// Options are tau2's --retrieval-config-kwargs: overrides of a
// configuration's defaults (nil: keep it).
type Options struct {
	TopK          *int  `json:"top_k"`
	GrepTopK      *int  `json:"grep_top_k"`
	CaseSensitive *bool `json:"case_sensitive"`
	// RerankerMinScore is accepted for tau2's sake; no offered
	// configuration has a reranker.
	RerankerMinScore *int `json:"reranker_min_score"`
	// EmbeddingModel replaces a dense configuration's embedding model
	// (proctor's own; tau2 has no such option).
	EmbeddingModel *string `json:"embedding_model"`
}

// ParseOptions reads --retrieval-config-kwargs' JSON object.
func ParseOptions(raw []byte) (Options, error) {
	var o Options
	if len(strings.TrimSpace(string(raw))) == 0 {
		return o, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return Options{}, fmt.Errorf("retrieval config kwargs: %w (want a JSON object of top_k, grep_top_k, case_sensitive, reranker_min_score, embedding_model)", err)
	}
	return o, nil
}

// Resolve returns the configuration of a name (tau2's alias AllTools
// included) with the options applied, or an error saying why proctor
// does not run it and which configurations it offers.
func Resolve(name string, o Options) (Config, error) {
	if name == "AllTools" {
		name = "alltools"
	}
	i := slices.IndexFunc(offered, func(c Config) bool { return c.Name == name })
	if i < 0 {
		return Config{}, unknownConfig(name)
	}
	c := offered[i]
	c.TopK, c.GrepTopK = 10, 10
	if o.TopK != nil && c.KBSearch {
		c.TopK = *o.TopK
	}
	if o.GrepTopK != nil && c.Grep {
		c.GrepTopK = *o.GrepTopK
	}
	if o.CaseSensitive != nil && c.Grep {
		c.CaseSensitive = *o.CaseSensitive
	}
	if c.Embedding != nil {
		e := *c.Embedding // the registry's stays as it is
		if o.EmbeddingModel != nil {
			if strings.TrimSpace(*o.EmbeddingModel) == "" {
				return Config{}, errors.New("retrieval config kwargs: embedding_model is empty: name a model of the embeddings endpoint, e.g. text-embedding-3-small")
			}
			e.Model = *o.EmbeddingModel
		}
		c.Embedding = &e
	}
	return c, nil
}

func unknownConfig(name string) error {
	choices := strings.Join(ConfigNames(), ", ")
	switch why, known := notOffered[name]; {
	case name == "":
		return fmt.Errorf("banking_knowledge needs a retrieval config (tau2's default, alltools, needs %s): choose one of %s", notOffered["alltools"], choices)
	case known:
		return fmt.Errorf("retrieval config %q needs %s; proctor runs %s", name, why, choices)
	}
	return fmt.Errorf("unknown retrieval config %q: proctor runs %s", name, choices)
}
