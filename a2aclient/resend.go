package a2aclient

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// maxResends bounds how often one request is sent again after it was
// written to a connection the agent had already closed. Each resend takes
// another pooled connection or dials a new one, so a few cover a pool of
// connections that all went stale together.
const maxResends = 3

// dialFunc opens a connection, as http.Transport.DialContext does.
type dialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// watchWrites makes t open connections that remember a failed write, which
// is what lets send prove that the agent never read a request (see
// connTrace.unread). dial is how t opens connections: t.DialContext when it
// has one, else a dialer with http.DefaultTransport's settings.
func watchWrites(t *http.Transport) {
	dial := dialFunc(t.DialContext)
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	t.DialContext = func(ctx context.Context, network, address string) (net.Conn, error) {
		c, err := dial(ctx, network, address)
		if err != nil {
			return nil, err
		}
		return &watchedConn{Conn: c}, nil
	}
}

// watchedConn is a connection that remembers whether a write on it failed.
type watchedConn struct {
	net.Conn
	writeFailed atomic.Bool
}

func (c *watchedConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if err != nil {
		c.writeFailed.Store(true)
	}
	return n, err
}

// connTrace records what net/http did with one attempt of a request: the
// connection it was written to, whether that connection was a reused
// keep-alive one, and whether any byte of a response came back.
type connTrace struct {
	conn      atomic.Pointer[net.Conn]
	reused    atomic.Bool
	firstByte atomic.Bool
}

func (ct *connTrace) clientTrace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			ct.conn.Store(&info.Conn)
			ct.reused.Store(info.Reused)
		},
		GotFirstResponseByte: func() { ct.firstByte.Store(true) },
	}
}

// unread reports whether an attempt's failure proves the agent never read
// the request. It holds for a request written to a reused keep-alive
// connection, with no byte of a response back, when
//   - writing it failed (a broken pipe or reset): it never arrived whole;
//   - the agent had closed the connection before proctor began the request
//     (net/http's "server closed idle connection");
//   - the agent's side reset the connection: a TCP stack answers with a
//     reset data that arrives on a socket already closed, or a close that
//     leaves received data unread. A server that read the whole request
//     and then closed would have sent an orderly end instead.
//
// This is the race of a kept-alive connection the agent closes (its idle
// timeout) just as proctor picks it from the pool. An HTTP server acts on
// no request it has not read whole, so sending it again cannot make the
// agent act twice. net/http resends such a request itself only when nothing
// at all was written, or when the request is marked idempotent. A bare end
// of the connection after the request went out is not proof (the agent may
// have read it, then failed): it is left to the retry policy.
func (ct *connTrace) unread(err error) bool {
	if err == nil || !ct.reused.Load() || ct.firstByte.Load() {
		return false
	}
	if errors.Is(err, syscall.ECONNRESET) || closedIdle(err) {
		return true
	}
	p := ct.conn.Load()
	if p == nil {
		return false
	}
	c := *p
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	wc, ok := c.(*watchedConn)
	return ok && wc.writeFailed.Load()
}

// send sends req through base, and sends it again, at most maxResends
// times, while an attempt fails in a way that proves the agent never read
// it (see connTrace.unread). Each resend is counted in ex.
func (t *recordingTransport) send(req *http.Request, ex *exchange) (*http.Response, error) {
	for resends := 0; ; resends++ {
		var ct connTrace
		resp, err := t.base.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), ct.clientTrace())))
		if err == nil || resends >= maxResends || !ct.unread(err) || req.Context().Err() != nil {
			return resp, err
		}
		if req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return resp, err // the body cannot be read again
			}
			body, gerr := req.GetBody()
			if gerr != nil {
				return resp, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
		if ex != nil {
			ex.mu.Lock()
			ex.resends++
			ex.mu.Unlock()
		}
	}
}

// closedIdle reports whether err is net/http's "server closed idle
// connection": the server dropped a kept-alive connection the request was
// sent on. net/http reports it with an unexported error, hence the text.
func closedIdle(err error) bool {
	return err != nil && strings.Contains(err.Error(), "server closed idle connection")
}
