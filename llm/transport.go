package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/proctor-eval/proctor/internal/backoff"
)

const (
	defaultMaxRetries   = 4
	defaultMaxRetryWait = 30 * time.Second
	// baseBackoff is the first backoff without Retry-After; it doubles per
	// retry, jittered, up to MaxRetryWait.
	baseBackoff = 500 * time.Millisecond

	// maxResponseBytes bounds an unstreamed response body and
	// maxStreamBytes a streamed one (text/event-stream), against hostile
	// or broken servers.
	maxResponseBytes = 8 << 20
	maxStreamBytes   = 64 << 20
	// maxErrorBody is how much of an error reply is kept for its message.
	maxErrorBody = 64 << 10
	// maxHead is how much of a successful reply is kept, to find an error
	// object a server sent with a 2xx status.
	maxHead = 4 << 10
	// maxDrain is how much of a reply that is retried is read to keep the
	// connection reusable.
	maxDrain = 64 << 10
)

// retryTransport is the one retry policy of every provider: it retries
// 408/409/429/500/502/503/504 and refused or reset connections, waiting as
// Retry-After or retry-after-ms ask or else with jittered exponential
// backoff, each wait capped at maxWait. It never retries once a 2xx
// response's headers have arrived, so a stream is never replayed. It bounds
// every response body and records the call's outcome in the request
// context's callState for the ProviderError.
type retryTransport struct {
	base       http.RoundTripper
	maxRetries int
	maxWait    time.Duration
	// sleep waits d or until ctx is done; nil means a timer (tests inject).
	sleep func(ctx context.Context, d time.Duration) error
}

func newRetryTransport(base http.RoundTripper, maxRetries int, maxWait time.Duration) *retryTransport {
	if base == nil {
		base = http.DefaultTransport
	}
	switch {
	case maxRetries == 0:
		maxRetries = defaultMaxRetries
	case maxRetries < 0:
		maxRetries = 0
	}
	if maxWait <= 0 {
		maxWait = defaultMaxRetryWait
	}
	return &retryTransport{base: base, maxRetries: maxRetries, maxWait: maxWait}
}

// RoundTrip implements http.RoundTripper.
func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	st := stateFrom(ctx)
	getBody, err := replayable(req)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		r := req.Clone(ctx)
		if getBody != nil {
			if r.Body, err = getBody(); err != nil {
				return nil, fmt.Errorf("replaying request body: %w", err)
			}
		}
		st.attempt()
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			st.finish(0, nil)
			if ctx.Err() != nil || attempt >= t.maxRetries || !retryableError(err) {
				return nil, err
			}
			if werr := t.wait(ctx, t.backoff(attempt)); werr != nil {
				return nil, werr
			}
			continue
		}
		if retryableStatus(resp.StatusCode) && attempt < t.maxRetries {
			d, ok := retryAfter(resp.Header, time.Now())
			if !ok {
				d = t.backoff(attempt)
			}
			if resp.StatusCode == http.StatusTooManyRequests {
				statsFrom(ctx).throttle()
			}
			_, _ = io.CopyN(io.Discard, resp.Body, maxDrain)
			_ = resp.Body.Close()
			if werr := t.wait(ctx, min(d, t.maxWait)); werr != nil {
				return nil, werr
			}
			continue
		}
		limit := int64(maxResponseBytes)
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
			limit = maxStreamBytes
		}
		if n, ok := ctx.Value(responseLimitKey{}).(int64); ok {
			limit = n
		}
		body := resp.Body
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			// Keep the error reply for the ProviderError and hand the SDK
			// the same bytes.
			head, _ := io.ReadAll(io.LimitReader(body, maxErrorBody))
			st.finish(resp.StatusCode, head)
			body = readCloser{io.MultiReader(bytes.NewReader(head), body), body}
		} else {
			st.finish(resp.StatusCode, nil)
		}
		resp.Body = &boundedBody{rc: body, left: limit, limit: limit, st: st}
		return resp, nil
	}
}

