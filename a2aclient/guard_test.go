package a2aclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/internal/agenttest"
)

// Every test here talks to loopback servers only. The guard refuses
// loopback, so tests that need a connection to succeed (the agent card, to
// get as far as a call) exempt that one server's address with
// withGuardExempt; everything else on loopback stays refused.

// withGuardExempt exempts the host:port of each server URL from the guard.
func withGuardExempt(t *testing.T, serverURLs ...string) Option {
	t.Helper()
	exempt := map[netip.AddrPort]bool{}
	for _, s := range serverURLs {
		exempt[addrPortOf(t, s)] = true
	}
	return func(o *options) {
		o.guardExempt = func(ap netip.AddrPort) bool { return exempt[ap] }
	}
}

// addrPortOf returns the IP and port of a loopback server URL (or a bare
// host:port, as gRPC peers' interfaces are).
func addrPortOf(t *testing.T, s string) netip.AddrPort {
	t.Helper()
	hostPort := s
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		hostPort = u.Host
	}
	ap, err := netip.ParseAddrPort(hostPort)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return ap
}

// countingServer serves h on loopback and counts the TCP connections that
// reach it: a refused dial never gets as far as connect(2), so the count
// stays zero.
func countingServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// wantDenied checks that err is a guard refusal of addr with the reason.
func wantDenied(t *testing.T, err error, addr, reason string) {
	t.Helper()
	if err == nil {
		t.Fatal("connection allowed, want it refused")
	}
	if !errors.Is(err, ErrDeniedTarget) {
		t.Fatalf("error %v (%T) is not ErrDeniedTarget", err, err)
	}
	var denied *DeniedTargetError
	if !errors.As(err, &denied) {
		t.Fatalf("error %v is not a *DeniedTargetError", err)
	}
	want := fmt.Sprintf("refusing to connect to %s: %s; proctor serve runs with --deny-private-targets", addr, reason)
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q\ndoes not say %q", err, want)
	}
}

// TestGuardDialerAllowsPublic runs the guard's own dialer Control (the one
// Dial installs) on public addresses without connecting anywhere.
func TestGuardDialerAllowsPublic(t *testing.T) {
	g := newGuard(nil)
	for _, a := range []string{"93.184.215.14:443", "[2606:4700:4700::1111]:443", "[::ffff:93.184.215.14]:443"} {
		if err := g.dialer.Control("tcp", a, nil); err != nil {
			t.Errorf("%s: %v", a, err)
		}
	}
	if err := g.dialer.Control("tcp", "127.0.0.1:80", nil); !errors.Is(err, ErrDeniedTarget) {
		t.Errorf("loopback: %v, want refused", err)
	}
}

// TestDenyPrivateTargetsCard: the agent-card fetch of a loopback agent is
// refused with the guard, before any TCP connection, and works without it.
func TestDenyPrivateTargetsCard(t *testing.T) {
	mux := http.NewServeMux()
	srv, conns := countingServer(t, mux)
	mux.Handle("/", agenttest.Handler(agenttest.Sorry))
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(agenttest.Card(srv.URL)))
	port := addrPortOf(t, srv.URL).Port()

	for _, target := range []string{srv.URL, fmt.Sprintf("http://localhost:%d", port), srv.URL + cardPath} {
		_, err := Dial(testCtx(t), target, WithDenyPrivateTargets())
		var denied *DeniedTargetError
		if !errors.As(err, &denied) {
			t.Fatalf("Dial(%s) with the guard: %v, want a refusal", target, err)
		}
		// localhost may resolve to ::1 first.
		if ap := netip.MustParseAddrPort(denied.Address); !ap.Addr().IsLoopback() || ap.Port() != port {
			t.Errorf("refused %s, want the server's loopback address", denied.Address)
		}
		if target == srv.URL && denied.Address != addrPortOf(t, srv.URL).String() {
			t.Errorf("refused %s, want %s", denied.Address, addrPortOf(t, srv.URL))
		}
		wantDenied(t, err, denied.Address, "loopback address")
		if strings.Contains(err.Error(), "is the agent running") {
			t.Errorf("a refusal reads as an outage: %v", err)
		}
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("the refused fetches opened %d connections", n)
	}

	c := dial(t, srv.URL)
	if resp, err := say(t, c.NewConversation(), "hello"); err != nil || partsText(resp.Parts) != agenttest.SorryReply {
		t.Fatalf("without the guard: %v %+v", err, resp)
	}
}

