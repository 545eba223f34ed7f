package domains

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// RoleTool is the role of a tool message in a message history: the result
// of one tool call.
const RoleTool = "tool"

// HistoryMessage is one message of a task's message history (tau2's
// initial_state.message_history): the conversation as it stood before the
// simulation starts, which tau2 puts at the head of the trajectory.
type HistoryMessage struct {
	// Role is RequestorUser, RequestorAssistant or RoleTool.
	Role    string
	Content string
	// ToolCalls are the calls a user or assistant message makes, each
	// with its Requestor set (its own, else the message's role).
	ToolCalls []ToolCall
	// ToolCallID, on a tool message, is the id of the call it answers;
	// Requestor is who made that call (tau2's default: the assistant), and
	// Error whether it failed.
	ToolCallID string
	Requestor  string
	Error      bool
}

// IsToolCall reports whether a user or assistant message calls tools.
func (m HistoryMessage) IsToolCall() bool { return len(m.ToolCalls) > 0 }

// historyWire is a tau2 message as JSON.
type historyWire struct {
	Role      string  `json:"role"`
	Content   *string `json:"content"`
	ToolCalls []struct {
		ID        string         `json:"id"`
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
		Requestor string         `json:"requestor"`
	} `json:"tool_calls"`
	ID        string `json:"id"`
	Requestor string `json:"requestor"`
	Error     bool   `json:"error"`
}

// parseHistory decodes a tau2 message history. Numbers in tool-call
// arguments stay json.Number, so that 2 and 2.0 stay apart as they do for
// tau2's json.loads.
func parseHistory(raw json.RawMessage) ([]HistoryMessage, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var wire []historyWire
	if err := dec.Decode(&wire); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	out := make([]HistoryMessage, 0, len(wire))
	for i, w := range wire {
		m, err := w.message()
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		out = append(out, m)
	}
	return out, nil
}

func (w historyWire) message() (HistoryMessage, error) {
	m := HistoryMessage{Role: w.Role}
	if w.Content != nil {
		m.Content = *w.Content
	}
	switch w.Role {
	case RequestorUser, RequestorAssistant:
		for _, c := range w.ToolCalls {
			if c.Name == "" {
				return m, fmt.Errorf("tool call without a name")
			}
			req := c.Requestor
			if req == "" {
				req = w.Role
			}
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Requestor: req})
		}
	case RoleTool:
		m.ToolCallID, m.Requestor, m.Error = w.ID, w.Requestor, w.Error
		if m.Requestor == "" {
			m.Requestor = RequestorAssistant
		}
	default:
		return m, fmt.Errorf("role %q is none of user, assistant and tool", w.Role)
	}
	return m, nil
}

// historyCalls returns the tool calls of a tau2 message history, in order.
func historyCalls(raw json.RawMessage) ([]ToolCall, error) {
	msgs, err := parseHistory(raw)
	if err != nil {
		return nil, err
	}
	var calls []ToolCall
	for _, m := range msgs {
		calls = append(calls, m.ToolCalls...)
	}
	return calls, nil
}

// History returns a task's message history (nil when it has none). The
// simulation starts from it, as tau2's does: it heads the transcript, the
// agent and the user simulator are shown it, and it is scored with the
// rest of the conversation. Its tool calls are not run again during the
// conversation: Domain.NewEnv has replayed them (see ReplayHistory).
func History(task *Task) ([]HistoryMessage, error) {
	if task == nil || task.InitialState == nil {
		return nil, nil
	}
	return parseHistory(task.InitialState.MessageHistory)
}

// ReplayHistory returns the tool calls of a task's message history, which
// Domain.NewEnv replays on a fresh environment after the initialization
// actions, so that the environment is in the state the history left it.
//
// tau2 replays only the calls of tools that change state and checks each
// result against the recorded tool message, aborting on a mismatch.
// proctor's tools do not say whether they change state, so every call is
// replayed (a read changes nothing) and recorded results are not checked:
// outcomes, failures included, are ignored.
func ReplayHistory(task *Task) ([]ToolCall, error) {
	if task == nil || task.InitialState == nil {
		return nil, nil
	}
	return historyCalls(task.InitialState.MessageHistory)
}
