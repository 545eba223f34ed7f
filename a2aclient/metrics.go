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
	"strings"
	"sync"
	"unicode/utf8"

	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/semaphore"

	"github.com/proctor-eval/proctor/measure"
)

// ErrorClass says what kind of failure a call met, in
// RequestMetrics.ErrorClass and CallError.Class (see measure.ErrorClass).
type ErrorClass = measure.ErrorClass

// Error classes (measure's, named here for a2aclient's callers).
const (
	ErrClassTimeout     = measure.ErrClassTimeout
	ErrClassConnection  = measure.ErrClassConnection
	ErrClassHTTPStatus  = measure.ErrClassHTTPStatus
	ErrClassProtocol    = measure.ErrClassProtocol
	ErrClassRPC         = measure.ErrClassRPC
	ErrClassTaskFailed  = measure.ErrClassTaskFailed
	ErrClassTooLarge    = measure.ErrClassTooLarge
	ErrClassCanceled    = measure.ErrClassCanceled
	ErrClassNonTerminal = measure.ErrClassNonTerminal
)

// RequestMetrics describes one call to the agent (one SendMessage, including
// any polling needed to see its task finish): measure.Request, which the
// result model stores without depending on this client.
type RequestMetrics = measure.Request

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
	// notes are deviations from the protocol read tolerantly on the way
	// (kindFixer's and rsFilter's).
	notes []string
	// resends counts requests sent again because the agent had closed the
	// connection before it could read them (see connTrace.unread).
	resends int
	// jar holds the conversation's cookies; nil when the caller's HTTP
	// client has a jar of its own.
	jar *conversationJar
	// headers are the conversation's own headers (WithConversationHeaders).
	headers http.Header
	// contextID is the conversation's A2A context id, for wire traces.
	contextID string
	// onRelease run when the call ends (see atRelease).
	onRelease []func()
	// heldValues is how many values of heldFrom, the Client's in-flight
	// value budget, the latest reply holds (see hold).
	heldValues int64
	heldFrom   *semaphore.Weighted
	// limitErr says which limit a response went over when it was not the
	// byte cap (see refuseValues).
	limitErr error
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
	ended := ex.onRelease
	ex.onRelease = nil
	ex.dropBodyLocked()
	ex.releaseValuesLocked()
	ex.mu.Unlock()
	for _, f := range ended {
		f()
	}
}

// atRelease runs f when the exchange is released (a wire trace records
// the end of a stream the call left).
func (ex *exchange) atRelease(f func()) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	ex.onRelease = append(ex.onRelease, f)
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

// resent returns how many requests of the call were sent again because the
// agent had never read them.
func (ex *exchange) resent() int {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.resends
}

// code returns the gRPC status code name of the latest call, "" for HTTP.
func (ex *exchange) code() string {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.grpcCode
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
	// values bounds the values of replies (WithMaxResponseValues); nil
	// for no bound.
	values *valueLimits
	// fixKinds gives 0.3 stream events without a kind their kind (see
	// kindFixer). Dial sets it for a 0.3 interface, before any call.
	fixKinds bool
}

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	var jar *conversationJar
	var own http.Header
	if ex != nil {
		jar, own = ex.jar, ex.headers
	}
	traced := trace.SpanContextFromContext(req.Context()).IsValid()
	var cookies []*http.Cookie
	if jar != nil {
		cookies = jar.cookies(req.URL)
	}
	// Only a request that gains something is copied: most calls add
	// nothing (no headers configured, no cookie set yet, tracing off).
	if len(t.headers) > 0 || len(own) > 0 || len(cookies) > 0 || traced {
		req = req.Clone(req.Context()) // a RoundTripper must not modify its request
		for _, h := range []http.Header{t.headers, own} {
			for k, vs := range h {
				req.Header.Del(k)
				for _, v := range vs {
					req.Header.Add(k, v)
				}
			}
		}
		if traced {
			injectTraceContext(req)
		}
		for _, c := range cookies {
			req.AddCookie(c)
		}
	}
	if ex != nil {
		ex.mu.Lock()
		if req.ContentLength > 0 {
			ex.sent += req.ContentLength
		}
		// A new request of the same call (polling): what an earlier one
		// answered must not pass for this one's status or body.
		ex.status, ex.readErr = 0, nil
		ex.dropBodyLocked()
		ex.releaseValuesLocked()
		ex.mu.Unlock()
	}
	resp, err := t.send(req, ex)
	if err != nil || ex == nil {
		return resp, err
	}
	if jar != nil {
		jar.keep(req.URL, resp)
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
	if isEventStream(req.Header.Get("Accept")) || isEventStream(resp.Header.Get("Content-Type")) {
		// An event stream is read as it arrives (it may never end), and
		// it is never decoded tolerantly, so no copy of it is kept.
		var body io.ReadCloser = &recordingBody{rc: resp.Body, ex: ex, limit: t.maxBytes}
		if t.values != nil {
			body = newEventValues(req.Context(), body, ex, t.values)
		}
		resp.Body = newRSFilter(body, ex)
		if t.fixKinds {
			resp.Body = newKindFixer(resp.Body, ex)
		}
		return resp, nil
	}
	resp.Body = readWhole(req.Context(), ex, resp, t.maxBytes, t.values)
	return resp, nil
}

