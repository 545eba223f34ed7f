package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"

	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/server"
	"github.com/proctor-eval/proctor/server/ui"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// The tenants of the tests: two, and an admin.
const (
	aliceToken = "alice-T0KEN-value"
	bobToken   = "bob-T0KEN-value"
	rootToken  = "root-T0KEN-value"
)

// tenantFixture is a server with tenants alice, bob and root (admin) over
// a database, and its web viewer.
type tenantFixture struct {
	srv    *server.Server
	db     *store.DB
	dbPath string
}

func startTenants(t *testing.T, limits server.TenantLimits, tweak ...func(*server.Config)) *tenantFixture {
	t.Helper()
	reg, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "p.db")
	db, err := store.Open(dbPath, store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	viewer, err := ui.New(db, ui.Options{Base: server.PathUI})
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.Config{
		Host: "127.0.0.1",
		Tenants: []server.Tenant{{Name: "alice", Tokens: []string{aliceToken}}, {Name: "bob", Tokens: []string{bobToken}},
			{Name: "root", Tokens: []string{rootToken}, Admin: true}},
		TenantLimits: limits,
		TaskStore:    db.TaskStore(store.WithTenantTasks(), store.WithAnonymousTaskList()),
		Audit:        db, UI: viewer,
	}
	for _, fn := range tweak {
		fn(&cfg)
	}
	srv, err := server.New(cfg, &skills.Service{Domains: reg, Store: db})
	if err != nil {
		t.Fatal(err)
	}
	server.ServeInBackground(t, srv, db)
	return &tenantFixture{srv: srv, db: db, dbPath: dbPath}
}

// call sends one HTTP request with token and returns the status and body.
func (f *tenantFixture) call(t *testing.T, method, path, token, body string) (int, string) {
	t.Helper()
	code, b := server.SendHTTP(t, method, f.srv.URL()+path, token, body)
	return code, string(b)
}

// rpc sends a JSON-RPC 1.0 call.
func (f *tenantFixture) rpc(t *testing.T, token, method string, params any) string {
	t.Helper()
	js, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	_, body := f.call(t, "POST", server.PathJSONRPC, token, string(js))
	return body
}

// skill sends a blocking SendMessage asking for a skill.
func (f *tenantFixture) skill(t *testing.T, token, skill string, params any) string {
	t.Helper()
	return f.rpc(t, token, "SendMessage", map[string]any{"message": map[string]any{
		"messageId": fmt.Sprintf("m-%d", time.Now().UnixNano()), "role": "ROLE_USER",
		"parts": []any{map[string]any{"data": map[string]any{"skill": skill, "params": params}}}}})
}

var (
	taskIDRE = regexp.MustCompile(`"task":{"id":"([0-9a-f-]{36})"`)
	evalIDRE = regexp.MustCompile(`"evaluation_id":"([0-9a-f-]{36})"`)
)

func firstMatch(t *testing.T, re *regexp.Regexp, s string) string {
	t.Helper()
	m := re.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no %s in %s", re, clipText(s))
	}
	return m[1]
}

func clipText(s string) string {
	if len(s) > 800 {
		return s[:800] + "…"
	}
	return s
}

// masked is an answer with id replaced by ID, to compare the answer about
// another tenant's object with the answer about one that does not exist.
func masked(answer, id string) string { return strings.ReplaceAll(answer, id, "ID") }

// absentID is an id of the same form as id that names nothing.
func absentID(id string) string { return id[:len(id)-12] + "000000000000" }

// aliceObjects are what alice made: the task of an evaluation, the
// evaluation, a conformance run and an eval-set run.
type aliceObjects struct{ task, evaluation, conformance, evalSet string }

