package tracing

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
)

// captureClient is an otlptrace.Client that keeps the requests it is
// given, marshaled as a transport would at the time of the upload.
type captureClient struct {
	mu       sync.Mutex
	requests [][]byte
}

func (c *captureClient) Start(context.Context) error { return nil }
func (c *captureClient) Stop(context.Context) error  { return nil }

func (c *captureClient) UploadTraces(_ context.Context, rs []*tracepb.ResourceSpans) error {
	raw, err := proto.Marshal(&coltracepb.ExportTraceServiceRequest{ResourceSpans: rs})
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests = append(c.requests, raw)
	return nil
}

// decoded returns the captured requests as a collector decodes them.
func (c *captureClient) decoded(t testing.TB) []*coltracepb.ExportTraceServiceRequest {
	t.Helper()
	var out []*coltracepb.ExportTraceServiceRequest
	for _, raw := range c.requests {
		req := &coltracepb.ExportTraceServiceRequest{}
		if err := proto.Unmarshal(raw, req); err != nil {
			t.Fatalf("a request does not decode: %v", err)
		}
		out = append(out, req)
	}
	return out
}

// exportBoth exports each batch through the SDK's exporter and through
// ours, and returns what a collector would decode from each.
func exportBoth(t testing.TB, batches ...[]sdktrace.ReadOnlySpan) (sdk, ours []*coltracepb.ExportTraceServiceRequest) {
	t.Helper()
	return exportEach(t, batches, batches)
}

// exportEach exports sdkBatches through the SDK's exporter and ourBatches
// through ours.
func exportEach(t testing.TB, sdkBatches, ourBatches [][]sdktrace.ReadOnlySpan) (sdk, ours []*coltracepb.ExportTraceServiceRequest) {
	t.Helper()
	ctx := context.Background()
	var sdkClient, ourClient captureClient
	sdkExp, err := otlptrace.New(ctx, &sdkClient)
	if err != nil {
		t.Fatal(err)
	}
	ourExp, err := startExporter(ctx, &ourClient)
	if err != nil {
		t.Fatal(err)
	}
	for _, batch := range sdkBatches {
		if err := sdkExp.ExportSpans(ctx, batch); err != nil {
			t.Fatalf("the SDK's exporter: %v", err)
		}
	}
	for _, batch := range ourBatches {
		if err := ourExp.ExportSpans(ctx, batch); err != nil {
			t.Fatalf("our exporter: %v", err)
		}
	}
	return sdkClient.decoded(t), ourClient.decoded(t)
}

// diffRequests is cmp.Diff of the SDK's and our requests, in requestOrder,
// with a fast path for equal requests in the same order (the fuzz target).
func diffRequests(sdk, ours []*coltracepb.ExportTraceServiceRequest) string {
	if len(sdk) == len(ours) {
		same := true
		for i := range sdk {
			same = same && proto.Equal(sdk[i], ours[i])
		}
		if same {
			return ""
		}
	}
	return cmp.Diff(sdk, ours, requestOrder)
}

// requestOrder sorts what the SDK's exporter leaves in map order: the
// resources of a request and the scopes of a resource.
var requestOrder = cmp.Options{
	protocmp.Transform(),
	protocmp.SortRepeated(func(a, b *tracepb.ResourceSpans) bool {
		return prototext.Format(a.GetResource()) < prototext.Format(b.GetResource())
	}),
	protocmp.SortRepeated(func(a, b *tracepb.ScopeSpans) bool {
		return prototext.Format(a.GetScope())+a.GetSchemaUrl() < prototext.Format(b.GetScope())+b.GetSchemaUrl()
	}),
}

