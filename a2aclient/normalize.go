package a2aclient

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Shape is where in a reply the agent's output was found. Real agents put
// it in any of these places; proctor reads them all.
type Shape string

// Response shapes.
const (
	ShapeMessage       Shape = "message"        // a Message result: its parts
	ShapeArtifacts     Shape = "artifacts"      // a Task's artifacts' parts
	ShapeStatusMessage Shape = "status_message" // a Task's status.message parts
	ShapeHistory       Shape = "history"        // the agent messages in a Task's history since the user's message
	ShapeWrapped       Shape = "wrapped"        // a legacy {"message": {...}} wrapper
	ShapeEmpty         Shape = "empty"          // nothing the agent said could be found
)

// extracted is the agent output found in one reply.
type extracted struct {
	parts     []*a2a.Part
	shape     Shape
	metadata  []map[string]any
	taskID    a2a.TaskID
	contextID string
	state     a2a.TaskState
	isTask    bool
	// statusParts are the parts of a task's status message, which for a task
	// that failed say why, whatever shape the reply has.
	statusParts []*a2a.Part
	// said are the ids of the agent messages the reply reports, so that a
	// later reply of the conversation does not report them again.
	said []string
	// events are everything the agent emitted in the turn, in order
	// (Response.Events).
	events []Event
}

// turnStart says where the agent's turn starts in a task's history: after
// the user message whose id is sent, without the agent messages whose ids
// are in seen (the conversation's earlier replies).
type turnStart struct {
	sent string
	seen map[string]bool
}

// fromResult reads a reply to the message ts.sent.
func fromResult(res a2a.SendMessageResult, ts turnStart) extracted {
	switch r := res.(type) {
	case *a2a.Message:
		return extracted{parts: oneText(r.Parts), shape: ShapeMessage, metadata: []map[string]any{r.Metadata}, contextID: r.ContextID,
			events: messageEvents(r)}
	case *a2a.Task:
		return fromTask(r, ts)
	}
	return extracted{shape: ShapeEmpty}
}

// fromTask reads a task that answers the message ts.sent. The agent's
// output is its artifacts, or else its status message, or else the last
// agent message of its history; but a task in input-required hands the
// conversation back to the user, so everything the agent said in the turn
// is for the user: every agent message since the user's message, in order
// (Gemini CLI's A2A server replies in several working status messages and
// ends in input-required with none). The interim messages are the agent's
// text as it produces it (Gemini CLI sends each chunk its model streams as
// one message, cut anywhere, mid-word or mid-JSON), so their text is joined
// with nothing in between, as appended artifact chunks are; the status
// message that ends the turn, if any, is a message of its own. A completed
// task's interim messages are progress; its last message is the answer.
func fromTask(t *a2a.Task, ts turnStart) extracted {
	// a2a-go's types keep 0.3 state and role strings ("completed", "agent")
	// found inside 1.0 wrappers as they are; read them as their 1.0 names.
	out := extracted{taskID: t.ID, contextID: t.ContextID, state: normalizeState(string(t.Status.State)), isTask: true, shape: ShapeEmpty}
	out.events = taskEvents(t, ts)
	out.metadata = append(out.metadata, t.Metadata)
	for _, a := range t.Artifacts {
		if a == nil {
			continue
		}
		out.parts = append(out.parts, oneText(a.Parts)...)
		out.metadata = append(out.metadata, a.Metadata)
	}
	status := t.Status.Message
	if status != nil && len(status.Parts) == 0 {
		status = nil
	}
	var turn []*a2a.Message
	if out.state == a2a.TaskStateInputRequired {
		turn = agentTurn(t.History, status, ts)
	}
	switch {
	case len(out.parts) > 0:
		out.shape = ShapeArtifacts
	case len(turn) > 1 || (len(turn) == 1 && turn[0] != status):
		out.shape = ShapeHistory
		for _, m := range turn {
			if status != nil && sameMessage(m, status) {
				out.parts = append(out.parts, oneText(m.Parts)...)
			} else {
				out.parts = continueText(out.parts, m.Parts)
			}
			out.said = append(out.said, m.ID)
			if m != status {
				out.metadata = append(out.metadata, m.Metadata)
			}
		}
	case status != nil:
		out.parts, out.shape = oneText(status.Parts), ShapeStatusMessage
	default:
		if m := lastAgentMessage(t.History); m != nil {
			out.parts, out.shape = oneText(m.Parts), ShapeHistory
			out.metadata = append(out.metadata, m.Metadata)
			out.said = append(out.said, m.ID)
		}
	}
	if m := t.Status.Message; m != nil {
		out.metadata = append(out.metadata, m.Metadata)
		out.statusParts = m.Parts
		out.said = append(out.said, m.ID)
	}
	return out
}

