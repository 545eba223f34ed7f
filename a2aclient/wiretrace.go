package a2aclient

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// WireKind says what a WireRecord records.
type WireKind string

// Wire record kinds. Every request gets a "request" record, then either an
// "error" record (nothing came back) or a "response" record (status and
// headers, as soon as they arrive), then, for a stream, one "event" record
// per event (an SSE event's text, or a gRPC stream message as JSON), and
// last an "end" record (the body of a reply that is not a stream, the total
// size, the time, and the error reading ended with, if any). An end record
// of a stream without an error (and, over gRPC, without a code) means the
// client left the stream, as it does after the final event of a turn.
const (
	WireRequest  WireKind = "request"
	WireResponse WireKind = "response"
	WireEvent    WireKind = "event"
	WireEnd      WireKind = "end"
	WireError    WireKind = "error"
)

// DefaultWireBodyBytes is how much of a body (or event) a WireRecord keeps
// unless WireTraceOptions says otherwise.
const DefaultWireBodyBytes = 64 << 10

// Redacted replaces credentials in a wire trace.
const Redacted = "[redacted]"

// WireRecord is one line of a wire trace (proctor run --trace-wire): a
// JSON object that records one step of one exchange with the agent. The
// records of one exchange share Exchange; those of one conversation share
// ContextID, the A2A context id that the evaluation's simulation records
// too, which ties a trace to its conversation. Records are written as
// they happen, so the records of concurrent exchanges interleave.
//
// Credentials never appear: the values of Authorization,
// Proxy-Authorization, Cookie and Set-Cookie, of headers whose names speak
// of keys, tokens or secrets, and of every header the client was given
// (WithHeaders, WithConversationHeaders) read "[redacted]", in headers and
// wherever they occur in bodies. A body or event is cut to the trace's
// body cap (Truncated is then set and BodyBytes has the full size); bodies
// are text (JSON, or SSE), cut between characters, and bytes that are not
// UTF-8 read as U+FFFD: a body holds at most as many characters as the cap
// has bytes.
type WireRecord struct {
	// Time is when the step happened.
	Time time.Time `json:"time"`
	// Exchange numbers the request in the trace, from 1.
	Exchange int64 `json:"exchange"`
	// ContextID is the A2A context id of the conversation the request
	// belongs to; empty for requests outside one (the agent card).
	ContextID string `json:"context_id,omitempty"`
	// Transport is "http" (JSON-RPC, REST and the card) or "grpc".
	Transport string   `json:"transport"`
	Kind      WireKind `json:"kind"`
	// Method is the HTTP method or the gRPC method's full name.
	Method string `json:"method,omitempty"`
	// URL is the request's URL (HTTP) or the target (gRPC).
	URL string `json:"url,omitempty"`
	// Status is the HTTP status code (response records).
	Status int `json:"status,omitempty"`
	// GRPCCode is the gRPC status code's name (end and error records).
	GRPCCode string `json:"grpc_code,omitempty"`
	// Headers are the request's or response's headers (gRPC metadata),
	// credentials redacted.
	Headers map[string][]string `json:"headers,omitempty"`
	// Body is the request body, the whole reply (end records of replies
	// that are not streams), or one stream event.
	Body string `json:"body,omitempty"`
	// BodyBytes is the size of what Body holds before any cut: for an end
	// record, of the whole reply (stream events included).
	BodyBytes int64 `json:"body_bytes,omitempty"`
	// Truncated says Body was cut to the trace's body cap.
	Truncated bool `json:"truncated,omitempty"`
	// ElapsedMS is the time since the request record, in milliseconds.
	ElapsedMS float64 `json:"elapsed_ms,omitempty"`
	// Error is why the exchange failed (error and end records).
	Error string `json:"error,omitempty"`
}

// WireTraceOptions configures a WireTrace.
type WireTraceOptions struct {
	// MaxBodyBytes caps the body of each record; 0 means
	// DefaultWireBodyBytes.
	MaxBodyBytes int
	// Secrets are more values to redact wherever they occur (the client's
	// header values are redacted without being listed).
	Secrets []string
}

// WireTrace writes WireRecords as JSON lines. It is safe for concurrent
// use; a write error stops the trace (see Err) but never the exchanges.
type WireTrace struct {
	mu      sync.Mutex
	enc     *json.Encoder
	err     error
	seq     atomic.Int64
	maxBody int
	secrets []string
}

