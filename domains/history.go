package domains

import (
	"encoding/json"
	"fmt"
)

// historyMessage is the part of a tau2 message that the environment needs:
// who spoke and which tools they called.
type historyMessage struct {
	Role      string `json:"role"`
	ToolCalls []struct {
		ID        string         `json:"id"`
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
		Requestor string         `json:"requestor"`
	} `json:"tool_calls"`
}

// historyCalls returns the tool calls of a tau2 message history, in order.
// A call's requestor is its own, else "user" in a user message and
// "assistant" otherwise.
func historyCalls(raw json.RawMessage) ([]ToolCall, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var msgs []historyMessage
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	var calls []ToolCall
	for i, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.Name == "" {
				return nil, fmt.Errorf("message %d: tool call without a name", i)
			}
			req := c.Requestor
			if req == "" {
				req = RequestorAssistant
				if m.Role == RequestorUser {
					req = RequestorUser
				}
			}
			calls = append(calls, ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Requestor: req})
		}
	}
	return calls, nil
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
