package domains

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Dumper is a database that renders itself as the tree its hash is taken
// over (tau2's model_dump()): maps, slices and scalars. A database without
// it is read through its JSON encoding.
type Dumper interface {
	Dump() any
}

// DiffKind says how a record differs between two databases.
type DiffKind string

// Kinds of differences.
const (
	// DiffMissing is a record or field the expected database has and the
	// actual one lacks.
	DiffMissing DiffKind = "missing"
	// DiffUnexpected is one the actual database has and the expected one
	// lacks.
	DiffUnexpected DiffKind = "unexpected"
	// DiffChanged is one both have, with different values.
	DiffChanged DiffKind = "changed"
)

// RecordDiff is one difference between an expected and an actual database:
// a record or field present on one side only, or a value that differs.
type RecordDiff struct {
	// Side is "user" for the user's database (a domain with a user side),
	// empty for the agent's.
	Side string `json:"side,omitempty"`
	// Path is the keys from the database's root, slash-separated:
	// "users/u1/plan", "tasks/T-4". A list element's key is its index.
	Path string   `json:"path"`
	Kind DiffKind `json:"kind"`
	// Expected and Actual are the values on each side; absent on the side
	// that lacks it.
	Expected any `json:"expected,omitempty"`
	Actual   any `json:"actual,omitempty"`
}

// GoldEnv is the environment a perfect agent (and user) leaves: the task's
// expected actions replayed on a fresh environment, as GoldHash hashes it.
func (d *Domain) GoldEnv(task *Task) (Env, error) {
	env, err := d.NewEnv(task)
	if err != nil {
		return nil, err
	}
	if task.EvaluationCriteria != nil {
		for _, a := range task.EvaluationCriteria.Actions {
			env.Call(ToolCall{Name: a.Name, Arguments: a.Arguments, Requestor: a.Requestor})
		}
	}
	return env, nil
}

// DiffEnvs lists how actual's databases differ from expected's, the agent's
// side first, each in key order, at most limit differences (truncated says
// more were left out). Records present on one side only are reported whole;
// records on both are compared field by field. Both environments must come
// from NewDomain.
func DiffEnvs(expected, actual Env, limit int) (diffs []RecordDiff, truncated bool, err error) {
	want, err := snapshot(expected)
	if err != nil {
		return nil, false, fmt.Errorf("expected database: %w", err)
	}
	got, err := snapshot(actual)
	if err != nil {
		return nil, false, fmt.Errorf("actual database: %w", err)
	}
	d := &differ{limit: limit}
	d.walk(nil, want[0], got[0])
	if want[1] != nil || got[1] != nil {
		d.side = RequestorUser
		d.walk(nil, want[1], got[1])
	}
	return d.out, d.truncated, nil
}

// snapshot is an environment's agent and user databases as trees.
func snapshot(e Env) ([2]any, error) {
	x, ok := e.(*env)
	if !ok {
		return [2]any{}, fmt.Errorf("environment %T was not built by a domain", e)
	}
	var out [2]any
	var err error
	if out[0], err = sideTree(x.agent); err != nil {
		return out, err
	}
	if x.user != nil {
		if out[1], err = sideTree(x.user); err != nil {
			return out, fmt.Errorf("user side: %w", err)
		}
	}
	switch x.alias {
	case aliasUserIsAgent:
		out[1] = out[0]
	case aliasAgentIsUser:
		out[0] = out[1]
	}
	return out, nil
}

func sideTree(s sideEnv) (any, error) {
	db := s.state()
	if d, ok := db.(Dumper); ok {
		return d.Dump(), nil
	}
	raw, err := json.Marshal(db)
	if err != nil {
		return nil, fmt.Errorf("encode database: %w", err)
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, fmt.Errorf("decode database: %w", err)
	}
	return tree, nil
}

type differ struct {
	side      string
	limit     int
	out       []RecordDiff
	truncated bool
}

func (d *differ) add(path []string, kind DiffKind, want, got any) {
	if len(d.out) >= d.limit {
		d.truncated = true
		return
	}
	d.out = append(d.out, RecordDiff{Side: d.side, Path: strings.Join(path, "/"), Kind: kind, Expected: want, Actual: got})
}

// walk compares two trees below path: maps key by key, lists of equal
// length element by element, anything else as a whole.
func (d *differ) walk(path []string, want, got any) {
	if d.truncated || reflect.DeepEqual(want, got) {
		return
	}
	if wm, ok := want.(map[string]any); ok {
		if gm, ok := got.(map[string]any); ok {
			d.walkMaps(path, wm, gm)
			return
		}
	}
	if wl, ok := want.([]any); ok {
		if gl, ok := got.([]any); ok && len(wl) == len(gl) {
			for i := range wl {
				d.walk(append(slices.Clip(path), strconv.Itoa(i)), wl[i], gl[i])
			}
			return
		}
	}
	d.add(path, DiffChanged, want, got)
}

func (d *differ) walkMaps(path []string, want, got map[string]any) {
	keys := make([]string, 0, len(want)+len(got))
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := append(slices.Clip(path), k)
		w, inWant := want[k]
		g, inGot := got[k]
		switch {
		case !inGot:
			d.add(p, DiffMissing, w, nil)
		case !inWant:
			d.add(p, DiffUnexpected, nil, g)
		default:
			d.walk(p, w, g)
		}
	}
}
