package tracing_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/internal/tracing"
	"github.com/proctor-eval/proctor/internal/tracing/otlptest"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestStartOffIsNoop(t *testing.T) {
	tr, err := tracing.Start(t.Context(), tracing.Options{Getenv: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Enabled() {
		t.Fatal("enabled without any OTEL_* variable")
	}
	ctx, span := tr.Provider().Tracer("x").Start(t.Context(), "s")
	if span.IsRecording() || span.SpanContext().IsValid() {
		t.Errorf("off: span recording=%v valid=%v, want a no-op span", span.IsRecording(), span.SpanContext().IsValid())
	}
	span.End()
	_ = ctx
	tr.Shutdown(t.Context()) // nothing to flush, returns at once
}

func TestStartExportsToCollector(t *testing.T) {
	recv := otlptest.Start(t)
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test")
	var stderr agenttest.Buffer
	tr, err := tracing.Start(t.Context(), tracing.Options{
		Getenv: envOf(map[string]string{tracing.EnvEndpoint: recv.URL, tracing.EnvServiceName: "proctor-test"}),
		Stderr: &stderr, Version: "v9.9.9",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Enabled() {
		t.Fatal("not enabled with OTEL_EXPORTER_OTLP_ENDPOINT set")
	}
	_, span := tracing.Tracer(tr.Provider()).Start(t.Context(), "work")
	span.End()
	tr.Shutdown(t.Context())
	spans := recv.Spans()
	if len(spans) != 1 {
		t.Fatalf("received %d spans, want 1", len(spans))
	}
	got := []string{spans[0].Name, spans[0].Service, spans[0].Scope}
	if diff := cmp.Diff([]string{"work", "proctor-test", tracing.ScopeName}, got); diff != "" {
		t.Errorf("span (-want +got):\n%s", diff)
	}
	if stderr.String() != "" {
		t.Errorf("stderr = %q, want nothing", stderr.String())
	}
}

// TestStartExportsOverEveryProtocol sends spans with attributes of several
// types through each OTLP transport proctor offers, to a collector that
// decodes them with the collector's own types.
func TestStartExportsOverEveryProtocol(t *testing.T) {
	tests := []struct {
		name  string
		start func(testing.TB) *otlptest.Receiver
		env   map[string]string
	}{
		{"http/protobuf", otlptest.Start, nil},
		{"http/protobuf gzip", otlptest.Start, map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"}},
		{"grpc", otlptest.StartGRPC, map[string]string{tracing.EnvProtocol: string(tracing.ProtocolGRPC)}},
		{"grpc gzip", otlptest.StartGRPC, map[string]string{tracing.EnvProtocol: string(tracing.ProtocolGRPC), "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recv := tt.start(t)
			for k, v := range tt.env {
				t.Setenv(k, v) // the exporters read their own variables
			}
			env := map[string]string{tracing.EnvEndpoint: recv.URL}
			for k, v := range tt.env {
				env[k] = v
			}
			var stderr agenttest.Buffer
			tr, err := tracing.Start(t.Context(), tracing.Options{Getenv: envOf(env), Stderr: &stderr})
			if err != nil {
				t.Fatal(err)
			}
			ctx, parent := tracing.Tracer(tr.Provider()).Start(t.Context(), "simulation")
			_, child := tracing.Tracer(tr.Provider()).Start(ctx, "a2a SendMessage",
				trace.WithSpanKind(trace.SpanKindClient),
				trace.WithAttributes(attribute.String("a2a.task_id", "t-1"), attribute.Int("http.response.status_code", 503),
					attribute.Bool("tool.error", true), attribute.String("error.type", "bad \xff bytes")))
			child.SetStatus(codes.Error, "agent answered 503")
			child.End()
			parent.End()
			tr.Shutdown(t.Context())
			spans := recv.Spans()
			if len(spans) != 2 {
				t.Fatalf("received %d spans, want 2; stderr: %s", len(spans), stderr.String())
			}
			got, p := spans[0], spans[1]
			if got.ParentSpanID != p.SpanID || got.TraceID != p.TraceID {
				t.Errorf("the request's span is not the simulation's child: %+v under %+v", got, p)
			}
			got.TraceID, got.SpanID, got.ParentSpanID = "", "", ""
			want := otlptest.Span{Name: "a2a SendMessage", Kind: "SPAN_KIND_CLIENT", Status: "STATUS_CODE_ERROR",
				Attributes: map[string]string{"a2a.task_id": "t-1", "http.response.status_code": "503", "tool.error": "true", "error.type": "bad \uFFFD bytes"},
				Service:    "proctor", Scope: tracing.ScopeName}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("span (-want +got):\n%s", diff)
			}
			if stderr.String() != "" {
				t.Errorf("stderr = %q, want nothing", stderr.String())
			}
		})
	}
}

// TestDeadCollectorSaysSoOnce: spans for a collector that refuses
// connections are dropped with one notice, and the flush at exit is
// bounded.
func TestDeadCollectorSaysSoOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	var stderr agenttest.Buffer
	tr, err := tracing.Start(t.Context(), tracing.Options{Getenv: envOf(map[string]string{tracing.EnvEndpoint: dead}), Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	tracer := tracing.Tracer(tr.Provider())
	for range 3 {
		_, span := tracer.Start(context.Background(), "lost")
		span.End()
	}
	start := time.Now()
	tr.Shutdown(t.Context())
	if took := time.Since(start); took > tracing.FlushTimeout+time.Second {
		t.Errorf("Shutdown took %s, want at most about %s", took, tracing.FlushTimeout)
	}
	if n := strings.Count(stderr.String(), "proctor: tracing:"); n != 1 {
		t.Errorf("stderr has %d tracing notices, want 1:\n%s", n, stderr.String())
	}
	if !strings.Contains(stderr.String(), "the evaluation goes on") {
		t.Errorf("stderr = %q, want the notice that the evaluation goes on", stderr.String())
	}
}

func TestStartRejectsMalformedEndpoint(t *testing.T) {
	_, err := tracing.Start(t.Context(), tracing.Options{Getenv: envOf(map[string]string{tracing.EnvEndpoint: "localhost:4318"})})
	if err == nil || !strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_ENDPOINT") {
		t.Fatalf("err = %v, want one naming OTEL_EXPORTER_OTLP_ENDPOINT", err)
	}
}
