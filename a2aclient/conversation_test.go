package a2aclient

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

func TestConversationKeepsItsContext(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{} // context id -> texts received in it
	srv := agenttest.Start(t, func(_ context.Context, contextID, text string) string {
		mu.Lock()
		defer mu.Unlock()
		seen[contextID] = append(seen[contextID], text)
		return "ok"
	})
	c := dial(t, srv.URL)
	a, b := c.NewConversation(), c.NewConversation()
	if a.ContextID() == "" || a.ContextID() == b.ContextID() {
		t.Fatalf("context ids %q and %q, want two distinct non-empty ids", a.ContextID(), b.ContextID())
	}
	idA, idB := a.ContextID(), b.ContextID()
	for i := range 3 {
		for _, conv := range []*Conversation{a, b} {
			if _, err := say(t, conv, fmt.Sprintf("%s-%d", conv.ContextID()[:4], i)); err != nil {
				t.Fatalf("Send: %v", err)
			}
		}
	}
	if a.ContextID() != idA || b.ContextID() != idB {
		t.Errorf("context ids changed to %q, %q", a.ContextID(), b.ContextID())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || len(seen[idA]) != 3 || len(seen[idB]) != 3 {
		t.Errorf("server saw contexts %v, want 3 messages in each of %s and %s", seen, idA, idB)
	}
	for id, texts := range seen {
		for _, text := range texts {
			if !strings.HasPrefix(text, id[:4]) {
				t.Errorf("message %q arrived in context %s", text, id)
			}
		}
	}
}

func TestConversationAdoptsServerContext(t *testing.T) {
	tests := []struct {
		name   string
		result string // {CTX} is replaced by the server's context id
	}{
		{"message", `{"message": {"messageId": "m", "contextId": "{CTX}", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}}`},
		{"task", `{"task": {"id": "t", "contextId": "{CTX}", "status": {"state": "TASK_STATE_COMPLETED",
			"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}}}}`},
		{"0.3 message", `{"kind": "message", "messageId": "m", "contextId": "{CTX}", "role": "agent", "parts": [{"kind": "text", "text": "hi"}]}`},
		{"0.3 task", `{"kind": "task", "id": "t", "contextId": "{CTX}", "status": {"state": "completed"},
			"artifacts": [{"artifactId": "a", "parts": [{"kind": "text", "text": "hi"}]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const serverCtx = "server-assigned-context"
			var mu sync.Mutex
			var got []string // context ids of the requests
			srv := agenttest.RawResultAgent(t, func(contextID string) any {
				mu.Lock()
				got = append(got, contextID)
				mu.Unlock()
				return mustJSON(t, strings.ReplaceAll(tt.result, "{CTX}", serverCtx))
			})
			conv := dial(t, srv.URL).NewConversation()
			first := conv.ContextID()
			for range 2 {
				if _, err := say(t, conv, "hello"); err != nil {
					t.Fatalf("Send: %v", err)
				}
			}
			if conv.ContextID() != serverCtx {
				t.Errorf("ContextID() = %q, want the server's %q", conv.ContextID(), serverCtx)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 2 || got[0] != first || got[1] != serverCtx {
				t.Errorf("requests carried contexts %q, want [%s %s]", got, first, serverCtx)
			}
		})
	}
}

// TestConversationKeepsContextWhenServerOmitsIt: a reply without a context
// id does not erase the conversation's.
func TestConversationKeepsContextWhenServerOmitsIt(t *testing.T) {
	result := mustJSON(t, `{"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}}`)
	srv := agenttest.RawResultAgent(t, func(string) any { return result })
	conv := dial(t, srv.URL).NewConversation()
	id := conv.ContextID()
	if _, err := say(t, conv, "hello"); err != nil {
		t.Fatal(err)
	}
	if conv.ContextID() != id {
		t.Errorf("ContextID() = %q, want %q kept", conv.ContextID(), id)
	}
}

// TestConcurrentConversations runs many conversations on one client at
// once (under -race): each must get its own replies.
func TestConcurrentConversations(t *testing.T) {
	srv := agenttest.Start(t, func(_ context.Context, contextID, text string) string {
		return contextID + "|" + text
	})
	c := dial(t, srv.URL, WithMaxConnsPerHost(8))
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 20 {
		wg.Go(func() {
			conv := c.NewConversation()
			for j := range 3 {
				text := fmt.Sprintf("conv %d turn %d", i, j)
				resp, err := conv.Send(testCtx(t), []*a2a.Part{a2a.NewTextPart(text)})
				if err != nil {
					errs <- err
					return
				}
				if got, want := partsText(resp.Parts), conv.ContextID()+"|"+text; got != want {
					errs <- fmt.Errorf("reply %q, want %q", got, want)
				}
				if resp.Metrics.BytesReceived <= 0 || resp.Metrics.HTTPStatus != 200 {
					errs <- fmt.Errorf("metrics %+v", resp.Metrics)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
