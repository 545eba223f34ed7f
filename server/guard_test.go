package server

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// bindings are the ways a caller reaches proctor: every binding at every
// protocol version.
var bindings = []string{"jsonrpc-1.0", "rest-1.0", "grpc-1.0", "jsonrpc-0.3", "rest-0.3"}

// sendSkill sends {"skill": skill, "params": params} as a data part on a
// binding, blocking until the task ends, and returns the answer as JSON.
func sendSkill(t *testing.T, srv *Server, binding, token, skill string, params map[string]any) string {
	t.Helper()
	body := map[string]any{"skill": skill, "params": params}
	enc := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	msg1 := map[string]any{"messageId": "m-" + binding + skill, "role": "ROLE_USER", "parts": []any{map[string]any{"data": body}}}
	msg03 := map[string]any{"kind": "message", "messageId": "m-" + binding + skill, "role": "user",
		"parts": []any{map[string]any{"kind": "data", "data": body}}}
	base := srv.URL()
	switch binding {
	case "jsonrpc-1.0":
		return string(wire(t, "POST", base+PathJSONRPC, token, enc(map[string]any{"jsonrpc": "2.0", "id": 1,
			"method": "SendMessage", "params": map[string]any{"message": msg1}})))
	case "rest-1.0":
		return string(wire(t, "POST", base+PathREST+"/message:send", token, enc(map[string]any{"message": msg1})))
	case "jsonrpc-0.3":
		return string(wire(t, "POST", base+PathJSONRPC03, token, enc(map[string]any{"jsonrpc": "2.0", "id": 1,
			"method": "message/send", "params": map[string]any{"message": msg03, "configuration": map[string]any{"blocking": true}}})))
	case "rest-0.3": // the 0.3 protobuf's JSON form
		msg := map[string]any{"messageId": "m-" + binding + skill, "role": "ROLE_USER",
			"content": []any{map[string]any{"data": map[string]any{"data": body}}}}
		return string(wire(t, "POST", base+PathREST03+"/v1/message:send", token, enc(map[string]any{"message": msg, "configuration": map[string]any{"blocking": true}})))
	}
	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	st, err := structpb.NewStruct(map[string]any{"skill": skill, "params": toJSONAny(t, params)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token, "a2a-version", "1.0")
	resp, err := a2apb.NewA2AServiceClient(conn).SendMessage(ctx, &a2apb.SendMessageRequest{Message: &a2apb.Message{
		MessageId: "m-grpc" + skill, Role: a2apb.Role_ROLE_USER,
		Parts: []*a2apb.Part{{Content: &a2apb.Part_Data{Data: structpb.NewStructValue(st)}}}}})
	if err != nil {
		t.Fatalf("gRPC SendMessage: %v", err)
	}
	b, _ := protojson.Marshal(resp)
	return string(b)
}

// TestPrivateTargetsRefused: with the private-target guard on (proctor
// serve --deny-private-targets), run_evaluation, run_evalset and
// check_conformance of an agent on loopback are rejected as bad requests
// on every binding (issue 13: check_conformance used to complete as a stored
// "non-conformant" run); the agent sees no connection, and nothing is
// stored; so for its other spellings (localhost, IPv6, IPv4-mapped, NAT64,
// decimal, hexadecimal, octal, shortened) and for private, link-local and
// carrier-grade NAT addresses. The guard's address ranges are in
// internal/agentdial's TestGuardAddresses, redirects and cards in
// a2aclient's and conformance's guard tests.
func TestPrivateTargetsRefused(t *testing.T) {
	var conns atomic.Int64
	agent := httptest.NewUnstartedServer(nil)
	agent.Config.Handler = agentMux(agent)
	agent.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	agent.Start()
	t.Cleanup(agent.Close)

	reg, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	svc := &skills.Service{Domains: reg, Store: db,
		ClientOptions:      []a2aclient.Option{a2aclient.WithDenyPrivateTargets()},
		ConformanceOptions: []conformance.Option{conformance.WithDenyPrivateTargets()}}
	srv, err := New(Config{Host: "127.0.0.1", AuthTokens: []string{testToken}}, svc)
	if err != nil {
		t.Fatal(err)
	}
	serveInBackground(t, srv, db)

	_, port, _ := net.SplitHostPort(strings.TrimPrefix(agent.URL, "http://"))
	// The agent's own address on every binding; its other spellings, and
	// private addresses (refused before connect(2): no packet leaves), on
	// one.
	hosts := []string{"127.0.0.1", "localhost", "[::1]", "[::ffff:127.0.0.1]", "[64:ff9b::7f00:1]",
		"2130706433", "0x7f000001", "0x7f.1", "0177.0.0.1", "127.1",
		"10.0.0.1", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "[fe80::1]", "[fd00::1]", "[::ffff:10.0.0.1]"}
	for i, host := range hosts {
		url := "http://" + net.JoinHostPort(strings.Trim(host, "[]"), port)
		on := bindings
		if i > 0 {
			on = bindings[:1]
		}
		for _, binding := range on {
			for _, r := range []struct {
				skill  string
				params map[string]any
			}{
				{string(SkillRunEvaluation), map[string]any{"domain": "mock", "agent_url": url, "num_tasks": 1}},
				{string(SkillCheckConformance), map[string]any{"agent_url": url}},
				{string(SkillRunEvalSet), map[string]any{"agent_url": url, "eval_set": guardEvalSet}},
			} {
				t.Run(binding+" "+r.skill+" "+host, func(t *testing.T) {
					answer := sendSkill(t, srv, binding, testToken, r.skill, r.params)
					rejected := strings.Contains(answer, "TASK_STATE_REJECTED") || strings.Contains(answer, `"state":"rejected"`)
					if !rejected || !strings.Contains(answer, "refusing to connect to ") || !strings.Contains(answer, "--deny-private-targets") {
						t.Fatalf("answer %s; want the task rejected, saying the guard refused the agent", clip([]byte(answer)))
					}
				})
			}
		}
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("the agent saw %d connections", n)
	}
	if runs, err := db.ListConformance(context.Background(), store.ConformanceFilter{}); err != nil || len(runs) != 0 {
		t.Errorf("%d conformance runs stored (%v)", len(runs), err)
	}
}

// guardEvalSet is a one-case eval set, as plain JSON values.
var guardEvalSet = map[string]any{"evalSetId": "guard", "evalCases": []any{map[string]any{"evalId": "hi",
	"conversation": []any{map[string]any{"userContent": map[string]any{"role": "user", "content": "hi"}}}}}}

// agentMux serves agenttest's agent and its card at srv's URL.
func agentMux(srv *httptest.Server) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/.well-known/agent-card.json", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a2asrv.NewStaticAgentCardHandler(agenttest.Card(srv.URL)).ServeHTTP(w, r)
	}))
	mux.Handle("/", agenttest.Handler(agenttest.Sorry))
	return mux
}
