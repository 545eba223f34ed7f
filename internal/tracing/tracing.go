package tracing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc/metadata"
)

// ScopeName is the instrumentation scope of every proctor span.
const ScopeName = "github.com/proctor-eval/proctor"

// Bounds on exporting, so that a slow or dead collector never holds up an
// evaluation: one export request waits at most ExportTimeout (unless
// OTEL_BSP_EXPORT_TIMEOUT says otherwise), failed ones are retried for
// RetryFor, and the flush at exit waits at most FlushTimeout.
const (
	ExportTimeout = 10 * time.Second
	RetryFor      = 2 * time.Second
	FlushTimeout  = 5 * time.Second
)

// Tracer returns proctor's tracer from tp; a nil tp gives a no-op tracer.
func Tracer(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		return noop.NewTracerProvider().Tracer(ScopeName)
	}
	return tp.Tracer(ScopeName)
}

// OrNoop returns tp, or a no-op provider when tp is nil.
func OrNoop(tp trace.TracerProvider) trace.TracerProvider {
	if tp == nil {
		return noop.NewTracerProvider()
	}
	return tp
}

// Propagator is the W3C trace-context propagator (traceparent and
// tracestate) proctor sends agents the current span with. It injects
// nothing when the context has no valid span, which is always the case
// while tracing is off.
func Propagator() propagation.TextMapPropagator { return propagation.TraceContext{} }

// InjectHeader sets traceparent (and tracestate) on h from ctx's span.
func InjectHeader(ctx context.Context, h http.Header) {
	if trace.SpanContextFromContext(ctx).IsValid() {
		Propagator().Inject(ctx, propagation.HeaderCarrier(h))
	}
}

// ExtractHeader returns ctx with the remote span context that h's
// traceparent (and tracestate) names, so that spans started from it join
// the caller's trace; ctx itself when h has none or a malformed one.
func ExtractHeader(ctx context.Context, h http.Header) context.Context {
	if h.Get(headerTraceparent) == "" {
		return ctx
	}
	return Propagator().Extract(ctx, propagation.HeaderCarrier(h))
}

// ExtractMetadata is ExtractHeader for a gRPC call's incoming metadata.
func ExtractMetadata(ctx context.Context) context.Context {
	md, ok := metadata.FromIncomingContext(ctx)
	if !ok || len(md.Get(headerTraceparent)) == 0 {
		return ctx
	}
	return Propagator().Extract(ctx, MetadataCarrier(md))
}

// headerTraceparent is the W3C trace-context header.
const headerTraceparent = "traceparent"

// MetadataCarrier carries trace context in gRPC metadata, for the
// propagator.
type MetadataCarrier metadata.MD

// Get implements propagation.TextMapCarrier.
func (c MetadataCarrier) Get(key string) string {
	if vs := metadata.MD(c).Get(key); len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// Set implements propagation.TextMapCarrier.
func (c MetadataCarrier) Set(key, value string) { metadata.MD(c).Set(key, value) }

// Keys implements propagation.TextMapCarrier.
func (c MetadataCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// Tracing is a running tracer provider: Provider for the instrumented
// parts, Shutdown to flush at exit.
type Tracing struct {
	provider trace.TracerProvider
	sdk      *sdktrace.TracerProvider // nil when off
	batcher  *batcher                 // nil when off or replaced by Options.SpanProcessor
	endpoint string
	stderr   io.Writer
}

// Options configure Start.
type Options struct {
	// Getenv reads the environment (nil: os.Getenv).
	Getenv func(string) string
	// Stderr receives warnings and the one notice of a failing export.
	Stderr io.Writer
	// Version is proctor's version, recorded as service.version.
	Version string
	// SpanProcessor, when set, replaces the batch processor over the
	// OTLP exporter (tests and benchmarks only).
	SpanProcessor sdktrace.SpanProcessor
}

// Start reads the configuration (ConfigFromEnv) and returns the tracer
// provider it asks for: a no-op one when tracing is off, else an SDK
// provider exporting over OTLP through a batch processor that drops spans
// rather than wait when the collector cannot keep up. Export failures are
// reported once on Stderr and never fail the caller.
func Start(ctx context.Context, o Options) (*Tracing, error) {
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	cfg, err := ConfigFromEnv(o.Getenv)
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(o.Stderr, "proctor: tracing: %s\n", w)
	}
	t := &Tracing{provider: noop.NewTracerProvider(), endpoint: cfg.EndpointURL, stderr: o.Stderr}
	if !cfg.Enabled {
		return t, nil
	}
	cfg.Batch = cfg.Batch.withDefaults()
	processor := o.SpanProcessor
	if processor == nil {
		exp, err := newExporter(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("tracing: OTLP exporter for %s: %w", cfg.EndpointURL, err)
		}
		t.batcher = newBatcher(&onceReporter{SpanExporter: exp, endpoint: cfg.EndpointURL, stderr: o.Stderr}, cfg.Batch)
		processor = t.batcher
	}
	res, err := newResource(ctx, cfg, o.Version)
	if err != nil {
		return nil, fmt.Errorf("tracing: resource: %w", err)
	}
	t.sdk = sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithSpanProcessor(processor))
	t.provider = t.sdk
	return t, nil
}

