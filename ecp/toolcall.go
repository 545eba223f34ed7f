package ecp

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ToolCall is one tool call of a paused step. It reads {"id", "name",
// "arguments"} and OpenAI-style {"id", "type": "function", "function":
// {"name", "arguments"}}, with arguments an object or a JSON string holding
// one; it writes the first shape.
type ToolCall struct {
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// UnmarshalJSON reads either call shape.
func (c *ToolCall) UnmarshalJSON(b []byte) error {
	var raw struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Function  *struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("tool call: %w", err)
	}
	name, args := raw.Name, raw.Arguments
	if raw.Function != nil && name == "" {
		name, args = raw.Function.Name, raw.Function.Arguments
	}
	if name == "" {
		return errors.New("tool call without a name")
	}
	parsed, err := callArguments(args)
	if err != nil {
		return fmt.Errorf("tool call %s: %w", name, err)
	}
	*c = ToolCall{ID: raw.ID, Name: name, Arguments: parsed}
	return nil
}

// callArguments reads arguments given as an object, a JSON string holding
// an object, or nothing (no arguments).
func callArguments(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		if s == "" {
			return map[string]any{}, nil
		}
		raw = json.RawMessage(s)
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil || args == nil {
		return nil, fmt.Errorf("arguments are not a JSON object: %s", quote(raw))
	}
	return args, nil
}
