package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/proctor-eval/proctor/a2aclient"
)

// sdkClientFor is an a2a-go client of one interface (binding and version)
// of a server.
func sdkClientFor(t *testing.T, iface *a2a.AgentInterface) *sdkclient.Client {
	t.Helper()
	insecureGRPC := grpc.WithTransportCredentials(insecure.NewCredentials())
	c, err := sdkclient.NewFromEndpoints(context.Background(), []*a2a.AgentInterface{iface},
		sdkclient.WithDefaultsDisabled(),
		sdkclient.WithJSONRPCTransport(nil),
		sdkclient.WithRESTTransport(nil),
		grpcv1.WithGRPCTransport(insecureGRPC),
		sdkclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolJSONRPC, a2av0.NewJSONRPCTransportFactory(a2av0.JSONRPCTransportConfig{})),
		sdkclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolHTTPJSON, a2av0.NewRESTTransportFactory(a2av0.RESTTransportConfig{})),
		grpcv0.WithGRPCTransport(insecureGRPC))
	if err != nil {
		t.Fatalf("client of %s %s %s: %v", iface.ProtocolBinding, iface.ProtocolVersion, iface.URL, err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

// sentTask sends req, streamed or not, and returns the task the reply is
// (for a stream: the task of its last event), or fails the test when the
// reply is a bare message.
func sentTask(t *testing.T, c *sdkclient.Client, req *a2a.SendMessageRequest, stream bool) (a2a.TaskID, a2a.TaskState) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !stream {
		res, err := c.SendMessage(ctx, req)
		if err != nil {
			t.Fatalf("SendMessage: %v", err)
		}
		task, ok := res.(*a2a.Task)
		if !ok {
			t.Fatalf("SendMessage answered %T, want a Task", res)
		}
		return task.ID, task.Status.State
	}
	var id a2a.TaskID
	var state a2a.TaskState
	for ev, err := range c.SendStreamingMessage(ctx, req) {
		if err != nil {
			t.Fatalf("SendStreamingMessage: %v", err)
		}
		if _, ok := ev.(*a2a.Message); ok {
			t.Fatalf("SendStreamingMessage answered a Message, want a Task")
		}
		id = ev.TaskInfo().TaskID
		switch e := ev.(type) {
		case *a2a.Task:
			state = e.Status.State
		case *a2a.TaskStatusUpdateEvent:
			state = e.Status.State
		}
	}
	return id, state
}

// TestFreeTextCreatesATask: free text (which gets proctor's help) and the
// skills answered on the spot (list_domains) leave a completed task, on
// every binding and version proctor serves, streamed or not; GetTask on
// the same interface and ListTasks on every 1.0 binding find it, as the
// official A2A TCK's ListTasks cases and hosting platforms that list
// tasks expect.
func TestFreeTextCreatesATask(t *testing.T) {
	srv := startWithStore(t)
	base := srv.URL()
	ifaces := map[string]*a2a.AgentInterface{
		"JSON-RPC 1.0":  a2a.NewAgentInterface(base+PathJSONRPC, a2a.TransportProtocolJSONRPC),
		"HTTP+JSON 1.0": a2a.NewAgentInterface(base+PathREST, a2a.TransportProtocolHTTPJSON),
		"gRPC 1.0":      a2a.NewAgentInterface(srv.GRPCAddr(), a2a.TransportProtocolGRPC),
		"JSON-RPC 0.3":  {URL: base + PathJSONRPC03, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version},
		"HTTP+JSON 0.3": {URL: base + PathREST03, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2av0.Version},
	}
	listers := map[string]lister{"JSON-RPC": jsonrpcLister(base), "REST": restLister(base), "gRPC": grpcLister(srv.GRPCAddr())}
	for _, tc := range []struct {
		iface  string
		stream bool
		parts  []*a2a.Part
		reply  string // what the task's status message says
	}{
		{"JSON-RPC 1.0", false, []*a2a.Part{a2a.NewTextPart("hello, can you test my agent?")}, "I am proctor"},
		{"JSON-RPC 1.0", true, []*a2a.Part{a2a.NewTextPart("hello")}, "I am proctor"},
		{"HTTP+JSON 1.0", false, []*a2a.Part{a2a.NewTextPart("hello")}, "I am proctor"},
		{"HTTP+JSON 1.0", true, []*a2a.Part{a2a.NewTextPart("hello")}, "I am proctor"},
		{"gRPC 1.0", false, []*a2a.Part{a2a.NewTextPart("hello")}, "I am proctor"},
		{"gRPC 1.0", true, []*a2a.Part{a2a.NewTextPart("hello")}, "I am proctor"},
		{"JSON-RPC 0.3", false, []*a2a.Part{a2a.NewTextPart("hello")}, "I am proctor"},
		{"HTTP+JSON 0.3", false, []*a2a.Part{a2a.NewTextPart("hello")}, "I am proctor"},
		{"JSON-RPC 1.0", false, []*a2a.Part{a2a.NewDataPart(map[string]any{"skill": "list_domains"})}, "**mock**"},
		{"gRPC 1.0", false, []*a2a.Part{a2a.NewDataPart(map[string]any{"skill": "list_domains"})}, "**mock**"},
	} {
		name := tc.iface
		if tc.stream {
			name += " streamed"
		}
		if _, ok := tc.parts[0].Content.(a2a.Data); ok {
			name += " list_domains"
		}
		t.Run(name, func(t *testing.T) {
			c := sdkClientFor(t, ifaces[tc.iface])
			msg := a2a.NewMessage(a2a.MessageRoleUser, tc.parts...)
			msg.ContextID = "ctx-" + strings.NewReplacer(" ", "-", "+", "-", ".", "-").Replace(name)
			id, state := sentTask(t, c, &a2a.SendMessageRequest{Message: msg}, tc.stream)
			if state != a2a.TaskStateCompleted {
				t.Errorf("task %s ended %s, want completed", id, state)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
			if err != nil {
				t.Fatalf("GetTask %s: %v", id, err)
			}
			if got.Status.State != a2a.TaskStateCompleted || got.Status.Message == nil || !strings.Contains(a2aclient.PartsText(got.Status.Message.Parts), tc.reply) {
				t.Errorf("GetTask: status %+v, want completed with a message saying %q", got.Status, tc.reply)
			}
			listed := map[string][]string{}
			for binding, list := range listers {
				for _, task := range list(t, listQuery{contextID: msg.ContextID}).tasks {
					listed[binding] = append(listed[binding], task["id"].(string))
				}
			}
			want := map[string][]string{"JSON-RPC": {string(id)}, "REST": {string(id)}, "gRPC": {string(id)}}
			if diff := cmp.Diff(want, listed); diff != "" {
				t.Errorf("ListTasks of context %s (-want +got):\n%s", msg.ContextID, diff)
			}
		})
	}
}
