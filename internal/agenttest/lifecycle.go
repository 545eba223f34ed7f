package agenttest

import (
	"context"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"

	"github.com/proctor-eval/proctor/internal/a2afix"
	"github.com/proctor-eval/proctor/store"
)

// Messages that drive the lifecycle agent. Anything else completes at once.
const (
	// LifecycleSlow starts a task that works (a status update every
	// LifecycleTick) for LifecycleSlowFor, unless it is canceled.
	LifecycleSlow = "please work slowly on this"
	// LifecycleAsk makes the agent ask for input; the next message on the
	// same task completes it.
	LifecycleAsk = "please ask me something"
	// LifecycleTick is the interval of a slow task's updates.
	LifecycleTick = 50 * time.Millisecond
	// LifecycleSlowFor is how long a slow task works.
	LifecycleSlowFor = 20 * time.Second
)

// lifecycleExecutor is an a2a-go agent that exercises the whole task
// lifecycle: a completed task with an artifact, a long task that can be
// canceled, and a task that asks for input.
type lifecycleExecutor struct{}

func (lifecycleExecutor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		text := ""
		if ec.Message != nil {
			for _, p := range ec.Message.Parts {
				text += p.Text()
			}
		}
		if ec.StoredTask != nil { // the answer to a question
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted,
				a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("Thanks, noted: "+text))), nil)
			return
		}
		task := a2a.NewSubmittedTask(ec, ec.Message)
		if !yield(task, nil) {
			return
		}
		switch {
		case strings.Contains(text, LifecycleAsk):
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired,
				a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("Which one do you mean?"))), nil)
		case strings.Contains(text, LifecycleSlow):
			if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
				return
			}
			tick := time.NewTicker(LifecycleTick)
			defer tick.Stop()
			end := time.After(LifecycleSlowFor)
			for {
				select {
				case <-ctx.Done():
					return
				case <-end:
					yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
					return
				case <-tick.C:
					if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
						return
					}
				}
			}
		default:
			if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking,
				a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("Working on it."))), nil) {
				return
			}
			// A moment of work, so that a send that should block shows
			// whether it does.
			select {
			case <-ctx.Done():
				return
			case <-time.After(LifecycleTick):
			}
			art := a2a.NewArtifactEvent(ec, a2a.NewTextPart("You said: "+text))
			art.LastChunk = true
			if !yield(art, nil) {
				return
			}
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted,
				a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("Done."))), nil)
		}
	}
}

