package llm

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"google.golang.org/adk/model"
	"google.golang.org/genai"
)

// Mode is what a cassette does with model calls.
type Mode string

// Cassette modes.
const (
	// ModeRecord passes calls to the model and records every reply.
	ModeRecord Mode = "record"
	// ModeReplay answers calls from the recording and never reaches a
	// model: a call not recorded is an error (ErrCassetteMiss).
	ModeReplay Mode = "replay"
)

// ErrCassetteMiss is wrapped by the error a replaying cassette returns for a
// call it has no recording of.
var ErrCassetteMiss = errors.New("no recorded reply")

// cassetteFormat versions the file layout.
const cassetteFormat = 1

// maxCassetteBytes bounds a cassette file read for replay.
const maxCassetteBytes = 1 << 30

// Cassette records model calls to a file, or replays them from one, so that
// an evaluation with an LLM user and judge re-runs offline with the same
// transcripts and rewards. A call is identified by its call key (see
// WithCallKey), the SHA-256 of its request (model, contents and
// configuration, not HTTP options), and how many identical calls came
// before it under the same key. Cassettes hold requests' hashes and replies,
// never credentials. A Cassette is safe for concurrent use.
type Cassette struct {
	path string
	mode Mode

	mu      sync.Mutex
	entries map[string]*cassetteEntry  // id -> entry
	seen    map[string]int             // key + request hash -> calls so far
	embeds  map[string]*embeddingEntry // request hash -> entry
}

// cassetteEntry is one recorded call.
type cassetteEntry struct {
	Key       string               `json:"key"`
	Request   string               `json:"request_sha256"`
	N         int                  `json:"n"`
	Model     string               `json:"model"`
	Summary   string               `json:"summary,omitempty"`
	Responses []*model.LLMResponse `json:"responses"`
	Error     string               `json:"error,omitempty"`
}

type cassetteFile struct {
	Format     int               `json:"proctor_llm_cassette"`
	Entries    []*cassetteEntry  `json:"entries"`
	Embeddings []*embeddingEntry `json:"embeddings,omitempty"`
}

// OpenCassette opens a cassette. In ModeReplay the file must exist and is
// read now; in ModeRecord it is written by Save (any old one is replaced).
func OpenCassette(path string, mode Mode) (*Cassette, error) {
	c := &Cassette{path: path, mode: mode, entries: map[string]*cassetteEntry{}, seen: map[string]int{}, embeds: map[string]*embeddingEntry{}}
	switch mode {
	case ModeRecord:
		dir := filepath.Dir(path)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("llm cassette %s: directory %s does not exist", path, dir)
		}
		return c, nil
	case ModeReplay:
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("llm cassette: %w", err)
		}
		defer f.Close()
		if err := c.read(f); err != nil {
			return nil, fmt.Errorf("llm cassette %s: %w", path, err)
		}
		return c, nil
	default:
		return nil, fmt.Errorf("llm cassette: unknown mode %q (want %q or %q)", mode, ModeRecord, ModeReplay)
	}
}

func (c *Cassette) read(r io.Reader) error {
	b, err := io.ReadAll(io.LimitReader(r, maxCassetteBytes+1))
	if err != nil {
		return err
	}
	if len(b) > maxCassetteBytes {
		return fmt.Errorf("larger than %d bytes", maxCassetteBytes)
	}
	var f cassetteFile
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("not a cassette: %w", err)
	}
	if f.Format != cassetteFormat {
		return fmt.Errorf("cassette format %d, this proctor reads %d", f.Format, cassetteFormat)
	}
	for i, e := range f.Entries {
		if e == nil || e.Request == "" || e.N < 0 {
			return fmt.Errorf("entry %d is incomplete", i)
		}
		if len(e.Responses) == 0 && e.Error == "" {
			return fmt.Errorf("entry %d (%s) has neither responses nor an error", i, e.Key)
		}
		if slices.Contains(e.Responses, nil) {
			return fmt.Errorf("entry %d (%s) has a null response", i, e.Key)
		}
		id := entryID(e.Key, e.Request, e.N)
		if _, dup := c.entries[id]; dup {
			return fmt.Errorf("entry %d (%s) is recorded twice", i, e.Key)
		}
		c.entries[id] = e
	}
	return c.readEmbeddings(f.Embeddings)
}

// Mode returns the cassette's mode.
func (c *Cassette) Mode() Mode { return c.mode }

// Len returns the number of recorded calls, embeddings included.
func (c *Cassette) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries) + len(c.embeds)
}

