package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MaxJSONDepth bounds how deeply a request may nest, counting every
// object and array of the request as its binding sends it (the JSON-RPC
// envelope included; for gRPC, the message as JSON). a2a-go copies message
// values over and over, so that memory grows with the square of the
// nesting: 20 KB nested 10,000 deep took the server to 1.9 GB. Nothing a
// skill takes comes near this depth.
const MaxJSONDepth = 64

// tooDeepText is the error message of a request nested too deeply.
var tooDeepText = fmt.Sprintf("invalid request: JSON nested deeper than %d levels", MaxJSONDepth)

// MaxJSONValues bounds the values a request may hold (objects, arrays and
// scalars, the envelope's included; for gRPC, its messages). a2a-go
// decodes a request's data parts into maps and slices: 4 MB of
// [{},{},...] is a million values and hundreds of megabytes decoded.
// Nothing a skill takes comes near it: an eval set holds at most
// evalset.MaxValues (100,000) values.
const MaxJSONValues = 250_000

// tooManyText is the error message of a request of too many values.
var tooManyText = fmt.Sprintf("invalid request: more than %d JSON values (objects, arrays and scalars); split the request", MaxJSONValues)

// stringSkipper tells, byte by byte, which bytes of JSON text are inside
// a string (its quotes included), so that scanners see only structure.
type stringSkipper struct{ inString, escaped bool }

// skip reports whether c, the next byte, is part of a string, and
// whether it is the quote that opens one.
func (s *stringSkipper) skip(c byte) (skipped, opening bool) {
	switch {
	case !s.inString:
		s.inString = c == '"'
		return s.inString, s.inString
	case s.escaped:
		s.escaped = false
	case c == '\\':
		s.escaped = true
	case c == '"':
		s.inString = false
	}
	return true, false
}

// jsonValues is how many values JSON text holds (objects, arrays and
// scalars; not the keys of objects), counted up to limit+1. Call it on
// text no deeper than MaxJSONDepth (see limitDepth): deeper text counts as
// over the limit. It allocates nothing.
func jsonValues(text []byte, limit int) int {
	var inObject [MaxJSONDepth + 2]bool // by depth: an object, or an array
	depth, n := 0, 0
	expect := true // a value may start at the next token
	var str stringSkipper
	for _, c := range text {
		if skipped, opening := str.skip(c); skipped && !opening {
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case ']', '}':
			depth, expect = max(depth-1, 0), false
			continue
		case ',':
			expect = !inObject[depth] // in an object, a key comes next
			continue
		case ':':
			expect = true
			continue
		}
		if expect {
			if n++; n > limit {
				return n
			}
		}
		expect = false
		switch c {
		case '{', '[':
			if depth++; depth >= len(inObject) {
				return limit + 1
			}
			inObject[depth], expect = c == '{', c == '['
		}
	}
	return n
}

// jsonDepth is how deeply JSON text nests (objects and arrays, outside
// strings), counted up to limit+1: it stops there. It reads text as a
// stream and allocates nothing, whatever text holds.
func jsonDepth(text []byte, limit int) int {
	depth, deepest := 0, 0
	var str stringSkipper
	for _, c := range text {
		if skipped, _ := str.skip(c); skipped {
			continue
		}
		switch c {
		case '[', '{':
			depth++
			if depth > deepest {
				if deepest = depth; deepest > limit {
					return deepest
				}
			}
		case ']', '}':
			depth--
		}
	}
	return deepest
}

// The bindings' error forms, for limitDepth.
const (
	bindingJSONRPC = iota
	bindingREST
	bindingREST03 // problem+json, as a2a-go's 0.3 REST errors
)

// limitDepth refuses a body nested deeper than MaxJSONDepth before anything
// decodes it, with the binding's invalid-request error: JSON-RPC -32600
// (HTTP 200, id null: the id is not read), REST 400 INVALID_ARGUMENT. The
// body is already bounded (limit); it is read whole, as the handlers would.
func limitDepth(binding int, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Method == http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			bodyError(w, err)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		problem := ""
		switch {
		case jsonDepth(body, MaxJSONDepth) > MaxJSONDepth:
			problem = tooDeepText
		case jsonValues(body, MaxJSONValues) > MaxJSONValues:
			problem = tooManyText
		default:
			next.ServeHTTP(w, r)
			return
		}
		refuseBody(w, binding, problem)
	})
}

