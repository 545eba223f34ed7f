package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	pb0 "github.com/a2aproject/a2a-go/a2apb"
	pb1 "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/proctor-eval/proctor/internal/agentdial"
	"github.com/proctor-eval/proctor/internal/tracing"
)

// grpcCaller speaks the gRPC binding: lf.a2a.v1.A2AService for 1.0,
// a2a.v1.A2AService for 0.3. Answers are turned into their proto JSON so
// that the same decoder reads every binding.
type grpcCaller struct {
	p             *prober
	in            Interface
	conn          *grpc.ClientConn
	v1            pb1.A2AServiceClient
	v0            pb0.A2AServiceClient
	limits        streamLimits
	streamTimeout time.Duration
}

func newGRPCCaller(p *prober, o *options, in Interface, limits streamLimits, streamTimeout time.Duration) (*grpcCaller, error) {
	target, secure, err := agentdial.GRPCTarget(in.URL)
	if err != nil {
		return nil, err
	}
	dialOpts := []grpc.DialOption{
		grpc.WithTransportCredentials(agentdial.GRPCCredentials(secure)),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(int(min(o.maxResponseBytes, 1<<30)))),
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			return invoker(withTraceMetadata(ctx), method, req, reply, cc, opts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			return streamer(withTraceMetadata(ctx), desc, cc, method, opts...)
		}),
	}
	if o.dialControl != nil {
		dialOpts = append(dialOpts, agentdial.RouteGRPC(func(ctx context.Context, addr string) (net.Conn, error) {
			return o.dial(ctx, "tcp", addr)
		})...)
	}
	conn, err := grpc.NewClient("passthrough:///"+target, dialOpts...)
	if err != nil {
		return nil, fmt.Errorf("gRPC %s: %w", in.URL, err)
	}
	return &grpcCaller{p: p, in: in, conn: conn, v1: pb1.NewA2AServiceClient(conn), v0: pb0.NewA2AServiceClient(conn),
		limits: limits, streamTimeout: streamTimeout}, nil
}

func (c *grpcCaller) service() string {
	if c.in.ProtocolVersion == version03 {
		return "a2a.v1.A2AService"
	}
	return "lf.a2a.v1.A2AService"
}

func (c *grpcCaller) callContext(ctx context.Context, noAuth bool) context.Context {
	md := metadata.Pairs("a2a-version", c.in.ProtocolVersion)
	if v, ok := versionOverride(ctx); ok {
		md = metadata.MD{}
		if v != "" {
			md.Set("a2a-version", v)
		}
	}
	if c.p.token != "" && !noAuth {
		md.Append("authorization", "Bearer "+c.p.token)
	}
	return metadata.NewOutgoingContext(ctx, md)
}

func protoText(m proto.Message) string {
	if m == nil {
		return ""
	}
	b, err := protojson.Marshal(m)
	if err != nil {
		return "(unprintable: " + err.Error() + ")"
	}
	return string(b)
}

// unary makes one call and decodes its answer.
func (c *grpcCaller) unary(ctx context.Context, method string, req proto.Message, noAuth bool, call func(context.Context) (proto.Message, error)) reply {
	return c.unaryWithin(ctx, c.p.reqTimeout, method, req, noAuth, call)
}

// unaryWithin is unary with its own time limit.
func (c *grpcCaller) unaryWithin(ctx context.Context, timeout time.Duration, method string, req proto.Message, noAuth bool,
	call func(context.Context) (proto.Message, error)) reply {
	r := reply{isGRPC: true, ex: Exchange{Transport: c.in.Name,
		Request: fmt.Sprintf("gRPC /%s/%s at %s\n%s", c.service(), method, c.in.URL, truncateText(protoText(req), maxExchangeText))}}
	if noAuth {
		r.ex.Request += "\n(sent without credentials)"
	}
	if err := c.p.count(); err != nil {
		r.fail, r.ex.Status = err, "not sent: "+err.Error()
		return r
	}
	ctx, cancel := context.WithTimeout(c.callContext(ctx, noAuth), timeout)
	defer cancel()
	resp, err := call(ctx)
	if err != nil {
		return c.statusReply(r, err)
	}
	r.grpcCode = codes.OK
	r.ex.Status = "gRPC OK"
	text := protoText(resp)
	r.ex.Response = truncateText(text, maxExchangeText)
	r.result = json.RawMessage(text)
	o, derr := decodeObject([]byte(text))
	if derr != nil {
		r.fail = fmt.Errorf("the answer is not an A2A object: %w", derr)
		return r
	}
	r.obj = &o
	return r
}

// statusReply reads a failed call's status.
func (c *grpcCaller) statusReply(r reply, err error) reply {
	st, ok := status.FromError(err)
	if !ok {
		r.fail = describeNetError(err)
		r.ex.Status = "no answer: " + r.fail.Error()
		return r
	}
	r.grpcCode, r.errText = st.Code(), st.Message()
	r.ex.Status = fmt.Sprintf("gRPC %s: %s", grpcName(st.Code()), truncateText(st.Message(), 200))
	if st.Code() == codes.Unavailable || st.Code() == codes.DeadlineExceeded {
		// The transport's own failures are no answer from the agent.
		r.fail = fmt.Errorf("gRPC %s: %s", grpcName(st.Code()), truncateText(st.Message(), 200))
	}
	return r
}

