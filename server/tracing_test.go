package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/server"
	"github.com/proctor-eval/proctor/skills"
)

// traceparent sends a W3C traceparent with every call (an HTTP header, or
// gRPC metadata).
type traceparent string

func (tp traceparent) Before(ctx context.Context, req *sdkclient.Request) (context.Context, any, error) {
	req.ServiceParams.Append("traceparent", string(tp))
	return ctx, nil, nil
}

func (traceparent) After(context.Context, *sdkclient.Response) error { return nil }

// TestServeContinuesCallersTrace: a caller that sends a traceparent with
// run_evaluation finds proctor's evaluation span in its trace, as a child
// of its span, on every binding, and a caller whose trace is not sampled
// gets no spans; a server that does not continue traces, or a malformed
// traceparent, starts a trace of its own.
func TestServeContinuesCallersTrace(t *testing.T) {
	const (
		callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
		callerSpan  = "00f067aa0ba902b7"
		valid       = "00-" + callerTrace + "-" + callerSpan + "-01"
	)
	agent := agenttest.Start(t, agenttest.Sorry)
	grpcDial := grpcv1.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials()))
	tests := []struct {
		name       string
		transport  sdkclient.FactoryOption
		continues  bool
		header     string
		wantParent string // the evaluation span's trace and parent, "" for a root
		untraced   bool   // no evaluation span at all: the caller's trace is not sampled
	}{
		{name: "jsonrpc", transport: sdkclient.WithJSONRPCTransport(nil), continues: true, header: valid, wantParent: callerTrace + "/" + callerSpan},
		{name: "rest", transport: sdkclient.WithRESTTransport(nil), continues: true, header: valid, wantParent: callerTrace + "/" + callerSpan},
		{name: "grpc", transport: grpcDial, continues: true, header: valid, wantParent: callerTrace + "/" + callerSpan},
		{name: "not continued", transport: sdkclient.WithJSONRPCTransport(nil), continues: false, header: valid},
		{name: "grpc not continued", transport: grpcDial, continues: false, header: valid},
		{name: "caller not sampled", transport: sdkclient.WithJSONRPCTransport(nil), continues: true, header: "00-" + callerTrace + "-" + callerSpan + "-00", untraced: true},
		{name: "malformed", transport: sdkclient.WithJSONRPCTransport(nil), continues: true, header: "00-zz-00f067aa0ba902b7-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			f := start(t, server.Config{ContinueTraces: tt.continues}, func(s *skills.Service) { s.TracerProvider = tp })
			c := client(t, f.srv.URL(), sdkclient.WithDefaultsDisabled(), tt.transport, sdkclient.WithCallInterceptors(traceparent(tt.header)))
			res, err := c.SendMessage(context.Background(), skill(server.SkillRunEvaluation, map[string]any{
				"agent_url": agent.URL, "task_ids": []any{"mock-01"}}))
			if err != nil {
				t.Fatal(err)
			}
			if task := awaitEnd(t, c, res.(*a2a.Task), 30*time.Second); task.Status.State != a2a.TaskStateCompleted {
				t.Fatalf("evaluation ended %s: %s", task.Status.State, text(task.Status.Message.Parts))
			}
			var got []string
			for _, s := range rec.Ended() {
				if s.Name() != evaluation.SpanEvaluation {
					continue
				}
				if p := s.Parent(); p.IsValid() {
					got = append(got, p.TraceID().String()+"/"+p.SpanID().String())
				} else {
					got = append(got, "")
				}
				if s.Parent().IsValid() != (s.SpanContext().TraceID() == s.Parent().TraceID()) {
					t.Errorf("evaluation span in trace %s, parent %s", s.SpanContext().TraceID(), s.Parent().TraceID())
				}
				if !s.Parent().IsValid() && s.SpanContext().TraceID().String() == callerTrace {
					t.Error("root evaluation span took the caller's trace id")
				}
			}
			want := []string{tt.wantParent}
			if tt.untraced {
				want = nil
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("evaluation spans' parents (-want +got):\n%s", diff)
			}
		})
	}
}
