package domains

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// ToolSpec describes a tool to the agent: its name, what it does, and its
// parameters as a JSON Schema object (the OpenAI function-calling shape).
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// ToolCall is one call of a tool, by the agent or (in replays) by proctor.
type ToolCall struct {
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Requestor string         `json:"requestor,omitempty"`
}

// ToolResult is what a tool call returned. Error marks a failed call; its
// Content is then the error message the agent sees.
type ToolResult struct {
	Content string `json:"content"`
	Error   bool   `json:"error,omitempty"`
}

// ToolFunc implements one tool against a domain's database type.
type ToolFunc[DB any] func(db *DB, args Args) (any, error)

// ToolFuncContext is a ToolFunc that also takes the simulation's context
// (its deadline, and the ledger its model calls are metered into).
type ToolFuncContext[DB any] func(ctx context.Context, db *DB, args Args) (any, error)

// withoutContext is fn as a ToolFuncContext, which leaves the context aside.
func withoutContext[DB any](fn ToolFunc[DB]) ToolFuncContext[DB] {
	return func(_ context.Context, db *DB, args Args) (any, error) { return fn(db, args) }
}

// Toolbox is a domain's tools: their specs for the agent and their Go
// implementations, registered by name. It also holds the side's env
// functions (RegisterEnvFunc).
type Toolbox[DB any] struct {
	specs    []ToolSpec
	funcs    map[string]ToolFuncContext[DB] // Register's take no context
	envFuncs map[string]ToolFunc[DB]
	dupEnv   []string // env functions registered twice, reported by validate
	dupTool  []string // unlisted tools registered twice, reported by validate
	// encode writes a tool's non-string result; nil: encoding/json.
	encode func(any) (string, error)
}

// EncodeWith sets how the toolbox's tools' results other than strings
// become the tool message (by default encoding/json's compact form): a
// domain ported from elsewhere writes them as its original does, e.g.
// tau2's Python json.dumps with its separators and key order.
func (tb *Toolbox[DB]) EncodeWith(encode func(any) (string, error)) {
	tb.encode = encode
}

// NewToolbox returns an empty toolbox.
func NewToolbox[DB any]() *Toolbox[DB] {
	return &Toolbox[DB]{funcs: make(map[string]ToolFuncContext[DB]), envFuncs: make(map[string]ToolFunc[DB])}
}

// Register adds a tool. Parameters must be a JSON Schema object; a duplicate
// name or malformed schema is a programming error reported at domain build time.
func (tb *Toolbox[DB]) Register(name, description, parameters string, fn ToolFunc[DB]) {
	tb.RegisterContext(name, description, parameters, withoutContext(fn))
}

// RegisterContext is Register for a tool that takes the context of the
// call (CallContext); called without one (Env.Call, CallFunc) it gets
// context.Background().
func (tb *Toolbox[DB]) RegisterContext(name, description, parameters string, fn ToolFuncContext[DB]) {
	if _, unlisted := tb.funcs[name]; unlisted && !slices.ContainsFunc(tb.specs, func(s ToolSpec) bool { return s.Name == name }) {
		tb.dupTool = append(tb.dupTool, name)
	}
	tb.specs = append(tb.specs, ToolSpec{Name: name, Description: description, Parameters: json.RawMessage(parameters)})
	tb.funcs[name] = fn
}

// RegisterUnlisted adds a tool that a call reaches by its name but that is
// described to no one (tau2's discoverable tools: its toolkits run them by
// name, though the tools they list leave them out). A name registered twice
// is reported at domain build time.
func (tb *Toolbox[DB]) RegisterUnlisted(name string, fn ToolFunc[DB]) {
	if _, dup := tb.funcs[name]; dup {
		tb.dupTool = append(tb.dupTool, name)
	}
	tb.funcs[name] = withoutContext(fn)
}

// RegisterEnvFunc adds an env function: a function of the side that is not
// a tool (no agent or user sees it) but that initialization actions and env
// assertions call by name, as tau2 does with its toolkits' other methods.
// An env assertion's function returns a bool. A name used by a tool or
// registered twice is reported at domain build time.
func (tb *Toolbox[DB]) RegisterEnvFunc(name string, fn ToolFunc[DB]) {
	if tb.envFuncs == nil {
		tb.envFuncs = make(map[string]ToolFunc[DB])
	}
	if _, dup := tb.envFuncs[name]; dup {
		tb.dupEnv = append(tb.dupEnv, name)
	}
	tb.envFuncs[name] = fn
}

func (tb *Toolbox[DB]) validate() error {
	seen := map[string]bool{}
	for _, s := range tb.specs {
		if seen[s.Name] {
			return fmt.Errorf("tool %q registered twice", s.Name)
		}
		seen[s.Name] = true
		var schema struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(s.Parameters, &schema); err != nil || schema.Type != "object" {
			return fmt.Errorf("tool %q: parameters must be a JSON Schema object", s.Name)
		}
	}
	if len(tb.dupTool) > 0 {
		return fmt.Errorf("tool %q registered twice", tb.dupTool[0])
	}
	if len(tb.dupEnv) > 0 {
		return fmt.Errorf("env function %q registered twice", tb.dupEnv[0])
	}
	for name, fn := range tb.envFuncs {
		if _, tool := tb.funcs[name]; tool {
			return fmt.Errorf("env function %q has the name of a tool", name)
		}
		if fn == nil {
			return fmt.Errorf("env function %q is nil", name)
		}
	}
	return nil
}

// hasTool and hasFunc say whether the toolbox has a tool, or a tool or env
// function, of this name.
func (tb *Toolbox[DB]) hasTool(name string) bool { _, ok := tb.funcs[name]; return ok }

func (tb *Toolbox[DB]) hasFunc(name string) bool {
	_, env := tb.envFuncs[name]
	return env || tb.hasTool(name)
}

// UnmarshalJSON implements json.Unmarshaler: numbers in Arguments decode as
// json.Number, so that an integer stays an integer and 2.0 stays a float,
// as the agent wrote them and as Python reads them (see decodeWithNumbers).
func (c *ToolCall) UnmarshalJSON(b []byte) error {
	type plain ToolCall
	return decodeWithNumbers(b, (*plain)(c))
}

// decodeWithNumbers decodes one JSON value into v with numbers in
// interface values as json.Number, rejecting anything after the value.
func decodeWithNumbers(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("invalid character after top-level JSON value")
	}
	return nil
}
