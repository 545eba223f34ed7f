package llmtest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Request is a provider request, decoded and normalised so that one
// assertion fits both providers.
type Request struct {
	Provider string // "openai" or "gemini"
	Model    string // the model named by the request
	System   string // the system instruction's text
	// Messages is the conversation in order, roles "user", "assistant" and
	// "tool".
	Messages []Message
	Tools    []string // declared function names, in order
	Stream   bool     // whether the request asked for a streamed reply
	// Temperature and Seed are nil when the request does not set them.
	Temperature *float64
	Seed        *int64
	// Input and EncodingFormat are an embeddings request's texts and
	// encoding_format ("" when not set).
	Input          []string
	EncodingFormat string
	Header         http.Header // as received (tests grep it for keys)
	Raw            []byte      // the raw request body
}

// Message is one normalised conversation message.
type Message struct {
	Role       string     // "user", "assistant" or "tool"
	Text       string     // the message's text, parts joined
	ToolCalls  []ToolCall // assistant only
	ToolCallID string     // tool only: the call it answers
	ToolName   string     // tool only: the function's name
	ToolResult string     // tool only: the result's JSON
}

// ToolCall is a function call, requested by a Reply or found in a Request's
// assistant message.
type ToolCall struct {
	ID   string         // the call's id; may be empty
	Name string         // the function called
	Args map[string]any // the decoded arguments
}

// Reply is what a fake server answers, rendered in its provider's wire
// format.
type Reply struct {
	// Text is the assistant's text; ToolCalls the calls it makes.
	Text      string
	ToolCalls []ToolCall
	// InputTokens and OutputTokens are the usage reported.
	InputTokens, OutputTokens int
	// Status, if not 0 or 2xx, makes the reply an error in the provider's
	// error JSON shape, with ErrorMessage as its message. RetryAfter, if
	// set, is sent as the Retry-After header, or, when it ends in "ms"
	// ("150ms"), as retry-after-ms: 150.
	Status       int
	RetryAfter   string
	ErrorMessage string
	// Raw, if set, is sent verbatim as the body (with Status, default 200),
	// for malformed replies: a JSON document, or for a stream the whole
	// event stream.
	Raw string
	// Embeddings, if set, are an embeddings reply's vectors (by default,
	// Embedding of each input).
	Embeddings [][]float64
	// Chunks is how many deltas a streamed Text is split into (default 3).
	Chunks int
	// Hold, if set, delays the reply until it is closed or the client
	// gives up on the request: a model call that is still running while
	// the test looks at the agent (a task that stays working).
	Hold <-chan struct{}

	fail string // set by Sequence: the test must fail
}

// Server is a fake provider on loopback.
type Server struct {
	// URL is the base URL to put in llm.Config.BaseURL.
	URL string

	t        testing.TB
	provider string
	script   func(Request) Reply
	srv      *httptest.Server

	mu       sync.Mutex
	requests []Request
	// inFlight counts the requests being answered; maxInFlight is the
	// most there were at once.
	inFlight, maxInFlight int
}

// MaxInFlight returns the most requests the server was answering at once
// (from its handler's start to its end, a held reply included). It is safe
// for concurrent use.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// InFlight returns how many requests the server is answering now.
func (s *Server) InFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inFlight
}

// counting wraps h to count the requests in flight.
func (s *Server) counting(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.inFlight++
		s.maxInFlight = max(s.maxInFlight, s.inFlight)
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.inFlight--
			s.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}

// Close stops the server now (it also stops when the test ends): a
// client's next call finds nothing listening.
func (s *Server) Close() { s.srv.Close() }

// Requests returns every request received so far, in arrival order. It is
// safe for concurrent use.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func newServer(t testing.TB, provider string, script func(Request) Reply, handler func(*Server) http.Handler) *Server {
	t.Helper()
	s := &Server{t: t, provider: provider, script: script}
	s.srv = httptest.NewServer(s.counting(handler(s)))
	t.Cleanup(s.srv.Close)
	s.URL = s.srv.URL
	return s
}

// record stores a decoded request and asks the script for the reply,
// which it gives once the reply's Hold allows.
func (s *Server) record(ctx context.Context, req Request) Reply {
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	reply := s.script(req)
	if reply.fail != "" {
		s.t.Errorf("llmtest: %s server: %s", s.provider, reply.fail)
		return Reply{Status: http.StatusInternalServerError, ErrorMessage: reply.fail}
	}
	if reply.Hold != nil {
		select {
		case <-reply.Hold:
		case <-ctx.Done():
		}
	}
	return reply
}

// badRequest fails the test: the client sent something the provider would
// reject.
func (s *Server) badRequest(w http.ResponseWriter, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.t.Errorf("llmtest: %s server: %s", s.provider, msg)
	http.Error(w, msg, http.StatusBadRequest)
}

// Sequence returns a script answering with replies in order. A request
// beyond the last fails the test (and gets a 500).
func Sequence(replies ...Reply) func(Request) Reply {
	var mu sync.Mutex
	next := 0
	return func(Request) Reply {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(replies) {
			next++
			return Reply{fail: fmt.Sprintf("request %d, but the sequence has only %d replies", next, len(replies))}
		}
		next++
		return replies[next-1]
	}
}

func (r Reply) isError() bool { return r.Status != 0 && (r.Status < 200 || r.Status > 299) }

func (r Reply) status() int {
	if r.Status == 0 {
		return http.StatusOK
	}
	return r.Status
}

// setRetryAfter sets the reply's Retry-After or retry-after-ms header.
func (r Reply) setRetryAfter(h http.Header) {
	switch {
	case r.RetryAfter == "":
	case strings.HasSuffix(r.RetryAfter, "ms"):
		h.Set("retry-after-ms", strings.TrimSuffix(r.RetryAfter, "ms"))
	default:
		h.Set("Retry-After", r.RetryAfter)
	}
}

// chunks splits text into n pieces on rune boundaries (default 3).
func chunks(text string, n int) []string {
	if n <= 0 {
		n = 3
	}
	runes := []rune(text)
	if len(runes) == 0 {
		return nil
	}
	n = min(n, len(runes))
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, string(runes[i*len(runes)/n:(i+1)*len(runes)/n]))
	}
	return out
}

// sse writes server-sent events, flushing each.
type sse struct {
	w   http.ResponseWriter
	sep string
}

func newSSE(w http.ResponseWriter, status int, sep string) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	return &sse{w: w, sep: sep}
}

func (e *sse) data(payload []byte) {
	_, _ = fmt.Fprintf(e.w, "data: %s%s", payload, e.sep)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

func float(v any) *float64 {
	switch v := v.(type) {
	case float64:
		return &v
	}
	return nil
}

func integer(v any) *int64 {
	if f, ok := v.(float64); ok {
		n := int64(f)
		return &n
	}
	return nil
}