func v1Message(m outMessage) *pb1.Message {
	return &pb1.Message{MessageId: m.ID, ContextId: m.ContextID, TaskId: m.TaskID, Role: pb1.Role_ROLE_USER,
		Parts: []*pb1.Part{{Content: &pb1.Part_Text{Text: m.Text}}}}
}

func v0Message(m outMessage) *pb0.Message {
	return &pb0.Message{MessageId: m.ID, ContextId: m.ContextID, TaskId: m.TaskID, Role: pb0.Role_ROLE_USER,
		Parts: []*pb0.Part{{Part: &pb0.Part_Text{Text: m.Text}}}}
}

func (c *grpcCaller) send(ctx context.Context, m outMessage, blocking bool) reply {
	if c.in.ProtocolVersion == version03 {
		req := &pb0.SendMessageRequest{Request: v0Message(m), Configuration: &pb0.SendMessageConfiguration{Blocking: blocking}}
		return c.unaryWithin(ctx, c.p.timeout(blocking), "SendMessage", req, false, func(ctx context.Context) (proto.Message, error) { return c.v0.SendMessage(ctx, req) })
	}
	req := &pb1.SendMessageRequest{Message: v1Message(m), Configuration: &pb1.SendMessageConfiguration{ReturnImmediately: !blocking}}
	return c.unaryWithin(ctx, c.p.timeout(blocking), "SendMessage", req, false, func(ctx context.Context) (proto.Message, error) { return c.v1.SendMessage(ctx, req) })
}

func (c *grpcCaller) getTask(ctx context.Context, id string, historyLength *int, noAuth bool) reply {
	if c.in.ProtocolVersion == version03 {
		req := &pb0.GetTaskRequest{Name: "tasks/" + id}
		if historyLength != nil {
			req.HistoryLength = int32(*historyLength)
		}
		return c.unary(ctx, "GetTask", req, noAuth, func(ctx context.Context) (proto.Message, error) { return c.v0.GetTask(ctx, req) })
	}
	req := &pb1.GetTaskRequest{Id: id}
	if historyLength != nil {
		n := int32(*historyLength)
		req.HistoryLength = &n
	}
	return c.unary(ctx, "GetTask", req, noAuth, func(ctx context.Context) (proto.Message, error) { return c.v1.GetTask(ctx, req) })
}

func (c *grpcCaller) get(ctx context.Context, id string, historyLength *int) reply {
	return c.getTask(ctx, id, historyLength, false)
}

func (c *grpcCaller) list(ctx context.Context, q listQuery) reply {
	req := q.grpcRequest()
	return c.unary(ctx, "ListTasks", req, false, func(ctx context.Context) (proto.Message, error) { return c.v1.ListTasks(ctx, req) })
}

func (c *grpcCaller) getWithoutAuth(ctx context.Context, id string) reply {
	return c.getTask(ctx, id, nil, true)
}

func (c *grpcCaller) cancel(ctx context.Context, id string) reply {
	if c.in.ProtocolVersion == version03 {
		req := &pb0.CancelTaskRequest{Name: "tasks/" + id}
		return c.unary(ctx, "CancelTask", req, false, func(ctx context.Context) (proto.Message, error) { return c.v0.CancelTask(ctx, req) })
	}
	req := &pb1.CancelTaskRequest{Id: id}
	return c.unary(ctx, "CancelTask", req, false, func(ctx context.Context) (proto.Message, error) { return c.v1.CancelTask(ctx, req) })
}

// receiver is a server stream's Recv.
type receiver func() (proto.Message, error)

func (c *grpcCaller) openStream(ctx context.Context, method string, req proto.Message,
	start func(context.Context) (receiver, error)) (events, reply) {
	r := reply{isGRPC: true, ex: Exchange{Transport: c.in.Name,
		Request: fmt.Sprintf("gRPC /%s/%s at %s (server stream)\n%s", c.service(), method, c.in.URL, truncateText(protoText(req), maxExchangeText))}}
	if err := c.p.count(); err != nil {
		r.fail, r.ex.Status = err, "not sent: "+err.Error()
		return nil, r
	}
	sctx, cancel := context.WithTimeout(c.callContext(ctx, false), c.streamTimeout)
	recv, err := start(sctx)
	if err != nil {
		cancel()
		return nil, c.statusReply(r, err)
	}
	r.grpcCode = codes.OK
	r.ex.Status = "gRPC stream open"
	return &grpcEvents{recv: recv, ex: r.ex, cancel: cancel, ctx: sctx, limits: c.limits}, r
}

