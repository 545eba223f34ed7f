package a2aclient

import (
	"context"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"

	"github.com/proctor-eval/proctor/internal/agentdial"
)

// bindingName maps a card's protocol binding to the --transport name.
func bindingName(b a2a.TransportProtocol) Transport {
	switch strings.ToUpper(string(b)) {
	case "JSONRPC", "JSON-RPC":
		return TransportJSONRPC
	case "HTTP+JSON", "REST", "HTTP":
		return TransportREST
	case "GRPC":
		return TransportGRPC
	}
	return ""
}

// versionName maps a card's protocol version ("1.0", "0.3.0", "") to
// Protocol10 or Protocol03; "" when proctor does not speak it.
func versionName(v a2a.ProtocolVersion) ProtocolVersion {
	s := strings.TrimPrefix(strings.TrimSpace(string(v)), "v")
	switch {
	case s == "" || s == "1" || strings.HasPrefix(s, "1."):
		return Protocol10
	case s == "0.3" || strings.HasPrefix(s, "0.3."):
		return Protocol03
	}
	return ""
}

// pickInterface chooses the interface to talk to: the first one in the
// card's order (the agent's preference) that proctor speaks and that matches
// the requested transport and protocol version.
func pickInterface(card *a2a.AgentCard, transport Transport, protocol ProtocolVersion) (*a2a.AgentInterface, error) {
	var offered []string
	for _, iface := range card.SupportedInterfaces {
		if iface == nil {
			continue
		}
		t, v := bindingName(iface.ProtocolBinding), versionName(iface.ProtocolVersion)
		offered = append(offered, fmt.Sprintf("%s %s at %s", iface.ProtocolBinding, orUnset(string(iface.ProtocolVersion)), iface.URL))
		if t == "" || v == "" || (transport != "" && t != transport) || (protocol != "" && v != protocol) {
			continue
		}
		if iface.URL == "" {
			return nil, fmt.Errorf("agent card: %s interface has no URL", iface.ProtocolBinding)
		}
		out := *iface
		if v == Protocol10 {
			out.ProtocolVersion = a2a.Version
		} else {
			out.ProtocolVersion = a2av0.Version
		}
		return &out, nil
	}
	if len(offered) == 0 {
		return nil, fmt.Errorf("agent card %q lists no interfaces", card.Name)
	}
	want := "interface proctor speaks (JSON-RPC, HTTP+JSON or gRPC at protocol 1.0 or 0.3)"
	if transport != "" || protocol != "" {
		want = fmt.Sprintf("%s interface at protocol %s", orAny(string(transport)), orAny(string(protocol)))
	}
	return nil, fmt.Errorf("agent card %q has no %s; it offers: %s", card.Name, want, strings.Join(offered, "; "))
}

func orUnset(s string) string {
	if s == "" {
		return "(no version)"
	}
	return s
}

func orAny(s string) string {
	if s == "" {
		return "any"
	}
	return s
}

// factoryOptions registers every transport proctor speaks with a2a-go's
// client factory. HTTP transports share the recording HTTP client; gRPC
// gets a stats handler that records the same metrics.
func (c *Client) factoryOptions() []sdkclient.FactoryOption {
	grpcOpts := c.grpcDialOptions()
	return []sdkclient.FactoryOption{
		sdkclient.WithDefaultsDisabled(),
		sdkclient.WithJSONRPCTransport(c.http),
		sdkclient.WithRESTTransport(c.http),
		sdkclient.WithTransport(a2a.TransportProtocolGRPC, grpcFactory(grpcOpts, grpcv1.NewGRPCTransport)),
		sdkclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolJSONRPC,
			a2av0.NewJSONRPCTransportFactory(a2av0.JSONRPCTransportConfig{Client: c.http})),
		sdkclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolHTTPJSON,
			a2av0.NewRESTTransportFactory(a2av0.RESTTransportConfig{Client: c.http})),
		sdkclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolGRPC, grpcFactory(grpcOpts, grpcv0.NewGRPCTransport)),
	}
}

// grpcFactory dials a gRPC interface. Cards write gRPC addresses in many
// ways ("host:port", "grpc://host:port", "http://host:port",
// "https://host"); grpc.NewClient takes a target, so the URL is turned into
// one, with TLS for https and grpcs.
func grpcFactory(opts []grpc.DialOption, newTransport func(*grpc.ClientConn) sdkclient.Transport) sdkclient.TransportFactory {
	return sdkclient.TransportFactoryFn(func(_ context.Context, _ *a2a.AgentCard, iface *a2a.AgentInterface) (sdkclient.Transport, error) {
		target, secure, err := agentdial.GRPCTarget(iface.URL)
		if err != nil {
			return nil, err
		}
		creds := agentdial.GRPCCredentials(secure)
		conn, err := grpc.NewClient(target, append([]grpc.DialOption{grpc.WithTransportCredentials(creds)}, opts...)...)
		if err != nil {
			return nil, fmt.Errorf("gRPC %s: %w", iface.URL, err)
		}
		return newTransport(conn), nil
	})
}

func (c *Client) grpcDialOptions() []grpc.DialOption {
	maxMsg := int(min(c.opts.maxResponseBytes, int64(1<<31-1)))
	headers := c.opts.headers
	opts := []grpc.DialOption{
		grpc.WithStatsHandler(grpcRecorder{}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMsg)),
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			return invoker(withTraceMetadata(withConversationHeaders(withGRPCHeaders(ctx, headers))), method, req, reply, cc, opts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			return streamer(withTraceMetadata(withConversationHeaders(withGRPCHeaders(ctx, headers))), desc, cc, method, opts...)
		}),
	}
	if c.opts.trace != nil {
		opts = append(opts, c.opts.trace.grpcDialOptions(headers)...)
	}
	if c.guard != nil {
		opts = append(opts, c.guard.grpcDialOptions()...)
	}
	if c.values != nil {
		opts = append(opts, c.values.grpcDialOptions()...)
	}
	return opts
}

// withGRPCHeaders sends the configured headers (authentication, say) as
// gRPC metadata.
func withGRPCHeaders(ctx context.Context, h map[string][]string) context.Context {
	if len(h) == 0 {
		return ctx
	}
	pairs := make([]string, 0, 2*len(h))
	for k, vs := range h {
		for _, v := range vs {
			pairs = append(pairs, strings.ToLower(k), v)
		}
	}
	return metadata.AppendToOutgoingContext(ctx, pairs...)
}

// withConversationHeaders sends the headers of the conversation the call
// belongs to (WithConversationHeaders) as gRPC metadata.
func withConversationHeaders(ctx context.Context) context.Context {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return ctx
	}
	return withGRPCHeaders(ctx, ex.headers)
}

// grpcRecorder feeds gRPC calls' wire sizes and status codes into the
// exchange of the proctor call they belong to, as recordingTransport does
// for HTTP.
type grpcRecorder struct{}

func (grpcRecorder) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (grpcRecorder) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}
func (grpcRecorder) HandleConn(context.Context, stats.ConnStats) {}

func (grpcRecorder) HandleRPC(ctx context.Context, s stats.RPCStats) {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	switch s := s.(type) {
	case *stats.Begin:
		ex.grpcCode = "" // a new call of the same exchange (polling, retry)
	case *stats.OutPayload:
		ex.sent += int64(s.WireLength)
	case *stats.InPayload:
		ex.received += int64(s.WireLength)
	case *stats.End:
		ex.grpcCode = status.Code(s.Error).String()
	}
}