// makeAliceObjects has alice run an evaluation, a conformance check and
// an eval set.
func makeAliceObjects(t *testing.T, f *tenantFixture) aliceObjects {
	t.Helper()
	answer := f.skill(t, aliceToken, "run_evaluation", map[string]any{"agent_url": "builtin", "task_ids": []string{"mock-01"}})
	if !strings.Contains(answer, "TASK_STATE_COMPLETED") {
		t.Fatalf("alice's evaluation did not complete: %s", clipText(answer))
	}
	o := aliceObjects{task: firstMatch(t, taskIDRE, answer), evaluation: firstMatch(t, evalIDRE, answer)}
	conf := f.skill(t, aliceToken, "check_conformance", map[string]any{"agent_url": "http://" + freeAddr(t), "protocol": "1.0"})
	o.conformance = firstMatch(t, regexp.MustCompile(`"conformance_id":"([0-9a-f-]{36})"`), conf)
	agent := agenttest.Start(t, agenttest.Sorry)
	set := f.skill(t, aliceToken, "run_evalset", map[string]any{"agent_url": agent.URL, "eval_set": map[string]any{
		"evalSetId": "hello", "evalCases": []any{map[string]any{"evalId": "hi",
			"conversation": []any{map[string]any{"userContent": map[string]any{"role": "user", "content": "hello"}}}}}}})
	o.evalSet = firstMatch(t, regexp.MustCompile(`"eval_set_run_id":"([0-9a-f-]{36})"`), set)
	return o
}

// freeAddr is a loopback address with a port free a moment ago (nothing
// listens on it).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// tenantProbe asks, as a caller, about one of alice's objects.
type tenantProbe struct {
	name string
	// of picks the object asked about.
	of  func(aliceObjects) string
	ask func(token, id string) string
	// shows reports whether an answer about id shows the object.
	shows func(answer, id string) bool
	// listing probes have no "absent object" twin to compare with.
	listing bool
}

// notFoundAnswer reports whether an answer does not say "not found".
func notFoundAnswer(answer, _ string) bool {
	for _, s := range []string{"not found", "NotFound", "NOT_FOUND", "404 "} {
		if strings.Contains(answer, s) {
			return false
		}
	}
	return true
}

func containsID(answer, id string) bool { return strings.Contains(answer, id) }

func byTask(o aliceObjects) string        { return o.task }
func byEvaluation(o aliceObjects) string  { return o.evaluation }
func byConformance(o aliceObjects) string { return o.conformance }
func byEvalSet(o aliceObjects) string     { return o.evalSet }

