package a2aclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sync"
	"time"
	"unicode/utf8"
)

// Error classes recorded in RequestMetrics.ErrorClass.
const (
	ErrClassTimeout     = "timeout"
	ErrClassConnection  = "connection"
	ErrClassHTTPStatus  = "http_status"
	ErrClassProtocol    = "protocol"
	ErrClassRPC         = "rpc_error"
	ErrClassTaskFailed  = "task_failed"
	ErrClassTooLarge    = "response_too_large"
	ErrClassCanceled    = "canceled"
	ErrClassNonTerminal = "task_not_finished"
)

// RequestMetrics describes one call to the agent (one SendMessage, including
// any polling needed to see its task finish).
type RequestMetrics struct {
	Method     string    `json:"method"`
	StartedAt  time.Time `json:"started_at"`
	LatencyMS  float64   `json:"latency_ms"`
	HTTPStatus int       `json:"http_status,omitempty"`
	// GRPCCode is the status code name ("OK", "Unavailable") of a call made
	// over gRPC.
	GRPCCode string `json:"grpc_code,omitempty"`
	// Retries counts transient failures that were retried within the call.
	Retries       int   `json:"retries,omitempty"`
	BytesSent     int64 `json:"bytes_sent"`
	BytesReceived int64 `json:"bytes_received"`
	InputTokens   int64 `json:"input_tokens"`
	OutputTokens  int64 `json:"output_tokens"`
	// TokensEstimated is true when the agent reported no usage and the token
	// counts are proctor's estimate from the text sent and received.
	TokensEstimated bool   `json:"tokens_estimated,omitempty"`
	ErrorClass      string `json:"error_class,omitempty"`
	Error           string `json:"error,omitempty"`
}

// exchange accumulates what the HTTP layer saw during one call. It travels in
// the request context because the SDK owns the HTTP request in between.
type exchange struct {
	mu       sync.Mutex
	status   int
	grpcCode string // code name of the latest gRPC call, "" for HTTP
	sent     int64
	received int64
	lastBody *bytes.Buffer // from pool; returned by release
	pool     *sync.Pool    // the client's buffers for body copies
	tooLarge bool
	// readErr is the error, other than io.EOF, that reading the latest
	// response body failed with: the connection broke mid-body.
	readErr error
}

// newBodyPool returns a pool for the copies of response bodies kept for
// tolerant decoding: at hundreds of concurrent conversations they are most
// of the client's garbage, so each Client recycles its own.
func newBodyPool() *sync.Pool {
	return &sync.Pool{New: func() any { return new(bytes.Buffer) }}
}

// maxKeptBody bounds the copy of a response body kept for tolerant decoding.
const maxKeptBody = 4 << 20

// release returns the exchange's body copy to the pool. The exchange must not
// be used afterwards.
func (ex *exchange) release() {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	ex.dropBodyLocked()
}

// dropBodyLocked returns the kept body to the pool; ex.mu must be held.
func (ex *exchange) dropBodyLocked() {
	if ex.lastBody != nil && ex.lastBody.Cap() <= maxKeptBody {
		ex.lastBody.Reset()
		ex.pool.Put(ex.lastBody)
	}
	ex.lastBody = nil
}

type exchangeKey struct{}

func withExchange(ctx context.Context, pool *sync.Pool) (context.Context, *exchange) {
	ex := &exchange{pool: pool}
	return context.WithValue(ctx, exchangeKey{}, ex), ex
}

// snapshot reads what the HTTP layer saw. body aliases a pooled buffer: it is
// valid until release.
func (ex *exchange) snapshot() (status int, sent, received int64, body []byte, tooLarge bool) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if ex.lastBody != nil {
		body = ex.lastBody.Bytes()
	}
	return ex.status, ex.sent, ex.received, body, ex.tooLarge
}

// code returns the gRPC status code name of the latest call, "" for HTTP.
func (ex *exchange) code() string {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.grpcCode
}

// overLimit reports whether a response went over the size cap.
func (ex *exchange) overLimit() bool {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.tooLarge
}

// bodyReadErr returns the error that reading the latest response body
// failed with at the transport, or nil.
func (ex *exchange) bodyReadErr() error {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.readErr
}

// errResponseTooLarge reports a response body over the configured cap.
var errResponseTooLarge = errors.New("response body exceeds the size limit")

