package domains

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

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

// sideEnv is one side of an environment.
type sideEnv interface {
	// call runs a tool, or with envFuncs also an env function, as Env.Call,
	// under ctx.
	call(ctx context.Context, name string, args map[string]any, envFuncs bool) ToolResult
	// callFunc runs an env function or a tool and returns its raw result.
	callFunc(name string, args map[string]any) (any, error)
	hash() (string, error)
	// merge deep-merges data into the database (see Merger).
	merge(data map[string]any) error
	// hasTool reports whether the side has a tool (or, with envFuncs, an
	// env function) of this name.
	hasTool(name string, envFuncs bool) bool
	// state is the side's database, a *DB, for Spec.Sync.
	state() any
}

type toolEnv[DB any] struct {
	tools *Toolbox[DB]
	db    *DB
}

func (e *toolEnv[DB]) lookup(name string, envFuncs bool) (ToolFuncContext[DB], bool) {
	if fn, ok := e.tools.funcs[name]; ok {
		return fn, true
	}
	if fn, ok := e.tools.envFuncs[name]; ok && envFuncs {
		return withoutContext(fn), true
	}
	return nil, false
}

func (e *toolEnv[DB]) hasTool(name string, envFuncs bool) bool {
	_, ok := e.lookup(name, envFuncs)
	return ok
}

func (e *toolEnv[DB]) call(ctx context.Context, name string, args map[string]any, envFuncs bool) (res ToolResult) {
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
	out, err := fn(ctx, e.db, Args(args))
	if err != nil {
		return ToolResult{Content: "Error: " + err.Error(), Error: true}
	}
	if s, ok := out.(string); ok {
		return ToolResult{Content: s}
	}
	if e.tools.encode != nil {
		s, err := e.tools.encode(out)
		if err != nil {
			return ToolResult{Content: fmt.Sprintf("Error: tool %s returned an unencodable result: %v", name, err), Error: true}
		}
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
	return fn(context.Background(), e.db, Args(args))
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