// taskProbes ask about a task on every binding and protocol version.
func taskProbes(t *testing.T, f *tenantFixture, conn *grpc.ClientConn) []tenantProbe {
	httpAnswer := func(method, path string) func(tok, id string) string {
		return func(tok, id string) string {
			code, b := f.call(t, method, strings.ReplaceAll(path, "ID", id), tok, "")
			return fmt.Sprint(code, " ", b)
		}
	}
	rpc03 := func(method string) func(tok, id string) string {
		return func(tok, id string) string {
			_, b := f.call(t, "POST", server.PathJSONRPC03, tok, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{"id":%q}}`, method, id))
			return b
		}
	}
	rpc10 := func(method string) func(tok, id string) string {
		return func(tok, id string) string { return f.rpc(t, tok, method, map[string]any{"id": id}) }
	}
	grpcCall := func(call func(context.Context, a2apb.A2AServiceClient, string) (string, error)) func(tok, id string) string {
		return func(tok, id string) string {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+tok, "a2a-version", "1.0")
			out, err := call(ctx, a2apb.NewA2AServiceClient(conn), id)
			if err != nil {
				return fmt.Sprintf("%s: %s", status.Code(err), status.Convert(err).Message())
			}
			return out
		}
	}
	return []tenantProbe{
		{name: "GetTask JSON-RPC 1.0", of: byTask, ask: rpc10("GetTask"), shows: notFoundAnswer},
		{name: "GetTask REST 1.0", of: byTask, ask: httpAnswer("GET", server.PathREST+"/tasks/ID"), shows: notFoundAnswer},
		{name: "tasks/get JSON-RPC 0.3", of: byTask, ask: rpc03("tasks/get"), shows: notFoundAnswer},
		{name: "GetTask REST 0.3", of: byTask, ask: httpAnswer("GET", server.PathREST03+"/v1/tasks/ID"), shows: notFoundAnswer},
		{name: "GetTask gRPC", of: byTask, ask: grpcCall(func(ctx context.Context, c a2apb.A2AServiceClient, id string) (string, error) {
			task, err := c.GetTask(ctx, &a2apb.GetTaskRequest{Id: id})
			return "task " + task.GetId(), err
		}), shows: func(a, _ string) bool { return strings.HasPrefix(a, "task ") }},
		{name: "CancelTask JSON-RPC 1.0", of: byTask, ask: rpc10("CancelTask"), shows: notFoundAnswer},
		{name: "CancelTask REST 1.0", of: byTask, ask: httpAnswer("POST", server.PathREST+"/tasks/ID:cancel"), shows: notFoundAnswer},
		{name: "tasks/cancel JSON-RPC 0.3", of: byTask, ask: rpc03("tasks/cancel"), shows: notFoundAnswer},
		{name: "CancelTask REST 0.3", of: byTask, ask: httpAnswer("POST", server.PathREST03+"/v1/tasks/ID:cancel"), shows: notFoundAnswer},
		{name: "CancelTask gRPC", of: byTask, ask: grpcCall(func(ctx context.Context, c a2apb.A2AServiceClient, id string) (string, error) {
			_, err := c.CancelTask(ctx, &a2apb.CancelTaskRequest{Id: id})
			return "canceled", err
		}), shows: notFoundAnswer},
		{name: "SubscribeToTask JSON-RPC 1.0", of: byTask, ask: rpc10("SubscribeToTask"), shows: notFoundAnswer},
		{name: "SubscribeToTask REST 1.0", of: byTask, ask: httpAnswer("GET", server.PathREST+"/tasks/ID:subscribe"), shows: notFoundAnswer},
		{name: "tasks/resubscribe JSON-RPC 0.3", of: byTask, ask: rpc03("tasks/resubscribe"), shows: notFoundAnswer},
		{name: "SubscribeToTask gRPC", of: byTask, ask: grpcCall(func(ctx context.Context, c a2apb.A2AServiceClient, id string) (string, error) {
			stream, err := c.SubscribeToTask(ctx, &a2apb.SubscribeToTaskRequest{Id: id})
			if err != nil {
				return "", err
			}
			_, err = stream.Recv()
			return "subscribed", err
		}), shows: notFoundAnswer},
		{name: "ListTasks JSON-RPC 1.0", of: byTask, ask: func(tok, _ string) string { return f.rpc(t, tok, "ListTasks", map[string]any{}) },
			shows: containsID, listing: true},
		{name: "ListTasks REST 1.0", of: byTask, ask: httpAnswer("GET", server.PathREST+"/tasks"), shows: containsID, listing: true},
		{name: "ListTasks gRPC", of: byTask, ask: grpcCall(func(ctx context.Context, c a2apb.A2AServiceClient, _ string) (string, error) {
			resp, err := c.ListTasks(ctx, &a2apb.ListTasksRequest{})
			var ids []string
			for _, task := range resp.GetTasks() {
				ids = append(ids, task.GetId())
			}
			return strings.Join(ids, " "), err
		}), shows: containsID, listing: true},
	}
}

// recordProbes ask about alice's stored records through the skills and
// the web viewer.
func recordProbes(t *testing.T, f *tenantFixture) []tenantProbe {
	completed := func(a, _ string) bool { return strings.Contains(a, "status **completed**") }
	page := func(path string) func(tok, id string) string {
		return func(tok, id string) string {
			code, b := f.call(t, "GET", strings.ReplaceAll(path, "ID", id), tok, "")
			return fmt.Sprint(code, " ", b)
		}
	}
	ok200 := func(a, _ string) bool { return strings.HasPrefix(a, "200 ") }
	shortIn := func(a, id string) bool { return strings.Contains(a, id[len(id)-8:]) }
	return []tenantProbe{
		{name: "get_results by id", of: byEvaluation, ask: func(tok, id string) string {
			return f.skill(t, tok, "get_results", map[string]any{"id": id, "include_transcripts": false})
		}, shows: completed},
		{name: "get_results by short id", of: byEvaluation, ask: func(tok, id string) string {
			return f.skill(t, tok, "get_results", map[string]any{"id": id[len(id)-8:], "include_transcripts": false})
		}, shows: completed},
		{name: "get_results list", of: byEvaluation, ask: func(tok, _ string) string { return f.skill(t, tok, "get_results", map[string]any{}) },
			shows: containsID, listing: true},
		{name: "get_results of an eval-set run", of: byEvalSet, ask: func(tok, id string) string {
			return f.skill(t, tok, "get_results", map[string]any{"id": id})
		}, shows: func(a, _ string) bool { return !strings.Contains(a, "TASK_STATE_REJECTED") }},
		{name: "resume", of: byEvaluation, ask: func(tok, id string) string {
			return f.skill(t, tok, "run_evaluation", map[string]any{"agent_url": "builtin", "resume": id})
		}, shows: func(a, _ string) bool { return strings.Contains(a, "already completed") }},
		{name: "viewer: evaluation page", of: byEvaluation, ask: page(server.PathUI + "eval/ID"), shows: ok200},
		{name: "viewer: simulation page", of: byEvaluation, ask: page(server.PathUI + "eval/ID/sim?id=mock-01%230"), shows: ok200},
		{name: "viewer: evaluations", of: byEvaluation, ask: page(server.PathUI), shows: shortIn, listing: true},
		{name: "viewer: conformance page", of: byConformance, ask: page(server.PathUI + "conformance/ID"), shows: ok200},
		{name: "viewer: conformance runs", of: byConformance, ask: page(server.PathUI + "conformance"), shows: shortIn, listing: true},
		{name: "viewer: eval-set run page", of: byEvalSet, ask: page(server.PathUI + "evalset/ID"), shows: ok200},
		{name: "viewer: eval-set runs", of: byEvalSet, ask: page(server.PathUI + "evalsets"), shows: shortIn, listing: true},
	}
}

// TestTenantsSeeOnlyTheirOwn: alice's task, evaluation, conformance run
// and eval-set run are visible to alice and to the admin, and to bob
// exactly as if they did not exist, on every binding and protocol
// version, through get_results, resume, the task methods and the web
// viewer.
func TestTenantsSeeOnlyTheirOwn(t *testing.T) {
	f := startTenants(t, server.TenantLimits{})
	objects := makeAliceObjects(t, f)
	conn, err := grpc.NewClient(f.srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	probes := append(taskProbes(t, f, conn), recordProbes(t, f)...)

	type seen map[string]bool
	want, got := map[string]seen{}, map[string]seen{}
	for _, caller := range []struct{ name, token string }{{"alice", aliceToken}, {"bob", bobToken}, {"root", rootToken}} {
		got[caller.name], want[caller.name] = seen{}, seen{}
		for _, p := range probes {
			id := p.of(objects)
			a := p.ask(caller.token, id)
			got[caller.name][p.name] = p.shows(a, id)
			want[caller.name][p.name] = caller.name != "bob"
			if caller.name != "bob" || p.listing {
				continue
			}
			// Bob's answer is the answer about an id that does not exist.
			absent := absentID(id)
			if diff := cmp.Diff(maskedProbe(p.ask(caller.token, absent), absent), maskedProbe(a, id)); diff != "" {
				t.Errorf("%s: bob's answer about alice's object differs from one about no object (-absent +alice's):\n%s", p.name, diff)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("who sees alice's objects (-want +got):\n%s", diff)
	}
}

// maskedProbe is masked with the short id and the request-dependent parts
// of an answer (fresh task and message ids, timestamps) replaced too.
func maskedProbe(answer, id string) string {
	answer = masked(answer, id)
	answer = masked(answer, id[len(id)-8:])
	answer = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`).ReplaceAllString(answer, "UUID")
	answer = regexp.MustCompile(`"m-\d+"`).ReplaceAllString(answer, `"MSG"`)
	return regexp.MustCompile(`\d{4}-\d\d-\d\dT[0-9:.]+Z`).ReplaceAllString(answer, "TIME")
}

// TestTenantLimits: each limit refuses with an error naming it and its
// flag; the rate limit answers as each binding says "too many".
func TestTenantLimits(t *testing.T) {
	t.Run("simulations per request", func(t *testing.T) {
		f := startTenants(t, server.TenantLimits{MaxSimulations: 2})
		a := f.skill(t, aliceToken, "run_evaluation", map[string]any{"agent_url": "builtin", "task_ids": []string{"mock-01", "mock-02"}, "num_trials": 2})
		if !strings.Contains(a, "TASK_STATE_REJECTED") || !strings.Contains(a, "runs 4 simulations") || !strings.Contains(a, server.FlagTenantMaxSimulations) {
			t.Errorf("4 simulations over a limit of 2: %s", clipText(a))
		}
		if a := f.skill(t, aliceToken, "run_evaluation", map[string]any{"agent_url": "builtin", "task_ids": []string{"mock-01"}, "num_trials": 2}); !strings.Contains(a, "TASK_STATE_COMPLETED") {
			t.Errorf("2 simulations within a limit of 2: %s", clipText(a))
		}
	})
	t.Run("simulations per chat request", func(t *testing.T) {
		// The chat's model asks for 4 simulations, then repeats what the
		// tool answered.
		fake := llmtest.NewOpenAI(t, func(r llmtest.Request) llmtest.Reply {
			if last := r.Messages[len(r.Messages)-1]; last.Role == "tool" {
				return llmtest.Reply{Text: "TOOL SAID " + last.ToolResult}
			}
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "run_evaluation", Args: map[string]any{
				"agent_url": "builtin", "domain": "mock", "task_ids": []any{"mock-01", "mock-02"}, "num_trials": 2}}}}
		})
		m, err := llm.New(context.Background(), "openai:gpt-4.1", llm.Config{APIKey: "sk-chat-test", BaseURL: fake.URL})
		if err != nil {
			t.Fatal(err)
		}
		f := startTenants(t, server.TenantLimits{MaxSimulations: 2}, func(c *server.Config) { c.ChatModel = m })
		reply := f.rpc(t, aliceToken, "SendMessage", map[string]any{"message": map[string]any{
			"messageId": "m-1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "Evaluate builtin on mock-01 and mock-02, twice each."}}}})
		if !strings.Contains(reply, "TOOL SAID") || !strings.Contains(reply, "runs 4 simulations") || !strings.Contains(reply, server.FlagTenantMaxSimulations) {
			t.Errorf("the chat's 4 simulations over a limit of 2: %s", clipText(reply))
		}
		if evals, err := f.db.ListEvaluations(store.WithTenant(context.Background(), store.Tenant{Name: "root", Admin: true}), store.ListFilter{}); err != nil || len(evals) != 0 {
			t.Errorf("evaluations stored: %d (%v), want none", len(evals), err)
		}
	})
	t.Run("rate", func(t *testing.T) {
		f := startTenants(t, server.TenantLimits{RequestsPerSecond: 0.001, Burst: 1})
		conn, err := grpc.NewClient(f.srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		grpcList := func(token string) error {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token, "a2a-version", "1.0")
			_, err := a2apb.NewA2AServiceClient(conn).ListTasks(ctx, &a2apb.ListTasksRequest{})
			return err
		}
		// alice's one request of the burst, then each binding refuses.
		if b := f.rpc(t, aliceToken, "ListTasks", map[string]any{}); strings.Contains(b, "error") {
			t.Fatalf("first request: %s", b)
		}
		begin := time.Now() // alice's refusals start
		b := f.rpc(t, aliceToken, "ListTasks", map[string]any{})
		var rpcErr struct {
			Error struct {
				Code    int
				Message string
			}
		}
		_ = json.Unmarshal([]byte(b), &rpcErr)
		if rpcErr.Error.Code != server.ErrCodeRateLimited || !strings.Contains(rpcErr.Error.Message, server.FlagTenantRate) {
			t.Errorf("JSON-RPC over the rate: %s", b)
		}
		if code, b := f.call(t, "GET", server.PathREST+"/tasks", aliceToken, ""); code != http.StatusTooManyRequests || !strings.Contains(b, server.FlagTenantRate) {
			t.Errorf("REST over the rate: %d %s", code, b)
		}
		if err := grpcList(aliceToken); status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "rate limit") {
			t.Errorf("gRPC over the rate: %v", err)
		}
		// bob has his own bucket.
		if err := grpcList(bobToken); err != nil {
			t.Errorf("bob's first request: %v", err)
		}
		// Refusals are audited at most once a second per tenant: hammering
		// cannot push others' entries out of the log.
		for range 20 {
			f.rpc(t, aliceToken, "ListTasks", map[string]any{})
		}
		elapsed := time.Since(begin)
		entries, err := f.db.ListAudit(context.Background(), store.AuditFilter{Tenant: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		refusals := 0
		for _, e := range entries {
			if strings.HasPrefix(e.Reason, "rate limit") {
				refusals++
			}
		}
		if most := 1 + int(elapsed/time.Second); refusals < 1 || refusals > most {
			t.Errorf("%d of 22 refusals over the rate audited in %s, want 1..%d", refusals, elapsed, most)
		}
	})
	t.Run("queued", func(t *testing.T) {
		f := startTenants(t, server.TenantLimits{MaxRunning: 1, MaxQueued: 1})
		// A slow conformance check holds alice's one slot... use a hanging
		// agent: a listener that accepts and never answers.
		hang := hangingAgent(t)
		start := func() string {
			return f.rpc(t, aliceToken, "SendMessage", map[string]any{
				"configuration": map[string]any{"returnImmediately": true},
				"message": map[string]any{"messageId": fmt.Sprintf("m-%d", time.Now().UnixNano()), "role": "ROLE_USER",
					"parts": []any{map[string]any{"data": map[string]any{"skill": "check_conformance", "params": map[string]any{"agent_url": hang, "protocol": "1.0"}}}}}})
		}
		first, second := start(), start()
		for _, a := range []string{first, second} {
			if !strings.Contains(a, "TASK_STATE_WORKING") {
				t.Fatalf("want working: %s", clipText(a))
			}
		}
		// The second waits for alice's one running slot and says so.
		if !f.streamSays(t, aliceToken, firstMatch(t, taskIDRE, second), server.FlagTenantMaxRunning) {
			t.Errorf("the second task's status never names %s", server.FlagTenantMaxRunning)
		}
		third := start()
		if !strings.Contains(third, "TASK_STATE_REJECTED") || !strings.Contains(third, server.FlagTenantMaxQueued) {
			t.Errorf("a third task over 1 running and 1 queued: %s", clipText(third))
		}
		// bob is not held up by alice's queue.
		if a := f.skill(t, bobToken, "list_domains", map[string]any{}); !strings.Contains(a, "mock") {
			t.Errorf("bob: %s", clipText(a))
		}
		for _, a := range []string{first, second} {
			f.rpc(t, aliceToken, "CancelTask", map[string]any{"id": firstMatch(t, taskIDRE, a)})
		}
	})
}

// streamSays subscribes to a task (REST 1.0) and reports whether an event
// holds want before the stream ends or 30 seconds pass.
func (f *tenantFixture) streamSays(t *testing.T, token, taskID, want string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", f.srv.URL()+server.PathREST+"/tasks/"+taskID+":subscribe", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), want) {
			return true
		}
	}
	return false
}