func TestExporterMatchesSDK(t *testing.T) {
	tests := []struct {
		name    string
		batches [][]sdktrace.ReadOnlySpan
	}{
		{"an agent request", batch(agentRequestSpan())},
		{"every attribute type", batch(stub(func(s *tracetest.SpanStub) { s.Attributes = everyAttribute() }))},
		{"events and links", batch(stub(func(s *tracetest.SpanStub) {
			s.Events = []sdktrace.Event{
				{Name: "retry", Time: at(3), Attributes: []attribute.KeyValue{attribute.Int("attempt", 2)}, DroppedAttributeCount: 4},
				{Time: at(4)},
			}
			s.Links = []sdktrace.Link{
				{SpanContext: spanContext(9, true, "vendor=x"), Attributes: []attribute.KeyValue{attribute.String("why", "caller")}, DroppedAttributeCount: 1},
				{SpanContext: spanContext(10, false, "")},
			}
			s.DroppedEvents, s.DroppedLinks = 7, 8
		}))},
		{"remote parent, trace state, ok status", batch(stub(func(s *tracetest.SpanStub) {
			s.SpanContext = spanContext(2, false, "a=1,b=2")
			s.Parent = spanContext(3, true, "")
			s.Status = sdktrace.Status{Code: codes.Ok}
			s.SpanKind = trace.SpanKindServer
		}))},
		{"root span, zero times, unset kind", batch(stub(func(s *tracetest.SpanStub) {
			s.Parent = trace.SpanContext{}
			s.StartTime, s.EndTime = time.Time{}, time.Unix(-5, 0)
			s.SpanKind = trace.SpanKindUnspecified
			s.Name = ""
		}))},
		{"dropped counts clamped", batch(stub(func(s *tracetest.SpanStub) {
			s.DroppedAttributes, s.DroppedEvents, s.DroppedLinks = -1, math.MaxInt, math.MaxUint32
		}))},
		{"long values need longer lengths", batch(stub(func(s *tracetest.SpanStub) {
			s.Name = strings.Repeat("n", 200)
			s.Attributes = []attribute.KeyValue{
				attribute.String("medium", strings.Repeat("m", 300)),
				attribute.String("large", strings.Repeat("l", 70_000)),
				attribute.StringSlice("many", strings.Split(strings.Repeat("x,", 300), ",")),
			}
		}))},
		{"resources and scopes interleaved", batch(
			stub(func(s *tracetest.SpanStub) { s.Resource = resourceNamed("a") }),
			stub(func(s *tracetest.SpanStub) { s.Resource = resourceNamed("b") }),
			stub(func(s *tracetest.SpanStub) {
				s.Resource = resourceNamed("a")
				s.InstrumentationScope = instrumentation.Scope{Name: "other", Version: "v2", SchemaURL: "https://example.com/s",
					Attributes: attribute.NewSet(attribute.Bool("scoped", true))}
			}),
			stub(func(s *tracetest.SpanStub) { s.Resource = nil; s.InstrumentationScope = instrumentation.Scope{} }),
			stub(func(s *tracetest.SpanStub) { s.Resource = resourceNamed("b"); s.Name = "second of b" }),
		)},
		{"a nil span is skipped", [][]sdktrace.ReadOnlySpan{{nil, agentRequestSpan(), nil}}},
		{"the buffer is reused across batches", [][]sdktrace.ReadOnlySpan{
			{stub(func(s *tracetest.SpanStub) { s.Attributes = everyAttribute() }), agentRequestSpan()},
			{agentRequestSpan()},
			{},
			{stub(func(s *tracetest.SpanStub) { s.Name = strings.Repeat("z", 1000) })},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sdk, ours := exportBoth(t, tt.batches...)
			if diff := diffRequests(sdk, ours); diff != "" {
				t.Errorf("our requests differ from the SDK exporter's (-sdk +ours):\n%s", diff)
			}
		})
	}
}

