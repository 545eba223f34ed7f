package a2aclient

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

// taskExec is an executor that opens a task and then yields the events that
// steps makes for it.
func taskExec(steps func(ec *a2asrv.ExecutorContext) []a2a.Event) execFunc {
	return func(_ context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
		if ec.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				return
			}
		}
		for _, ev := range steps(ec) {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func agentMsg(ec *a2asrv.ExecutorContext, text string) *a2a.Message {
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(text))
}

func TestShapesFromA2AGoServer(t *testing.T) {
	tests := []struct {
		name      string
		exec      execFunc
		wantShape Shape
		wantText  string
		wantState a2a.TaskState
	}{
		{
			name: "message",
			exec: func(_ context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
				m := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("plain "), a2a.NewTextPart("message"))
				m.ContextID = ec.ContextID
				yield(m, nil)
			},
			wantShape: ShapeMessage,
			wantText:  "plain message", // one message's text parts are one text
		},
		{
			name: "task with artifacts",
			exec: taskExec(func(ec *a2asrv.ExecutorContext) []a2a.Event {
				first := a2a.NewArtifactEvent(ec, a2a.NewTextPart("part one"))
				more := a2a.NewArtifactUpdateEvent(ec, first.Artifact.ID, a2a.NewTextPart("part two"))
				more.Append = true
				return []a2a.Event{
					a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, agentMsg(ec, "thinking")),
					first,
					more,
					a2a.NewArtifactEvent(ec, a2a.NewDataPart(map[string]any{"name": "respond"})),
					a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, agentMsg(ec, "status text loses to artifacts")),
				}
			}),
			wantShape: ShapeArtifacts,
			wantText:  "part onepart two\n" + `{"name":"respond"}`, // an appended chunk continues the text
			wantState: a2a.TaskStateCompleted,
		},
		{
			name: "task with only a status message",
			exec: taskExec(func(ec *a2asrv.ExecutorContext) []a2a.Event {
				return []a2a.Event{a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, agentMsg(ec, "from the status"))}
			}),
			wantShape: ShapeStatusMessage,
			wantText:  "from the status",
			wantState: a2a.TaskStateCompleted,
		},
		{
			// The server moves the working status message into history when
			// the final status (without a message) arrives.
			name: "task with only history",
			exec: taskExec(func(ec *a2asrv.ExecutorContext) []a2a.Event {
				return []a2a.Event{
					a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, agentMsg(ec, "older")),
					a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, agentMsg(ec, "from history")),
					a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil),
				}
			}),
			wantShape: ShapeHistory,
			wantText:  "from history",
			wantState: a2a.TaskStateCompleted,
		},
		{
			name: "task with nothing said",
			exec: taskExec(func(ec *a2asrv.ExecutorContext) []a2a.Event {
				return []a2a.Event{a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil)}
			}),
			wantShape: ShapeEmpty,
			wantText:  "",
			wantState: a2a.TaskStateCompleted,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startExecutor(t, tt.exec)
			c := dial(t, srv.URL)
			resp, err := say(t, c.NewConversation(), "question")
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			if resp.Shape != tt.wantShape {
				t.Errorf("Shape = %q, want %q", resp.Shape, tt.wantShape)
			}
			if got := partsText(resp.Parts); got != tt.wantText {
				t.Errorf("text = %q, want %q", got, tt.wantText)
			}
			if resp.State != tt.wantState {
				t.Errorf("State = %q, want %q", resp.State, tt.wantState)
			}
			if (resp.TaskID != "") != (tt.wantState != "") {
				t.Errorf("TaskID = %q with State %q", resp.TaskID, resp.State)
			}
			if resp.NonConformant != "" {
				t.Errorf("NonConformant = %q for a reply from a2a-go's own server", resp.NonConformant)
			}
			if resp.Metrics.ErrorClass != "" || resp.Metrics.HTTPStatus != 200 {
				t.Errorf("Metrics = %+v, want a clean 200", resp.Metrics)
			}
		})
	}
}

func TestShapeFromLeanServer(t *testing.T) {
	srv := agenttest.StartLean(t, func(_ context.Context, _, text string) string { return "echo: " + text })
	resp, err := say(t, dial(t, srv.URL).NewConversation(), "ping")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Shape != ShapeMessage || partsText(resp.Parts) != "echo: ping" || resp.NonConformant != "" {
		t.Errorf("got shape %q text %q nonconformant %q", resp.Shape, partsText(resp.Parts), resp.NonConformant)
	}
}

