package agenttest

// Decoding bombs: replies small enough in bytes to pass the reply cap that
// would take hundreds of times their size once decoded, because every tiny
// value in them becomes a Go value (a map, a *structpb.Value).

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// DataBombAgent answers every call with an agent message whose one data
// part is an array of objects empty objects, `[{},{},...]` (3 bytes each),
// over JSON-RPC: as a JSON body, or (streaming) as one server-sent event.
// The reply is generated as it is sent. It holds objects + 11 JSON values.
func DataBombAgent(tb testing.TB, objects int, streaming bool) *Hostile {
	return serveHostile(tb, streaming, func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		head := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"message":{"messageId":"bomb","role":"ROLE_AGENT","contextId":%q,"parts":[{"data":[{}`,
			req.id(), req.Params.Message.ContextID)
		if streaming {
			sseHeaders(w)
			head = append([]byte("id: bomb\ndata: "), head...)
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		if _, err := w.Write(head); err != nil {
			return
		}
		piece := bytes.Repeat([]byte(",{}"), flushEvery/3)
		f, _ := w.(http.Flusher)
		for left := objects - 1; left > 0; left -= len(piece) / 3 {
			if _, err := w.Write(piece[:3*min(left, len(piece)/3)]); err != nil {
				return
			}
			if f != nil {
				f.Flush()
			}
		}
		tail := `]}]}}}`
		if streaming {
			tail += "\n\n"
		}
		_, _ = w.Write([]byte(tail))
	})
}

// NullsMessage is the wire form (protobuf) of an a2a 1.0 Message whose one
// data part is a list of structpb nulls, about n bytes of them (4 bytes
// each).
func NullsMessage(n int) []byte {
	null := protowire.AppendTag(nil, 1, protowire.VarintType) // Value.null_value
	null = protowire.AppendVarint(null, 0)
	elem := protowire.AppendTag(nil, 1, protowire.BytesType) // ListValue.values
	elem = protowire.AppendBytes(elem, null)
	list := bytes.Repeat(elem, max(n/len(elem), 1))
	value := protowire.AppendBytes(protowire.AppendTag(nil, 6, protowire.BytesType), list) // Value.list_value
	part := protowire.AppendBytes(protowire.AppendTag(nil, 4, protowire.BytesType), value) // Part.data
	head, err := proto.Marshal(&a2apb.Message{MessageId: "bomb", Role: a2apb.Role_ROLE_AGENT})
	if err != nil {
		panic(err) // a fixed, valid message
	}
	return protowire.AppendBytes(protowire.AppendTag(head, 5, protowire.BytesType), part) // Message.parts
}

// GRPCNullsAgent serves a gRPC agent (protocol 1.0) that answers every call
// with NullsMessage(n): SendMessage as its reply, SendStreamingMessage as
// one event. Its card (the Hostile's server) declares streaming when
// streaming is set. The reply is built once, before the agent serves.
func GRPCNullsAgent(tb testing.TB, n int, streaming bool) *Hostile {
	tb.Helper()
	msg := NullsMessage(n)
	wrap := func(m proto.Message) []byte { // msg as the oneof field "message" of m
		fd := m.ProtoReflect().Descriptor().Fields().ByName("message")
		return protowire.AppendBytes(protowire.AppendTag(nil, fd.Number(), protowire.BytesType), msg)
	}
	unary, event := wrap(&a2apb.SendMessageResponse{}), wrap(&a2apb.StreamResponse{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	h := &Hostile{}
	gs := grpc.NewServer(grpc.ForceServerCodecV2(rawCodec{}), grpc.UnknownServiceHandler(func(_ any, s grpc.ServerStream) error {
		h.calls.Add(1)
		var req []byte
		if err := s.RecvMsg(&req); err != nil {
			return err
		}
		method, _ := grpc.MethodFromServerStream(s)
		if strings.HasSuffix(method, "/SendStreamingMessage") {
			return s.SendMsg(event)
		}
		return s.SendMsg(unary)
	}))
	go func() { _ = gs.Serve(ln) }()
	tb.Cleanup(gs.Stop)

	mux := http.NewServeMux()
	h.Server = httptest.NewServer(mux)
	tb.Cleanup(h.Close)
	card := Card(h.URL)
	card.Capabilities.Streaming = streaming
	card.SupportedInterfaces = []*a2a.AgentInterface{{URL: ln.Addr().String(), ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2a.Version}}
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(card))
	return h
}

// rawCodec passes messages through as bytes: a request is read into a
// *[]byte, a reply sent from a []byte.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	b, ok := v.([]byte)
	if !ok {
		return nil, fmt.Errorf("rawCodec: cannot send a %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	p, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("rawCodec: cannot read into a %T", v)
	}
	*p = data.Materialize()
	return nil
}

var _ encoding.CodecV2 = rawCodec{}
