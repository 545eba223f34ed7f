package a2aclient

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/proctor-eval/proctor/internal/agenttest"
)

// TestJSONCounter: values are counted the same whatever pieces the text
// arrives in; object keys, escapes and structure inside strings do not
// count.
func TestJSONCounter(t *testing.T) {
	tests := []struct {
		text string
		want int64
	}{
		{``, 0},
		{`{}`, 1},
		{`[{},{},{}]`, 4},
		{`[null, true,false ,-1.5e3,"x"]`, 6},
		{`{"a":1,"b":{"c":[]} , "d" : "e"}`, 5},
		{`["a\"b:c", "{[,]}", "\\", ":"]`, 5},
		{`{"k\\":"v"}`, 2},
		{"[1\n,2]", 3},
		{`"just a string"`, 1},
		{`{"jsonrpc":"2.0","id":1,"result":{"message":{"parts":[{"data":[{},{}]}]}}}`, 10},
	}
	for _, tt := range tests {
		var whole jsonCounter
		whole.scan([]byte(tt.text))
		whole.finish()
		var bytewise jsonCounter
		for i := range len(tt.text) {
			bytewise.scan([]byte(tt.text[i : i+1]))
		}
		bytewise.finish()
		if diff := cmp.Diff([]int64{tt.want, tt.want}, []int64{whole.n, bytewise.n}); diff != "" {
			t.Errorf("%s: counts (whole, byte by byte) (-want +got):\n%s", tt.text, diff)
		}
	}
}

// TestEventValues: only data lines count, however the stream is cut, and
// each event holds its values of the budget when it ends.
func TestEventValues(t *testing.T) {
	stream := "id: 1\nevent: x\n: [[[[\ndata: [{},\ndata: {}]\n\r\nid: \"2\ndata:[1,2]\n\n"
	for _, piece := range []int{1, 3, len(stream)} {
		limits := newValueLimits(100)
		ex := &exchange{pool: newBodyPool()}
		ev := newEventValues(context.Background(), io.NopCloser(&chunkReader{chunks: split(stream, piece)}), ex, limits)
		got, err := io.ReadAll(ev)
		if err != nil || string(got) != stream {
			t.Fatalf("pieces of %d: read %q, %v", piece, got, err)
		}
		if diff := cmp.Diff([]int64{6, 6}, []int64{ev.count.n, ex.heldValues}); diff != "" {
			t.Errorf("pieces of %d: (count, held) (-want +got):\n%s", piece, diff)
		}
		ex.release()
	}
	// Over the limit: the read that goes over fails, with nothing of it.
	ex := &exchange{pool: newBodyPool()}
	ev := newEventValues(context.Background(), io.NopCloser(strings.NewReader("data: [1,2,3,4]\n\n")), ex, newValueLimits(3))
	n, err := ev.Read(make([]byte, 64))
	if n != 0 || !errors.Is(err, errResponseTooLarge) || !ex.tooLarge {
		t.Errorf("over the limit: read %d bytes, err %v, too large %v", n, err, ex.tooLarge)
	}
}

// split cuts s into pieces of n bytes.
func split(s string, n int) [][]byte {
	var out [][]byte
	for len(s) > 0 {
		k := min(n, len(s))
		out = append(out, []byte(s[:k]))
		s = s[k:]
	}
	return out
}

// TestGRPCValueCount: the messages of a reply are counted on its wire form
// as decoding it would make them, map entries aside.
func TestGRPCValueCount(t *testing.T) {
	meta, err := structpb.NewStruct(map[string]any{"a": nil, "b": []any{1.0, "x"}})
	if err != nil {
		t.Fatal(err)
	}
	withMeta, err := proto.Marshal(&a2apb.SendMessageResponse{Payload: &a2apb.SendMessageResponse_Message{
		Message: &a2apb.Message{MessageId: "m", Metadata: meta, Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hi"}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		wire   []byte
		limit  int64
		want   int64
		tooBig bool
	}{
		// Message, Struct, Value a, Value b, ListValue, 2 Values, Part.
		{name: "metadata", wire: withMeta, limit: 100, want: 8},
		// Message, Part, Value, ListValue, 100 null Values.
		{name: "100 nulls", wire: agenttest.NullsMessage(400), limit: 1000, want: 103},
		{name: "100 nulls, limit 50", wire: agenttest.NullsMessage(400), limit: 50, want: 51, tooBig: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &grpcValueCodec{limits: newValueLimits(tt.limit)}
			md := (&a2apb.SendMessageResponse{}).ProtoReflect().Descriptor()
			if tt.name != "metadata" {
				md = (&a2apb.Message{}).ProtoReflect().Descriptor()
			}
			err := c.countMessages(tt.wire, md, 0)
			if diff := cmp.Diff([]any{tt.want, tt.tooBig}, []any{c.count, errors.Is(err, errResponseTooLarge)}); diff != "" {
				t.Errorf("(count, refused) (-want +got):\n%s", diff)
			}
		})
	}
}