// TestExporterMendsInvalidUTF8 checks that text which is not UTF-8 (an
// agent's error message, say) costs no spans: the SDK's exporter refuses
// the whole batch, ours sends the text with U+FFFD for the bad bytes.
func TestExporterMendsInvalidUTF8(t *testing.T) {
	span := func(bad string) sdktrace.ReadOnlySpan {
		return stub(func(s *tracetest.SpanStub) {
			s.Name = "name " + bad
			s.Attributes = []attribute.KeyValue{attribute.String("key "+bad, "value "+bad), attribute.StringSlice("list", []string{bad})}
			s.Status = sdktrace.Status{Code: codes.Error, Description: "error " + bad}
			s.Events = []sdktrace.Event{{Name: "event " + bad, Time: at(3)}}
		})
	}
	ctx := context.Background()
	sdkExp, err := otlptrace.New(ctx, &captureClient{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sdkExp.ExportSpans(ctx, []sdktrace.ReadOnlySpan{span("\xff"), agentRequestSpan()}); err == nil {
		t.Error("the SDK's exporter sent invalid UTF-8: this test no longer shows a difference")
	}
	sdk, ours := exportEach(t, batch(span("\uFFFD"), agentRequestSpan()), batch(span("\xff"), agentRequestSpan()))
	if diff := diffRequests(sdk, ours); diff != "" {
		t.Errorf("invalid UTF-8 not sent as U+FFFD (-sdk given U+FFFD +ours given \\xff):\n%s", diff)
	}
}

// FuzzExporterMatchesSDK checks the exporter against the SDK's on spans
// whose names and attributes come from the input, as an agent's task ids
// and error messages do. Where the input is not UTF-8, the SDK's exporter
// fails the whole batch (protobuf strings must be UTF-8); ours sends the
// text with U+FFFD in place of the bad bytes, which is what the SDK's
// exporter sends given that text.
func FuzzExporterMatchesSDK(f *testing.F) {
	f.Add("a2a SendMessage", "working", int64(3), 1.5, true, []byte{1, 2})
	f.Add("", "", int64(-1), math.Inf(-1), false, []byte{})
	f.Add(strings.Repeat("é", 100), "\x00\xff", int64(math.MinInt64), math.Copysign(0, -1), true, []byte(nil))
	f.Fuzz(func(t *testing.T, name, text string, n int64, x float64, yes bool, raw []byte) {
		if math.IsNaN(x) {
			x = 0 // NaN never equals itself when the two are compared
		}
		span := func(name, text string) sdktrace.ReadOnlySpan {
			return stub(func(s *tracetest.SpanStub) {
				s.Name = name
				s.Attributes = []attribute.KeyValue{
					attribute.String(text, text), attribute.Int64("n", n), attribute.Float64("x", x),
					attribute.Bool("yes", yes), attribute.ByteSlice("raw", raw),
					attribute.Slice("mixed", attribute.StringValue(name), attribute.Int64Value(n), attribute.MapValue(attribute.Bool(text, yes))),
				}
				s.Status = sdktrace.Status{Code: codes.Error, Description: text}
				s.Events = []sdktrace.Event{{Name: text, Time: at(n % 1000)}}
			})
		}
		valid := func(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
		sdk, ours := exportEach(t, batch(span(valid(name), valid(text)), agentRequestSpan()), batch(span(name, text), agentRequestSpan()))
		if diff := diffRequests(sdk, ours); diff != "" {
			t.Errorf("our requests differ from the SDK exporter's (-sdk +ours):\n%s", diff)
		}
	})
}

// BenchmarkExport measures, side by side, the SDK's exporter and ours
// encoding batches of 512 agent-request spans (the batch size the batch
// processor sends), each to a client that marshals the request as the
// OTLP transports do.
func BenchmarkExport(b *testing.B) {
	spans := make([]sdktrace.ReadOnlySpan, 512)
	for i := range spans {
		spans[i] = agentRequestSpan()
	}
	ctx := context.Background()
	sdkExp, err := otlptrace.New(ctx, marshalClient{})
	if err != nil {
		b.Fatal(err)
	}
	ourExp, err := startExporter(ctx, marshalClient{})
	if err != nil {
		b.Fatal(err)
	}
	for _, exp := range []struct {
		name string
		sdktrace.SpanExporter
	}{{"sdk", sdkExp}, {"ours", ourExp}} {
		b.Run(exp.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := exp.ExportSpans(ctx, spans); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(spans)), "ns/span")
		})
	}
}

// marshalClient marshals each request, as a transport does, and drops it.
type marshalClient struct{}