// NewWireTrace returns a trace that writes to w. w is not closed by it.
func NewWireTrace(w io.Writer, o WireTraceOptions) *WireTrace {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultWireBodyBytes
	}
	t := &WireTrace{enc: json.NewEncoder(w), maxBody: o.MaxBodyBytes}
	t.enc.SetEscapeHTML(false)
	t.addSecrets(o.Secrets)
	return t
}

// WithWireTrace records every exchange of the client in t.
func WithWireTrace(t *WireTrace) Option { return func(o *options) { o.trace = t } }

// Err returns the first error writing the trace failed with.
func (t *WireTrace) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// minSecret is the shortest value redacted inside bodies: shorter ones
// would blank out ordinary text.
const minSecret = 4

func (t *WireTrace) addSecrets(values []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, v := range values {
		for _, s := range []string{v, strings.TrimPrefix(v, "Bearer ")} {
			if len(s) >= minSecret && !contains(t.secrets, s) {
				t.secrets = append(t.secrets, s)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (t *WireTrace) next() int64 { return t.seq.Add(1) }

// write redacts and writes one record.
func (t *WireTrace) write(r WireRecord) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	r.Body = t.redactLocked(r.Body)
	r.URL = t.redactLocked(r.URL)
	r.Error = t.redactLocked(r.Error)
	t.err = t.enc.Encode(r)
}

func (t *WireTrace) redactLocked(s string) string {
	for _, secret := range t.secrets {
		if strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, Redacted)
		}
	}
	return s
}

// body cuts b to the trace's cap, not inside a UTF-8 character.
func (t *WireTrace) body(b []byte, total int64) (string, int64, bool) {
	if len(b) > t.maxBody {
		return string(cutRunes(b, t.maxBody)), total, true
	}
	return string(b), total, total > int64(len(b))
}

// trimPartialRune drops an incomplete UTF-8 character at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// cutRunes cuts b to at most n bytes, backing off a character cut in two.
func cutRunes(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return b[:i]
		}
	}
	return b[:n]
}

// IsCredentialHeader reports whether a header's value is a credential
// whatever the client was told: those a trace records read Redacted, and
// a reader of a trace (the viewer) redacts them again in case a trace
// was written by other means.
func IsCredentialHeader(name string) bool { return credentialHeader(name) }

// credentialHeader reports whether a header's value is a credential
// whatever the client was told.
func credentialHeader(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	for _, word := range []string{"key", "token", "secret", "password", "auth", "session"} {
		if strings.Contains(n, word) {
			return true
		}
	}
	return false
}

// redactHeaders copies h with credentials and the given headers' values
// replaced.
func redactHeaders(h map[string][]string, given ...http.Header) map[string][]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string][]string, len(h))
	for k, vs := range h {
		hide := credentialHeader(k)
		for _, g := range given {
			if _, ok := g[http.CanonicalHeaderKey(k)]; ok {
				hide = true
			}
		}
		if hide {
			vs = []string{Redacted}
		}
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// headerValues lists the values of h, to redact wherever they occur.
func headerValues(hs ...http.Header) []string {
	var out []string
	for _, h := range hs {
		for _, vs := range h {
			out = append(out, vs...)
		}
	}
	return out
}

// traceTransport records the HTTP exchanges that pass through it in a
// WireTrace: it sits next to the wire, so it sees the headers and the
// resends that recordingTransport adds.
type traceTransport struct {
	base    http.RoundTripper
	trace   *WireTrace
	headers http.Header // the client's own (WithHeaders)
}

func (t *traceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	var own http.Header
	contextID := ""
	if ex != nil {
		ex.mu.Lock()
		own, contextID = ex.headers, ex.contextID
		ex.mu.Unlock()
	}
	t.trace.addSecrets(headerValues(t.headers, own))
	for _, c := range req.Cookies() {
		t.trace.addSecrets([]string{c.Value})
	}
	rec := WireRecord{Exchange: t.trace.next(), ContextID: contextID, Transport: "http", Method: req.Method, URL: req.URL.String()}
	start := time.Now()
	req1 := rec
	req1.Time, req1.Kind, req1.Headers = start.UTC(), WireRequest, redactHeaders(req.Header, t.headers, own)
	if req.Body != nil && req.Body != http.NoBody && req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			b, _ := io.ReadAll(io.LimitReader(body, int64(t.trace.maxBody)+1))
			_ = body.Close()
			req1.Body, req1.BodyBytes, req1.Truncated = t.trace.body(b, max(req.ContentLength, int64(len(b))))
		}
	}
	t.trace.write(req1)
	resp, err := t.base.RoundTrip(req)
	elapsed := msSince(start)
	if err != nil {
		e := rec
		e.Time, e.Kind, e.ElapsedMS, e.Error = time.Now().UTC(), WireError, elapsed, err.Error()
		t.trace.write(e)
		return resp, err
	}
	for _, c := range resp.Cookies() {
		t.trace.addSecrets([]string{c.Value})
	}
	r := rec
	r.Time, r.Kind, r.Status, r.ElapsedMS = time.Now().UTC(), WireResponse, resp.StatusCode, elapsed
	r.Headers = redactHeaders(resp.Header, t.headers, own)
	t.trace.write(r)
	resp.Body = &traceBody{rc: resp.Body, trace: t.trace, rec: rec, start: start,
		stream: isEventStream(resp.Header.Get("Content-Type"))}
	return resp, nil
}

