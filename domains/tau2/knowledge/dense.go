package knowledge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
)

// Embedder turns texts into vectors, one per text, in order. llm.Embedder
// is one; NewEmbedder makes the one a configuration names.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float64, error)
}

// ErrEmbedding is wrapped by the error of a KB_search whose embeddings
// call failed: an infrastructure failure, not an answer tau2 would show
// the agent.
var ErrEmbedding = errors.New("embeddings service failed")

// maxCachedQueries bounds a dense index's cache of query vectors (tau2's
// is unbounded): past it the cache starts over.
const maxCachedQueries = 4096

// denseIndex is tau2's embedding_indexer state for one embedder: the
// documents' vectors, each divided by its norm as CosineRetriever divides
// them, and the query vectors seen so far (tau2's query embeddings cache).
type denseIndex struct {
	unit [][]float64

	mu      sync.Mutex
	queries map[string][]float64
}

// denseSlot is one embedder's index, computed once by whichever caller
// comes first while the others wait; a failure is not kept, so the next
// caller tries again.
type denseSlot struct {
	done chan struct{}
	ix   *denseIndex
	err  error
}

// denseIndexes are a base's dense indexes by embedder key.
type denseIndexes struct {
	mu    sync.Mutex
	slots map[string]*denseSlot
}

// dense returns the base's index for an embedder (key names its model and
// encoding), embedding the documents on first use: once per process per
// (model, documents), shared by every simulation, as tau2's
// EmbeddingIndexer with its embeddings cache.
func (b *Base) dense(ctx context.Context, key string, e Embedder) (*denseIndex, error) {
	for {
		b.denseIx.mu.Lock()
		if b.denseIx.slots == nil {
			b.denseIx.slots = map[string]*denseSlot{}
		}
		s, ok := b.denseIx.slots[key]
		if !ok {
			s = &denseSlot{done: make(chan struct{})}
			b.denseIx.slots[key] = s
		}
		b.denseIx.mu.Unlock()
		if !ok {
			s.ix, s.err = b.embedDocuments(ctx, e)
			if s.err != nil {
				b.denseIx.mu.Lock()
				delete(b.denseIx.slots, key)
				b.denseIx.mu.Unlock()
			}
			close(s.done)
			return s.ix, s.err
		}
		select {
		case <-s.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("knowledge: waiting for the documents' embeddings: %w", ctx.Err())
		}
		if s.err == nil {
			return s.ix, nil
		}
		// the first caller failed: try again ourselves
	}
}

// embedDocuments embeds every document's content in one call, as
// EmbeddingIndexer does (batch_size None), and normalizes the vectors.
func (b *Base) embedDocuments(ctx context.Context, e Embedder) (*denseIndex, error) {
	texts := make([]string, len(b.docs))
	for i, d := range b.docs {
		texts[i] = d.Content
	}
	vs, err := e.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("knowledge: embedding %d documents: %w: %w", len(texts), ErrEmbedding, err)
	}
	if len(vs) != len(texts) {
		return nil, fmt.Errorf("knowledge: embedding %d documents: %w: %d vectors", len(texts), ErrEmbedding, len(vs))
	}
	ix := &denseIndex{unit: make([][]float64, len(vs)), queries: map[string][]float64{}}
	for i, v := range vs {
		if len(v) == 0 || len(v) != len(vs[0]) {
			return nil, fmt.Errorf("knowledge: embedding documents: %w: vector %d has %d dimensions, vector 0 %d", ErrEmbedding, i, len(v), len(vs[0]))
		}
		ix.unit[i] = divide(v, docNorm(v))
	}
	return ix, nil
}

// query returns a query's vector, from the cache or the embedder.
func (ix *denseIndex) query(ctx context.Context, e Embedder, text string) ([]float64, error) {
	ix.mu.Lock()
	q, ok := ix.queries[text]
	ix.mu.Unlock()
	if ok {
		return q, nil
	}
	vs, err := e.Embed(ctx, []string{text})
	if err != nil {
		return nil, fmt.Errorf("knowledge: embedding the query: %w: %w", ErrEmbedding, err)
	}
	if len(vs) != 1 || len(vs[0]) != len(ix.unit[0]) {
		return nil, fmt.Errorf("knowledge: embedding the query: %w: want one vector of %d dimensions", ErrEmbedding, len(ix.unit[0]))
	}
	ix.mu.Lock()
	if len(ix.queries) >= maxCachedQueries {
		clear(ix.queries)
	}
	ix.queries[text] = vs[0]
	ix.mu.Unlock()
	return vs[0], nil
}

// cosine is CosineRetriever._cosine_similarity_single: the query divided
// by its norm (no query, all zeros), dotted with each normalized document.
// Each sum runs in the order of a reference BLAS (ddot, dgemv), each
// product and sum rounded on its own.
func (ix *denseIndex) cosine(q []float64) []float64 {
	scores := make([]float64, len(ix.unit))
	qn := math.Sqrt(dot(q, q))
	if qn == 0 {
		return scores
	}
	nq := divide(q, qn)
	for i, d := range ix.unit {
		scores[i] = dot(d, nq)
	}
	return scores
}

// rank is CosineRetriever.retrieve's np.argsort(scores)[::-1][:top_k] with
// top_k = min(top_k, n): best first, ties in numpy's reversed order.
func (b *Base) rankDense(scores []float64, topK int) []Hit {
	order := npArgsort(scores)
	n := pySliceEnd(len(order), min(topK, len(order)))
	hits := make([]Hit, 0, n)
	for i := len(order) - 1; len(hits) < n; i-- {
		hits = append(hits, Hit{ID: b.docs[order[i]].ID, Score: scores[order[i]]})
	}
	return hits
}

// dot is a sequential sum of products: x.dot(y) and one row of np.dot
// under a reference BLAS.
func dot(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += float64(x[i] * y[i])
	}
	return s
}

// docNorm is np.linalg.norm(docs, axis=1) for one row:
// sqrt(add.reduce(x*x)), numpy's pairwise sum; 0 becomes 1, as
// CosineRetriever's np.where(doc_norms == 0, 1, doc_norms).
func docNorm(v []float64) float64 {
	sq := make([]float64, len(v))
	for i, x := range v {
		sq[i] = x * x
	}
	n := math.Sqrt(0 + pairwiseSum(sq))
	if n == 0 {
		return 1
	}
	return n
}

// pairwiseSum is numpy's pairwise_sum for float64 (blocks of 128 summed
// in 8 lanes).
func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		res := 0.0
		for _, x := range a {
			res += x
		}
		return res
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += a[i+j]
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
}

func divide(v []float64, by float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x / by
	}
	return out
}