// hangingAgent is a loopback address that accepts connections and never
// answers, until the test ends.
func hangingAgent(t *testing.T) string {
	t.Helper()
	release := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { close(release); _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// TestAuditAndNoTokensStored: a sequence of calls leaves one audit entry
// each, naming the tenant, action, ids and outcome; no token is anywhere
// in the database file.
func TestAuditAndNoTokensStored(t *testing.T) {
	f := startTenants(t, server.TenantLimits{})
	answer := f.skill(t, aliceToken, "run_evaluation", map[string]any{"agent_url": "builtin", "task_ids": []string{"mock-01"}})
	taskID, evalID := firstMatch(t, taskIDRE, answer), firstMatch(t, evalIDRE, answer)
	f.rpc(t, bobToken, "GetTask", map[string]any{"id": taskID})
	f.skill(t, bobToken, "get_results", map[string]any{"id": evalID})
	f.rpc(t, rootToken, "GetTask", map[string]any{"id": taskID})

	entries, err := f.db.ListAudit(context.Background(), store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	type line struct {
		Tenant, Action string
		Objects        []string // "task", "evaluation"
		Outcome        store.AuditOutcome
	}
	label := map[string]string{taskID: "task", evalID: "evaluation"}
	var got []line
	for _, e := range entries {
		l := line{Tenant: e.Tenant, Action: e.Action, Outcome: e.Outcome}
		for _, o := range e.Objects {
			l.Objects = append(l.Objects, label[o])
		}
		got = append(got, l)
	}
	want := []line{
		{"alice", "run_evaluation ended", []string{"task", "evaluation"}, store.AuditAccepted},
		{"alice", "SendMessage/run_evaluation", []string{"task"}, store.AuditAccepted},
		{"bob", "GetTask", []string{"task"}, store.AuditRefused},
		{"bob", "SendMessage/get_results", []string{"evaluation", ""}, store.AuditRefused},
		{"root", "GetTask", []string{"task"}, store.AuditAccepted},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit log (-want +got):\n%s", diff)
	}
	for _, e := range entries {
		if e.Outcome == store.AuditRefused && !strings.Contains(e.Reason, "not found") {
			t.Errorf("%s refused for %q, want not found", e.Action, e.Reason)
		}
	}
	if bobs, _ := f.db.ListAudit(context.Background(), store.AuditFilter{Tenant: "bob"}); len(bobs) != 2 {
		t.Errorf("bob's entries: %d, want 2", len(bobs))
	}
	raw, err := os.ReadFile(f.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{aliceToken, bobToken, rootToken} {
		if strings.Contains(string(raw), tok) {
			t.Errorf("token %q is in the database file", tok)
		}
	}
}

// TestTenantsInTheViewerAndTheChat: a viewer session carries its token's
// tenant (bob's cookie finds none of alice's pages, alice's finds them),
// and the chat front door's tools read with the caller's rights.
func TestTenantsInTheViewerAndTheChat(t *testing.T) {
	fake := llmtest.NewOpenAI(t, func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1]
		if last.Role == "tool" {
			return llmtest.Reply{Text: "RESULTS " + last.ToolResult}
		}
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "get_results", Args: map[string]any{"limit": 10}}}}
	})
	m, err := llm.New(context.Background(), "openai:gpt-4.1", llm.Config{APIKey: "sk-chat-test", BaseURL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	f := startTenants(t, server.TenantLimits{}, func(c *server.Config) { c.ChatModel = m })
	objects := makeAliceObjects(t, f)

	signIn := func(token string) *http.Client {
		jar, err := cookiejar.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		c := &http.Client{Jar: jar}
		resp, err := c.PostForm(f.srv.URL()+server.PathUILogin, url.Values{"token": {token}})
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != server.PathUI {
			t.Fatalf("sign-in: %d at %s", resp.StatusCode, resp.Request.URL)
		}
		return c
	}
	page := func(c *http.Client, path string) string {
		resp, err := c.Get(f.srv.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return fmt.Sprint(resp.StatusCode, " ", string(b))
	}
	chat := func(token string) string {
		return f.rpc(t, token, "SendMessage", map[string]any{"message": map[string]any{
			"messageId": fmt.Sprintf("m-%d", time.Now().UnixNano()), "role": "ROLE_USER",
			"parts": []any{map[string]any{"text": "What are my results?"}}}})
	}
	type view struct{ EvalPage, EvalSetPage, ConformancePage, ChatNamesIt bool }
	got := map[string]view{}
	for name, token := range map[string]string{"alice": aliceToken, "bob": bobToken, "root": rootToken} {
		c := signIn(token)
		evalPage := page(c, server.PathUI+"eval/"+objects.evaluation)
		if name == "bob" {
			absent := absentID(objects.evaluation)
			if diff := cmp.Diff(maskedProbe(page(c, server.PathUI+"eval/"+absent), absent), maskedProbe(evalPage, objects.evaluation)); diff != "" {
				t.Errorf("bob's viewer: alice's evaluation differs from none (-none +alice's):\n%s", diff)
			}
		}
		reply := chat(token)
		if !strings.Contains(reply, "RESULTS") {
			t.Fatalf("%s's chat: %s", name, clipText(reply))
		}
		got[name] = view{
			EvalPage:        strings.HasPrefix(evalPage, "200 "),
			EvalSetPage:     strings.HasPrefix(page(c, server.PathUI+"evalset/"+objects.evalSet), "200 "),
			ConformancePage: strings.HasPrefix(page(c, server.PathUI+"conformance/"+objects.conformance), "200 "),
			ChatNamesIt:     strings.Contains(reply, objects.evaluation),
		}
	}
	all := view{true, true, true, true}
	if diff := cmp.Diff(map[string]view{"alice": all, "bob": {}, "root": all}, got); diff != "" {
		t.Errorf("what each tenant's session and chat see (-want +got):\n%s", diff)
	}
}

// TestTenantsWithTheDefaultTaskStore: without a TaskStore, the in-memory
// one keeps each tenant's tasks to itself too.
func TestTenantsWithTheDefaultTaskStore(t *testing.T) {
	f := startTenants(t, server.TenantLimits{}, func(c *server.Config) { c.TaskStore = nil })
	answer := f.skill(t, aliceToken, "run_evaluation", map[string]any{"agent_url": "builtin", "task_ids": []string{"mock-01"}})
	task := firstMatch(t, taskIDRE, answer)
	got := map[string]bool{}
	for name, token := range map[string]string{"alice": aliceToken, "bob": bobToken} {
		got[name] = notFoundAnswer(f.rpc(t, token, "GetTask", map[string]any{"id": task}), task) &&
			strings.Contains(f.rpc(t, token, "ListTasks", map[string]any{}), task)
	}
	if diff := cmp.Diff(map[string]bool{"alice": true, "bob": false}, got); diff != "" {
		t.Errorf("who sees alice's task (-want +got):\n%s", diff)
	}
}

// TestSignInFlood: wrong tokens posted to the sign-in form from one
// address are answered 401 and recorded with that address up to a burst,
// then 429 with Retry-After and not recorded; the right token still signs
// in, and the flood leaves every authenticated entry in the audit log.
func TestSignInFlood(t *testing.T) {
	f := startTenants(t, server.TenantLimits{})
	f.rpc(t, aliceToken, "GetTask", map[string]any{"id": "01a1fd45-4963-7e34-ae64-f1bee88edbe3"})
	signIn := func(token string) (int, string) {
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).
			PostForm(f.srv.URL()+server.PathUILogin, url.Values{"token": {token}})
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Retry-After")
	}
	var codes []int
	for i := range 30 {
		code, retry := signIn(fmt.Sprint("wrong-", i))
		codes = append(codes, code)
		if code == http.StatusTooManyRequests && retry == "" {
			t.Errorf("attempt %d: 429 without Retry-After", i)
		}
	}
	want := make([]int, 30)
	for i := range want {
		want[i] = http.StatusUnauthorized
		if i >= 10 {
			want[i] = http.StatusTooManyRequests
		}
	}
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Errorf("answers to 30 wrong tokens (-want +got):\n%s", diff)
	}
	if code, _ := signIn(aliceToken); code != http.StatusSeeOther {
		t.Errorf("alice's token after the flood: %d, want 303 to the viewer", code)
	}
	entries, err := f.db.ListAudit(context.Background(), store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range entries {
		key := e.Tenant + " " + e.Action + " " + e.Source
		count[key]++
	}
	if diff := cmp.Diff(map[string]int{"alice GetTask ": 1, " UI sign-in 127.0.0.1": 10, "alice UI sign-in ": 1}, count); diff != "" {
		t.Errorf("audit entries (-want +got):\n%s", diff)
	}
}