// isEventStream reports whether a Content-Type or Accept header names
// server-sent events.
func isEventStream(h string) bool {
	return h != "" && strings.Contains(strings.ToLower(h), "text/event-stream")
}

// pieceSize is the unit in which readWhole holds the part of a body beyond
// maxKeptBody.
const pieceSize = 1 << 20

// readWhole reads a (non-streamed) response body whole, up to limit bytes
// (without limit when limit <= 0), before a2a-go decodes it, and returns
// the body a2a-go reads instead: the same bytes, then the error that reading
// ended with, if any.
//
// This is what makes the size cap a memory cap. a2a-go decodes a reply with
// a json.Decoder that holds the whole reply in a buffer it doubles as it
// fills: fed straight from the network, a reply cut at a 16 MiB cap costs a
// 32 MiB buffer next to the 16 MiB one it replaces, and the garbage of one
// such reply lets the collector's pacing grow the heap to several times the
// cap. Here the body is held once, in a pooled buffer for its first
// maxKeptBody bytes (which stays the call's kept body) and in fixed pieces
// after that, never copied as it grows; and a body over the cap is dropped
// before a2a-go sees any of it. A Content-Length over the cap fails without
// reading at all.
//
// With values set, the body's JSON values are counted as they arrive: a
// body with more than values.perReply of them is dropped as one over the
// byte cap is, and a body within it holds its count of the Client's
// in-flight budget (waiting within ctx for it) before a2a-go sees it.
func readWhole(ctx context.Context, ex *exchange, resp *http.Response, limit int64, values *valueLimits) io.ReadCloser {
	rc := resp.Body
	defer rc.Close()
	if limit > 0 && resp.ContentLength > limit {
		return ex.tooLargeBody(limit)
	}
	b := &wholeBody{ex: ex, head: ex.pool.Get().(*bytes.Buffer)}
	if resp.ContentLength >= 0 {
		// One byte more than announced, to read the end without growing.
		b.head.Grow(int(min(resp.ContentLength+1, maxKeptBody)))
	}
	var count jsonCounter
	for {
		p := b.space()
		if limit > 0 && int64(len(p)) > limit-b.total+1 {
			p = p[:limit-b.total+1] // read one byte past the cap to detect overflow
		}
		n, err := rc.Read(p)
		b.commit(p[:n])
		ex.noteRead(n, err)
		if values != nil {
			count.scan(p[:n])
			if err != nil {
				count.finish()
			}
		}
		switch {
		case limit > 0 && b.total > limit:
			b.drop()
			return ex.tooLargeBody(limit)
		case values != nil && count.n > values.perReply:
			b.drop()
			return ex.refusedBody(values.tooMany("JSON values"))
		case err == io.EOF:
			if values != nil {
				if herr := ex.hold(ctx, values, count.n); herr != nil {
					b.drop()
					return &wholeBody{ex: ex, err: herr}
				}
			}
			return b
		case err != nil:
			b.err = err // the connection broke mid-body: a2a-go sees it too
			return b
		}
	}
}

// noteRead counts n bytes received and records err, the first error other
// than io.EOF that reading the body met.
func (ex *exchange) noteRead(n int, err error) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	ex.received += int64(n)
	if err != nil && err != io.EOF && ex.readErr == nil {
		ex.readErr = err
	}
}

// refusedBody marks the exchange as over a limit other than the byte cap
// and returns a body that fails with err at the first read.
func (ex *exchange) refusedBody(err error) *wholeBody {
	ex.refuseValues(err)
	return &wholeBody{ex: ex, err: err}
}

// tooLargeBody marks the exchange as over the size cap and returns a body
// that says so at the first read.
func (ex *exchange) tooLargeBody(limit int64) *wholeBody {
	ex.mu.Lock()
	ex.tooLarge = true
	ex.mu.Unlock()
	return &wholeBody{ex: ex, err: fmt.Errorf("%w (%d bytes)", errResponseTooLarge, limit)}
}

// wholeBody is a response body read by readWhole, replayed to a2a-go.
type wholeBody struct {
	ex    *exchange
	head  *bytes.Buffer // the first maxKeptBody bytes; from the pool
	rest  [][]byte      // the bytes after those, in pieces of pieceSize
	total int64
	err   error // returned once the bytes are read; nil means io.EOF
	// The read position: piece (0 is head, i > 0 is rest[i-1]) and offset.
	piece, off int
}

