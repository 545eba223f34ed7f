package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"

	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/server"
)

// startRunningTask has alice start a conformance check of an agent that
// never answers, and returns its task id once it is working.
func startRunningTask(t *testing.T, f *tenantFixture) string {
	t.Helper()
	answer := f.rpc(t, aliceToken, "SendMessage", map[string]any{
		"configuration": map[string]any{"returnImmediately": true},
		"message": map[string]any{"messageId": fmt.Sprintf("m-%d", time.Now().UnixNano()), "role": "ROLE_USER",
			"parts": []any{map[string]any{"data": map[string]any{"skill": "check_conformance",
				"params": map[string]any{"agent_url": hangingAgent(t), "protocol": "1.0"}}}}}})
	if !strings.Contains(answer, "TASK_STATE_WORKING") {
		t.Fatalf("alice's task is not working: %s", clipText(answer))
	}
	return firstMatch(t, taskIDRE, answer)
}

// openStream sends a subscribe request over HTTP and reads its answer
// until the server ends it or a few seconds pass: a refusal ends at once,
// a subscription to a running task stays open (said as "[still open]").
func openStream(t *testing.T, f *tenantFixture, method, path, token, body string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, f.srv.URL()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	if !strings.Contains(path, "v0.3") {
		req.Header.Set("A2A-Version", "1.0")
	}
	resp, err := http.DefaultClient.Do(req)
	if errors.Is(err, context.DeadlineExceeded) {
		return "[still open] (no answer yet)"
	}
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("%d %s [still open]", resp.StatusCode, b)
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, b)
}