// replayable returns a function giving a fresh copy of req's body per
// attempt (nil if it has none), buffering a body that cannot be re-read.
// It closes req.Body, as RoundTrip must.
func replayable(req *http.Request) (func() (io.ReadCloser, error), error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		_ = req.Body.Close()
		return req.GetBody, nil
	}
	b, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("buffering request body: %w", err)
	}
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }, nil
}

func retryableStatus(code int) bool {
	switch code {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests,
		http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// retryableError reports whether err means the request did not get an
// answer for reasons a retry may cure: the connection was refused, reset or
// closed before a response.
func retryableError(err error) bool {
	for _, target := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE, io.EOF, io.ErrUnexpectedEOF} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// retryAfter reads the wait a reply asks for: retry-after-ms (OpenAI's, in
// milliseconds) or Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || s > 1e9 {
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// backoff is the wait before retry attempt+1 without a Retry-After: the
// base doubled per attempt, capped at maxWait, jittered to [d/2, d].
func (t *retryTransport) backoff(attempt int) time.Duration {
	return backoff.Policy{Base: baseBackoff, Max: t.maxWait, Jitter: backoff.Equal}.Delay(attempt)
}

func (t *retryTransport) wait(ctx context.Context, d time.Duration) error {
	if t.sleep != nil {
		return t.sleep(ctx, d)
	}
	return backoff.Wait(ctx, d)
}

type readCloser struct {
	io.Reader
	io.Closer
}

// boundedBody fails reads beyond limit bytes and records read errors in the
// call's state: some SDKs (genai's stream reader) only log them.
type boundedBody struct {
	rc          io.ReadCloser
	left, limit int64
	st          *callState
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	if int64(n) > b.left {
		n = int(b.left)
		err = fmt.Errorf("response body exceeds %d bytes", b.limit)
	}
	b.left -= int64(n)
	b.st.head(p[:n])
	if err != nil && err != io.EOF {
		b.st.bodyError(err)
	}
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }

type responseLimitKey struct{}

// withResponseLimit raises the bound on the bodies of ctx's replies, for
// calls whose replies are large by nature (embeddings).
func withResponseLimit(ctx context.Context, n int64) context.Context {
	return context.WithValue(ctx, responseLimitKey{}, n)
}

// callState is what the transport learned about one model call: attempts
// made, the last HTTP status (0 after a transport error), the start of the
// reply and any error reading its body. It travels in the
// request context from the model wrapper to the transport.
type callState struct {
	mu       sync.Mutex
	attempts int
	status   int
	errBody  []byte // an error reply, up to maxErrorBody
	okHead   []byte // a 2xx reply, up to maxHead
	bodyErr  error
}

type callStateKey struct{}

func withCallState(ctx context.Context) (context.Context, *callState) {
	st := &callState{}
	return context.WithValue(ctx, callStateKey{}, st), st
}

// stateFrom returns the context's callState, or a throwaway one.
func stateFrom(ctx context.Context) *callState {
	if st, ok := ctx.Value(callStateKey{}).(*callState); ok {
		return st
	}
	return &callState{}
}

func (s *callState) attempt() {
	s.mu.Lock()
	s.attempts++
	s.mu.Unlock()
}

func (s *callState) finish(status int, errBody []byte) {
	s.mu.Lock()
	s.status, s.errBody, s.okHead = status, errBody, nil
	s.mu.Unlock()
}

func (s *callState) head(p []byte) {
	s.mu.Lock()
	if n := min(len(p), maxHead-len(s.okHead)); n > 0 && s.status >= 200 && s.status <= 299 {
		s.okHead = append(s.okHead, p[:n]...)
	}
	s.mu.Unlock()
}

func (s *callState) bodyError(err error) {
	s.mu.Lock()
	if s.bodyErr == nil {
		s.bodyErr = err
	}
	s.mu.Unlock()
}

func (s *callState) snapshot() (attempts, status int, errBody []byte, bodyErr error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts, s.status, s.errBody, s.bodyErr
}

// replyHead returns the start of a 2xx reply.
func (s *callState) replyHead() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.okHead
}