func (lifecycleExecutor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// LifecycleOptions configures StartLifecycle.
type LifecycleOptions struct {
	// Protocols are "1.0" and/or "0.3" (default both).
	Protocols []string
	// Transports are "jsonrpc", "rest" and/or "grpc" (default all).
	Transports []string
	// Middleware wraps the HTTP handler (card, JSON-RPC, REST): tests that
	// break the agent in one way put themselves here.
	Middleware func(http.Handler) http.Handler
	// Card edits the card before it is served.
	Card func(*a2a.AgentCard)
	// Fixed puts internal/a2afix in front of a2a-go, with proctor's own
	// task store, as proctor serve does (version negotiation, ListTasks
	// validation and order, the anonymous caller's tasks listed): the
	// agent is then conformant on every 1.0 interface.
	Fixed bool
}

// HTTP paths of the lifecycle agent's interfaces.
const (
	LifecyclePathJSONRPC   = "/jsonrpc"
	LifecyclePathREST      = "/rest"
	LifecyclePathJSONRPC03 = "/v03/jsonrpc"
	LifecyclePathREST03    = "/v03/rest"
)

// StartLifecycle serves the lifecycle agent on a2a-go's servers, on every
// transport and protocol version asked for, with a 1.0 card (0.3
// interfaces listed with protocolVersion 0.3) at
// /.well-known/agent-card.json. It returns the base URL. Everything stops
// when the test ends.
func StartLifecycle(tb testing.TB, o LifecycleOptions) string {
	tb.Helper()
	if len(o.Protocols) == 0 {
		o.Protocols = []string{"1.0", "0.3"}
	}
	if len(o.Transports) == 0 {
		o.Transports = []string{"jsonrpc", "rest", "grpc"}
	}
	has := func(list []string, v string) bool {
		for _, s := range list {
			if s == v {
				return true
			}
		}
		return false
	}
	var handler a2asrv.RequestHandler = a2asrv.NewHandler(lifecycleExecutor{})
	same := func(h http.Handler) http.Handler { return h }
	jsonrpc, rest := same, same
	version := func(_ a2a.ProtocolVersion, h http.Handler) http.Handler { return h }
	if o.Fixed {
		// proctor serve's own task store, which lists the anonymous
		// caller's tasks: the card declares no security.
		db, err := store.Open(filepath.Join(tb.TempDir(), "tasks.db"), store.WithNoSync())
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { _ = db.Close() })
		tasks := db.TaskStore(store.WithAnonymousTaskList())
		handler = a2afix.Handler(a2asrv.NewHandler(lifecycleExecutor{}, a2asrv.WithTaskStore(a2afix.Store(tasks))))
		jsonrpc, rest, version = a2afix.JSONRPC, a2afix.REST, a2afix.Version
	}
	mux := http.NewServeMux()
	var root http.Handler = mux
	if o.Middleware != nil {
		root = o.Middleware(mux)
	}
	srv := httptest.NewServer(root)
	tb.Cleanup(srv.Close)
	card := &a2a.AgentCard{
		Name:               "lifecycle test agent",
		Description:        "an a2a-go agent that completes, works slowly, and asks for input",
		Version:            "1.0.0",
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		Skills: []a2a.AgentSkill{{ID: "echo", Name: "Echo", Description: "Echoes, works slowly or asks, on request.",
			Tags: []string{"test"}, Examples: []string{"hello", LifecycleSlow, LifecycleAsk}}},
	}
	add := func(url string, binding a2a.TransportProtocol, version a2a.ProtocolVersion) {
		card.SupportedInterfaces = append(card.SupportedInterfaces, &a2a.AgentInterface{URL: url, ProtocolBinding: binding, ProtocolVersion: version})
	}
	for _, p := range o.Protocols {
		v03 := p == "0.3"
		if has(o.Transports, "jsonrpc") {
			if v03 {
				mux.Handle(LifecyclePathJSONRPC03, version(a2av0.Version, jsonrpc(a2av0.NewJSONRPCHandler(handler))))
				add(srv.URL+LifecyclePathJSONRPC03, a2a.TransportProtocolJSONRPC, a2av0.Version)
			} else {
				mux.Handle(LifecyclePathJSONRPC, version(a2a.Version, jsonrpc(a2asrv.NewJSONRPCHandler(handler))))
				add(srv.URL+LifecyclePathJSONRPC, a2a.TransportProtocolJSONRPC, a2a.Version)
			}
		}
		if has(o.Transports, "rest") {
			if v03 {
				mux.Handle(LifecyclePathREST03+"/", version(a2av0.Version, http.StripPrefix(LifecyclePathREST03, a2av0.NewRESTHandler(handler))))
				add(srv.URL+LifecyclePathREST03, a2a.TransportProtocolHTTPJSON, a2av0.Version)
			} else {
				mux.Handle(LifecyclePathREST+"/", version(a2a.Version, http.StripPrefix(LifecyclePathREST, rest(a2asrv.NewRESTHandler(handler)))))
				add(srv.URL+LifecyclePathREST, a2a.TransportProtocolHTTPJSON, a2a.Version)
			}
		}
		if has(o.Transports, "grpc") {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				tb.Fatal(err)
			}
			served := a2a.Version
			if v03 {
				served = a2av0.Version
			}
			gs := grpc.NewServer()
			if o.Fixed {
				gs = grpc.NewServer(grpc.ChainUnaryInterceptor(a2afix.GRPCUnary(served)), grpc.ChainStreamInterceptor(a2afix.GRPCStream(served)))
			}
			if v03 {
				grpcv0.NewHandler(handler).RegisterWith(gs)
				add(ln.Addr().String(), a2a.TransportProtocolGRPC, a2av0.Version)
			} else {
				grpcv1.NewHandler(handler).RegisterWith(gs)
				add(ln.Addr().String(), a2a.TransportProtocolGRPC, a2a.Version)
			}
			go func() { _ = gs.Serve(ln) }()
			tb.Cleanup(gs.Stop)
		}
	}
	if o.Card != nil {
		o.Card(card)
	}
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	return srv.URL
}