// Provider is the tracer provider to hand the instrumented parts.
func (t *Tracing) Provider() trace.TracerProvider { return t.provider }

// Enabled reports whether spans are exported.
func (t *Tracing) Enabled() bool { return t.sdk != nil }

// Shutdown flushes the spans not yet exported and stops the provider,
// waiting at most FlushTimeout; spans still unsent then are dropped, with
// a notice on Stderr. It never returns an error: tracing must not change
// how proctor exits.
func (t *Tracing) Shutdown(ctx context.Context) {
	if t == nil || t.sdk == nil {
		return
	}
	t.flushWith(ctx, t.sdk.Shutdown)
	if n := t.batcher.Dropped(); n > 0 {
		fmt.Fprintf(t.stderr, "proctor: tracing: %d spans dropped: the collector at %s did not keep up (raise %s, now %d, if it only lags)\n",
			n, t.endpoint, EnvMaxQueued, t.batcher.maxQueued)
	}
}

// Flush exports the spans ended so far, waiting at most FlushTimeout; like
// Shutdown it never fails (a benchmark uses it to count the export's CPU
// within the work that made the spans).
func (t *Tracing) Flush(ctx context.Context) {
	if t == nil || t.sdk == nil {
		return
	}
	t.flushWith(ctx, t.sdk.ForceFlush)
}

// flushWith runs flush (the provider's ForceFlush or Shutdown) for at most
// FlushTimeout, and says on Stderr when spans were left unsent.
func (t *Tracing) flushWith(ctx context.Context, flush func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), FlushTimeout)
	defer cancel()
	if err := flush(ctx); err != nil {
		fmt.Fprintf(t.stderr, "proctor: tracing: spans not flushed to %s within %s: %v\n", t.endpoint, FlushTimeout, err)
	}
}

// retry is how an export is retried: briefly, so that a collector that is
// down costs at most RetryFor per batch (in the batch processor's
// goroutine, never the evaluation's) and at exit.
func retry() otlptracehttp.RetryConfig {
	return otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 250 * time.Millisecond, MaxInterval: time.Second, MaxElapsedTime: RetryFor}
}

// newExporter makes the OTLP exporter cfg asks for; cfg.Batch has its
// defaults filled.
func newExporter(ctx context.Context, cfg Config) (sdktrace.SpanExporter, error) {
	if cfg.Protocol == ProtocolGRPC {
		return startExporter(ctx, otlptracegrpc.NewClient(
			otlptracegrpc.WithEndpointURL(cfg.EndpointURL),
			otlptracegrpc.WithTimeout(cfg.Batch.ExportTimeout),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig(retry()))))
	}
	return startExporter(ctx, otlptracehttp.NewClient(
		otlptracehttp.WithEndpointURL(cfg.EndpointURL),
		otlptracehttp.WithTimeout(cfg.Batch.ExportTimeout),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig(retry()))))
}

// newResource describes proctor: service.name "proctor" unless
// OTEL_RESOURCE_ATTRIBUTES or OTEL_SERVICE_NAME (which wins) says
// otherwise, and the SDK's own attributes.
func newResource(ctx context.Context, cfg Config, version string) (*resource.Resource, error) {
	attrs := []attribute.KeyValue{attribute.String("service.name", defaultServiceNameValue)}
	if version != "" {
		attrs = append(attrs, attribute.String("service.version", version))
	}
	fromEnv, err := resource.New(ctx, resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, err
	}
	res, err := resource.Merge(resource.NewSchemaless(attrs...), fromEnv)
	if err != nil {
		return nil, err
	}
	if cfg.ServiceName != "" {
		return resource.Merge(res, resource.NewSchemaless(attribute.String("service.name", cfg.ServiceName)))
	}
	return res, nil
}

// onceReporter says on stderr, once, that spans cannot be exported, and
// hides the failure from the batch processor (which would otherwise log
// every failed batch): a dead collector costs the evaluation nothing but
// its traces.
type onceReporter struct {
	sdktrace.SpanExporter
	endpoint string
	stderr   io.Writer
	once     sync.Once
}

// ExportSpans implements sdktrace.SpanExporter.
func (r *onceReporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := r.SpanExporter.ExportSpans(ctx, spans); err != nil {
		r.once.Do(func() {
			fmt.Fprintf(r.stderr, "proctor: tracing: cannot export spans to %s (%v); spans are dropped, the evaluation goes on\n", r.endpoint, err)
		})
	}
	return nil
}