// TestDenyPrivateTargetsCallNotRetried: a card that points its interface at
// a private address gets its calls refused as ErrClassDenied, not retried.
func TestDenyPrivateTargetsCallNotRetried(t *testing.T) {
	inner, innerConns := countingServer(t, agenttest.Handler(agenttest.Sorry))
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			card := agenttest.Card(inner.URL)
			card.Capabilities.Streaming = streaming
			front := httptest.NewServer(a2asrv.NewStaticAgentCardHandler(card))
			t.Cleanup(front.Close)

			c := dial(t, front.URL, WithDenyPrivateTargets(), withGuardExempt(t, front.URL), WithRetries(3, time.Millisecond))
			resp, err := say(t, c.NewConversation(), "hello")
			wantDenied(t, err, addrPortOf(t, inner.URL).String(), "loopback address")
			var cerr *CallError
			if !errors.As(err, &cerr) || cerr.Class != ErrClassDenied {
				t.Fatalf("error %v, want class %s", err, ErrClassDenied)
			}
			if m := resp.Metrics; m.ErrorClass != ErrClassDenied || m.Retries != 0 || m.HTTPStatus != 0 {
				t.Errorf("metrics = %+v, want class %s and no retries", m, ErrClassDenied)
			}
		})
	}
	if n := innerConns.Load(); n != 0 {
		t.Fatalf("the refused calls opened %d connections", n)
	}
}

// TestDenyPrivateTargetsGRPC: gRPC connections go through the guard too.
func TestDenyPrivateTargetsGRPC(t *testing.T) {
	echo := func(_ context.Context, _, text string) string { return "echo: " + text }
	for _, protocol := range []ProtocolVersion{Protocol10, Protocol03} {
		for _, streaming := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/streaming=%v", protocol, streaming), func(t *testing.T) {
				base := agenttest.StartPeer(t, agenttest.Peer{Transport: string(TransportGRPC), Protocol: string(protocol), Streaming: streaming}, echo)

				// The card is fetched (its server is exempt); the gRPC
				// address it points at, another loopback port, is refused.
				c := dial(t, base, WithDenyPrivateTargets(), withGuardExempt(t, base), WithRetries(3, time.Millisecond))
				grpcAddr := c.Endpoint().URL
				resp, err := say(t, c.NewConversation(), "hello")
				wantDenied(t, err, addrPortOf(t, grpcAddr).String(), "loopback address")
				var cerr *CallError
				if !errors.As(err, &cerr) || cerr.Class != ErrClassDenied {
					t.Fatalf("error %v, want class %s", err, ErrClassDenied)
				}
				if m := resp.Metrics; m.ErrorClass != ErrClassDenied || m.Retries != 0 {
					t.Errorf("metrics = %+v, want class %s and no retries", m, ErrClassDenied)
				}

				// With the gRPC port exempt too, the guarded dialer connects:
				// the guard changes nothing for an allowed address.
				c = dial(t, base, WithDenyPrivateTargets(), withGuardExempt(t, base, grpcAddr))
				resp, err = say(t, c.NewConversation(), "hello")
				if err != nil || partsText(resp.Parts) != "echo: hello" || resp.Metrics.GRPCCode != "OK" {
					t.Fatalf("allowed gRPC call: %v %+v", err, resp)
				}
			})
		}
	}
}

// TestDenyPrivateTargetsRedirect: a redirect to a private address is
// refused when it is followed, whatever the first server's address.
func TestDenyPrivateTargetsRedirect(t *testing.T) {
	inner, innerConns := countingServer(t, a2asrv.NewStaticAgentCardHandler(agenttest.Card("http://127.0.0.1:1")))
	innerPort := addrPortOf(t, inner.URL).Port()
	for _, to := range []string{inner.URL + cardPath, fmt.Sprintf("http://localhost:%d%s", innerPort, cardPath)} {
		front := httptest.NewServer(http.RedirectHandler(to, http.StatusFound))
		t.Cleanup(front.Close)

		_, err := Dial(testCtx(t), front.URL, WithDenyPrivateTargets(), withGuardExempt(t, front.URL))
		var denied *DeniedTargetError
		if !errors.As(err, &denied) {
			t.Fatalf("redirect to %s: %v, want a refusal", to, err)
		}
		if ap := netip.MustParseAddrPort(denied.Address); !ap.Addr().IsLoopback() || ap.Port() != innerPort {
			t.Errorf("refused %s, want the redirect target's address", denied.Address)
		}
		wantDenied(t, err, denied.Address, "loopback address")

		// Without the guard the redirect is followed.
		if c := dial(t, front.URL); c.CardURL() != front.URL+cardPath {
			t.Errorf("card URL %s", c.CardURL())
		}
	}
	if n := innerConns.Load(); n != 2 { // the two unguarded Dials
		t.Fatalf("redirect target saw %d connections, want only the 2 unguarded ones", n)
	}
}

