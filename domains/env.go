package domains

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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

// Env is one simulation's private copy of a domain's world.
type Env interface {
	// Call runs a tool. It never panics: unknown tools, bad arguments and
	// tool failures come back as a ToolResult with Error set.
	Call(call ToolCall) ToolResult
	// Hash fingerprints the database state, for the DB reward basis.
	Hash() (string, error)
}

// ToolFunc implements one tool against a domain's database type.
type ToolFunc[DB any] func(db *DB, args Args) (any, error)

// Toolbox is a domain's tools: their specs for the agent and their Go
// implementations, registered by name.
type Toolbox[DB any] struct {
	specs []ToolSpec
	funcs map[string]ToolFunc[DB]
}

// NewToolbox returns an empty toolbox.
func NewToolbox[DB any]() *Toolbox[DB] {
	return &Toolbox[DB]{funcs: make(map[string]ToolFunc[DB])}
}

// Register adds a tool. Parameters must be a JSON Schema object; a duplicate
// name or malformed schema is a programming error reported at domain build time.
func (tb *Toolbox[DB]) Register(name, description, parameters string, fn ToolFunc[DB]) {
	tb.specs = append(tb.specs, ToolSpec{Name: name, Description: description, Parameters: json.RawMessage(parameters)})
	tb.funcs[name] = fn
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
	return nil
}

// Spec describes a domain to NewDomain.
type Spec[DB any] struct {
	Name        string
	Description string
	Policy      string
	// DB is the initial database as JSON; every environment decodes its own copy.
	DB    []byte
	Tasks []Task
	Tools *Toolbox[DB]
}

// NewDomain checks a domain's data against its tools and builds it: the
// database must decode, every task must be valid, and every expected action
// must name a registered tool.
func NewDomain[DB any](s Spec[DB]) (*Domain, error) {
	if s.Name == "" {
		return nil, fmt.Errorf("domain without a name")
	}
	if err := s.Tools.validate(); err != nil {
		return nil, fmt.Errorf("domain %s: %w", s.Name, err)
	}
	var probe DB
	if err := strictDecode(s.DB, &probe); err != nil {
		return nil, fmt.Errorf("domain %s: database: %w", s.Name, err)
	}
	ids := make(map[string]bool, len(s.Tasks))
	for _, t := range s.Tasks {
		if ids[t.ID] {
			return nil, fmt.Errorf("domain %s: duplicate task id %q", s.Name, t.ID)
		}
		ids[t.ID] = true
		if err := t.Validate(); err != nil {
			return nil, fmt.Errorf("domain %s: %w", s.Name, err)
		}
		var actions []Action
		if t.InitialState != nil {
			actions = append(actions, t.InitialState.InitializationActions...)
		}
		if t.EvaluationCriteria != nil {
			actions = append(actions, t.EvaluationCriteria.Actions...)
		}
		for _, a := range actions {
			if _, ok := s.Tools.funcs[a.Name]; !ok {
				return nil, fmt.Errorf("domain %s: task %s: action names unknown tool %q", s.Name, t.ID, a.Name)
			}
		}
	}
	tools := s.Tools
	dbJSON := slices.Clone(s.DB)
	newDB := func() (*DB, error) {
		db := new(DB)
		if err := json.Unmarshal(dbJSON, db); err != nil {
			return nil, fmt.Errorf("decode database: %w", err)
		}
		return db, nil
	}
	if _, ok := any(&probe).(Cloner[DB]); ok {
		// Decode once; every environment gets a clone, which for a large
		// database can share what it does not change.
		template := &probe
		newDB = func() (*DB, error) { return any(template).(Cloner[DB]).Clone(), nil }
	}
	return &Domain{
		Name:        s.Name,
		Description: s.Description,
		Policy:      s.Policy,
		Tasks:       s.Tasks,
		Tools:       slices.Clone(tools.specs),
		newEnv: func() (Env, error) {
			db, err := newDB()
			if err != nil {
				return nil, err
			}
			return &toolEnv[DB]{tools: tools, db: db}, nil
		},
	}, nil
}

