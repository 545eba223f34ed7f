package tracing

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// recordingExporter keeps the names of the spans of each export, tells
// exports on started, and holds each export until release has a value for
// it (when hold is set).
type recordingExporter struct {
	mu       sync.Mutex
	batches  [][]string
	shutdown bool
	started  chan int // the export's span count
	release  chan struct{}
	hold     bool
}

func newRecordingExporter(hold bool) *recordingExporter {
	return &recordingExporter{started: make(chan int, 100), release: make(chan struct{}), hold: hold}
}

func (e *recordingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.started <- len(spans)
	if e.hold {
		select {
		case <-e.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	names := make([]string, len(spans))
	for i, s := range spans {
		names[i] = s.Name()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.batches = append(e.batches, names)
	return nil
}

func (e *recordingExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.shutdown = true
	return nil
}

func (e *recordingExporter) got() ([][]string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.batches, e.shutdown
}

// endSpans starts and ends a span of each name on tp.
func endSpans(tp *sdktrace.TracerProvider, names ...string) {
	for _, n := range names {
		_, s := tp.Tracer("t").Start(context.Background(), n)
		s.End()
	}
}

func waitExport(t *testing.T, e *recordingExporter) int {
	t.Helper()
	select {
	case n := <-e.started:
		return n
	case <-time.After(10 * time.Second):
		t.Fatal("no export within 10 s")
		return 0
	}
}

func TestBatcherExportsWholeBatchesThenTheRestOnFlush(t *testing.T) {
	exp := newRecordingExporter(false)
	b := newBatcher(exp, Batch{Size: 3, MaxQueued: 9, Delay: time.Hour, ExportTimeout: time.Second})
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(b))
	endSpans(tp, "a", "b", "c", "d", "e", "f", "g")
	waitExport(t, exp)
	waitExport(t, exp)
	if err := tp.ForceFlush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := tp.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	endSpans(tp, "after shutdown")
	batches, shut := exp.got()
	want := [][]string{{"a", "b", "c"}, {"d", "e", "f"}, {"g"}}
	if diff := cmp.Diff(want, batches); diff != "" {
		t.Errorf("exports (-want +got):\n%s", diff)
	}
	if !shut {
		t.Error("the exporter was not shut down")
	}
}

func TestBatcherExportsPartialBatchAfterDelay(t *testing.T) {
	exp := newRecordingExporter(false)
	b := newBatcher(exp, Batch{Size: 100, MaxQueued: 100, Delay: 10 * time.Millisecond, ExportTimeout: time.Second})
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(b))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	endSpans(tp, "lonely")
	if n := waitExport(t, exp); n != 1 {
		t.Fatalf("export of %d spans, want the 1 ended", n)
	}
}

// TestBatcherDropsWhenCollectorLags: with the exporter stuck, whole batches
// wait up to MaxQueued spans and the rest are dropped and counted; nothing
// blocks the spans' ends.
func TestBatcherDropsWhenCollectorLags(t *testing.T) {
	exp := newRecordingExporter(true)
	b := newBatcher(exp, Batch{Size: 2, MaxQueued: 4, Delay: time.Hour, ExportTimeout: time.Minute})
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(b))
	endSpans(tp, "1", "2") // a whole batch: the exporter takes it and is stuck
	waitExport(t, exp)
	endSpans(tp, "3", "4", "5", "6", "7", "8", "9") // 3-4 wait, 5-6 and 7-8 dropped, 9 is the partial batch
	if got := b.Dropped(); got != 4 {
		t.Errorf("dropped %d spans, want 4", got)
	}
	go func() {
		for range 3 {
			exp.release <- struct{}{}
		}
	}()
	if err := tp.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	batches, _ := exp.got()
	want := [][]string{{"1", "2"}, {"3", "4"}, {"9"}}
	if diff := cmp.Diff(want, batches); diff != "" {
		t.Errorf("exports (-want +got):\n%s", diff)
	}
}

// TestBatcherShutdownIsBounded: an export that never returns does not hold
// Shutdown past its context.
func TestBatcherShutdownIsBounded(t *testing.T) {
	exp := newRecordingExporter(true)
	b := newBatcher(exp, Batch{Size: 1, MaxQueued: 2, Delay: time.Hour, ExportTimeout: time.Minute})
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(b))
	endSpans(tp, "stuck")
	waitExport(t, exp)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := tp.ForceFlush(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ForceFlush = %v, want the deadline", err)
	}
	if err := tp.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown = %v, want the deadline", err)
	}
	close(exp.release)
}

func TestBatcherSkipsUnsampledSpans(t *testing.T) {
	exp := newRecordingExporter(false)
	b := newBatcher(exp, Batch{Size: 1, MaxQueued: 1, Delay: time.Hour, ExportTimeout: time.Second})
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(b), sdktrace.WithSampler(recordOnly{}))
	endSpans(tp, "recorded, not sampled")
	if err := tp.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if batches, _ := exp.got(); len(batches) != 0 {
		t.Errorf("exported %v, want nothing", batches)
	}
}

// recordOnly records every span and samples none.
type recordOnly struct{}

func (recordOnly) ShouldSample(sdktrace.SamplingParameters) sdktrace.SamplingResult {
	return sdktrace.SamplingResult{Decision: sdktrace.RecordOnly}
}

func (recordOnly) Description() string { return "record only" }

func TestShutdownSaysHowManySpansWereDropped(t *testing.T) {
	var stderr strings.Builder
	b := newBatcher(newRecordingExporter(false), Batch{Size: 1, MaxQueued: 1, Delay: time.Hour, ExportTimeout: time.Second})
	b.dropped.Add(7)
	tr := &Tracing{sdk: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(b)), batcher: b, endpoint: "http://c:4318/v1/traces", stderr: &stderr}
	tr.Shutdown(t.Context())
	want := "proctor: tracing: 7 spans dropped: the collector at http://c:4318/v1/traces did not keep up (raise OTEL_BSP_MAX_QUEUE_SIZE, now 1, if it only lags)\n"
	if diff := cmp.Diff(want, stderr.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}
