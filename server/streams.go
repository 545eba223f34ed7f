package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"iter"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc/peer"
)

// Defaults of the stream limits in Config.
const (
	// DefaultMaxStreamsPerTask is Config.MaxStreamsPerTask's default.
	DefaultMaxStreamsPerTask = 8
	// DefaultMaxStreamsPerCaller is Config.MaxStreamsPerCaller's default.
	DefaultMaxStreamsPerCaller = 32
	// DefaultStreamWriteTimeout is Config.StreamWriteTimeout's default.
	DefaultStreamWriteTimeout = 30 * time.Second
)

// withStreamDefaults fills the zero stream limits of cfg.
func (cfg Config) withStreamDefaults() Config {
	cfg.MaxStreamsPerTask = orDefault(cfg.MaxStreamsPerTask, DefaultMaxStreamsPerTask)
	cfg.MaxStreamsPerCaller = orDefault(cfg.MaxStreamsPerCaller, DefaultMaxStreamsPerCaller)
	if cfg.StreamWriteTimeout <= 0 {
		cfg.StreamWriteTimeout = DefaultStreamWriteTimeout
	}
	return cfg
}

// streamLimits bounds the streams (SubscribeToTask, SendStreamingMessage)
// open at once: per task and subscribing tenant, and per caller. Every
// stream holds its own copy of each event as the transport encodes it
// (a2a-go encodes per stream), so a task's final event, the whole
// evaluation, weighs once per stream: the bounds bound that memory. A
// task's streams count against the tenant that opened them, so that no
// tenant (an admin following another's task) can use up its owner's.
type streamLimits struct {
	a2asrv.RequestHandler
	perTask, perCaller int

	mu       sync.Mutex
	byTask   map[taskFollower]int
	byCaller map[string]int
}

// taskFollower is a task and a tenant following it ("" without tenants).
type taskFollower struct {
	task   a2a.TaskID
	tenant string
}

func newStreamLimits(h a2asrv.RequestHandler, perTask, perCaller int) *streamLimits {
	return &streamLimits{RequestHandler: h, perTask: perTask, perCaller: perCaller,
		byTask: map[taskFollower]int{}, byCaller: map[string]int{}}
}

// SubscribeToTask implements a2asrv.RequestHandler.
func (h *streamLimits) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	var task a2a.TaskID
	if req != nil {
		task = req.ID
	}
	return h.limited(ctx, task, func() iter.Seq2[a2a.Event, error] { return h.RequestHandler.SubscribeToTask(ctx, req) })
}

// SendStreamingMessage implements a2asrv.RequestHandler: the stream
// counts for its caller (its task is new: no one else follows it yet).
func (h *streamLimits) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	return h.limited(ctx, "", func() iter.Seq2[a2a.Event, error] { return h.RequestHandler.SendStreamingMessage(ctx, req) })
}

// limited runs a stream if its task and its caller may open one more, and
// refuses it otherwise, saying which bound it hit and what to do.
func (h *streamLimits) limited(ctx context.Context, task a2a.TaskID, stream func() iter.Seq2[a2a.Event, error]) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		caller, follower := callerOf(ctx), taskFollower{task: task, tenant: tenantOf(ctx)}
		if err := h.admit(follower, caller); err != nil {
			yield(nil, err)
			return
		}
		defer h.release(follower, caller)
		for ev, err := range stream() {
			if !yield(ev, err) {
				return
			}
		}
	}
}

// admit counts a stream of a task (none: "") for caller, or refuses it.
func (h *streamLimits) admit(f taskFollower, caller string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f.task != "" && h.byTask[f] >= h.perTask {
		return a2a.NewError(a2a.ErrUnauthorized, fmt.Sprintf("too many streams: task %s already has %d subscribers, this server's limit "+
			"(--max-streams-per-task); follow it with GetTask, or close a stream first", f.task, h.perTask))
	}
	if h.byCaller[caller] >= h.perCaller {
		return a2a.NewError(a2a.ErrUnauthorized, fmt.Sprintf("too many streams: you already have %d open, this server's limit "+
			"(--max-streams-per-caller); follow tasks with GetTask, or close a stream first", h.perCaller))
	}
	if f.task != "" {
		h.byTask[f]++
	}
	h.byCaller[caller]++
	return nil
}

// release uncounts a stream that ended.
func (h *streamLimits) release(f taskFollower, caller string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f.task != "" {
		if h.byTask[f]--; h.byTask[f] <= 0 {
			delete(h.byTask, f)
		}
	}
	if h.byCaller[caller]--; h.byCaller[caller] <= 0 {
		delete(h.byCaller, caller)
	}
}

// remoteHostKey carries an HTTP caller's address in its request context.
type remoteHostKey struct{}

// withRemoteHost puts the caller's host in the request context, for
// callerOf.
func withRemoteHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), remoteHostKey{}, host)))
	})
}

// callerOf names the caller of a request for the per-caller bounds: its
// bearer token (hashed: the name is never a secret) when it sent one,
// otherwise its host.
func callerOf(ctx context.Context) string {
	if cc, ok := a2asrv.CallContextFrom(ctx); ok {
		if v, ok := cc.ServiceParams().Get("authorization"); ok && len(v) > 0 && v[0] != "" {
			sum := sha256.Sum256([]byte(v[0]))
			return "token " + hex.EncodeToString(sum[:8])
		}
	}
	if host, ok := ctx.Value(remoteHostKey{}).(string); ok {
		return "host " + host
	}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		host, _, err := net.SplitHostPort(p.Addr.String())
		if err != nil {
			host = p.Addr.String()
		}
		return "host " + host
	}
	return "unknown"
}

// slowReaders drops a response, stream or not, whose reader stops
// reading: each write must reach the connection within timeout, else the
// connection is closed and the stream ends, with whatever it held.
func slowReaders(timeout time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&deadlineWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: timeout}, r)
	})
}

// deadlineWriter sets a write deadline before each write and flush.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	return w.ResponseWriter.Write(p)
}

// Flush implements http.Flusher, which streams need.
func (w *deadlineWriter) Flush() {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	_ = w.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