func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

type toolEnv[DB any] struct {
	tools *Toolbox[DB]
	db    *DB
}

// Call implements Env.
func (e *toolEnv[DB]) Call(call ToolCall) (res ToolResult) {
	fn, ok := e.tools.funcs[call.Name]
	if !ok {
		return ToolResult{Content: fmt.Sprintf("Error: unknown tool %q", call.Name), Error: true}
	}
	defer func() {
		// A tool bug must cost one failed call, not the evaluation.
		if r := recover(); r != nil {
			res = ToolResult{Content: fmt.Sprintf("Error: tool %s failed: %v", call.Name, r), Error: true}
		}
	}()
	out, err := fn(e.db, Args(call.Arguments))
	if err != nil {
		return ToolResult{Content: "Error: " + err.Error(), Error: true}
	}
	if s, ok := out.(string); ok {
		return ToolResult{Content: s}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return ToolResult{Content: fmt.Sprintf("Error: tool %s returned an unencodable result: %v", call.Name, err), Error: true}
	}
	return ToolResult{Content: string(b)}
}

// Hash implements Env.
func (e *toolEnv[DB]) Hash() (string, error) {
	if h, ok := any(e.db).(Hasher); ok {
		return h.Hash()
	}
	return HashJSON(e.db)
}

// Hasher is implemented by database types that fingerprint themselves (for
// example the way tau2-bench does, so that DB rewards compare with its
// runs). Others are hashed with HashJSON.
type Hasher interface {
	Hash() (string, error)
}

// Cloner is implemented by database types that copy themselves more cheaply
// than decoding their JSON again, typically by sharing records and copying
// one only when a tool changes it. NewDomain then decodes the database once
// and gives each environment a Clone. A clone must never change what it
// shares with the template or with other clones.
type Cloner[DB any] interface {
	Clone() *DB
}

// HashJSON fingerprints a value as the SHA-256 of its canonical JSON: object
// keys sorted at every depth, no insignificant white space.
func HashJSON(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("hash: encode: %w", err)
	}
	var generic any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return "", fmt.Errorf("hash: decode: %w", err)
	}
	canon, err := json.Marshal(generic) // maps marshal with sorted keys
	if err != nil {
		return "", fmt.Errorf("hash: canonicalize: %w", err)
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// Args gives tools typed, checked access to a call's arguments. Agents send
// anything; a wrong type is an error the agent sees, never a panic.
type Args map[string]any

// String returns a required string argument.
func (a Args) String(name string) (string, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return "", fmt.Errorf("missing required argument %q", name)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("argument %q must be a string, got %s", name, jsonType(v))
	}
	if strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("argument %q must not be empty", name)
	}
	return s, nil
}

// OptString returns an optional string argument ("" when absent or null).
func (a Args) OptString(name string) (string, error) {
	if v, ok := a[name]; !ok || v == nil {
		return "", nil
	}
	return a.String(name)
}

// Int returns a required integer argument. JSON numbers arrive as float64;
// integral values are accepted, fractions are not.
func (a Args) Int(name string) (int, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return 0, fmt.Errorf("missing required argument %q", name)
	}
	switch n := v.(type) {
	case float64:
		if n != float64(int(n)) {
			return 0, fmt.Errorf("argument %q must be an integer, got %v", name, n)
		}
		return int(n), nil
	case int:
		return n, nil
	case json.Number:
		i, err := n.Int64()
		if err != nil {
			return 0, fmt.Errorf("argument %q must be an integer, got %s", name, n)
		}
		return int(i), nil
	}
	return 0, fmt.Errorf("argument %q must be an integer, got %s", name, jsonType(v))
}

// Bool returns a required boolean argument.
func (a Args) Bool(name string) (bool, error) {
	v, ok := a[name]
	if !ok || v == nil {
		return false, fmt.Errorf("missing required argument %q", name)
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("argument %q must be a boolean, got %s", name, jsonType(v))
	}
	return b, nil
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64, int, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