// oneText is the parts of one message or artifact with each run of text
// parts made one text part, their texts joined with nothing in between:
// the parts of one message or artifact are pieces of one text, as the
// chunks of a streamed artifact are (the Python SDK folds appended chunks
// into one artifact of many parts, cut anywhere, mid-word or mid-JSON),
// and as Google's genai joins a response's text parts. So an agent reads
// the same streamed or not. Text parts of different messages or
// artifacts stay apart; a thought never joins an answer.
func oneText(parts []*a2a.Part) []*a2a.Part {
	if len(parts) < 2 {
		return parts
	}
	var out []*a2a.Part
	for _, p := range parts {
		out = continueText(out, []*a2a.Part{p})
	}
	return out
}

// agentTurn returns the agent messages of history after the user's message
// (ts.sent, else the last user message) that no earlier reply reported
// (a2a-go files the previous status message after the user's next
// message), followed by the status message unless the history ends with
// it. It returns nil when the history does not show where the turn starts.
func agentTurn(history []*a2a.Message, status *a2a.Message, ts turnStart) []*a2a.Message {
	start := -1
	for i, m := range history {
		if m != nil && ts.sent != "" && m.ID == ts.sent {
			start = i + 1
			break
		}
	}
	for i := len(history) - 1; start < 0 && i >= 0; i-- {
		if m := history[i]; m != nil && isUserRole(string(m.Role)) {
			start = i + 1
		}
	}
	if start < 0 {
		return nil
	}
	var turn []*a2a.Message
	for _, m := range history[start:] {
		if m != nil && isAgentRole(string(m.Role)) && len(m.Parts) > 0 && (m.ID == "" || !ts.seen[m.ID]) {
			turn = append(turn, m)
		}
	}
	if status != nil && (len(turn) == 0 || !sameMessage(turn[len(turn)-1], status)) {
		turn = append(turn, status)
	}
	return turn
}

// sameMessage reports whether a and b are one message: the same id, or
// without ids the same content.
func sameMessage(a, b *a2a.Message) bool {
	if a == b {
		return true
	}
	if a.ID != "" || b.ID != "" {
		return a.ID == b.ID
	}
	return PartsText(a.Parts) == PartsText(b.Parts)
}

func lastAgentMessage(history []*a2a.Message) *a2a.Message {
	for i := len(history) - 1; i >= 0; i-- {
		if m := history[i]; m != nil && isAgentRole(string(m.Role)) && len(m.Parts) > 0 {
			return m
		}
	}
	return nil
}

// messageEvents is the Event of a Message result.
func messageEvents(m *a2a.Message) []Event {
	var l turnLog
	l.message(EventMessage, m, "", nil)
	return l.list()
}