func msSince(start time.Time) float64 {
	return float64(time.Since(start).Microseconds()) / 1000
}

// traceBody records a response body as it is read: a reply whole in its
// end record, a stream event by event.
type traceBody struct {
	rc     io.ReadCloser
	trace  *WireTrace
	rec    WireRecord
	start  time.Time
	stream bool

	mu         sync.Mutex
	kept       bytes.Buffer // the reply's first bytes, or the stream's pending event
	total      int64
	eventBytes int64 // size of the pending event
	lastNL     bool  // the pending event's last byte was a line end
	ended      bool
}

func (b *traceBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += int64(n)
	if b.stream {
		b.events(p[:n])
	} else if room := b.trace.maxBody + 1 - b.kept.Len(); room > 0 {
		b.kept.Write(p[:min(n, room)])
	}
	if err != nil {
		b.endLocked(err)
	}
	return n, err
}

// events records every complete SSE event in what arrived (an event ends
// at a blank line); an event's first bytes up to the body cap are kept.
func (b *traceBody) events(p []byte) {
	for _, c := range p {
		switch {
		case c == '\r':
			continue // CRLF ends lines as LF does
		case c == '\n' && b.lastNL:
			b.event()
			continue
		}
		b.lastNL = c == '\n'
		b.eventBytes++
		if b.kept.Len() < b.trace.maxBody {
			b.kept.WriteByte(c)
		}
	}
}

// event writes the pending event's record.
func (b *traceBody) event() {
	cut := b.kept.Len() >= b.trace.maxBody && b.eventBytes > int64(b.kept.Len())
	text := bytes.TrimRight(b.kept.Bytes(), "\n")
	if cut {
		text = trimPartialRune(text) // a character the cap cut in two
	}
	size := b.eventBytes
	b.kept.Reset()
	b.eventBytes, b.lastNL = 0, false
	if len(bytes.TrimSpace(text)) == 0 {
		return
	}
	e := b.rec
	e.Time, e.Kind, e.ElapsedMS = time.Now().UTC(), WireEvent, msSince(b.start)
	e.Body, e.BodyBytes, e.Truncated = string(text), size, cut
	b.trace.write(e)
}

// endLocked writes the end record once: at the end of the body, when it
// broke, or when it was closed before its end.
func (b *traceBody) endLocked(err error) {
	if b.ended {
		return
	}
	b.ended = true
	e := b.rec
	e.Time, e.Kind, e.ElapsedMS, e.BodyBytes = time.Now().UTC(), WireEnd, msSince(b.start), b.total
	if b.stream {
		b.event() // an event the stream ended without a blank line after
	} else {
		e.Body, _, e.Truncated = b.trace.body(b.kept.Bytes(), b.total)
	}
	if err != nil && err != io.EOF {
		e.Error = err.Error()
	}
	b.trace.write(e)
}

func (b *traceBody) Close() error {
	err := b.rc.Close()
	b.mu.Lock()
	b.endLocked(nil)
	b.mu.Unlock()
	return err
}
