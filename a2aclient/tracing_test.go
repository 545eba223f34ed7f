package a2aclient

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/proctor-eval/proctor/internal/agenttest"
)

// traceparentRecorder is an agent's reply function that records the
// traceparent each request arrived with (HTTP header or gRPC metadata, as
// a2a-go's server hands them to the executor).
type traceparentRecorder struct {
	mu  sync.Mutex
	got []string
}

func (r *traceparentRecorder) reply(ctx context.Context, _, text string) string {
	tp := "(none)"
	if cc, ok := a2asrv.CallContextFrom(ctx); ok {
		if v, ok := cc.ServiceParams().Get("traceparent"); ok && len(v) > 0 {
			tp = v[0]
		}
	}
	r.mu.Lock()
	r.got = append(r.got, tp)
	r.mu.Unlock()
	return "echo: " + text
}

func (r *traceparentRecorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

// TestTraceparentReachesAgent sends messages to real a2a-go agents on
// every binding and protocol version, streamed and not, with tracing on:
// each request carries the traceparent of its agent-request span, which
// is a child of the caller's span.
func TestTraceparentReachesAgent(t *testing.T) {
	for _, transport := range []Transport{TransportJSONRPC, TransportREST, TransportGRPC} {
		for _, protocol := range []ProtocolVersion{Protocol10, Protocol03} {
			for _, streaming := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/streaming=%v", transport, protocol, streaming), func(t *testing.T) {
					rec := &traceparentRecorder{}
					base := agenttest.StartPeer(t, agenttest.Peer{Transport: string(transport), Protocol: string(protocol), Streaming: streaming}, rec.reply)
					exp := tracetest.NewInMemoryExporter()
					tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
					c, err := Dial(testCtx(t), base, WithTracerProvider(tp))
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close()
					ctx, root := tp.Tracer("test").Start(testCtx(t), "simulation")
					conv := c.NewConversation()
					for _, say := range []string{"hello", "again"} {
						if _, err := conv.Send(ctx, []*a2a.Part{a2a.NewTextPart(say)}); err != nil {
							t.Fatalf("send %q: %v", say, err)
						}
					}
					root.End()
					var want []string
					for _, s := range exp.GetSpans() {
						if !strings.HasPrefix(s.Name, "a2a ") {
							continue
						}
						if s.Parent.SpanID() != root.SpanContext().SpanID() {
							t.Errorf("span %s: parent %s, want the caller's span %s", s.Name, s.Parent.SpanID(), root.SpanContext().SpanID())
						}
						want = append(want, fmt.Sprintf("00-%s-%s-01", s.SpanContext.TraceID(), s.SpanContext.SpanID()))
					}
					if diff := cmp.Diff(want, rec.list()); diff != "" {
						t.Errorf("traceparent the agent received (-want +got):\n%s", diff)
					}
				})
			}
		}
	}
}

// TestNoTraceparentWhenTracingOff: without a tracer provider and without a
// span of the caller's, the agent gets no traceparent.
func TestNoTraceparentWhenTracingOff(t *testing.T) {
	for _, transport := range []Transport{TransportJSONRPC, TransportGRPC} {
		t.Run(string(transport), func(t *testing.T) {
			rec := &traceparentRecorder{}
			base := agenttest.StartPeer(t, agenttest.Peer{Transport: string(transport), Protocol: string(Protocol10)}, rec.reply)
			c, err := Dial(testCtx(t), base)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.NewConversation().Send(testCtx(t), []*a2a.Part{a2a.NewTextPart("hi")}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"(none)"}, rec.list()); diff != "" {
				t.Errorf("traceparent with tracing off (-want +got):\n%s", diff)
			}
		})
	}
}
