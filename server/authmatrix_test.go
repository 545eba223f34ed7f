package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

// rawExchange sends a raw HTTP request on a connection of its own and
// reads the answer's status and body.
func rawExchange(t *testing.T, srv *Server, request string) (int, string) {
	t.Helper()
	c := rawConn(t, srv)
	if _, err := io.WriteString(c, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%q: %v", strings.SplitN(request, "\r\n", 2)[0], err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestEveryEndpointNeedsAToken: every method of every binding, at both
// protocol versions, refuses a caller without a token or with a wrong one
// (HTTP 401 with a challenge, JSON-RPC error -31401 with the request's id,
// gRPC UNAUTHENTICATED), before doing anything; the agent card and
// /healthz stay public.
func TestEveryEndpointNeedsAToken(t *testing.T) {
	srv := startServer(t, Config{AuthTokens: []string{testToken}})
	rpc10 := []string{"SendMessage", "SendStreamingMessage", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask",
		"CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig", "ListTaskPushNotificationConfigs",
		"DeleteTaskPushNotificationConfig", "GetExtendedAgentCard"}
	rpc03 := []string{"message/send", "message/stream", "tasks/get", "tasks/cancel", "tasks/resubscribe",
		"tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/list",
		"tasks/pushNotificationConfig/delete", "agent/getAuthenticatedExtendedCard"}
	type endpoint struct{ method, path, body string }
	var endpoints []endpoint
	for _, m := range rpc10 {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":42,"method":%q,"params":{"id":"t"}}`, m)
		endpoints = append(endpoints, endpoint{"POST", PathJSONRPC, body}, endpoint{"POST", "/", body})
	}
	for _, m := range rpc03 {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":42,"method":%q,"params":{"id":"t"}}`, m)
		endpoints = append(endpoints, endpoint{"POST", PathJSONRPC03, body}, endpoint{"POST", "/", body})
	}
	rest := []endpoint{
		{"POST", "/message:send", `{"message":{}}`}, {"POST", "/message:stream", `{"message":{}}`},
		{"GET", "/tasks", ""}, {"GET", "/tasks/t", ""}, {"POST", "/tasks/t:cancel", "{}"},
		{"GET", "/tasks/t:subscribe", ""}, {"POST", "/tasks/t:subscribe", "{}"},
		{"POST", "/tasks/t/pushNotificationConfigs", "{}"}, {"GET", "/tasks/t/pushNotificationConfigs", ""},
		{"GET", "/tasks/t/pushNotificationConfigs/c", ""}, {"DELETE", "/tasks/t/pushNotificationConfigs/c", ""},
		{"GET", "/extendedAgentCard", ""}, {"GET", "/card", ""}, {"GET", "/no/such/route", ""},
	}
	for _, e := range rest {
		endpoints = append(endpoints, endpoint{e.method, PathREST + e.path, e.body}, endpoint{e.method, PathREST03 + "/v1" + e.path, e.body})
	}
	for _, e := range endpoints {
		for _, auth := range []string{"", "Bearer wrong", "Basic " + testToken} {
			t.Run(e.method+" "+e.path+" "+e.body+" "+auth, func(t *testing.T) {
				head := e.method + " " + e.path + " HTTP/1.1\r\nHost: proctor\r\nContent-Type: application/json\r\n"
				if auth != "" {
					head += "Authorization: " + auth + "\r\n"
				}
				code, body := rawExchange(t, srv, head+fmt.Sprintf("Content-Length: %d\r\n\r\n", len(e.body))+e.body)
				if code != http.StatusUnauthorized {
					t.Fatalf("HTTP %d %s, want 401", code, clip([]byte(body)))
				}
				if !strings.HasSuffix(e.path, "jsonrpc") && e.path != "/" {
					if !strings.Contains(body, "UNAUTHENTICATED") {
						t.Errorf("body %s, want UNAUTHENTICATED", clip([]byte(body)))
					}
					return
				}
				var out struct {
					ID    any
					Error struct{ Code int }
				}
				if err := json.Unmarshal([]byte(body), &out); err != nil || out.Error.Code != -31401 || out.ID != float64(42) {
					t.Errorf("body %s, want error -31401 with id 42", clip([]byte(body)))
				}
			})
		}
	}

	// gRPC: every method of the service, unary and streaming.
	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	desc := a2apb.A2AService_ServiceDesc
	for _, md := range [][]string{nil, {"authorization", "Bearer wrong"}} {
		call := func(t *testing.T, name string, stream bool) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if md != nil {
				ctx = metadata.AppendToOutgoingContext(ctx, md...)
			}
			full := "/" + desc.ServiceName + "/" + name
			if !stream {
				err = conn.Invoke(ctx, full, &emptypb.Empty{}, &emptypb.Empty{})
			} else {
				var s grpc.ClientStream
				if s, err = conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, full); err == nil {
					if err = s.SendMsg(&emptypb.Empty{}); err == nil {
						err = s.RecvMsg(&emptypb.Empty{})
					}
				}
			}
			if status.Code(err) != codes.Unauthenticated {
				t.Errorf("%s %v: %v, want UNAUTHENTICATED", name, md, err)
			}
		}
		for _, m := range desc.Methods {
			call(t, m.MethodName, false)
		}
		for _, s := range desc.Streams {
			call(t, s.StreamName, true)
		}
	}

	for _, p := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json", PathJSONRPC + "/.well-known/agent-card.json",
		PathJSONRPC03 + "/.well-known/agent-card.json", "/", PathHealth} {
		if code, body := rawExchange(t, srv, "GET "+p+" HTTP/1.1\r\nHost: proctor\r\n\r\n"); code != 200 {
			t.Errorf("GET %s without a token: %d %s", p, code, clip([]byte(body)))
		}
	}
}