// Save writes a recording cassette to its file, atomically; it does nothing
// in replay mode.
func (c *Cassette) Save() error {
	if c.mode != ModeRecord {
		return nil
	}
	c.mu.Lock()
	f := cassetteFile{Format: cassetteFormat}
	for _, e := range c.entries {
		f.Entries = append(f.Entries, e)
	}
	f.Embeddings = c.embeddingEntries()
	c.mu.Unlock()
	slices.SortFunc(f.Entries, func(a, b *cassetteEntry) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.N, b.N), cmp.Compare(a.Request, b.Request))
	})
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return fmt.Errorf("llm cassette: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".cassette-*")
	if err != nil {
		return fmt.Errorf("llm cassette: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("llm cassette: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("llm cassette: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("llm cassette: %w", err)
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		return fmt.Errorf("llm cassette: %w", err)
	}
	return nil
}

// Wrap returns m recording to, or replaying from, the cassette. In replay
// mode m may be nil: nothing reaches it.
func (c *Cassette) Wrap(m model.LLM, name string) model.LLM {
	return &taped{c: c, inner: m, name: name}
}

type taped struct {
	c     *Cassette
	inner model.LLM
	name  string
}

func (t *taped) Name() string { return t.name }

// GenerateContent implements model.LLM. Partial (streamed) chunks are not
// recorded: a replay yields the complete responses only.
func (t *taped) GenerateContent(ctx context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		key := CallKey(ctx)
		hash, err := requestHash(t.name, req)
		if err != nil {
			yield(nil, fmt.Errorf("llm cassette: %w", err))
			return
		}
		t.c.mu.Lock()
		seenID := key + "\x00" + hash
		n := t.c.seen[seenID]
		t.c.seen[seenID] = n + 1
		t.c.mu.Unlock()
		id := entryID(key, hash, n)

		if t.c.mode == ModeReplay {
			t.c.mu.Lock()
			e := t.c.entries[id]
			t.c.mu.Unlock()
			if e == nil {
				yield(nil, fmt.Errorf("llm cassette %s: %w for call %q #%d (model %s, request sha256 %s, last message %q): "+
					"the evaluation asked something the recording did not; record it again with --llm-mode record",
					t.c.path, ErrCassetteMiss, key, n, t.name, hash[:16], summary(req)))
				return
			}
			for _, r := range e.Responses {
				if !yield(cloneResponse(r), nil) {
					return
				}
			}
			if e.Error != "" {
				yield(nil, errors.New(e.Error))
			}
			return
		}

		e := &cassetteEntry{Key: key, Request: hash, N: n, Model: t.name, Summary: summary(req)}
		defer func() {
			t.c.mu.Lock()
			t.c.entries[id] = e
			t.c.mu.Unlock()
		}()
		if t.inner == nil {
			e.Error = "no model to record from"
			yield(nil, errors.New("llm cassette: "+e.Error))
			return
		}
		for resp, err := range t.inner.GenerateContent(ctx, req, stream) {
			if err != nil {
				e.Error = err.Error()
			} else if resp != nil && !resp.Partial {
				e.Responses = append(e.Responses, cloneResponse(resp))
			}
			if !yield(resp, err) {
				if e.Error == "" && len(e.Responses) == 0 {
					e.Error = "the caller stopped reading before any reply"
				}
				return
			}
		}
	}
}

func entryID(key, hash string, n int) string { return fmt.Sprintf("%s\x00%s\x00%d", key, hash, n) }

// requestHash identifies a request by what the model sees: the model name,
// the contents and the generation config without HTTP options (which can
// carry credentials and do not change the answer).
func requestHash(name string, req *model.LLMRequest) (string, error) {
	var view struct {
		Model    string                       `json:"model"`
		Contents []*genai.Content             `json:"contents"`
		Config   *genai.GenerateContentConfig `json:"config,omitempty"`
	}
	view.Model = name
	if req != nil {
		if req.Model != "" {
			view.Model = req.Model
		}
		view.Contents = req.Contents
		if req.Config != nil {
			cfg := *req.Config
			cfg.HTTPOptions = nil
			view.Config = &cfg
		}
	}
	b, err := json.Marshal(view)
	if err != nil {
		return "", fmt.Errorf("hashing the request: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// summary is the start of the request's last text, to name it in errors
// and make cassettes readable.
func summary(req *model.LLMRequest) string {
	if req == nil {
		return ""
	}
	for i := len(req.Contents) - 1; i >= 0; i-- {
		c := req.Contents[i]
		if c == nil {
			continue
		}
		for _, p := range c.Parts {
			switch {
			case p == nil:
			case p.Text != "":
				return truncate(p.Text, 80)
			case p.FunctionResponse != nil:
				return "function response " + p.FunctionResponse.Name
			case p.FunctionCall != nil:
				return "function call " + p.FunctionCall.Name
			}
		}
	}
	return ""
}

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}

// cloneResponse deep-copies a response through JSON, so that what is
// recorded cannot change after it was handed on, and replays hand out
// their own copies.
func cloneResponse(r *model.LLMResponse) *model.LLMResponse {
	b, err := json.Marshal(r)
	if err != nil {
		return r
	}
	var out model.LLMResponse
	if err := json.Unmarshal(b, &out); err != nil {
		return r
	}
	return &out
}

type callKey struct{}

// WithCallKey names the model calls made under ctx, for cassettes: parts
// are appended to the context's key, separated by "/"
// ("airline-3/0" then "user" gives "airline-3/0/user").
func WithCallKey(ctx context.Context, parts ...string) context.Context {
	k := CallKey(ctx)
	for _, p := range parts {
		if k != "" {
			k += "/"
		}
		k += p
	}
	return context.WithValue(ctx, callKey{}, k)
}

// CallKey returns the context's call key ("" when none was set).
func CallKey(ctx context.Context) string {
	k, _ := ctx.Value(callKey{}).(string)
	return k
}
