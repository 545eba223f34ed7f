package a2aclient

import (
	"context"
	"slices"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// maxCountDepth is how deep countMessages follows nested messages: as deep
// as proto.Unmarshal goes (protowire.DefaultRecursionLimit), which refuses
// anything deeper itself.
const maxCountDepth = protowire.DefaultRecursionLimit

// grpcDialOptions applies the limits to gRPC calls: each call decodes its
// replies with a grpcValueCodec of its own.
func (l *valueLimits) grpcDialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			return invoker(ctx, method, req, reply, cc, l.withCodec(ctx, opts)...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			return streamer(ctx, desc, cc, method, l.withCodec(ctx, opts)...)
		}),
	}
}

// withCodec returns opts with a grpcValueCodec for the call of ctx.
func (l *valueLimits) withCodec(ctx context.Context, opts []grpc.CallOption) []grpc.CallOption {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	codec := &grpcValueCodec{base: encoding.GetCodecV2("proto"), ctx: ctx, ex: ex, limits: l}
	return append(slices.Clip(opts), grpc.ForceCodecV2(codec))
}

// grpcValueCodec is gRPC's proto codec with WithMaxResponseValues: the
// protobuf messages of a received message are counted on its wire bytes,
// guided by its schema, before anything is decoded, so that 16 MiB of
// structpb nulls (4 bytes each) fail before they become 4 million
// *structpb.Value. The count runs over the call's replies (a stream's
// events) together. One codec serves one call, whose replies gRPC decodes
// one at a time.
type grpcValueCodec struct {
	base   encoding.CodecV2
	ctx    context.Context
	ex     *exchange // nil for a call outside a conversation's
	limits *valueLimits
	count  int64
}

func (c *grpcValueCodec) Name() string { return c.base.Name() }

func (c *grpcValueCodec) Marshal(v any) (mem.BufferSlice, error) { return c.base.Marshal(v) }

func (c *grpcValueCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return c.base.Unmarshal(data, v)
	}
	b := contiguous(data)
	before := c.count
	if err := c.countMessages(b, m.ProtoReflect().Descriptor(), 0); err != nil {
		if c.ex != nil {
			c.ex.refuseValues(err)
		}
		return err
	}
	if c.ex != nil {
		if err := c.ex.hold(c.ctx, c.limits, c.count-before); err != nil {
			c.ex.refuseValues(err)
			return err
		}
	}
	return proto.Unmarshal(b, m)
}

// contiguous returns data's bytes as one slice: the buffer itself when
// there is one, else a plain copy. Not a pooled copy: after a 16 MiB reply
// gRPC's pool would keep the 16 MiB buffer alive for the next call.
func contiguous(data mem.BufferSlice) []byte {
	if len(data) == 1 {
		return data[0].ReadOnlyData()
	}
	return data.Materialize()
}

// countMessages adds the messages nested in b, the wire form of a message
// of type md, to c.count, and fails once it is over the limit. Map entries
// do not count (their values do); unknown fields are not looked into. A
// malformed b stops the count: proto.Unmarshal reports it.
func (c *grpcValueCodec) countMessages(b []byte, md protoreflect.MessageDescriptor, depth int) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil
		}
		b = b[n:]
		fd := md.Fields().ByNumber(num)
		isMsg := fd != nil && (fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind)
		var sub []byte
		switch {
		case isMsg && typ == protowire.BytesType:
			sub, n = protowire.ConsumeBytes(b)
		case isMsg && typ == protowire.StartGroupType:
			sub, n = protowire.ConsumeGroup(num, b)
		default:
			isMsg = false
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return nil
		}
		b = b[n:]
		if !isMsg {
			continue
		}
		if !fd.IsMap() {
			if c.count++; c.count > c.limits.perReply {
				return c.limits.tooMany("protobuf messages")
			}
		}
		if depth < maxCountDepth {
			if err := c.countMessages(sub, fd.Message(), depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}