// TestDenyPrivateTargetsWithHTTPClient: a caller's HTTP client is guarded
// when its transport can be, and refused otherwise.
func TestDenyPrivateTargetsWithHTTPClient(t *testing.T) {
	srv, conns := countingServer(t, http.NotFoundHandler())
	addr := addrPortOf(t, srv.URL).String()

	plain := &http.Transport{MaxIdleConnsPerHost: 7}
	for name, hc := range map[string]*http.Client{
		"nil transport":  {},
		"http.Transport": {Transport: plain},
	} {
		_, err := Dial(testCtx(t), srv.URL, WithHTTPClient(hc), WithDenyPrivateTargets())
		if err == nil {
			t.Fatalf("%s: Dial allowed", name)
		}
		wantDenied(t, err, addr, "loopback address")
	}
	if plain.DialContext != nil || plain.Proxy != nil {
		t.Errorf("the caller's transport was modified")
	}

	dialer := &net.Dialer{}
	for name, hc := range map[string]*http.Client{
		"custom RoundTripper": {Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return http.DefaultTransport.RoundTrip(r)
		})},
		"own DialContext": {Transport: &http.Transport{DialContext: dialer.DialContext}},
		"own DialTLSContext": {Transport: &http.Transport{DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, addr)
		}}},
	} {
		_, err := Dial(testCtx(t), srv.URL, WithHTTPClient(hc), WithDenyPrivateTargets())
		if err == nil || errors.Is(err, ErrDeniedTarget) || !strings.Contains(err.Error(), "WithDenyPrivateTargets") {
			t.Errorf("%s: %v, want Dial to refuse the combination", name, err)
		}
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("%d connections reached the server", n)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestGuardedTransportHasNoProxy: through a proxy the guard would check the
// proxy's address, not the agent's.
func TestGuardedTransportHasNoProxy(t *testing.T) {
	withProxy := &http.Transport{Proxy: http.ProxyFromEnvironment}
	for _, hc := range []*http.Client{nil, {}, {Transport: withProxy}} {
		out, err := guardedHTTPClient(hc, 4, newGuard(nil))
		if err != nil {
			t.Fatal(err)
		}
		tr := out.Transport.(*http.Transport)
		if tr.Proxy != nil || tr.DialContext == nil {
			t.Errorf("guarded transport: proxy set %v, dialer set %v", tr.Proxy != nil, tr.DialContext != nil)
		}
	}
}

// TestCheckEndpoint: with the guard, a card whose interface points at a
// private address is refused before any call (so that a service rejects
// the request with nothing stored, as it does a private card); an allowed
// interface passes, and without the guard nothing is checked.
func TestCheckEndpoint(t *testing.T) {
	inner, innerConns := countingServer(t, agenttest.Handler(agenttest.Sorry))
	front := httptest.NewServer(a2asrv.NewStaticAgentCardHandler(agenttest.Card(inner.URL)))
	t.Cleanup(front.Close)
	innerAddr := addrPortOf(t, inner.URL).String()

	c := dial(t, front.URL, WithDenyPrivateTargets(), withGuardExempt(t, front.URL))
	wantDenied(t, c.CheckEndpoint(testCtx(t)), innerAddr, "loopback address")

	c = dial(t, front.URL, WithDenyPrivateTargets(), withGuardExempt(t, front.URL, inner.URL))
	if err := c.CheckEndpoint(testCtx(t)); err != nil {
		t.Errorf("an exempt interface: %v", err)
	}
	if err := dial(t, front.URL).CheckEndpoint(testCtx(t)); err != nil {
		t.Errorf("without the guard: %v", err)
	}
	if n := innerConns.Load(); n != 0 {
		t.Errorf("checking opened %d connections to the agent", n)
	}
}
