package a2aclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/internal/agentdial"
)

// ErrClassDenied is the error class (RequestMetrics.ErrorClass, CallError.Class)
// of a call that WithDenyPrivateTargets stopped before it connected. It is
// never retried: asking again reaches the same address.
const ErrClassDenied ErrorClass = "target_denied"

// ErrDeniedTarget matches, with errors.Is, every error that reports a
// connection refused by WithDenyPrivateTargets. The error itself is a
// *DeniedTargetError, which says which address was refused and why.
var ErrDeniedTarget = agentdial.ErrDenied

// DeniedTargetError is a connection that WithDenyPrivateTargets refused,
// after DNS resolution, before any packet was sent: its Address and the
// Reason for the refusal.
type DeniedTargetError = agentdial.DeniedError

// WithDenyPrivateTargets makes the Client refuse to connect to anything but
// public unicast addresses: loopback, private (RFC 1918, RFC 4193 unique
// local), link-local (169.254.0.0/16 with the cloud metadata endpoints, and
// fe80::/10), unspecified, multicast, broadcast, carrier-grade NAT
// (100.64.0.0/10), benchmarking, documentation and other reserved ranges,
// and the IPv4-mapped, NAT64 and 6to4 IPv6 forms of the refused IPv4
// addresses. Use it whenever the agent URL comes from someone else, so that
// proctor cannot be used to reach services beside it (SSRF).
//
// The check is made on the IP address each connection is actually opened
// to, after DNS resolution, by the dialer (net.Dialer.Control): so a name
// that resolves to a private address, DNS rebinding between the card fetch
// and later calls, an agent card whose interfaces point at private
// addresses, and HTTP redirects to private addresses are all caught, for
// the agent-card fetch, JSON-RPC and REST calls, and gRPC connections. A
// refused call fails with a *DeniedTargetError (errors.Is ErrDeniedTarget),
// class ErrClassDenied, and is not retried.
//
// With the guard on, HTTP_PROXY, HTTPS_PROXY and the gRPC proxy settings
// are ignored: through a proxy the guard would see only the proxy's address.
//
// Combined with WithHTTPClient: the given client's Transport must be nil
// or an *http.Transport that does not set Dial, DialContext, DialTLS or
// DialTLSContext (a custom dialer could connect anywhere). The Client then
// uses a clone of that transport with the guard's dialer and no proxy, and
// so its own connection pool, which Close empties; the given client's
// Jar and CheckRedirect are kept. Any other transport makes Dial fail.
func WithDenyPrivateTargets() Option { return func(o *options) { o.denyPrivate = true } }

// DenyPrivateControl is the guard of WithDenyPrivateTargets as a
// net.Dialer Control function, for other code that connects to untrusted
// addresses: it returns a *DeniedTargetError for an address the guard
// refuses, nil otherwise. It looks only at network and address (an IP and
// port, as the dialer passes it after resolution), never at the socket.
func DenyPrivateControl(network, address string, c syscall.RawConn) error {
	return agentdial.Control(network, address, c)
}

// guard is one Client's WithDenyPrivateTargets: the dialer every
// connection goes through, and what gRPC needs to report refusals.
type guard struct {
	dialer *net.Dialer
	// lastDenied is the refusal of the latest gRPC dial, nil after a dial
	// that connected. gRPC reports a failed dial to the call as status
	// UNAVAILABLE with the error flattened to text, so the interceptors
	// look here to tell a refusal (final) from an outage (retried).
	lastDenied atomic.Pointer[DeniedTargetError]
	// exempt is the tests' exemption (see agentdial.Check).
	exempt func(netip.AddrPort) bool
}

// CheckEndpoint reports, before any call, whether WithDenyPrivateTargets
// refuses the interface the client chose: its host resolved now, every
// address it resolves to checked. An agent card that points its
// interfaces at private addresses is then refused up front, as its card
// would have been, rather than in every call. nil without the guard, and
// when the name does not resolve (the calls will say so); the dialer still
// checks every connection (DNS may change between now and then).
func (c *Client) CheckEndpoint(ctx context.Context) error {
	if c.guard == nil || c.endpoint == nil {
		return nil
	}
	return c.guard.admit(ctx, c.endpoint)
}

