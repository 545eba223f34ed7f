package a2aclient

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// stalePool dials real connections that it can all turn stale at once:
// the next write on each connection dialed so far then delivers half its
// bytes and fails with a broken pipe, as a write does on a kept-alive
// connection the agent has just closed. Connections dialed later are sound,
// but for one that breakNext asks to fail the same way.
type stalePool struct {
	mu    sync.Mutex
	conns []*staleConn
	// breakNext makes the next connection dialed fail its first write.
	breakNext bool
}

func (p *stalePool) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	sc := &staleConn{Conn: c}
	p.mu.Lock()
	p.conns = append(p.conns, sc)
	sc.broken.Store(p.breakNext)
	p.breakNext = false
	p.mu.Unlock()
	return sc, nil
}

// breakAll makes the next write of every connection dialed so far fail.
func (p *stalePool) breakAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.broken.Store(true)
	}
}

type staleConn struct {
	net.Conn
	broken atomic.Bool // the next write fails
	dead   atomic.Bool // a write failed: reads fail too
}

// Write delivers half of b and fails, when the connection is broken, as a
// write does on a connection whose peer has gone: the agent has half a
// request, which it cannot act on, and no reply will come.
func (c *staleConn) Write(b []byte) (int, error) {
	if !c.broken.Load() {
		return c.Conn.Write(b)
	}
	n, _ := c.Conn.Write(b[:len(b)/2])
	c.dead.Store(true)
	_ = c.Conn.SetReadDeadline(time.Now()) // wakes the reader, which sees the reset
	return n, &net.OpError{Op: "write", Net: "tcp", Addr: c.RemoteAddr(), Err: syscall.EPIPE}
}

func (c *staleConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if c.dead.Load() {
		return 0, &net.OpError{Op: "read", Net: "tcp", Addr: c.RemoteAddr(), Err: syscall.ECONNRESET}
	}
	return n, err
}

// countingAgent serves a real a2a-go agent that answers every message and
// counts the messages it executed.
func countingAgent(t *testing.T) (url string, executed *atomic.Int32) {
	executed = new(atomic.Int32)
	srv := startExecutor(t, func(_ context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
		executed.Add(1)
		yield(a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("noted")), nil)
	})
	return srv.URL, executed
}

// TestResendUnreadRequests: a request written to a kept-alive connection
// the agent had closed never reached the agent; it is sent again at once,
// counted as a resend, and the agent acts on each message exactly once. A
// request that fails the same way on a fresh connection proves nothing
// about staleness: it goes to the ordinary retry policy instead.
func TestResendUnreadRequests(t *testing.T) {
	cases := []struct {
		name         string
		fresh        bool // the message goes on a new connection, which breaks
		retries      int
		wantErr      bool
		wantResends  int
		wantRetries  int
		wantExecuted int32
	}{
		{name: "stale kept-alive connection", retries: 0, wantResends: 1, wantExecuted: 2},
		{name: "fresh connection, retried", fresh: true, retries: 1, wantRetries: 1, wantExecuted: 2},
		{name: "fresh connection, no retries", fresh: true, retries: 0, wantErr: true, wantExecuted: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url, executed := countingAgent(t)
			pool := &stalePool{}
			withPool := func(o *options) { o.dial = pool.dial }
			c := dial(t, url, withPool, WithRetries(tc.retries, time.Millisecond))
			conv := c.NewConversation()
			if _, err := say(t, conv, "first"); err != nil {
				t.Fatal(err)
			}
			if tc.fresh {
				c.http.CloseIdleConnections()
				pool.mu.Lock()
				pool.breakNext = true
				pool.mu.Unlock()
			} else {
				pool.breakAll()
			}
			resp, err := say(t, conv, "second")
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if resp.Metrics.Resends != tc.wantResends || resp.Metrics.Retries != tc.wantRetries {
				t.Errorf("resends, retries = %d, %d; want %d, %d", resp.Metrics.Resends, resp.Metrics.Retries, tc.wantResends, tc.wantRetries)
			}
			if tc.wantErr && resp.Metrics.ErrorClass != ErrClassConnection {
				t.Errorf("error class %q, want %q", resp.Metrics.ErrorClass, ErrClassConnection)
			}
			if got := executed.Load(); got != tc.wantExecuted {
				t.Errorf("agent executed %d messages, want %d", got, tc.wantExecuted)
			}
		})
	}
}