// fromRaw reads a JSON-RPC result that a2a-go's types rejected. It accepts
// 1.0 field names (oneof parts, "TASK_STATE_*", {"task":…}/{"message":…}
// wrappers) and 0.3 names ("kind" discriminators, "completed"), and extracts
// text and data parts from the same five places as fromResult.
//
// Numbers are decoded as json.Number, so that a data part's 2 and 2.0 reach
// the tool-call parser as the agent wrote them.
func fromRaw(result json.RawMessage) (extracted, bool) {
	dec := json.NewDecoder(bytes.NewReader(result))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return extracted{}, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return extracted{}, false
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			return extracted{parts: []*a2a.Part{a2a.NewTextPart(s)}, shape: ShapeMessage}, true
		}
		return extracted{}, false
	}
	return rawObject(obj, 0)
}

func rawObject(obj map[string]any, depth int) (extracted, bool) {
	if depth > 4 {
		return extracted{}, false
	}
	if t, ok := obj["task"].(map[string]any); ok {
		return rawObject(t, depth+1)
	}
	if m, ok := obj["message"].(map[string]any); ok && obj["parts"] == nil && obj["status"] == nil {
		out, ok := rawObject(m, depth+1)
		if ok && out.shape == ShapeMessage {
			out.shape = ShapeWrapped
		}
		return out, ok
	}
	kind, _ := obj["kind"].(string)
	_, hasStatus := obj["status"]
	_, hasArtifacts := obj["artifacts"]
	_, hasHistory := obj["history"]
	if kind == "task" || hasStatus || hasArtifacts || hasHistory {
		return rawTask(obj), true
	}
	if parts, ok := obj["parts"].([]any); ok {
		ctxID, _ := obj["contextId"].(string)
		meta, _ := obj["metadata"].(map[string]any)
		return extracted{parts: oneText(rawParts(parts)), shape: ShapeMessage, contextID: ctxID, metadata: []map[string]any{meta},
			events: messageEvents(rawMessage(obj))}, true
	}
	return extracted{}, false
}

// rawMessage reads a message object a2a-go's types rejected: its id, role,
// parts and metadata.
func rawMessage(obj map[string]any) *a2a.Message {
	if obj == nil {
		return nil
	}
	m := &a2a.Message{}
	id, _ := obj["messageId"].(string)
	role, _ := obj["role"].(string)
	m.ID, m.Role = id, a2a.MessageRole(role)
	m.Metadata, _ = obj["metadata"].(map[string]any)
	if ps, ok := obj["parts"].([]any); ok {
		m.Parts = rawParts(ps)
	}
	return m
}

// rawTaskEvents is the Events of a task object a2a-go's types rejected:
// its agent messages after the last user message, its status message and
// its artifacts.
func rawTaskEvents(obj map[string]any, state a2a.TaskState) []Event {
	t := &a2a.Task{Status: a2a.TaskStatus{State: state}}
	t.Metadata, _ = obj["metadata"].(map[string]any)
	status, _ := obj["status"].(map[string]any)
	if sm, ok := status["message"].(map[string]any); ok {
		t.Status.Message = rawMessage(sm)
	}
	hist, _ := obj["history"].([]any)
	for _, h := range hist {
		if hm, ok := h.(map[string]any); ok {
			t.History = append(t.History, rawMessage(hm))
		}
	}
	arts, _ := obj["artifacts"].([]any)
	for _, a := range arts {
		am, _ := a.(map[string]any)
		if am == nil {
			continue
		}
		id, _ := am["artifactId"].(string)
		name, _ := am["name"].(string)
		art := &a2a.Artifact{ID: a2a.ArtifactID(id), Name: name}
		art.Metadata, _ = am["metadata"].(map[string]any)
		if ps, ok := am["parts"].([]any); ok {
			art.Parts = rawParts(ps)
		}
		t.Artifacts = append(t.Artifacts, art)
	}
	return taskEvents(t, turnStart{})
}

func rawTask(obj map[string]any) extracted {
	out := rawTaskAnswer(obj)
	out.events = rawTaskEvents(obj, out.state)
	return out
}

