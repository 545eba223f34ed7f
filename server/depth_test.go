package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

// nested is a JSON array nested n deep ("0" when n is 0).
func nested(n int) string {
	if n == 0 {
		return "0"
	}
	return strings.Repeat("[", n) + strings.Repeat("]", n)
}

// nestedObject is a JSON object nested n deep ("0" when n is 0): a data
// part every binding takes.
func nestedObject(n int) string {
	return strings.Repeat(`{"a":`, n) + "0" + strings.Repeat("}", n)
}

// nestedValue is a protobuf value nested n deep.
func nestedValue(n int) *structpb.Value {
	v := structpb.NewNumberValue(0)
	for range n {
		v = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{v}})
	}
	return v
}

// httpBindings are the HTTP endpoints, each with a body holding a data
// part of the given value.
var httpBindings = []struct {
	name, path string
	body       func(value string) string
	rest       bool
}{
	{"JSON-RPC 1.0", PathJSONRPC, func(v string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":` + v + `}]}}}`
	}, false},
	{"REST 1.0", PathREST + "/message:send", func(v string) string {
		return `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":` + v + `}]}}`
	}, true},
	{"JSON-RPC 0.3", PathJSONRPC03, func(v string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"data","data":` + v + `}]}}}`
	}, false},
	{"REST 0.3", PathREST03 + "/v1/message:send", func(v string) string {
		return `{"message":{"messageId":"m","role":"ROLE_USER","content":[{"data":{"data":` + v + `}}]}}`
	}, true},
}

// TestNestingLimit: a request nested deeper than MaxJSONDepth is refused
// on every binding, with the binding's invalid-request error, before
// anything decodes it; one at the limit is served.
func TestNestingLimit(t *testing.T) {
	srv := startServer(t, Config{})
	for _, b := range httpBindings {
		// The depth of the request around its data value.
		around := jsonDepth([]byte(b.body(nestedObject(0))), 1000)
		for _, depth := range []int{MaxJSONDepth, MaxJSONDepth + 1} {
			body := b.body(nestedObject(depth - around))
			if got := jsonDepth([]byte(body), 1000); got != depth {
				t.Fatalf("%s: the body nests %d deep, want %d", b.name, got, depth)
			}
			r := post(t, srv.URL()+b.path, strings.NewReader(body), nil)
			refused := strings.Contains(string(r.body), tooDeepText)
			switch {
			case depth <= MaxJSONDepth && (refused || r.status != 200 || r.rpc.Error != nil):
				t.Errorf("%s, depth %d: refused: HTTP %d %s", b.name, depth, r.status, clip(r.body))
			case depth > MaxJSONDepth && !refused:
				t.Errorf("%s, depth %d: not refused: HTTP %d %s", b.name, depth, r.status, clip(r.body))
			case depth > MaxJSONDepth && b.rest && r.status != http.StatusBadRequest:
				t.Errorf("%s, depth %d: HTTP %d, want 400", b.name, depth, r.status)
			case depth > MaxJSONDepth && !b.rest && (r.status != 200 || r.rpc.Error == nil || r.rpc.Error.Code != -32600):
				t.Errorf("%s, depth %d: HTTP %d %s, want error -32600", b.name, depth, r.status, clip(r.body))
			}
		}
	}

	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	grpcClient := a2apb.NewA2AServiceClient(conn)
	send := func(v *structpb.Value) *a2apb.SendMessageRequest {
		return &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m", Role: a2apb.Role_ROLE_USER,
			Parts: []*a2apb.Part{{Content: &a2apb.Part_Data{Data: v}}}}}
	}
	around := protoDepth(send(nestedValue(0)).ProtoReflect(), 1000)
	for _, depth := range []int{MaxJSONDepth, MaxJSONDepth + 1} {
		req := send(nestedValue(depth - around))
		// The same request as JSON nests as deep.
		if got := protoDepth(req.ProtoReflect(), 1000); got != depth {
			t.Fatalf("gRPC: the request nests %d deep, want %d", got, depth)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ctx = metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0")
		_, err := grpcClient.SendMessage(ctx, req)
		var streamErr error
		if stream, err := grpcClient.SendStreamingMessage(ctx, req); err != nil {
			streamErr = err
		} else {
			_, streamErr = stream.Recv()
		}
		cancel()
		for call, err := range map[string]error{"SendMessage": err, "SendStreamingMessage": streamErr} {
			if depth <= MaxJSONDepth && err != nil {
				t.Errorf("gRPC %s, depth %d: %v", call, depth, err)
			}
			if depth > MaxJSONDepth && (status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), tooDeepText)) {
				t.Errorf("gRPC %s, depth %d: %v, want InvalidArgument %q", call, depth, err, tooDeepText)
			}
		}
	}
	serverAlive(t, srv, nil)
}

// TestNestingMemory sends a request as large as --max-request-bytes
// allows, nested as deep as it can be or made of as many values as it can
// hold, on each binding, and measures what
// the process allocates meanwhile (client and server): it must stay far
// below the gigabytes such requests once cost.
func TestNestingMemory(t *testing.T) {
	srv := startServer(t, Config{})
	const budget = 100 << 20
	measure := func(name string, send func()) { measureWithin(t, name, budget, send) }
	// gRPC decodes a message before any interceptor sees it: 4 MiB of
	// structpb nulls is a million values decoded (client and server
	// together about 200 MB allocated, 50 MB live) before the value limit
	// refuses it, and before a2a-go would convert it into maps.
	const grpcValuesBudget = 256 << 20
	for _, b := range httpBindings {
		envelope := len(b.body(""))
		n := (int(DefaultMaxRequestBytes) - envelope) / 2
		body := b.body(nested(n))
		measure(b.name, func() {
			r := post(t, srv.URL()+b.path, strings.NewReader(body), nil)
			if !strings.Contains(string(r.body), tooDeepText) {
				t.Errorf("%s: a %d-byte request nested %d deep: HTTP %d %s", b.name, len(body), n, r.status, clip(r.body))
			}
		})
	}

	for _, b := range httpBindings {
		// As many values as the body limit holds: 4 MiB of [{},{},...].
		n := (int(DefaultMaxRequestBytes) - len(b.body("[]"))) / 3
		body := b.body("[" + strings.TrimSuffix(strings.Repeat("{},", n), ",") + "]")
		measure(b.name+", "+fmt.Sprint(n)+" values", func() {
			if r := post(t, srv.URL()+b.path, strings.NewReader(body), nil); !strings.Contains(string(r.body), tooManyText) {
				t.Errorf("%s: a %d-byte request of %d values: HTTP %d %s", b.name, len(body), n, r.status, clip(r.body))
			}
		})
	}

	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	grpcClient := a2apb.NewA2AServiceClient(conn)
	// As many structpb nulls as 4 MiB holds (2 bytes each, with their tag).
	nulls := make([]*structpb.Value, (DefaultMaxRequestBytes-64)/4)
	for i := range nulls {
		nulls[i] = structpb.NewNullValue()
	}
	measureWithin(t, fmt.Sprintf("gRPC, %d nulls", len(nulls)), grpcValuesBudget, func() {
		// The bound is on memory, not time: encoding a million values
		// under the race detector beside other packages' tests can take
		// most of a minute on 2 cores.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_, err := grpcClient.SendMessage(ctx, &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m", Role: a2apb.Role_ROLE_USER,
			Parts: []*a2apb.Part{{Content: &a2apb.Part_Data{Data: structpb.NewListValue(&structpb.ListValue{Values: nulls})}}}}})
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("gRPC, %d nulls: %v, want InvalidArgument", len(nulls), err)
		}
	})
	// protobuf decodes at most 10,000 levels; a list holding a list takes
	// two of them.
	req := &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m", Role: a2apb.Role_ROLE_USER,
		Parts: []*a2apb.Part{{Content: &a2apb.Part_Data{Data: nestedValue(4900)}}}}}
	measure("gRPC", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := grpcClient.SendMessage(ctx, req)
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("gRPC, nested 4900 deep: %v, want InvalidArgument", err)
		}
	})
	serverAlive(t, srv, nil)
}

// measureWithin runs send and checks what the process allocated meanwhile
// (client and server) against budget bytes, logging it.
func measureWithin(t *testing.T, name string, budget uint64, send func()) {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	send()
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%s: %.1f MB allocated (bound %d MB), heap in use %+.1f MB", name, float64(alloc)/(1<<20), budget>>20,
		(float64(after.HeapInuse)-float64(before.HeapInuse))/(1<<20))
	if alloc > budget {
		t.Errorf("%s: %d bytes allocated, want under %d", name, alloc, budget)
	}
}

// TestJSONDepth: strings, escapes and brackets in them do not count.
func TestJSONDepth(t *testing.T) {
	for text, want := range map[string]int{
		`0`:                       0,
		`{}`:                      1,
		`{"a":[1,{"b":[]}]}`:      4,
		`{"a":"[[[[{{{{"}`:        1,
		`{"a":"\"[[[","b":[[]]}`:  3,
		`["\\",["\\\"[["]]`:       2,
		`[[[[[[[[[[[[[[[[[[[[[[[`: 9, // stops past the limit
	} {
		if got := jsonDepth([]byte(text), 8); got != want {
			t.Errorf("jsonDepth(%s) = %d, want %d", text, got, want)
		}
	}
	var v any
	if err := json.Unmarshal([]byte(`{"a":"\"[[[","b":[[]]}`), &v); err != nil {
		t.Fatal(err) // the cases are JSON
	}
}

// TestValueLimit: a request of more than MaxJSONValues values (a data part
// of [{},{},...], a gRPC list of structpb nulls) is refused on every
// binding, with the binding's invalid-request error, before anything
// decodes it; one a little below the limit is served.
func TestValueLimit(t *testing.T) {
	srv := startServer(t, Config{MaxRequestBytes: 8 << 20})
	emptyObjects := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("{},", n), ",") + "]" }
	for _, b := range httpBindings {
		for _, n := range []int{MaxJSONValues - 100, MaxJSONValues + 1} {
			r := post(t, srv.URL()+b.path, strings.NewReader(b.body(emptyObjects(n))), nil)
			refused := strings.Contains(string(r.body), tooManyText)
			switch {
			case n < MaxJSONValues && refused:
				t.Errorf("%s, %d values: refused: HTTP %d %s", b.name, n, r.status, clip(r.body))
			case n > MaxJSONValues && !refused:
				t.Errorf("%s, %d values: not refused: HTTP %d %s", b.name, n, r.status, clip(r.body))
			case n > MaxJSONValues && b.rest && r.status != http.StatusBadRequest:
				t.Errorf("%s, %d values: HTTP %d, want 400", b.name, n, r.status)
			case n > MaxJSONValues && !b.rest && (r.rpc.Error == nil || r.rpc.Error.Code != -32600):
				t.Errorf("%s, %d values: %s, want error -32600", b.name, n, clip(r.body))
			}
		}
	}
	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	nulls := make([]*structpb.Value, MaxJSONValues)
	for i := range nulls {
		nulls[i] = structpb.NewNullValue()
	}
	req := &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m", Role: a2apb.Role_ROLE_USER,
		Parts: []*a2apb.Part{{Content: &a2apb.Part_Data{Data: structpb.NewListValue(&structpb.ListValue{Values: nulls})}}}}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0")
	_, err = a2apb.NewA2AServiceClient(conn).SendMessage(ctx, req, grpc.MaxCallSendMsgSize(8<<20))
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), tooManyText) {
		t.Errorf("gRPC, %d nulls: %v, want InvalidArgument %q", MaxJSONValues, err, tooManyText)
	}
	serverAlive(t, srv, nil)
}

// TestJSONValues counts values as the limit reads them: containers and
// scalars, not keys, nothing inside strings.
func TestJSONValues(t *testing.T) {
	for text, want := range map[string]int{`1`: 1, `{}`: 1, `[{},{}]`: 3, `{"a":1,"b":"x,[{"}`: 3, `"a,b"`: 1,
		`[1, 2.5, true, null, "s", {"k": [ ]}]`: 8, ` {"a" : {"b":{"c":-1}}} `: 4} {
		if got := jsonValues([]byte(text), 100); got != want {
			t.Errorf("jsonValues(%s) = %d, want %d", text, got, want)
		}
	}
}
