package agenttest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
)

// Peer configures StartPeer.
type Peer struct {
	// Transport is "jsonrpc", "rest" or "grpc".
	Transport string
	// Protocol is "1.0" or "0.3".
	Protocol string
	// Streaming declares streaming in the card (the server streams either
	// way; the card decides whether a client uses it).
	Streaming bool
	// Wrap, when set, wraps the request handler, so that the peer answers
	// as a server the test mimics (PySDK03Compat, say).
	Wrap func(a2asrv.RequestHandler) a2asrv.RequestHandler
}

// StartPeer serves a real a2a-go agent whose replies come from reply, on
// the transport and protocol version p asks for, with its agent card at
// /.well-known/agent-card.json of the returned base URL (a 0.3-style card
// for protocol 0.3). gRPC agents listen on a second loopback port that the
// card points at. Everything closes when the test ends.
func StartPeer(tb testing.TB, p Peer, reply ReplyFunc) string {
	tb.Helper()
	return StartExecutorPeer(tb, p, executor{reply})
}

// StartExecutorPeer is StartPeer for an agent executor of the caller's (an
// ADK agent's adka2a executor, say), with the request handler's options.
func StartExecutorPeer(tb testing.TB, p Peer, exec a2asrv.AgentExecutor, opts ...a2asrv.RequestHandlerOption) string {
	tb.Helper()
	handler := a2asrv.NewHandler(exec, opts...)
	if p.Wrap != nil {
		handler = p.Wrap(handler)
	}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)

	var binding a2a.TransportProtocol
	url := srv.URL
	switch p.Transport {
	case "jsonrpc":
		binding = a2a.TransportProtocolJSONRPC
		url = srv.URL + "/rpc"
		if p.Protocol == "0.3" {
			mux.Handle("/rpc", a2av0.NewJSONRPCHandler(handler))
		} else {
			mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(handler))
		}
	case "rest":
		binding = a2a.TransportProtocolHTTPJSON
		if p.Protocol == "0.3" {
			mux.Handle(a2av0.RESTPathPrefix+"/", a2av0.NewRESTHandler(handler))
		} else {
			mux.Handle("/", a2asrv.NewRESTHandler(handler))
		}
	case "grpc":
		binding = a2a.TransportProtocolGRPC
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		gs := grpc.NewServer()
		if p.Protocol == "0.3" {
			grpcv0.NewHandler(handler).RegisterWith(gs)
		} else {
			grpcv1.NewHandler(handler).RegisterWith(gs)
		}
		go func() { _ = gs.Serve(ln) }()
		tb.Cleanup(gs.Stop)
		url = ln.Addr().String()
	default:
		tb.Fatalf("agenttest: unknown transport %q", p.Transport)
	}

	card := Card(srv.URL)
	card.Capabilities.Streaming = p.Streaming
	card.SupportedInterfaces = []*a2a.AgentInterface{{URL: url, ProtocolBinding: binding, ProtocolVersion: a2a.Version}}
	var producer a2asrv.AgentCardProducer
	if p.Protocol == "0.3" {
		card.SupportedInterfaces[0].ProtocolVersion = a2av0.Version
		producer = a2av0.NewStaticAgentCardProducer(card)
	} else {
		producer = a2asrv.AgentCardProducerFn(func(context.Context) (*a2a.AgentCard, error) { return card, nil })
	}
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewAgentCardHandler(producer))
	return srv.URL
}
