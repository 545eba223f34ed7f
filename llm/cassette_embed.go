package llm

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
)

// embeddingEntry is one recorded embeddings call. Unlike a model call it
// is identified by its request alone, not by its call key or by how many
// came before: an embedding is a function of its text, so any simulation
// may replay a vector another recorded (the knowledge base's vectors are
// computed by whichever simulation comes first).
type embeddingEntry struct {
	Request string `json:"request_sha256"`
	Model   string `json:"model"`
	Texts   int    `json:"texts"`
	Summary string `json:"summary,omitempty"`
	// Vectors are the replies' vectors, each little-endian float64s in
	// base64 (exact, and a third of the size of JSON numbers).
	Vectors []string `json:"vectors,omitempty"`
	// InputTokens is the usage the replies reported (summed over a
	// call's batches); nil when one had none, or in a cassette recorded
	// before usage was kept: a replay is then metered unpriced.
	InputTokens *int64 `json:"input_tokens,omitempty"`
	Error       string `json:"error,omitempty"`
}

// WrapEmbedder returns e recording to, or replaying from, the cassette,
// its calls named by spec and encoding. In replay mode e may be nil:
// nothing reaches it. In record mode a request already recorded is
// answered from the recording, so that every simulation of a run sees the
// same vectors for the same text, as a replay will.
func (c *Cassette) WrapEmbedder(e Embedder, spec, encoding string) Embedder {
	return &tapedEmbedder{c: c, inner: e, spec: spec, encoding: encoding}
}

type tapedEmbedder struct {
	c        *Cassette
	inner    Embedder
	spec     string
	encoding string
}

func (t *tapedEmbedder) Name() string { return t.spec }

// Embed implements Embedder.
func (t *tapedEmbedder) Embed(ctx context.Context, texts []string) ([][]float64, error) {
	hash, err := embeddingHash(t.spec, t.encoding, texts)
	if err != nil {
		return nil, fmt.Errorf("llm cassette: %w", err)
	}
	sum := ""
	if len(texts) > 0 {
		sum = truncate(texts[0], 80)
	}
	t.c.mu.Lock()
	e := t.c.embeds[hash]
	t.c.mu.Unlock()
	switch {
	case e != nil:
		return e.replay(ctx)
	case t.c.mode == ModeReplay:
		return nil, fmt.Errorf("llm cassette %s: %w for embeddings of %d texts (model %s, request sha256 %s, first text %q): "+
			"the evaluation asked something the recording did not; record it again with --llm-mode record",
			t.c.path, ErrCassetteMiss, len(texts), t.spec, hash[:16], sum)
	}
	e = &embeddingEntry{Request: hash, Model: t.spec, Texts: len(texts), Summary: sum}
	vs, err := t.record(ctx, e, texts)
	if err != nil {
		if ctx.Err() != nil { // a cancelled call says nothing of the provider
			return nil, err
		}
		e.Error = err.Error()
	}
	for _, v := range vs {
		e.Vectors = append(e.Vectors, encodeVector(v))
	}
	t.c.mu.Lock()
	if prior := t.c.embeds[hash]; prior != nil {
		e = prior // recorded meanwhile by a concurrent call: one answer for all
	} else {
		t.c.embeds[hash] = e
	}
	t.c.mu.Unlock()
	return e.replay(ctx)
}

// record calls the inner embedder for e, keeping the usage its replies
// reported in e; the call's slot waits and throttling go to ctx's meter,
// its usage to it only through replay, as for every answer.
func (t *tapedEmbedder) record(ctx context.Context, e *embeddingEntry, texts []string) ([][]float64, error) {
	if t.inner == nil {
		return nil, errNoEmbedder
	}
	innerCtx, stats := withCallStats(ctx)
	defer statsFrom(ctx).addWaits(stats)
	vs, err := t.inner.Embed(innerCtx, texts)
	if tokens, reported := stats.usage(); err == nil && reported {
		e.InputTokens = &tokens
	}
	return vs, err
}

// replay returns the recorded vectors, or the recorded failure, and
// gives ctx's meter the recorded usage: a recorded or replayed answer is
// metered as the provider's answer was.
func (e *embeddingEntry) replay(ctx context.Context) ([][]float64, error) {
	if e.Error != "" {
		return nil, errors.New(e.Error)
	}
	if e.InputTokens != nil {
		statsFrom(ctx).embedded(*e.InputTokens, true)
	} else {
		statsFrom(ctx).embedded(0, false)
	}
	out := make([][]float64, len(e.Vectors))
	for i, s := range e.Vectors {
		v, err := decodeVector(s)
		if err != nil {
			return nil, fmt.Errorf("llm cassette: embeddings %s: vector %d: %w", e.Request[:16], i, err)
		}
		out[i] = v
	}
	return out, nil
}

// check validates an entry read from a file.
func (e *embeddingEntry) check() error {
	switch {
	case e.Request == "":
		return errors.New("no request_sha256")
	case e.Error == "" && len(e.Vectors) != e.Texts:
		return fmt.Errorf("%d vectors for %d texts", len(e.Vectors), e.Texts)
	case e.InputTokens != nil && *e.InputTokens < 0:
		return fmt.Errorf("input_tokens %d: want 0 or more", *e.InputTokens)
	}
	for i, s := range e.Vectors {
		if _, err := decodeVector(s); err != nil {
			return fmt.Errorf("vector %d: %w", i, err)
		}
	}
	return nil
}

func encodeVector(v []float64) string {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func decodeVector(s string) ([]float64, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b)%8 != 0 {
		return nil, errors.New("not base64 of little-endian float64s")
	}
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v, nil
}

// embeddingHash identifies an embeddings request by what decides its
// answer: the model spec, the encoding and the texts.
func embeddingHash(spec, encoding string, texts []string) (string, error) {
	b, err := json.Marshal(struct {
		Model    string   `json:"model"`
		Encoding string   `json:"encoding"`
		Input    []string `json:"input"`
	}{spec, encoding, texts})
	if err != nil {
		return "", fmt.Errorf("hashing the request: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// readEmbeddings adds a file's embedding entries to the cassette.
func (c *Cassette) readEmbeddings(entries []*embeddingEntry) error {
	for i, e := range entries {
		if e == nil {
			return fmt.Errorf("embeddings entry %d is null", i)
		}
		if err := e.check(); err != nil {
			return fmt.Errorf("embeddings entry %d: %w", i, err)
		}
		if _, dup := c.embeds[e.Request]; dup {
			return fmt.Errorf("embeddings entry %d (%s) is recorded twice", i, e.Request[:min(16, len(e.Request))])
		}
		c.embeds[e.Request] = e
	}
	return nil
}

// embeddingEntries returns the recorded embeddings in a stable order.
// The caller holds c.mu.
func (c *Cassette) embeddingEntries() []*embeddingEntry {
	out := make([]*embeddingEntry, 0, len(c.embeds))
	for _, e := range c.embeds {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *embeddingEntry) int { return cmp.Compare(a.Request, b.Request) })
	return out
}