// subscribeProbes subscribe to a task on every binding and protocol
// version, each returning what the caller was told.
func subscribeProbes(t *testing.T, f *tenantFixture, conn *grpc.ClientConn) map[string]func(token, id string) string {
	rest := func(method, path string) func(string, string) string {
		return func(tok, id string) string {
			return openStream(t, f, method, strings.ReplaceAll(path, "ID", id), tok, "")
		}
	}
	rpc := func(path, method string) func(string, string) string {
		return func(tok, id string) string {
			return openStream(t, f, "POST", path, tok, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{"id":%q}}`, method, id))
		}
	}
	return map[string]func(string, string) string{
		"SubscribeToTask JSON-RPC 1.0":   rpc(server.PathJSONRPC, "SubscribeToTask"),
		"tasks/resubscribe JSON-RPC 0.3": rpc(server.PathJSONRPC03, "tasks/resubscribe"),
		"GET :subscribe REST 1.0":        rest("GET", server.PathREST+"/tasks/ID:subscribe"),
		"POST :subscribe REST 1.0":       rest("POST", server.PathREST+"/tasks/ID:subscribe"),
		"GET :subscribe REST 0.3":        rest("GET", server.PathREST03+"/v1/tasks/ID:subscribe"),
		"POST :subscribe REST 0.3":       rest("POST", server.PathREST03+"/v1/tasks/ID:subscribe"),
		"SubscribeToTask gRPC": func(tok, id string) string {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+tok, "a2a-version", "1.0")
			stream, err := a2apb.NewA2AServiceClient(conn).SubscribeToTask(ctx, &a2apb.SubscribeToTaskRequest{Id: id})
			var events []string
			for err == nil {
				var resp *a2apb.StreamResponse
				if resp, err = stream.Recv(); err == nil {
					events = append(events, resp.String())
				}
			}
			return fmt.Sprintf("%s: %s %q", status.Code(err), status.Convert(err).Message(), events)
		},
	}
}

// TestSubscribeAcrossTenants: bob, given the id of alice's running task,
// is told on every binding exactly what he is told of a task that does
// not exist, and receives none of its events; his attempts and an admin's
// open streams leave alice able to follow her own task.
func TestSubscribeAcrossTenants(t *testing.T) {
	f := startTenants(t, server.TenantLimits{}, func(c *server.Config) { c.MaxStreamsPerTask = 2 })
	task := startRunningTask(t, f)
	conn, err := grpc.NewClient(f.srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	absent := absentID(task)
	for name, subscribe := range subscribeProbes(t, f, conn) {
		got := subscribe(bobToken, task)
		if strings.Contains(got, "[still open]") || strings.Contains(got, "WORKING") {
			t.Errorf("%s: bob follows alice's task: %s", name, clipText(got))
		}
		if diff := cmp.Diff(maskedProbe(subscribe(bobToken, absent), absent), maskedProbe(got, task)); diff != "" {
			t.Errorf("%s: bob's answer about alice's task differs from one about no task (-absent +alice's):\n%s", name, diff)
		}
	}
	// The admin may follow it: its streams, held open, count as its own.
	for range 2 {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+rootToken, "a2a-version", "1.0")
		stream, err := a2apb.NewA2AServiceClient(conn).SubscribeToTask(ctx, &a2apb.SubscribeToTaskRequest{Id: task})
		if err == nil {
			_, err = stream.Recv()
		}
		if err != nil {
			t.Fatalf("the admin's subscription: %v", err)
		}
	}
	if !f.streamSays(t, aliceToken, task, "TASK_STATE_WORKING") {
		t.Error("alice cannot follow her own task after bob's attempts and the admin's streams")
	}
}

// chatSenders send free text in a given context on every binding and
// protocol version, as the caller with token.
func chatSenders(t *testing.T, f *tenantFixture, conn *grpc.ClientConn) map[string]func(token, contextID, text string) {
	post := func(path, body string, token string) {
		if code, b := f.call(t, "POST", path, token, body); code != http.StatusOK {
			t.Fatalf("POST %s: %d %s", path, code, clipText(b))
		}
	}
	msg10 := func(ctxID, text string) map[string]any {
		return map[string]any{"messageId": fmt.Sprintf("m-%d", time.Now().UnixNano()), "role": "ROLE_USER", "contextId": ctxID,
			"parts": []any{map[string]any{"text": text}}}
	}
	msg03 := func(ctxID, text string) map[string]any {
		return map[string]any{"kind": "message", "messageId": fmt.Sprintf("m-%d", time.Now().UnixNano()), "role": "user", "contextId": ctxID,
			"parts": []any{map[string]any{"kind": "text", "text": text}}}
	}
	enc := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	return map[string]func(string, string, string){
		"JSON-RPC 1.0": func(tok, ctxID, text string) {
			f.rpc(t, tok, "SendMessage", map[string]any{"message": msg10(ctxID, text)})
		},
		"JSON-RPC 0.3": func(tok, ctxID, text string) {
			post(server.PathJSONRPC03, enc(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "message/send",
				"params": map[string]any{"message": msg03(ctxID, text)}}), tok)
		},
		"REST 1.0": func(tok, ctxID, text string) {
			post(server.PathREST+"/message:send", enc(map[string]any{"message": msg10(ctxID, text)}), tok)
		},
		"REST 0.3": func(tok, ctxID, text string) {
			post(server.PathREST03+"/v1/message:send", enc(map[string]any{"message": map[string]any{
				"messageId": fmt.Sprintf("m-%d", time.Now().UnixNano()), "role": "ROLE_USER", "contextId": ctxID,
				"content": []any{map[string]any{"text": text}}}}), tok)
		},
		"gRPC": func(tok, ctxID, text string) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+tok, "a2a-version", "1.0")
			_, err := a2apb.NewA2AServiceClient(conn).SendMessage(ctx, &a2apb.SendMessageRequest{Message: &a2apb.Message{
				MessageId: fmt.Sprintf("m-%d", time.Now().UnixNano()), Role: a2apb.Role_ROLE_USER, ContextId: ctxID,
				Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: text}}}}})
			if err != nil {
				t.Fatalf("gRPC SendMessage: %v", err)
			}
		},
	}
}

// TestChatSessionsAcrossTenants: bob, sending free text with the
// contextId of alice's chat, on every binding, starts a conversation of
// his own: the model is given none of alice's words, and alice's next
// turn none of bob's.
func TestChatSessionsAcrossTenants(t *testing.T) {
	var mu sync.Mutex
	var seen []string // each model request's conversation, joined
	fake := llmtest.NewOpenAI(t, func(r llmtest.Request) llmtest.Reply {
		var texts []string
		for _, m := range r.Messages {
			texts = append(texts, m.Text)
		}
		mu.Lock()
		seen = append(seen, strings.Join(texts, " | "))
		mu.Unlock()
		return llmtest.Reply{Text: "noted"}
	})
	m, err := llm.New(context.Background(), "openai:gpt-4.1", llm.Config{APIKey: "sk-chat-test", BaseURL: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	f := startTenants(t, server.TenantLimits{}, func(c *server.Config) { c.ChatModel = m })
	conn, err := grpc.NewClient(f.srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	lastSeen := func() string {
		mu.Lock()
		defer mu.Unlock()
		return seen[len(seen)-1]
	}
	for name, send := range chatSenders(t, f, conn) {
		ctxID := "ctx-" + strings.ReplaceAll(name, " ", "-")
		send(aliceToken, ctxID, "alice's secret is PINEAPPLE-42")
		send(bobToken, ctxID, "bob asks what was said")
		if got := lastSeen(); strings.Contains(got, "PINEAPPLE") || !strings.Contains(got, "bob asks") {
			t.Errorf("%s: the model was given, for bob's message: %q", name, got)
		}
		send(aliceToken, ctxID, "alice again")
		if got, want := lastSeen(), "alice's secret is PINEAPPLE-42 | noted | alice again"; got != want {
			t.Errorf("%s: alice's second turn gave the model %q, want %q", name, got, want)
		}
	}
}
