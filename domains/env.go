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

// Env is one simulation's private copy of a domain's world: the agent's
// side (its database and tools) and, for a domain with a user side (see
// Spec.User), the user's.
type Env interface {
	// Call runs a tool. It never panics: unknown tools, bad arguments and
	// tool failures come back as a ToolResult with Error set. In a domain
	// with a user side, a call with Requestor "user" runs a user tool and
	// one with Requestor "" or "assistant" an agent tool; any other
	// requestor fails. In a domain without one, every call runs an agent
	// tool, whatever its requestor.
	Call(call ToolCall) ToolResult
	// Hash fingerprints the database state, for the DB reward basis. In a
	// domain without a user side it is the agent database's hash; in one
	// with a user side it is "<agent hash>:<user hash>" (see SideHashes),
	// so that two environments' hashes are equal exactly when both sides'
	// are.
	Hash() (string, error)
}

// ToolFunc implements one tool against a domain's database type.
type ToolFunc[DB any] func(db *DB, args Args) (any, error)

// Toolbox is a domain's tools: their specs for the agent and their Go
// implementations, registered by name. It also holds the side's env
// functions (RegisterEnvFunc).
type Toolbox[DB any] struct {
	specs    []ToolSpec
	funcs    map[string]ToolFunc[DB]
	envFuncs map[string]ToolFunc[DB]
	dupEnv   []string // env functions registered twice, reported by validate
}

// NewToolbox returns an empty toolbox.
func NewToolbox[DB any]() *Toolbox[DB] {
	return &Toolbox[DB]{funcs: make(map[string]ToolFunc[DB]), envFuncs: make(map[string]ToolFunc[DB])}
}