// space returns free room to read the next bytes into: in head until it
// holds maxKeptBody bytes, then in the last piece.
func (b *wholeBody) space() []byte {
	if len(b.rest) == 0 && b.head.Len() < maxKeptBody {
		if b.head.Available() == 0 {
			b.head.Grow(min(max(b.head.Len(), 4<<10), maxKeptBody-b.head.Len()))
		}
		free := b.head.AvailableBuffer()
		return free[:min(cap(free), maxKeptBody-b.head.Len())]
	}
	if len(b.rest) == 0 || len(b.rest[len(b.rest)-1]) == pieceSize {
		b.rest = append(b.rest, make([]byte, 0, pieceSize))
	}
	last := b.rest[len(b.rest)-1]
	return last[len(last):pieceSize]
}

// commit adds p, just read into the room space returned, to the body.
func (b *wholeBody) commit(p []byte) {
	b.total += int64(len(p))
	if len(p) == 0 {
		return
	}
	if len(b.rest) == 0 {
		b.head.Write(p) // p is head's own free room: this only moves its end
		return
	}
	last := &b.rest[len(b.rest)-1]
	*last = (*last)[:len(*last)+len(p)]
}

// drop gives up the body's memory.
func (b *wholeBody) drop() {
	if b.head != nil && b.head.Cap() <= maxKeptBody {
		b.head.Reset()
		b.ex.pool.Put(b.head)
	}
	b.head, b.rest = nil, nil
}

func (b *wholeBody) Read(p []byte) (int, error) {
	for {
		var cur []byte
		switch {
		case b.piece == 0 && b.head != nil:
			cur = b.head.Bytes()
		case b.piece > 0 && b.piece <= len(b.rest):
			cur = b.rest[b.piece-1]
		default:
			if b.err != nil {
				return 0, b.err
			}
			return 0, io.EOF
		}
		if b.off < len(cur) {
			n := copy(p, cur[b.off:])
			b.off += n
			return n, nil
		}
		b.piece, b.off = b.piece+1, 0
	}
}

// Close makes a body that fitted in head the call's kept body, for tolerant
// decoding, and gives up the memory of a longer one. Nothing can be read
// after it.
func (b *wholeBody) Close() error {
	b.ex.mu.Lock()
	defer b.ex.mu.Unlock()
	if b.head != nil && b.total <= maxKeptBody {
		b.ex.dropBodyLocked() // an earlier response of the same call (polling)
		b.ex.lastBody, b.head = b.head, nil
	}
	b.drop()
	return nil
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

// ReportedUsage reads token usage from an A2A metadata map. Accepted places
// and namings, tried in this order (first match wins):
//
//   - usage, token_usage, and execution.usage (Mastra), each with
//     input_tokens / output_tokens, prompt_tokens / completion_tokens
//     (OpenAI style), inputTokens / outputTokens (the AI SDK's) or
//     promptTokens / completionTokens (VoltAgent's);
//   - adk_usage_metadata.promptTokenCount / candidatesTokenCount (ADK; also
//     prompt_token_count / candidates_token_count, and usage_metadata or
//     usageMetadata as the outer key).
//
// A pair with one count missing reads it as zero; a pair holding anything
// but whole non-negative numbers (strings, NaN, fractions) is ignored.
func ReportedUsage(meta map[string]any) (Usage, bool) {
	if len(meta) == 0 {
		return Usage{}, false
	}
	for _, path := range [...][]string{{"usage"}, {"token_usage"}, {"execution", "usage"}} {
		if u, ok := firstPair(objectAt(meta, path), [][2]string{
			{"input_tokens", "output_tokens"},
			{"prompt_tokens", "completion_tokens"},
			{"inputTokens", "outputTokens"},
			{"promptTokens", "completionTokens"},
		}); ok {
			return u, true
		}
	}
	for _, key := range [...]string{"adk_usage_metadata", "usage_metadata", "usageMetadata"} {
		m, _ := meta[key].(map[string]any)
		if u, ok := firstPair(m, [][2]string{
			{"promptTokenCount", "candidatesTokenCount"},
			{"prompt_token_count", "candidates_token_count"},
		}); ok {
			return u, true
		}
	}
	return Usage{}, false
}

// objectAt is the object found by following path's keys from meta, or nil.
func objectAt(meta map[string]any, path []string) map[string]any {
	m := meta
	for _, key := range path {
		next, ok := m[key].(map[string]any)
		if !ok {
			return nil
		}
		m = next
	}
	return m
}

// firstPair is the usage under the first of namings (input and output key)
// that m holds usably.
func firstPair(m map[string]any, namings [][2]string) (Usage, bool) {
	if m == nil {
		return Usage{}, false
	}
	for _, n := range namings {
		if u, ok := usagePair(m, n[0], n[1]); ok {
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
	return tokensForRunes(runeCount(s))
}

// runeCount is utf8.RuneCountInString with a fast path for ASCII, eight
// bytes at a time: the text proctor sends is mostly ASCII, and the first
// message of a conversation (policy and tool schemas) runs to kilobytes.
func runeCount(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 != 0 {
			break
		}
	}
	return i + utf8.RuneCountInString(s[i:])
}

func tokensForRunes(n int) int64 {
	if n <= 0 {
		return 0
	}
	return int64((n + 3) / 4)
}
