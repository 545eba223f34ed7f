package conformance_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/internal/agentdial"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

// exemptControl is the private-target guard with one loopback server
// exempt (tests have nothing but loopback to talk to).
func exemptControl(t *testing.T, serverURL string) func(network, address string, c syscall.RawConn) error {
	t.Helper()
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	exempt := netip.MustParseAddrPort(u.Host)
	return func(network, address string, _ syscall.RawConn) error {
		return agentdial.Check(network, address, func(ap netip.AddrPort) bool { return ap == exempt })
	}
}

// countedServer serves h on loopback and counts the connections that reach
// it.
func countedServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
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

// TestRunRefusedByTheGuard: a run the private-target guard stops, at the
// agent itself, at the interface its card names or at a redirect, ends
// with ErrDeniedTarget and no report (issue 13: it used to be a
// "non-conformant" report), and the refused address sees no connection.
func TestRunRefusedByTheGuard(t *testing.T) {
	private, privateConns := countedServer(t, agenttest.Handler(agenttest.Sorry))
	cardTo := func(iface string) http.Handler {
		return a2asrv.NewStaticAgentCardHandler(agenttest.Card(iface))
	}
	cases := []struct {
		name  string
		front http.Handler // the agent named; nil: the private server itself
	}{
		{"the agent on loopback", nil},
		{"a card naming a private interface", cardTo(private.URL)},
		{"a redirect to a private address", http.RedirectHandler(private.URL+"/.well-known/agent-card.json", http.StatusFound)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := privateConns.Load()
			target, opt := private.URL, conformance.WithDenyPrivateTargets()
			if tc.front != nil {
				front := httptest.NewServer(tc.front)
				t.Cleanup(front.Close)
				target, opt = front.URL, conformance.WithDialControl(exemptControl(t, front.URL))
			}
			rep, err := conformance.Run(context.Background(), target, opt, conformance.WithProtocol(conformance.Protocol10))
			var denied *agentdial.DeniedError
			if rep != nil || !errors.Is(err, conformance.ErrDeniedTarget) || !errors.As(err, &denied) {
				t.Fatalf("report %v, error %v; want no report and the guard's refusal", rep, err)
			}
			if n := privateConns.Load() - before; n != 0 {
				t.Errorf("the refused server saw %d connections", n)
			}
		})
	}
}