// sdkAccepts reports whether a2a-go's client types decode result as a
// SendMessage result, the way its JSON-RPC transport does.
func sdkAccepts(result string) bool {
	var sr a2a.StreamResponse
	if err := json.Unmarshal([]byte(result), &sr); err != nil {
		return false
	}
	switch sr.Event.(type) {
	case *a2a.Task, *a2a.Message:
		return true
	}
	return false
}

func TestShapesFromRawResults(t *testing.T) {
	tests := []struct {
		name      string
		result    string // the JSON-RPC result, for SendMessage and GetTask alike
		wantShape Shape
		wantText  string
		wantState a2a.TaskState
		wantTask  a2a.TaskID
	}{
		// 1.0 style.
		{
			name:      "1.0 message",
			result:    `{"message": {"messageId": "m1", "role": "ROLE_AGENT", "parts": [{"text": "hello"}]}}`,
			wantShape: ShapeMessage, wantText: "hello",
		},
		{
			name: "1.0 task with artifacts",
			result: `{"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"},
				"artifacts": [{"artifactId": "a1", "parts": [{"text": "art"}, {"data": {"k": 1}}]}]}}`,
			wantShape: ShapeArtifacts, wantText: "art\n" + `{"k":1}`, wantState: a2a.TaskStateCompleted, wantTask: "t1",
		},
		{
			name: "1.0 task with a status message",
			result: `{"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED",
				"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "status says"}]}}}}`,
			wantShape: ShapeStatusMessage, wantText: "status says", wantState: a2a.TaskStateCompleted, wantTask: "t1",
		},
		{
			name: "1.0 task with history",
			result: `{"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"},
				"history": [{"messageId": "1", "role": "ROLE_USER", "parts": [{"text": "q"}]},
				            {"messageId": "2", "role": "ROLE_AGENT", "parts": [{"text": "a1"}]},
				            {"messageId": "3", "role": "ROLE_AGENT", "parts": [{"text": "a2"}]},
				            {"messageId": "4", "role": "ROLE_USER", "parts": [{"text": "q2"}]}]}}`,
			wantShape: ShapeHistory, wantText: "a2", wantState: a2a.TaskStateCompleted, wantTask: "t1",
		},
		// 0.3 style: kind discriminators, lower-case states and roles, no
		// result wrapper. a2a-go's 1.0 types reject these.
		{
			name:      "0.3 message",
			result:    `{"kind": "message", "messageId": "m1", "role": "agent", "parts": [{"kind": "text", "text": "hello"}]}`,
			wantShape: ShapeMessage, wantText: "hello",
		},
		{
			name: "0.3 message with a data part",
			result: `{"kind": "message", "messageId": "m1", "role": "agent",
				"parts": [{"kind": "data", "data": {"tool_calls": [{"name": "respond"}]}}]}`,
			wantShape: ShapeMessage, wantText: `{"tool_calls":[{"name":"respond"}]}`,
		},
		{
			name: "0.3 task with artifacts",
			result: `{"kind": "task", "id": "t3", "contextId": "c1", "status": {"state": "completed"},
				"artifacts": [{"artifactId": "a1", "parts": [{"kind": "text", "text": "art"}]}]}`,
			wantShape: ShapeArtifacts, wantText: "art", wantState: a2a.TaskStateCompleted, wantTask: "t3",
		},
		{
			name: "0.3 task with a status message",
			result: `{"kind": "task", "id": "t3", "contextId": "c1", "status": {"state": "completed",
				"message": {"kind": "message", "messageId": "m", "role": "agent", "parts": [{"kind": "text", "text": "status says"}]}}}`,
			wantShape: ShapeStatusMessage, wantText: "status says", wantState: a2a.TaskStateCompleted, wantTask: "t3",
		},
		{
			name: "0.3 task with history",
			result: `{"kind": "task", "id": "t3", "contextId": "c1", "status": {"state": "completed"},
				"history": [{"kind": "message", "messageId": "1", "role": "user", "parts": [{"kind": "text", "text": "q"}]},
				            {"kind": "message", "messageId": "2", "role": "agent", "parts": [{"kind": "text", "text": "last agent words"}]}]}`,
			wantShape: ShapeHistory, wantText: "last agent words", wantState: a2a.TaskStateCompleted, wantTask: "t3",
		},
		{
			name: "0.3 task with a file part among artifacts",
			result: `{"kind": "task", "id": "t3", "contextId": "c1", "status": {"state": "completed"},
				"artifacts": [{"artifactId": "a1", "parts": [{"kind": "file", "file": {"uri": "http://x/y.png"}}, {"kind": "text", "text": "see picture"}]}]}`,
			wantShape: ShapeArtifacts, wantText: "see picture", wantState: a2a.TaskStateCompleted, wantTask: "t3",
		},
		// The legacy {"message": {...}} wrapper around a message the 1.0
		// types reject (a 0.3 file part).
		{
			name: "legacy message wrapper",
			result: `{"message": {"kind": "message", "messageId": "m1", "role": "agent",
				"parts": [{"kind": "text", "text": "wrapped hello"}, {"kind": "file", "file": {"uri": "http://x/y"}}]}}`,
			wantShape: ShapeWrapped, wantText: "wrapped hello",
		},
		// 0.3 fields inside 1.0 wrappers: a2a-go decodes these, keeping the
		// 0.3 role and state strings as they are.
		{
			name:      "wrapper around a 0.3 message",
			result:    `{"message": {"kind": "message", "messageId": "m1", "role": "agent", "parts": [{"kind": "text", "text": "hi"}]}}`,
			wantShape: ShapeMessage, wantText: "hi",
		},
		{
			name: "wrapper around a 0.3 task with history",
			result: `{"task": {"kind": "task", "id": "t4", "contextId": "c1", "status": {"state": "completed"},
				"history": [{"kind": "message", "messageId": "1", "role": "user", "parts": [{"kind": "text", "text": "q"}]},
				            {"kind": "message", "messageId": "2", "role": "agent", "parts": [{"kind": "text", "text": "from 0.3 history"}]}]}}`,
			wantShape: ShapeHistory, wantText: "from 0.3 history", wantState: a2a.TaskStateCompleted, wantTask: "t4",
		},
		{
			name: "wrapper around a 0.3 task with a status message",
			result: `{"task": {"kind": "task", "id": "t4", "contextId": "c1", "status": {"state": "completed",
				"message": {"kind": "message", "messageId": "m", "role": "agent", "parts": [{"kind": "text", "text": "done"}]}}}}`,
			wantShape: ShapeStatusMessage, wantText: "done", wantState: a2a.TaskStateCompleted, wantTask: "t4",
		},
		// Oddities seen in the wild.
		{
			name:      "bare string result",
			result:    `"just text"`,
			wantShape: ShapeMessage, wantText: "just text",
		},
		{
			name:      "0.3 task that said nothing",
			result:    `{"kind": "task", "id": "t5", "contextId": "c1", "status": {"state": "completed"}}`,
			wantShape: ShapeEmpty, wantText: "", wantState: a2a.TaskStateCompleted, wantTask: "t5",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			result := mustJSON(t, tt.result)
			srv := agenttest.RawResultAgent(t, func(string) any { return result })
			resp, err := say(t, dial(t, srv.URL).NewConversation(), "question")
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			if resp.Shape != tt.wantShape {
				t.Errorf("Shape = %q, want %q", resp.Shape, tt.wantShape)
			}
			if got := partsText(resp.Parts); got != tt.wantText {
				t.Errorf("text = %q, want %q", got, tt.wantText)
			}
			if resp.State != tt.wantState {
				t.Errorf("State = %q, want %q", resp.State, tt.wantState)
			}
			if resp.TaskID != tt.wantTask {
				t.Errorf("TaskID = %q, want %q", resp.TaskID, tt.wantTask)
			}
			for _, p := range resp.Parts {
				if p.Data() == nil {
					if _, ok := p.Content.(a2a.Text); !ok {
						t.Errorf("part %+v is neither text nor data", p)
					}
				}
			}
			rejected := !sdkAccepts(tt.result)
			if got := resp.NonConformant != ""; got != rejected {
				t.Errorf("NonConformant = %q, but a2a-go rejects the reply: %v", resp.NonConformant, rejected)
			}
			if rejected && !strings.Contains(resp.NonConformant, "read tolerantly") {
				t.Errorf("NonConformant = %q does not say the reply was read tolerantly", resp.NonConformant)
			}
		})
	}
}