func (marshalClient) Start(context.Context) error { return nil }
func (marshalClient) Stop(context.Context) error  { return nil }
func (marshalClient) UploadTraces(_ context.Context, rs []*tracepb.ResourceSpans) error {
	_, err := proto.Marshal(&coltracepb.ExportTraceServiceRequest{ResourceSpans: rs})
	return err
}

func batch(spans ...sdktrace.ReadOnlySpan) [][]sdktrace.ReadOnlySpan {
	return [][]sdktrace.ReadOnlySpan{spans}
}

// agentRequestSpan is like the span of one request to the agent.
func agentRequestSpan() sdktrace.ReadOnlySpan {
	return stub(func(s *tracetest.SpanStub) {
		s.Name, s.SpanKind = "a2a SendMessage", trace.SpanKindClient
		s.Attributes = []attribute.KeyValue{
			attribute.String("a2a.method", "SendStreamingMessage"), attribute.String("a2a.transport", "jsonrpc"),
			attribute.String("a2a.protocol_version", "1.0"), attribute.Int("http.response.status_code", 200),
			attribute.String("a2a.task_id", "01a21109-28c0-742e-b62c-0c2e3b9b8c2d"), attribute.String("a2a.task_state", "completed"),
		}
		s.Status = sdktrace.Status{Code: codes.Error, Description: "agent answered 503"}
	})
}

// stub is a span with every common field set, changed by edit.
func stub(edit func(*tracetest.SpanStub)) sdktrace.ReadOnlySpan {
	s := tracetest.SpanStub{
		Name:        "simulation",
		SpanContext: spanContext(1, false, ""),
		Parent:      spanContext(4, false, ""),
		SpanKind:    trace.SpanKindInternal,
		StartTime:   at(1), EndTime: at(2),
		Resource:             resourceNamed("proctor"),
		InstrumentationScope: instrumentation.Scope{Name: "github.com/proctor-eval/proctor", Version: "test"},
	}
	edit(&s)
	return s.Snapshot()
}

func at(sec int64) time.Time { return time.Unix(1_700_000_000+sec, 123) }

// spanContext is a sampled span context whose ids are made of seed.
func spanContext(seed byte, remote bool, state string) trace.SpanContext {
	ts, err := trace.ParseTraceState(state)
	if err != nil {
		panic(err)
	}
	var tid trace.TraceID
	var sid trace.SpanID
	for i := range tid {
		tid[i] = seed + byte(i)
	}
	for i := range sid {
		sid[i] = seed + byte(2*i)
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: remote})
}

func resourceNamed(name string) *resource.Resource {
	return resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0",
		attribute.String("service.name", name), attribute.Int("service.shards", 4))
}

// everyAttribute has a value of every attribute type, zero and not.
func everyAttribute() []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.Bool("t", true), attribute.Bool("f", false),
		attribute.Int64("zero", 0), attribute.Int64("neg", -42), attribute.Int64("max", math.MaxInt64),
		attribute.Float64("zerof", 0), attribute.Float64("pi", math.Pi), attribute.Float64("inf", math.Inf(1)),
		attribute.String("empty", ""), attribute.String("s", "text"),
		attribute.ByteSlice("nobytes", nil), attribute.ByteSlice("bytes", []byte{0, 255}),
		attribute.BoolSlice("bools", []bool{true, false}), attribute.Int64Slice("ints", []int64{1, -1, 0}),
		attribute.Float64Slice("floats", []float64{0.5, 0}), attribute.StringSlice("strings", []string{"", "b"}),
		attribute.StringSlice("nostrings", nil),
		attribute.Slice("mixed", attribute.BoolValue(true), attribute.StringValue("x"), attribute.SliceValue(attribute.Int64Value(1)), attribute.Value{}),
		attribute.Slice("nothing"),
		attribute.Map("map", attribute.String("k", "v"), attribute.Map("inner", attribute.Int("i", 1)), attribute.KeyValue{Key: "unset"}),
		attribute.Map("nomap"),
		{Key: "empty-value"},
		{Value: attribute.StringValue("no key")},
	}
}