// Register adds a tool. Parameters must be a JSON Schema object; a duplicate
// name or malformed schema is a programming error reported at domain build time.
func (tb *Toolbox[DB]) Register(name, description, parameters string, fn ToolFunc[DB]) {
	tb.specs = append(tb.specs, ToolSpec{Name: name, Description: description, Parameters: json.RawMessage(parameters)})
	tb.funcs[name] = fn
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
	if len(tb.dupEnv) > 0 {
		return fmt.Errorf("env function %q registered twice", tb.dupEnv[0])
	}
	for name, fn := range tb.envFuncs {
		if seen[name] {
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

// Spec describes a domain to NewDomain.
type Spec[DB any] struct {
	Name        string
	Description string
	Policy      string
	// DB is the initial database as JSON; every environment decodes its own copy.
	DB    []byte
	Tasks []Task
	Tools *Toolbox[DB]
	// User is the domain's user side, if any: a user database and the
	// tools the user simulator calls (requestor "user"). Build it with
	// NewSide. Nil: the domain has the agent's side only.
	User *Side
	// Tau2InitDataAliasing reproduces a quirk of tau2's initialization_data
	// (domains-spec.md 1.4): once a task's agent_data is merged, the user
	// side is an alias of the agent database (its hash is the agent's and
	// its functions fail); once user_data is merged, the agent side is an
	// alias of the user database. Gold and predicted environments are set
	// up alike, so rewards do not change; it exists only so that gold
	// hashes match tau2's. A task with both agent_data and user_data is
	// then rejected, as tau2's outcome for it is not known.
	Tau2InitDataAliasing bool
	// Sync, when set, keeps the two sides of a domain with a user side
	// consistent, as tau2's Environment.sync_tools does (telecom mirrors
	// the agent's records of a line into the user's surroundings): it runs
	// with both sides' databases after every tool call that succeeds
	// (Env.Call), after every initialization action and env function
	// (CallFunc), and once more when NewEnv has set up the initial state.
	// user is the user side's database: a pointer to the type given to
	// NewSide. An error fails the call that triggered it (the call's own
	// changes stay, as in tau2); in NewEnv it fails the environment. It
	// needs User.
	Sync func(agent *DB, user any) error
}

// Side is one side of a domain's world, its database and functions, built
// with NewSide for Spec.User.
type Side struct {
	tools    []ToolSpec
	hasTool  func(string) bool
	hasFunc  func(string) bool
	validate func() error
	newEnv   func() (sideEnv, error)
}

// NewSide builds a side from its initial database (JSON, decoded strictly
// into DB) and its toolbox. Errors are reported by NewDomain.
func NewSide[DB any](db []byte, tools *Toolbox[DB]) *Side {
	var probe DB
	decodeErr := strictDecode(db, &probe)
	dbJSON := slices.Clone(db)
	newDB := func() (*DB, error) {
		db := new(DB)
		if err := json.Unmarshal(dbJSON, db); err != nil {
			return nil, fmt.Errorf("decode database: %w", err)
		}
		return db, nil
	}
	if _, ok := any(&probe).(Cloner[DB]); ok && decodeErr == nil {
		// Decode once; every environment gets a clone, which for a large
		// database can share what it does not change.
		template := &probe
		newDB = func() (*DB, error) { return any(template).(Cloner[DB]).Clone(), nil }
	}
	return &Side{
		tools:   slices.Clone(tools.specs),
		hasTool: tools.hasTool,
		hasFunc: tools.hasFunc,
		validate: func() error {
			if err := tools.validate(); err != nil {
				return err
			}
			if decodeErr != nil {
				return fmt.Errorf("database: %w", decodeErr)
			}
			return nil
		},
		newEnv: func() (sideEnv, error) {
			db, err := newDB()
			if err != nil {
				return nil, err
			}
			return &toolEnv[DB]{tools: tools, db: db}, nil
		},
	}
}

// NewDomain checks a domain's data against its tools and builds it: the
// databases must decode, every task must be valid, every expected action
// must name a registered tool of its side, and every initialization action
// and env assertion a tool or env function of its side.
func NewDomain[DB any](s Spec[DB]) (*Domain, error) {
	if s.Name == "" {
		return nil, fmt.Errorf("domain without a name")
	}
	if s.Tools == nil {
		return nil, fmt.Errorf("domain %s: no toolbox", s.Name)
	}
	agent := NewSide(s.DB, s.Tools)
	if err := agent.validate(); err != nil {
		return nil, fmt.Errorf("domain %s: %w", s.Name, err)
	}
	if s.User != nil {
		if err := s.User.validate(); err != nil {
			return nil, fmt.Errorf("domain %s: user side: %w", s.Name, err)
		}
	}
	if s.Sync != nil && s.User == nil {
		return nil, fmt.Errorf("domain %s: Sync without a user side", s.Name)
	}
	d := &Domain{
		Name:        s.Name,
		Description: s.Description,
		Policy:      s.Policy,
		Tasks:       s.Tasks,
		Tools:       slices.Clone(agent.tools),
		agent:       agent,
		user:        s.User,
		aliasing:    s.Tau2InitDataAliasing,
	}
	if s.User != nil {
		d.UserTools = slices.Clone(s.User.tools)
	}
	if sync := s.Sync; sync != nil {
		d.sync = func(agent, user any) error {
			a, ok := agent.(*DB)
			if !ok {
				return fmt.Errorf("sync: agent database is %T, not %T", agent, a)
			}
			return sync(a, user)
		}
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
		if err := d.checkTask(&t); err != nil {
			return nil, fmt.Errorf("domain %s: task %s: %w", s.Name, t.ID, err)
		}
	}
	return d, nil
}

// checkTask checks that a task's actions, initialization and assertions
// name functions of the domain, on sides it has.
func (d *Domain) checkTask(t *Task) error {
	if is := t.InitialState; is != nil {
		for _, a := range is.InitializationActions {
			side, err := d.side(a.Side())
			if err != nil {
				return fmt.Errorf("initialization action %s: %w", a.Func(), err)
			}
			if !side.hasFunc(a.Func()) {
				return fmt.Errorf("initialization action names unknown tool or env function %q", a.Func())
			}
		}
		if data := is.InitializationData; data != nil {
			if len(data.UserData) > 0 && d.user == nil {
				return fmt.Errorf("initialization_data has user_data but the domain has no user side")
			}
			if d.aliasing && len(data.AgentData) > 0 && len(data.UserData) > 0 {
				return fmt.Errorf("initialization_data has both agent_data and user_data, which tau2's aliasing quirk leaves undefined")
			}
		}
		calls, err := historyCalls(is.MessageHistory)
		if err != nil {
			return fmt.Errorf("message_history: %w", err)
		}
		for _, c := range calls {
			side, err := d.side(c.Requestor)
			if err != nil {
				return fmt.Errorf("message_history: tool call %s: %w", c.Name, err)
			}
			if !side.hasTool(c.Name) {
				return fmt.Errorf("message_history calls unknown tool %q", c.Name)
			}
		}
	}
	if ec := t.EvaluationCriteria; ec != nil {
		for _, a := range ec.Actions {
			side, err := d.side(a.Requestor)
			if err != nil {
				return fmt.Errorf("action %s: %w", a.Name, err)
			}
			if !side.hasTool(a.Name) {
				return fmt.Errorf("action names unknown tool %q", a.Name)
			}
		}
		for _, a := range ec.EnvAssertions {
			side, err := d.side(a.EnvType)
			if err != nil {
				return fmt.Errorf("env assertion %s: %w", a.FuncName, err)
			}
			if !side.hasFunc(a.FuncName) {
				return fmt.Errorf("env assertion names unknown env function %q", a.FuncName)
			}
		}
	}
	return nil
}

// side returns the side a requestor reaches: the user side for "user" in a
// domain that has one, the agent side otherwise (any requestor in a domain
// without a user side, "" and "assistant" in one with).
func (d *Domain) side(requestor string) (*Side, error) {
	if d.user == nil {
		return d.agent, nil
	}
	switch requestor {
	case "", RequestorAssistant:
		return d.agent, nil
	case RequestorUser:
		return d.user, nil
	}
	return nil, fmt.Errorf("unknown requestor %q", requestor)
}

func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// sideEnv is one side of an environment.
type sideEnv interface {
	// call runs a tool, or with envFuncs also an env function, as Env.Call.
	call(name string, args map[string]any, envFuncs bool) ToolResult
	// callFunc runs an env function or a tool and returns its raw result.
	callFunc(name string, args map[string]any) (any, error)
	hash() (string, error)
	// merge deep-merges data into the database (see Merger).
	merge(data map[string]any) error
	// state is the side's database, a *DB, for Spec.Sync.
	state() any
}

type toolEnv[DB any] struct {
	tools *Toolbox[DB]
	db    *DB
}

func (e *toolEnv[DB]) lookup(name string, envFuncs bool) (ToolFunc[DB], bool) {
	if fn, ok := e.tools.funcs[name]; ok {
		return fn, true
	}
	if envFuncs {
		fn, ok := e.tools.envFuncs[name]
		return fn, ok
	}
	return nil, false
}

func (e *toolEnv[DB]) call(name string, args map[string]any, envFuncs bool) (res ToolResult) {
	fn, ok := e.lookup(name, envFuncs)
	if !ok {
		return ToolResult{Content: fmt.Sprintf("Error: unknown tool %q", name), Error: true}
	}
	defer func() {
		// A tool bug must cost one failed call, not the evaluation.
		if r := recover(); r != nil {
			res = ToolResult{Content: fmt.Sprintf("Error: tool %s failed: %v", name, r), Error: true}
		}
	}()
	out, err := fn(e.db, Args(args))
	if err != nil {
		return ToolResult{Content: "Error: " + err.Error(), Error: true}
	}
	if s, ok := out.(string); ok {
		return ToolResult{Content: s}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return ToolResult{Content: fmt.Sprintf("Error: tool %s returned an unencodable result: %v", name, err), Error: true}
	}
	return ToolResult{Content: string(b)}
}

func (e *toolEnv[DB]) callFunc(name string, args map[string]any) (out any, err error) {
	fn, ok := e.lookup(name, true)
	if !ok {
		return nil, fmt.Errorf("unknown env function %q", name)
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%s failed: %v", name, r)
		}
	}()
	return fn(e.db, Args(args))
}

func (e *toolEnv[DB]) state() any { return e.db }

func (e *toolEnv[DB]) hash() (string, error) {
	if h, ok := any(e.db).(Hasher); ok {
		return h.Hash()
	}
	return HashJSON(e.db)
}

func (e *toolEnv[DB]) merge(data map[string]any) error {
	if m, ok := any(e.db).(Merger); ok {
		return m.Merge(data)
	}
	// JSON round trip: the database as JSON, merged, decoded again.
	raw, err := json.Marshal(e.db)
	if err != nil {
		return fmt.Errorf("encode database: %w", err)
	}
	var tree map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return fmt.Errorf("database is not a JSON object: %w", err)
	}
	merged, err := json.Marshal(DeepMerge(tree, data))
	if err != nil {
		return fmt.Errorf("encode merged database: %w", err)
	}
	db := new(DB)
	if err := strictDecode(merged, db); err != nil {
		return fmt.Errorf("merged database: %w", err)
	}
	e.db = db
	return nil
}

// Merger is implemented by database types that merge tau2's
// initialization_data themselves. Others are merged by a JSON round trip:
// the database is encoded, DeepMerge'd with the data and strictly decoded
// again, so a type whose JSON does not round-trip must implement Merger.
type Merger interface {
	Merge(data map[string]any) error
}

// DeepMerge merges src into dst as tau2 does, and returns dst: where both
// hold an object under a key, they merge key by key; any other value of
// src (lists included) replaces dst's. Objects of src are copied, never
// shared with the result. A nil dst is a new map.
func DeepMerge(dst, src map[string]any) map[string]any {
	if dst == nil {
		dst = make(map[string]any, len(src))
	}
	for k, v := range src {
		if sv, ok := v.(map[string]any); ok {
			dv, _ := dst[k].(map[string]any)
			dst[k] = DeepMerge(dv, sv)
			continue
		}
		dst[k] = v
	}
	return dst
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
