package ecp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/trace"
)

func tracedContext(t *testing.T) (context.Context, string) {
	t.Helper()
	tid, _ := trace.TraceIDFromHex("0af7651916cd43dd8448eb211c80319c")
	sid, _ := trace.SpanIDFromHex("b7ad6b7169203331")
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled})
	return trace.ContextWithSpanContext(context.Background(), sc), "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
}

func TestAppendMeta(t *testing.T) {
	ctx, tp := tracedContext(t)
	meta := map[string]any{"traceparent": tp}
	tests := []struct {
		name      string
		msg       string
		hadParams bool
		want      map[string]any // the decoded message
	}{
		{name: "no params", msg: `{"jsonrpc":"2.0","id":1,"method":"agent/reset"}`,
			want: map[string]any{"jsonrpc": "2.0", "id": 1.0, "method": "agent/reset", "params": map[string]any{"_meta": meta}}},
		{name: "empty params", msg: `{"jsonrpc":"2.0","id":2,"method":"m","params":{}}`, hadParams: true,
			want: map[string]any{"jsonrpc": "2.0", "id": 2.0, "method": "m", "params": map[string]any{"_meta": meta}}},
		{name: "params with members", msg: `{"jsonrpc":"2.0","id":3,"method":"agent/step","params":{"input":"hi","context":{"time":"t"}}}`, hadParams: true,
			want: map[string]any{"jsonrpc": "2.0", "id": 3.0, "method": "agent/step",
				"params": map[string]any{"input": "hi", "context": map[string]any{"time": "t"}, "_meta": meta}}},
		{name: "params not an object: left alone", msg: `{"jsonrpc":"2.0","id":4,"method":"m","params":[1,2]}`, hadParams: true,
			want: map[string]any{"jsonrpc": "2.0", "id": 4.0, "method": "m", "params": []any{1.0, 2.0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := appendMeta(ctx, []byte(tt.msg), tt.hadParams)
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s: not JSON: %v", out, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
	msg := `{"jsonrpc":"2.0","id":1,"method":"agent/reset"}`
	if out := appendMeta(context.Background(), []byte(msg), false); string(out) != msg {
		t.Errorf("without a span: %s, want the message as it was", out)
	}
}

func TestExtractMeta(t *testing.T) {
	ctx, tp := tracedContext(t)
	want := trace.SpanContextFromContext(ctx)
	tests := []struct {
		name   string
		params string
		valid  bool
	}{
		{"traceparent", `{"input":"x","_meta":{"traceparent":"` + tp + `"}}`, true},
		{"no _meta", `{"input":"x"}`, false},
		{"malformed traceparent", `{"_meta":{"traceparent":"00-zz"}}`, false},
		{"_meta not an object", `{"_meta":"x"}`, false},
		{"not JSON", `{"_meta":`, false},
	}
	for _, tt := range tests {
		got := trace.SpanContextFromContext(extractMeta(context.Background(), []byte(tt.params)))
		if got.IsValid() != tt.valid || (tt.valid && (got.TraceID() != want.TraceID() || got.SpanID() != want.SpanID() || !got.IsRemote())) {
			t.Errorf("%s: span context %v, want valid=%v", tt.name, got, tt.valid)
		}
	}
}

func FuzzExtractMeta(f *testing.F) {
	f.Add([]byte(`{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"a=b"}}`))
	f.Add([]byte(`{"_meta":{}}`))
	f.Fuzz(func(t *testing.T, params []byte) {
		_ = extractMeta(context.Background(), params) // must not panic
	})
}