// admit checks the addresses an interface's host resolves to.
func (g *guard) admit(ctx context.Context, iface *a2a.AgentInterface) error {
	hostPort, err := interfaceHostPort(iface)
	if err != nil {
		return nil // the call reports an address it cannot use
	}
	if err := agentdial.CheckHost(hostPort); err != nil {
		return err
	}
	host, portText, _ := net.SplitHostPort(hostPort)
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if err := agentdial.Check("tcp", netip.AddrPortFrom(a.Unmap(), uint16(port)).String(), g.exempt); err != nil {
			return err
		}
	}
	return nil
}

// interfaceHostPort is the host:port an interface's URL dials.
func interfaceHostPort(iface *a2a.AgentInterface) (string, error) {
	if iface.ProtocolBinding == a2a.TransportProtocolGRPC {
		target, _, err := agentdial.GRPCTarget(iface.URL)
		return target, err
	}
	u, err := url.Parse(iface.URL)
	if err != nil || u.Hostname() == "" {
		return "", fmt.Errorf("interface URL %q has no host", iface.URL)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443"}[u.Scheme]
	}
	if port == "" {
		port = "80"
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

func newGuard(exempt func(netip.AddrPort) bool) *guard {
	return &guard{exempt: exempt, dialer: &net.Dialer{
		// As http.DefaultTransport's dialer.
		Timeout:   30 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			return agentdial.Check(network, address, exempt)
		},
	}}
}

// dialContext dials through the guard. A refusal comes back as the
// *DeniedTargetError itself rather than wrapped in a *net.OpError, so that
// it reads once and is not mistaken for a dial failure worth retrying.
func (g *guard) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if err := agentdial.CheckHost(address); err != nil {
		return nil, err // a legacy IPv4 spelling: refused before any resolution
	}
	conn, err := g.dialer.DialContext(ctx, network, address)
	var denied *DeniedTargetError
	if err != nil && errors.As(err, &denied) {
		return nil, denied
	}
	return conn, err
}

// dialGRPC is the gRPC connection dialer (grpc.WithContextDialer).
func (g *guard) dialGRPC(ctx context.Context, address string) (net.Conn, error) {
	conn, err := g.dialContext(ctx, "tcp", address)
	var denied *DeniedTargetError
	switch {
	case errors.As(err, &denied):
		g.lastDenied.Store(denied)
	case err == nil:
		g.lastDenied.Store(nil)
	}
	return conn, err
}

// grpcError turns a call's UNAVAILABLE, when the latest dial was refused,
// into that refusal.
func (g *guard) grpcError(err error) error {
	if err == nil || status.Code(err) != codes.Unavailable {
		return err
	}
	if denied := g.lastDenied.Load(); denied != nil {
		return denied
	}
	return err
}

// grpcDialOptions routes gRPC connections through the guard, without
// proxies, and reports refusals as such.
func (g *guard) grpcDialOptions() []grpc.DialOption {
	return append(agentdial.RouteGRPC(g.dialGRPC),
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			return g.grpcError(invoker(ctx, method, req, reply, cc, opts...))
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			s, err := streamer(ctx, desc, cc, method, opts...)
			return s, g.grpcError(err)
		}),
	)
}

// guardedHTTPClient returns the HTTP client whose transport Dial wraps,
// with every connection going through g: a new pool when hc is nil, else a
// clone of hc's *http.Transport (see WithDenyPrivateTargets).
func guardedHTTPClient(hc *http.Client, maxConns int, g *guard) (*http.Client, error) {
	var base *http.Transport
	switch {
	case hc == nil || hc.Transport == nil:
		base = http.DefaultTransport.(*http.Transport).Clone()
	default:
		t, ok := hc.Transport.(*http.Transport)
		if !ok {
			return nil, fmt.Errorf("WithDenyPrivateTargets: the WithHTTPClient transport is a %T; the guard can only protect an *http.Transport (or a nil Transport)", hc.Transport)
		}
		//lint:ignore SA1019 the deprecated Dial and DialTLS would dial around the guard too
		if t.Dial != nil || t.DialContext != nil || t.DialTLS != nil || t.DialTLSContext != nil {
			return nil, errors.New("WithDenyPrivateTargets: the WithHTTPClient transport has its own dial function, which the guard cannot check")
		}
		base = t.Clone()
	}
	if hc == nil {
		base.MaxIdleConns = 0
		base.MaxIdleConnsPerHost = max(maxConns, 2)
	}
	agentdial.RouteHTTP(base, g.dialContext) // no proxy: through one the guard would check the proxy's address
	out := &http.Client{Transport: base}
	if hc != nil {
		out.CheckRedirect, out.Jar = hc.CheckRedirect, hc.Jar
	}
	return out, nil
}