// TestPathTricks: spellings of the A2A paths that a router or a proxy
// might read otherwise (doubled or dotted segments, an encoded slash, case,
// other methods, absolute form) never reach an A2A handler without a
// token: each gets 401, a redirect to the clean path, or a not found.
func TestPathTricks(t *testing.T) {
	srv := startServer(t, Config{GRPCPort: -1, AuthTokens: []string{testToken}})
	body := sendMessage(dataPartJSON(map[string]any{"skill": "list_domains"}))
	served := func(code int) bool { return code >= 200 && code < 300 }
	for _, tc := range []struct{ method, target string }{
		{"POST", "//a2a/jsonrpc"},
		{"POST", "/a2a//jsonrpc"},
		{"POST", "/a2a/./jsonrpc"},
		{"POST", "/a2a/rest/../jsonrpc"},
		{"POST", "/.well-known/../a2a/jsonrpc"},
		{"GET", "/.well-known/agent-card.json/../../a2a/rest/tasks"},
		{"POST", "/a2a%2Fjsonrpc"},
		{"POST", "/a2a/jsonrpc%2F"},
		{"GET", "/a2a/rest%2Ftasks"},
		{"GET", "/a2a/rest/tasks%2F..%2F..%2Fhealthz"},
		{"POST", "/A2A/JSONRPC"},
		{"POST", "/a2a/jsonrpc/"},
		{"POST", "/a2a/jsonrpc?token=" + testToken},
		{"POST", "/a2a/jsonrpc;x=1"},
		{"POST", "http://proctor/a2a/jsonrpc"},
		{"HEAD", "/a2a/jsonrpc"},
		{"HEAD", "/a2a/rest/tasks"},
		{"OPTIONS", "/a2a/jsonrpc"},
		{"OPTIONS", "/a2a/rest/tasks"},
		{"OPTIONS", "*"},
		{"PUT", "/a2a/rest/tasks/t"},
		{"PATCH", "/a2a/v0.3/rest/v1/tasks"},
		{"TRACE", "/a2a/jsonrpc"},
		{"POST", "//"},
		{"POST", "/./"},
		{"POST", "/?A2A-Version=0.3"},
		{"POST", "/.well-known/agent-card.json"},
		{"POST", "/a2a/jsonrpc/.well-known/../"},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			code, answer := rawExchange(t, srv, fmt.Sprintf("%s %s HTTP/1.1\r\nHost: proctor\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: %d\r\n\r\n%s",
				tc.method, tc.target, len(body), body))
			if tc.target == "*" { // net/http answers the server-wide OPTIONS itself, empty
				if code != 200 || answer != "" {
					t.Errorf("HTTP %d %q, want net/http's empty 200", code, clip([]byte(answer)))
				}
				return
			}
			if served(code) || strings.Contains(answer, `"result"`) || strings.Contains(answer, "domains") {
				t.Fatalf("served without a token: HTTP %d %s", code, clip([]byte(answer)))
			}
			switch code {
			case http.StatusUnauthorized, http.StatusNotFound, http.StatusMovedPermanently, http.StatusTemporaryRedirect,
				http.StatusPermanentRedirect, http.StatusBadRequest, http.StatusMethodNotAllowed:
			default:
				t.Errorf("HTTP %d %s", code, clip([]byte(answer)))
			}
		})
	}
}
