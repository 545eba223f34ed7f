package tracing

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Batching by default, as the SDK's batch span processor does it: spans
// are exported BatchSize at a time, or whatever has ended every
// BatchDelay; at most MaxQueued wait for an exporter that is behind, and
// spans beyond that are dropped rather than wait. The OTEL_BSP_* variables
// change these (Batch).
const (
	BatchSize  = 512
	MaxQueued  = 2048
	BatchDelay = 5 * time.Second
)

// batcher is a span processor that batches ended spans for an exporter,
// as sdktrace.NewBatchSpanProcessor does, but hands its export goroutine
// a whole batch at a time: the SDK's processor passes every span through a
// channel to that goroutine, waking it once per span, which costs more CPU
// than making the span. Here a span's end is an append under a mutex.
type batcher struct {
	exporter sdktrace.SpanExporter
	size     int
	delay    time.Duration
	timeout  time.Duration
	// maxQueued is how many spans may wait, as configured.
	maxQueued int

	mu      sync.Mutex
	batch   []sdktrace.ReadOnlySpan
	stopped bool

	full    chan []sdktrace.ReadOnlySpan // whole batches waiting for export
	flush   chan chan struct{}
	stop    chan struct{} // closed by Shutdown
	exited  chan struct{} // closed when run returns
	once    sync.Once
	dropped atomic.Int64
}

// newBatcher starts a batcher exporting batches as c says; c's fields must
// be set (Batch.withDefaults).
func newBatcher(exporter sdktrace.SpanExporter, c Batch) *batcher {
	b := &batcher{
		exporter: exporter, size: c.Size, delay: c.Delay, timeout: c.ExportTimeout, maxQueued: c.MaxQueued,
		batch: make([]sdktrace.ReadOnlySpan, 0, c.Size),
		full:  make(chan []sdktrace.ReadOnlySpan, max(c.MaxQueued/c.Size-1, 0)),
		flush: make(chan chan struct{}), stop: make(chan struct{}), exited: make(chan struct{}),
	}
	go b.run()
	return b
}

// OnStart implements sdktrace.SpanProcessor; a span is only seen at its end.
func (b *batcher) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd implements sdktrace.SpanProcessor: it adds a sampled span to the
// batch and, when the batch is whole, queues it for export, or drops it
// when MaxQueued spans already wait.
func (b *batcher) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return
	}
	b.batch = append(b.batch, s)
	if len(b.batch) < b.size {
		return
	}
	select {
	case b.full <- b.batch:
		b.batch = make([]sdktrace.ReadOnlySpan, 0, b.size)
	default:
		b.dropped.Add(int64(len(b.batch)))
		clear(b.batch)
		b.batch = b.batch[:0]
	}
}

// run exports whole batches as they come, the partial one every delay, and
// everything on a flush and at shutdown.
func (b *batcher) run() {
	defer close(b.exited)
	tick := time.NewTicker(b.delay)
	defer tick.Stop()
	for {
		select {
		case batch := <-b.full:
			b.export(batch)
		case <-tick.C:
			b.export(b.take())
		case done := <-b.flush:
			b.drain()
			close(done)
		case <-b.stop:
			b.drain()
			return
		}
	}
}

// take removes the partial batch (nil when there is none).
func (b *batcher) take() []sdktrace.ReadOnlySpan {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.batch) == 0 {
		return nil
	}
	batch := b.batch
	b.batch = make([]sdktrace.ReadOnlySpan, 0, b.size)
	return batch
}

// drain exports the whole batches waiting and then the partial one.
func (b *batcher) drain() {
	for {
		select {
		case batch := <-b.full:
			b.export(batch)
		default:
			b.export(b.take())
			return
		}
	}
}

// export sends one batch, waiting at most the export timeout. Failures are the
// exporter's to report (Start wraps it in an onceReporter).
func (b *batcher) export(batch []sdktrace.ReadOnlySpan) {
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	_ = b.exporter.ExportSpans(ctx, batch)
}

// ForceFlush implements sdktrace.SpanProcessor: it exports every span
// ended so far, or returns ctx's error when ctx ends first.
func (b *batcher) ForceFlush(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case b.flush <- done:
	case <-b.exited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown implements sdktrace.SpanProcessor: it exports what is left,
// then shuts the exporter down; spans ended after it are dropped.
func (b *batcher) Shutdown(ctx context.Context) error {
	var err error
	b.once.Do(func() {
		b.mu.Lock()
		b.stopped = true
		b.mu.Unlock()
		close(b.stop)
		select {
		case <-b.exited:
		case <-ctx.Done():
			err = ctx.Err()
			return
		}
		err = b.exporter.Shutdown(ctx)
	})
	return err
}

// Dropped is how many spans were dropped because as many as allowed were
// waiting; 0 for a nil batcher.
func (b *batcher) Dropped() int64 {
	if b == nil {
		return 0
	}
	return b.dropped.Load()
}