// refuseBody answers a request refused before decoding with the binding's
// invalid-request error.
func refuseBody(w http.ResponseWriter, binding int, problem string) {
	switch binding {
	case bindingJSONRPC:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil,
			"error": map[string]any{"code": -32600, "message": problem}})
	default:
		ct := "application/json"
		if binding == bindingREST03 {
			ct = "application/problem+json"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"code": http.StatusBadRequest, "status": "INVALID_ARGUMENT", "message": problem}})
	}
}

// protoDepth is how deeply m nests as JSON (a message or a map is an
// object, a repeated field an array; google.protobuf.Value is the value it
// holds), counted up to limit+1.
func protoDepth(m protoreflect.Message, limit int) int {
	return messageDepth(m, 0, limit)
}

// messageDepth is the depth of m, which begins at depth+1.
func messageDepth(m protoreflect.Message, depth, limit int) int {
	name := m.Descriptor().FullName()
	if name != "google.protobuf.Value" {
		depth++ // Struct and ListValue are an object and an array, as messages are
		if depth > limit {
			return depth
		}
	}
	deepest := depth
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		d := depth
		switch {
		case fd.IsList():
			if name != "google.protobuf.ListValue" { // its list is the array itself
				d++
			}
			d = max(d, listDepth(fd, v.List(), d, limit))
		case fd.IsMap():
			if name != "google.protobuf.Struct" { // its map is the object itself
				d++
			}
			if fd.MapValue().Message() != nil {
				at := d
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					d = max(d, messageDepth(mv.Message(), at, limit))
					return d <= limit
				})
			}
		case fd.Message() != nil:
			d = messageDepth(v.Message(), depth, limit)
		}
		deepest = max(deepest, d)
		return deepest <= limit
	})
	return deepest
}

func listDepth(fd protoreflect.FieldDescriptor, l protoreflect.List, depth, limit int) int {
	deepest := depth
	if fd.Message() == nil {
		return deepest
	}
	for i := 0; i < l.Len() && deepest <= limit; i++ {
		deepest = max(deepest, messageDepth(l.Get(i).Message(), depth, limit))
	}
	return deepest
}

// grpcDepthError refuses a gRPC request nested deeper than MaxJSONDepth,
// or of more than MaxJSONValues messages.
func grpcDepthError(req any) error {
	m, ok := req.(proto.Message)
	switch {
	case !ok:
	case protoDepth(m.ProtoReflect(), MaxJSONDepth) > MaxJSONDepth:
		return status.Error(codes.InvalidArgument, tooDeepText)
	case protoMessages(m.ProtoReflect(), MaxJSONValues) > MaxJSONValues:
		return status.Error(codes.InvalidArgument, tooManyText)
	}
	return nil
}

// protoMessages counts m and the messages within it (a structpb value is
// one each), up to limit+1.
func protoMessages(m protoreflect.Message, limit int) int {
	n := 1
	var visit func(protoreflect.Message) bool
	visit = func(m protoreflect.Message) bool {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Message() == nil:
			case fd.IsList():
				for i := 0; i < v.List().Len() && n <= limit; i++ {
					n++
					visit(v.List().Get(i).Message())
				}
			case fd.IsMap():
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					n++
					if fd.MapValue().Message() != nil {
						visit(mv.Message())
					}
					return n <= limit
				})
			default:
				n++
				visit(v.Message())
			}
			return n <= limit
		})
		return n <= limit
	}
	visit(m)
	return n
}

// depthCheckedStream checks every message a client streams in.
type depthCheckedStream struct{ grpc.ServerStream }

// RecvMsg implements grpc.ServerStream.
func (s depthCheckedStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	return grpcDepthError(m)
}

// grpcLimitDepth is the unary interceptor that refuses deep requests.
func grpcLimitDepth(ctx context.Context, req any, _ *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
	if err := grpcDepthError(req); err != nil {
		return nil, err
	}
	return next(ctx, req)
}