// recordingTransport adds configured headers, counts bytes, records the HTTP
// status, caps the response size and keeps the last response body so that a
// reply the SDK cannot decode can still be read tolerantly.
type recordingTransport struct {
	base     http.RoundTripper
	headers  http.Header
	maxBytes int64
}

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context()) // a RoundTripper must not modify its request
		for k, vs := range t.headers {
			req.Header.Del(k)
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
	}
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if ex != nil {
		ex.mu.Lock()
		if req.ContentLength > 0 {
			ex.sent += req.ContentLength
		}
		// A new request of the same call (polling): what an earlier one
		// answered must not pass for this one's status or body.
		ex.status, ex.readErr = 0, nil
		ex.dropBodyLocked()
		ex.mu.Unlock()
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || ex == nil {
		return resp, err
	}
	ex.mu.Lock()
	ex.status = resp.StatusCode
	ex.mu.Unlock()
	if resp.StatusCode == http.StatusCreated || resp.StatusCode == http.StatusAccepted {
		// Success with a body all the same: @a2a-js/sdk's 0.3 REST layer
		// answers message:send with 201, which a2a-go's client refuses. The
		// status recorded in the metrics stays the one the agent sent.
		resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
	}
	resp.Body = &recordingBody{rc: resp.Body, ex: ex, limit: t.maxBytes, buf: ex.pool.Get().(*bytes.Buffer)}
	return resp, nil
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// wrapped transport.
func (t *recordingTransport) CloseIdleConnections() {
	if ci, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

type recordingBody struct {
	rc    io.ReadCloser
	ex    *exchange
	limit int64
	n     int64
	buf   *bytes.Buffer
}

func (b *recordingBody) Read(p []byte) (int, error) {
	if b.limit > 0 && b.n >= b.limit {
		b.ex.mu.Lock()
		b.ex.tooLarge = true
		b.ex.mu.Unlock()
		return 0, fmt.Errorf("%w (%d bytes)", errResponseTooLarge, b.limit)
	}
	if b.limit > 0 && int64(len(p)) > b.limit-b.n {
		p = p[:b.limit-b.n+1] // read one byte past the cap to detect overflow
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if b.buf != nil {
		if b.buf.Len()+n <= maxKeptBody {
			b.buf.Write(p[:n])
		} else {
			// Too big to keep whole: keep nothing rather than a copy with a
			// piece missing, which could still parse as something else.
			if b.buf.Cap() <= maxKeptBody {
				b.buf.Reset()
				b.ex.pool.Put(b.buf)
			}
			b.buf = nil
		}
	}
	b.ex.mu.Lock()
	b.ex.received += int64(n)
	if err != nil && err != io.EOF && b.ex.readErr == nil {
		b.ex.readErr = err
	}
	b.ex.mu.Unlock()
	if b.limit > 0 && b.n > b.limit {
		b.ex.mu.Lock()
		b.ex.tooLarge = true
		b.ex.mu.Unlock()
		return n, fmt.Errorf("%w (%d bytes)", errResponseTooLarge, b.limit)
	}
	return n, err
}

func (b *recordingBody) Close() error {
	b.ex.mu.Lock()
	if b.buf != nil {
		b.ex.dropBodyLocked() // an earlier response of the same call (polling)
		b.ex.lastBody, b.buf = b.buf, nil
	}
	b.ex.mu.Unlock()
	return b.rc.Close()
}

// Usage is token usage an agent reported about itself.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
}

// ReportedUsage reads token usage from an A2A metadata map. Accepted keys
// (first match wins):
//
//   - usage.input_tokens / usage.output_tokens
//   - usage.prompt_tokens / usage.completion_tokens (OpenAI style)
//   - token_usage.* with either naming
//   - adk_usage_metadata.promptTokenCount / candidatesTokenCount (ADK; also
//     prompt_token_count / candidates_token_count, and usage_metadata or
//     usageMetadata as the outer key)
//
// A pair with one count missing reads it as zero; a pair holding anything
// but whole non-negative numbers (strings, NaN, fractions) is ignored.
func ReportedUsage(meta map[string]any) (Usage, bool) {
	if len(meta) == 0 {
		return Usage{}, false
	}
	for _, key := range []string{"usage", "token_usage"} {
		m, ok := meta[key].(map[string]any)
		if !ok {
			continue
		}
		if u, ok := usagePair(m, "input_tokens", "output_tokens"); ok {
			return u, true
		}
		if u, ok := usagePair(m, "prompt_tokens", "completion_tokens"); ok {
			return u, true
		}
	}
	for _, key := range []string{"adk_usage_metadata", "usage_metadata", "usageMetadata"} {
		m, ok := meta[key].(map[string]any)
		if !ok {
			continue
		}
		if u, ok := usagePair(m, "promptTokenCount", "candidatesTokenCount"); ok {
			return u, true
		}
		if u, ok := usagePair(m, "prompt_token_count", "candidates_token_count"); ok {
			return u, true
		}
	}
	return Usage{}, false
}

// usagePair reads the counts at keys in and out. A missing or null key
// counts zero (protobuf JSON leaves out zeros), but at least one must be
// there, and a key holding anything but a whole non-negative number makes the
// pair unusable.
func usagePair(m map[string]any, in, out string) (Usage, bool) {
	vi, vo := m[in], m[out]
	if vi == nil && vo == nil {
		return Usage{}, false
	}
	var u Usage
	for _, f := range []struct {
		v   any
		dst *int64
	}{{vi, &u.InputTokens}, {vo, &u.OutputTokens}} {
		if f.v == nil {
			continue
		}
		n, ok := toCount(f.v)
		if !ok {
			return Usage{}, false
		}
		*f.dst = n
	}
	return u, true
}

// maxCount bounds a believable token count; anything larger is garbage.
const maxCount = 1 << 53

func toCount(v any) (int64, bool) {
	switch n := v.(type) {
	case float64:
		if math.IsNaN(n) || n < 0 || n > maxCount || n != math.Trunc(n) {
			return 0, false
		}
		return int64(n), true
	case json.Number:
		i, err := n.Int64()
		if err != nil {
			return 0, false
		}
		return toCount(i)
	case int:
		return toCount(int64(n))
	case int32:
		return toCount(int64(n))
	case int64:
		if n < 0 || n > maxCount {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// EstimateTokens is proctor's token estimate for text whose usage the agent
// did not report: about four characters per token, the usual rule of thumb
// for English with BPE tokenizers.
func EstimateTokens(s string) int64 {
	return tokensForRunes(utf8.RuneCountInString(s))
}

func tokensForRunes(n int) int64 {
	if n <= 0 {
		return 0
	}
	return int64((n + 3) / 4)
}