func (c *grpcCaller) stream(ctx context.Context, m outMessage) (events, reply) {
	if c.in.ProtocolVersion == version03 {
		req := &pb0.SendMessageRequest{Request: v0Message(m)}
		return c.openStream(ctx, "SendStreamingMessage", req, func(ctx context.Context) (receiver, error) {
			s, err := c.v0.SendStreamingMessage(ctx, req)
			if err != nil {
				return nil, err
			}
			return func() (proto.Message, error) { return s.Recv() }, nil
		})
	}
	req := &pb1.SendMessageRequest{Message: v1Message(m)}
	return c.openStream(ctx, "SendStreamingMessage", req, func(ctx context.Context) (receiver, error) {
		s, err := c.v1.SendStreamingMessage(ctx, req)
		if err != nil {
			return nil, err
		}
		return func() (proto.Message, error) { return s.Recv() }, nil
	})
}

func (c *grpcCaller) subscribe(ctx context.Context, id string) (events, reply) {
	if c.in.ProtocolVersion == version03 {
		req := &pb0.TaskSubscriptionRequest{Name: "tasks/" + id}
		return c.openStream(ctx, "TaskSubscription", req, func(ctx context.Context) (receiver, error) {
			s, err := c.v0.TaskSubscription(ctx, req)
			if err != nil {
				return nil, err
			}
			return func() (proto.Message, error) { return s.Recv() }, nil
		})
	}
	req := &pb1.SubscribeToTaskRequest{Id: id}
	return c.openStream(ctx, "SubscribeToTask", req, func(ctx context.Context) (receiver, error) {
		s, err := c.v1.SubscribeToTask(ctx, req)
		if err != nil {
			return nil, err
		}
		return func() (proto.Message, error) { return s.Recv() }, nil
	})
}

// invoke calls a method by name with an empty request (the unknown-method
// and invalid-argument probes).
func (c *grpcCaller) invoke(ctx context.Context, method string, req proto.Message, resp proto.Message) reply {
	full := "/" + c.service() + "/" + method
	return c.unary(ctx, method, req, false, func(ctx context.Context) (proto.Message, error) {
		err := c.conn.Invoke(ctx, full, req, resp)
		return resp, err
	})
}

// emptySend calls SendMessage without a message (the invalid-argument
// probe).
func (c *grpcCaller) emptySend(ctx context.Context) reply {
	if c.in.ProtocolVersion == version03 {
		req := &pb0.SendMessageRequest{}
		return c.unary(ctx, "SendMessage", req, false, func(ctx context.Context) (proto.Message, error) { return c.v0.SendMessage(ctx, req) })
	}
	req := &pb1.SendMessageRequest{}
	return c.unary(ctx, "SendMessage", req, false, func(ctx context.Context) (proto.Message, error) { return c.v1.SendMessage(ctx, req) })
}

func (c *grpcCaller) close() { _ = c.conn.Close() }

// grpcEvents reads a gRPC server stream.
type grpcEvents struct {
	recv   receiver
	ex     Exchange
	log    strings.Builder
	cancel context.CancelFunc
	ctx    context.Context
	limits streamLimits
	n      int
	read   int64
	done   bool
}

func (g *grpcEvents) next() (event, bool) {
	if g.done {
		return event{}, false
	}
	if g.n >= g.limits.maxEvents {
		g.done = true
		return event{problem: fmt.Sprintf("the stream sent more than %d events", g.limits.maxEvents)}, true
	}
	msg, err := g.recv()
	if err != nil {
		g.done = true
		if errors.Is(err, io.EOF) {
			return event{}, false
		}
		if g.ctx.Err() != nil {
			return event{problem: "no further event before the time limit", timedOut: true}, true
		}
		if st, ok := status.FromError(err); ok && st.Code() != codes.Unavailable {
			r := reply{isGRPC: true, grpcCode: st.Code(), errText: st.Message(), ex: g.exchange()}
			fmt.Fprintf(&g.log, "status: %s %s\n", grpcName(st.Code()), truncateText(st.Message(), 200))
			return event{errReply: &r}, true
		}
		return event{problem: "the stream broke: " + err.Error()}, true
	}
	g.n++
	g.read += int64(proto.Size(msg))
	if g.read > g.limits.maxBytes {
		g.done = true
		return event{problem: fmt.Sprintf("the stream sent more than %d bytes", g.limits.maxBytes)}, true
	}
	text := protoText(msg)
	if g.log.Len() < maxExchangeText {
		fmt.Fprintf(&g.log, "event: %s\n", truncateText(text, maxExchangeText-g.log.Len()))
	}
	return decodeJSONEvent([]byte(text)), true
}

func (g *grpcEvents) close() {
	g.done = true
	g.cancel()
}

func (g *grpcEvents) abort() { g.cancel() }

func (g *grpcEvents) exchange() Exchange {
	ex := g.ex
	ex.Response = g.log.String()
	return ex
}

// withTraceMetadata sends ctx's W3C trace context as gRPC metadata.
func withTraceMetadata(ctx context.Context) context.Context {
	h := http.Header{}
	tracing.InjectHeader(ctx, h)
	for k, vs := range h {
		for _, v := range vs {
			ctx = metadata.AppendToOutgoingContext(ctx, strings.ToLower(k), v)
		}
	}
	return ctx
}
