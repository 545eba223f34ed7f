package banking

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pycompat"
)

// toolSpec is a tool as tau2 describes it to its caller.
type toolSpec struct {
	Name, Description, Parameters string
}

// toolParam is one parameter of a discoverable tool, as tau2's
// parse_discoverable_tool_docstring reads it.
type toolParam struct {
	Name, Type, Description string
	Required                bool
}

// toolInfo is a discoverable tool: what tau2 parses from its docstring and
// its Python signature (parameter names; Optional ones have defaults).
type toolInfo struct {
	Name, Description string
	Mutates           bool
	Signature         []string
	Optional          []string
	Params            []toolParam
}

// formatForAgent is tau2's format_discoverable_tool_for_agent.
func (t *toolInfo) formatForAgent() string {
	var params []string
	for _, p := range t.Params {
		req := " (required)"
		if !p.Required {
			req = " (optional)"
		}
		params = append(params, "  - "+p.Name+": "+p.Type+req+" - "+p.Description)
	}
	section := "  (no parameters)"
	if len(params) > 0 {
		section = strings.Join(params, "\n")
	}
	return "Tool: " + t.Name + "\nDescription: " + t.Description + "\nParameters:\n" + section
}

// discoverableFunc runs a discoverable tool with its arguments bound (all
// JSON numbers floats, as tau2's json.loads(parse_int=float) gives them).
type discoverableFunc func(db *DB, a *Obj) string

// discoverable is a discoverable tool: its info and, once ported, its body.
type discoverable struct {
	info *toolInfo
	run  discoverableFunc
}

// discoverables indexes a side's discoverable tools by name.
func discoverables(infos []toolInfo, bodies map[string]discoverableFunc) map[string]discoverable {
	m := make(map[string]discoverable, len(infos))
	for i := range infos {
		m[infos[i].Name] = discoverable{info: &infos[i], run: bodies[infos[i].Name]}
	}
	return m
}

// bind checks a discoverable call's arguments as Python binds keywords
// (the TypeError tau2 turns into "Invalid arguments").
func (t *toolInfo) bind(class string, args *Obj) error {
	m := make(map[string]any, args.Len())
	for _, k := range args.Keys() {
		m[k] = args.vals[k]
	}
	var required []string
	for _, p := range t.Signature {
		if !slices.Contains(t.Optional, p) {
			required = append(required, p)
		}
	}
	return pycompat.CheckKwargs(class, t.Name, m, required, t.Optional...)
}

// The classes of tau2's toolkits, which Python's TypeErrors name.
const (
	agentClass = "KnowledgeTools"
	userClass  = "KnowledgeUserTools"
)

// toolArgs is a tool call's arguments as Python values.
func toolArgs(args domains.Args) *Obj {
	return fromArg(map[string]any(args)).(*Obj)
}

// register adds tau2's tools of a side, with their generated specs, to a
// toolbox. fns maps each name to its body; a name without one is a bug.
func register[DB any](tb *domains.Toolbox[DB], specs []toolSpec, class string, params map[string][]string,
	fns map[string]func(db *DB, a *Obj) string) {
	for _, s := range specs {
		fn := fns[s.Name]
		sig := params[s.Name]
		tb.Register(s.Name, s.Description, s.Parameters, func(db *DB, args domains.Args) (any, error) {
			a := toolArgs(args)
			if err := bindPlain(class, s.Name, sig, a); err != nil {
				return nil, err
			}
			return answer(fn(db, a))
		})
	}
}

// answer is a tool's answer as tau2's Environment.get_response gives it:
// an exception raised out of the tool is "Error: " and its text, with the
// error flag set.
func answer(res string) (any, error) {
	if msg, _, ok := raised(res); ok {
		return nil, errors.New(msg)
	}
	return res, nil
}

// registerDiscoverables adds a side's discoverable tools, unlisted, to its
// toolbox: tau2's toolkit runs one called by its own name as any of its
// tools, without unlocking or giving, logging or float arguments (the
// tool checks what it checks, as the user's check they were given).
func registerDiscoverables[S any](tb *domains.Toolbox[S], disc map[string]discoverable, class string, db func(*S) *DB) {
	for name, d := range disc {
		tb.RegisterUnlisted(name, func(side *S, args domains.Args) (any, error) {
			a := toolArgs(args)
			if err := d.info.bind(class, a); err != nil {
				return nil, err
			}
			return answer(d.run(db(side), a))
		})
	}
}

// bindPlain checks a tool's arguments against its signature: names
// prefixed with "?" are optional.
func bindPlain(class, name string, sig []string, a *Obj) error {
	var required, optional []string
	for _, p := range sig {
		if o, ok := strings.CutPrefix(p, "?"); ok {
			optional = append(optional, o)
		} else {
			required = append(required, p)
		}
	}
	m := make(map[string]any, a.Len())
	for _, k := range a.Keys() {
		m[k] = a.vals[k]
	}
	return pycompat.CheckKwargs(class, name, m, required, optional...)
}

// str is an argument as an f-string writes it (a missing optional one is
// its default, given).
func str(a *Obj, name, dflt string) string {
	v, ok := a.Get(name)
	if !ok {
		return dflt
	}
	return pyStr(v)
}

// truthy is Python's bool() of a value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case int64:
		return x != 0
	case float64:
		return x != 0
	case *Obj:
		return x.Len() > 0
	case []any:
		return len(x) > 0
	}
	return true
}

func arg(a *Obj, name string) any { v, _ := a.Get(name); return v }

// errorf formats a tool's "Error: ..." answer (a normal result in tau2).
func errorf(format string, args ...any) string { return fmt.Sprintf("Error: "+format, args...) }
