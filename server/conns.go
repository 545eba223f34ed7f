package server

import (
	"container/list"
	"context"
	"net"
	"strconv"
	"sync"
	"time"
)

// Defaults of the connection limits and timeouts in Config.
const (
	// DefaultHeaderTimeout is Config.HeaderTimeout's default.
	DefaultHeaderTimeout = 10 * time.Second
	// DefaultBodyTimeout is Config.BodyTimeout's default: a body of
	// DefaultMaxRequestBytes must arrive at 140 KB/s or better.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultIdleTimeout is Config.IdleTimeout's default.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultMaxConnections is Config.MaxConnections's default.
	DefaultMaxConnections = 1024
	// DefaultMaxUnauthenticatedConnections is
	// Config.MaxUnauthenticatedConnections's default.
	DefaultMaxUnauthenticatedConnections = 256
)

// connLimits counts the server's open connections, HTTP and gRPC
// together, and among them those that have not yet shown that their
// caller may call (unauthenticated): a valid token when the server has
// tokens, a complete request when it has none.
//
// A connection beyond MaxUnauthenticatedConnections, or beyond
// MaxConnections, evicts the oldest unauthenticated connection: slow or
// idle callers who never authenticate cannot keep anyone out for long,
// since a caller with a token leaves that state within one round trip.
// When every connection is authenticated, one more is refused.
type connLimits struct {
	maxOpen, maxUnauthenticated int

	mu   sync.Mutex
	open int
	// unauthenticated holds the *trackedConn of every unauthenticated
	// connection, oldest first.
	unauthenticated list.List
	// byAddrs finds a connection by its addresses (connAddrs), for gRPC
	// calls, which know only those.
	byAddrs map[string]*trackedConn
}

// connAddrs names a connection by its local and remote addresses.
func connAddrs(local, remote net.Addr) string {
	if local == nil || remote == nil {
		return ""
	}
	return local.String() + " " + remote.String()
}

func newConnLimits(maxOpen, maxUnauthenticated int) *connLimits {
	return &connLimits{maxOpen: maxOpen, maxUnauthenticated: maxUnauthenticated, byAddrs: map[string]*trackedConn{}}
}

// admit counts c as a new unauthenticated connection, evicting the oldest
// unauthenticated one if need be. It returns nil when c must be refused:
// the server is full of authenticated connections.
func (l *connLimits) admit(c net.Conn) *trackedConn {
	l.mu.Lock()
	var evict *trackedConn
	if l.unauthenticated.Len() >= l.maxUnauthenticated || l.open >= l.maxOpen {
		if oldest := l.unauthenticated.Front(); oldest != nil {
			evict = oldest.Value.(*trackedConn)
			l.forgetLocked(evict)
		}
	}
	if l.open >= l.maxOpen {
		l.mu.Unlock()
		return nil
	}
	tc := &trackedConn{Conn: c, limits: l, addrs: connAddrs(c.LocalAddr(), c.RemoteAddr())}
	tc.waiting = l.unauthenticated.PushBack(tc)
	l.byAddrs[tc.addrs] = tc
	l.open++
	l.mu.Unlock()
	if evict != nil {
		_ = evict.Conn.Close() // its server goroutine sees the error and ends
	}
	return tc
}

// forgetLocked stops counting c (l.mu held). It is idempotent.
func (l *connLimits) forgetLocked(c *trackedConn) {
	if c.closed {
		return
	}
	c.closed = true
	l.open--
	if l.byAddrs[c.addrs] == c {
		delete(l.byAddrs, c.addrs)
	}
	if c.waiting != nil {
		l.unauthenticated.Remove(c.waiting)
		c.waiting = nil
	}
}

// authenticate marks c authenticated: it no longer risks eviction.
func (l *connLimits) authenticate(c *trackedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.waiting != nil {
		l.unauthenticated.Remove(c.waiting)
		c.waiting = nil
	}
}

// authenticateAddrs marks the connection between local and remote
// authenticated, if it is counted.
func (l *connLimits) authenticateAddrs(local, remote net.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.byAddrs[connAddrs(local, remote)]; c != nil && c.waiting != nil {
		l.unauthenticated.Remove(c.waiting)
		c.waiting = nil
	}
}

// stats are the numbers of open and of unauthenticated connections.
func (l *connLimits) stats() (open, unauthenticated int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open, l.unauthenticated.Len()
}

// trackedConn is a connection counted by connLimits. Its fields other than
// Conn and limits belong to limits.mu.
type trackedConn struct {
	net.Conn
	limits  *connLimits
	addrs   string        // connAddrs
	waiting *list.Element // in limits.unauthenticated; nil once authenticated
	closed  bool
}

// Close stops counting the connection and closes it.
func (c *trackedConn) Close() error {
	c.limits.mu.Lock()
	c.limits.forgetLocked(c)
	c.limits.mu.Unlock()
	return c.Conn.Close()
}

// CloseWrite half-closes a TCP connection, which net/http does before
// closing one whose request it did not read whole, so that the caller
// reads the answer (413, 408) rather than a reset.
func (c *trackedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// authenticated marks the connection authenticated.
func (c *trackedConn) authenticated() { c.limits.authenticate(c) }

// limitedListener admits the connections of a listener through
// connLimits; refuse answers those it refuses, then closes them.
type limitedListener struct {
	net.Listener
	limits *connLimits
	refuse func(net.Conn)
}

// Accept returns the next admitted connection, a *trackedConn.
func (l limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if tc := l.limits.admit(c); tc != nil {
			return tc, nil
		}
		l.refuse(c)
	}
}

// refuseHTTP answers a connection the server has no room for with 503,
// without waiting on the caller.
func refuseHTTP(c net.Conn) {
	const body = "proctor: too many connections; retry shortly\n"
	_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_, _ = c.Write([]byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nRetry-After: 1\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body))
	_ = c.Close()
}

// refuseGRPC closes a gRPC connection the server has no room for (the
// client sees it unavailable and may retry).
func refuseGRPC(c net.Conn) { _ = c.Close() }

// connKey keys the *trackedConn of a request's connection in its context.
type connKey struct{}

// withConn is the http.Server's ConnContext: it puts the request's
// *trackedConn in the context of its requests.
func withConn(ctx context.Context, c net.Conn) context.Context {
	if tc, ok := c.(*trackedConn); ok {
		return context.WithValue(ctx, connKey{}, tc)
	}
	return ctx
}

// markAuthenticated marks the connection of a request (context from
// withConn) authenticated.
func markAuthenticated(ctx context.Context) {
	if tc, ok := ctx.Value(connKey{}).(*trackedConn); ok {
		tc.authenticated()
	}
}
