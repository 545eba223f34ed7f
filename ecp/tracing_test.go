package ecp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/refagent"
)

// tracePrefix starts the stderr lines of the "trace" test agent.
const tracePrefix = "trace-context "

// traceRecorder is an ECP handler (the reference agent) that records, per
// request, the trace context ecp.Serve or ecp.WebSocketHandler put in its
// context from the request's "_meta".
type traceRecorder struct {
	ecp.Handler
	record func(method string, sc trace.SpanContext)
}

func (h traceRecorder) Initialize(ctx context.Context, p ecp.InitializeParams) (ecp.InitializeResult, error) {
	h.record(ecp.MethodInitialize, trace.SpanContextFromContext(ctx))
	return h.Handler.Initialize(ctx, p)
}

func (h traceRecorder) Reset(ctx context.Context) error {
	h.record(ecp.MethodReset, trace.SpanContextFromContext(ctx))
	return h.Handler.Reset(ctx)
}

func (h traceRecorder) Step(ctx context.Context, p ecp.StepParams) (ecp.StepResult, error) {
	h.record(ecp.MethodStep, trace.SpanContextFromContext(ctx))
	return h.Handler.Step(ctx, p)
}

// contextText is how recorded trace contexts are compared: the method and
// the traceparent it arrived with.
func contextText(method string, sc trace.SpanContext) string {
	if !sc.IsValid() {
		return method + " (none)"
	}
	return fmt.Sprintf("%s 00-%s-%s-%s", method, sc.TraceID(), sc.SpanID(), sc.TraceFlags())
}

func refHandler(tb testing.TB) ecp.Handler {
	d, err := mock.New()
	if err != nil {
		tb.Fatal(err)
	}
	a, err := refagent.New(d)
	if err != nil {
		tb.Fatal(err)
	}
	return a.ECP()
}

// traceAgent serves the reference agent on stdio, writing each request's
// trace context to stderr.
func traceAgent() int {
	d, err := mock.New()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	a, err := refagent.New(d)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	h := traceRecorder{Handler: a.ECP(), record: func(m string, sc trace.SpanContext) {
		fmt.Fprintln(os.Stderr, tracePrefix+contextText(m, sc))
	}}
	if err := ecp.Serve(context.Background(), os.Stdin, os.Stdout, h, 0); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// wantContexts are the trace contexts the agent must have received: those
// of proctor's ECP call spans, in order.
func wantContexts(t *testing.T, exp *tracetest.InMemoryExporter, root trace.Span) []string {
	t.Helper()
	var want []string
	for _, s := range exp.GetSpans() {
		if !strings.HasPrefix(s.Name, "ecp ") {
			continue
		}
		if s.Parent.SpanID() != root.SpanContext().SpanID() {
			t.Errorf("span %s: parent %s, want the caller's %s", s.Name, s.Parent.SpanID(), root.SpanContext().SpanID())
		}
		want = append(want, contextText(strings.TrimPrefix(s.Name, "ecp "), s.SpanContext))
	}
	return want
}

// callAll initializes, resets and steps the agent under root's span.
func callAll(t *testing.T, ctx context.Context, target string, opts ecp.Options) {
	t.Helper()
	c, err := ecp.Dial(ctx, target, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Step(ctx, ecp.StepParams{Input: "hello"}); err != nil {
		t.Fatal(err)
	}
}

func TestTraceContextReachesStdioAgent(t *testing.T) {
	var mu sync.Mutex
	var got []string
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	ctx, root := tp.Tracer("test").Start(t.Context(), "simulation")
	opts := ecp.Options{TracerProvider: tp, Stderr: func(l ecp.StderrLine) {
		if text, ok := strings.CutPrefix(l.Text, tracePrefix); ok {
			mu.Lock()
			got = append(got, text)
			mu.Unlock()
		}
	}}
	target := agentTarget(t, "trace")
	c, err := ecp.Dial(ctx, target, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Step(ctx, ecp.StepParams{Input: "hello"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil { // waits for the agent, and its stderr
		t.Fatal(err)
	}
	root.End()
	mu.Lock()
	defer mu.Unlock()
	want := wantContexts(t, exp, root)
	if len(want) != 3 {
		t.Fatalf("%d ECP spans, want 3 (initialize, reset, step)", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trace context the agent received (-want +got):\n%s", diff)
	}
}

func TestTraceContextReachesWebSocketAgent(t *testing.T) {
	var mu sync.Mutex
	var got, upgrades []string
	record := func(m string, sc trace.SpanContext) {
		mu.Lock()
		got = append(got, contextText(m, sc))
		mu.Unlock()
	}
	ws := ecp.WebSocketHandler(func() ecp.Handler { return traceRecorder{Handler: refHandler(t), record: record} }, 0)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		upgrades = append(upgrades, r.Header.Get("traceparent"))
		mu.Unlock()
		ws.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	ctx, root := tp.Tracer("test").Start(t.Context(), "simulation")
	callAll(t, ctx, "ecp+"+strings.Replace(srv.URL, "http://", "ws://", 1), ecp.Options{TracerProvider: tp})
	root.End()
	mu.Lock()
	defer mu.Unlock()
	want := wantContexts(t, exp, root)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trace context the agent received (-want +got):\n%s", diff)
	}
	// The upgrade request carries the trace context of the call that
	// opened the connection (agent/initialize's span is not open yet: the
	// caller's).
	wantUpgrade := fmt.Sprintf("00-%s-%s-01", root.SpanContext().TraceID(), root.SpanContext().SpanID())
	if diff := cmp.Diff([]string{wantUpgrade}, upgrades); diff != "" {
		t.Errorf("upgrade request's traceparent (-want +got):\n%s", diff)
	}
}

// TestNoTraceContextWhenTracingOff: without a tracer provider nothing is
// added to the requests, whose params stay as they were.
func TestNoTraceContextWhenTracingOff(t *testing.T) {
	var mu sync.Mutex
	var got []string
	ws := ecp.WebSocketHandler(func() ecp.Handler {
		return traceRecorder{Handler: refHandler(t), record: func(m string, sc trace.SpanContext) {
			mu.Lock()
			got = append(got, contextText(m, sc))
			mu.Unlock()
		}}
	}, 0)
	srv := httptest.NewServer(ws)
	t.Cleanup(srv.Close)
	callAll(t, t.Context(), "ecp+"+strings.Replace(srv.URL, "http://", "ws://", 1), ecp.Options{})
	mu.Lock()
	defer mu.Unlock()
	want := []string{"agent/initialize (none)", "agent/reset (none)", "agent/step (none)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trace context with tracing off (-want +got):\n%s", diff)
	}
}
