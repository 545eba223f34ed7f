// Package knowledge is the knowledge base of tau2's banking_knowledge
// domain (τ-Knowledge) and its retrieval: the documents, loaded once per
// process and shared read-only by every simulation; tau2's BM25 ranking
// (rank_bm25's BM25Okapi on each document's lowercased, whitespace-split
// content) and its grep ranking (Python re semantics, through a
// backtracking engine); tau2's dense ranking (cosine similarity of
// embeddings from an OpenAI-compatible endpoint, the documents' vectors
// computed once per process per model); tau2's retrieval configurations
// (--retrieval-config) but those with a reranker or a shell sandbox; and
// the agent-facing KB_search and grep tools with tau2's exact result text.
//
// Documents are kept in file-name order. tau2 reads them in its file
// system's listing order, which it never sorts; that order decides its
// ties and the full_kb prompt, so proctor's are those of a sorted listing.
//
// Usage:
//
//	base, err := knowledge.Load(filepath.Join(dataDir, "documents"))
//	cfg, err := knowledge.Resolve("bm25_grep", knowledge.Options{})
//	tools := base.Toolset(cfg) // per simulation: cheap, shares base
//	out, err := tools.Call("KB_search", map[string]any{"query": "overdraft fee"})
//
// A dense configuration (cfg.Embedding set) also needs an embedder:
//
//	e, err := knowledge.NewEmbedder(source, cfg) // keys, limits, cassette
//	err = base.Prepare(ctx, cfg, e)              // embed the documents now
//	tools := base.Toolset(cfg, knowledge.WithEmbedder(e))
//	out, err := tools.CallContext(ctx, "KB_search", args)
package knowledge