// rawTaskAnswer reads the agent's answer from a task object.
func rawTaskAnswer(obj map[string]any) extracted {
	out := extracted{isTask: true, shape: ShapeEmpty}
	id, _ := obj["id"].(string)
	out.taskID = a2a.TaskID(id)
	out.contextID, _ = obj["contextId"].(string)
	meta, _ := obj["metadata"].(map[string]any)
	out.metadata = append(out.metadata, meta)
	status, _ := obj["status"].(map[string]any)
	if s, ok := status["state"].(string); ok {
		out.state = normalizeState(s)
	}
	if arts, ok := obj["artifacts"].([]any); ok {
		for _, a := range arts {
			am, _ := a.(map[string]any)
			if ps, ok := am["parts"].([]any); ok {
				out.parts = append(out.parts, oneText(rawParts(ps))...)
			}
			if m, ok := am["metadata"].(map[string]any); ok {
				out.metadata = append(out.metadata, m)
			}
		}
	}
	sm, _ := status["message"].(map[string]any)
	if m, ok := sm["metadata"].(map[string]any); ok {
		out.metadata = append(out.metadata, m)
	}
	if ps, ok := sm["parts"].([]any); ok {
		out.statusParts = oneText(rawParts(ps))
	}
	if len(out.parts) > 0 {
		out.shape = ShapeArtifacts
		return out
	}
	if len(out.statusParts) > 0 {
		out.parts, out.shape = out.statusParts, ShapeStatusMessage
		return out
	}
	if hist, ok := obj["history"].([]any); ok {
		for i := len(hist) - 1; i >= 0; i-- {
			m, _ := hist[i].(map[string]any)
			role, _ := m["role"].(string)
			if ps, ok := m["parts"].([]any); ok && len(ps) > 0 && isAgentRole(role) {
				out.parts, out.shape = oneText(rawParts(ps)), ShapeHistory
				if meta, ok := m["metadata"].(map[string]any); ok {
					out.metadata = append(out.metadata, meta)
				}
				return out
			}
		}
	}
	return out
}

func isUserRole(role string) bool {
	r := strings.ToLower(role)
	return r == "user" || r == "role_user"
}

func isAgentRole(role string) bool {
	r := strings.ToLower(role)
	return r == "agent" || r == "role_agent" || r == "assistant" || r == "model"
}

func rawParts(parts []any) []*a2a.Part {
	var out []*a2a.Part
	for _, p := range parts {
		pm, ok := p.(map[string]any)
		if !ok {
			if s, ok := p.(string); ok {
				out = append(out, a2a.NewTextPart(s))
			}
			continue
		}
		meta, _ := pm["metadata"].(map[string]any)
		if s, ok := pm["text"].(string); ok {
			tp := a2a.NewTextPart(s)
			tp.Metadata = meta
			out = append(out, tp)
			continue
		}
		if d, ok := pm["data"]; ok && d != nil {
			// 0.3 data parts nest the payload as {"data": {...}}; some servers
			// nest it once more.
			if inner, ok := d.(map[string]any); ok && len(inner) == 1 {
				if dd, ok := inner["data"]; ok && dd != nil {
					d = dd
				}
			}
			dp := a2a.NewDataPart(d)
			dp.Metadata = meta
			out = append(out, dp)
		}
	}
	return out
}

// normalizeState maps 1.0 ("TASK_STATE_COMPLETED") and 0.3 ("completed",
// "input-required") state names to a2a.TaskState. A missing, unspecified or
// 0.3 "unknown" state is a2a.TaskStateUnspecified.
func normalizeState(s string) a2a.TaskState {
	u := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), "-", "_"))
	u = strings.TrimPrefix(u, "TASK_STATE_")
	switch u {
	case "", "UNSPECIFIED", "UNKNOWN":
		return a2a.TaskStateUnspecified
	case "CANCELLED":
		u = "CANCELED"
	}
	return a2a.TaskState("TASK_STATE_" + u)
}
