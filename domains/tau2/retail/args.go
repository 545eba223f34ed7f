package retail

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pycompat"
)

// tau2 calls a tool's Python function with the call's arguments as keyword
// arguments, without checking them against the declared schema first. The
// helpers here mirror what follows from that: an unknown or missing argument
// fails the call (with Python's TypeError wording), and a value of the wrong
// JSON type fails it too. Unlike [domains.Args.String], an empty string is a
// valid string: address2 is often "".

// stringArg returns a string argument; "" is allowed.
func stringArg(args domains.Args, name string) (string, error) {
	switch v := args[name].(type) {
	case string:
		return v, nil
	case nil:
		return "", fmt.Errorf("argument '%s' must be a string, got null", name)
	default:
		return "", fmt.Errorf("argument '%s' must be a string, got %s", name, jsonType(v))
	}
}

// stringListArg returns an array-of-strings argument. tau2 only iterates
// the value, takes its len and sorts it, so an empty string or object acts
// as an empty list there and succeeds; any other non-list fails (a non-empty
// string, iterated by character, fails the item count check).
func stringListArg(args domains.Args, name string) ([]string, error) {
	switch v := args[name].(type) {
	case []string:
		return slices.Clone(v), nil
	case string:
		if v == "" {
			return []string{}, nil
		}
	case map[string]any:
		if len(v) == 0 {
			return []string{}, nil
		}
	case []any:
		out := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("argument '%s' must be an array of strings, but element %d is %s", name, i, jsonType(e))
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("argument '%s' must be an array of strings, got %s", name, jsonType(args[name]))
}

// stringArgs reads the named string arguments after checking the parameter
// list, for tools whose parameters are all strings.
func stringArgs(tool string, args domains.Args, params ...string) ([]string, error) {
	if err := pycompat.CheckKwargs(toolsClass, tool, args, params); err != nil {
		return nil, err
	}
	out := make([]string, len(params))
	for i, p := range params {
		s, err := stringArg(args, p)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// iteratedListArg is stringListArg for a tool that only iterates the list
// and counts its items: a string is then what Python makes of it, its
// characters (code points), one item each.
func iteratedListArg(args domains.Args, name string) ([]string, error) {
	if s, ok := args[name].(string); ok {
		out := make([]string, 0, len(s))
		for _, r := range s {
			out = append(out, string(r))
		}
		return out, nil
	}
	return stringListArg(args, name)
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, float32, int, int64, int32, json.Number:
		return "a number"
	case []any, []string:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// idArg reads an argument tau2 only uses as a dict key or compares with
// ==, and checks no type up front: a string is the key; a list or object
// fails as Python's hashing does ("unhashable type: 'list'"); any other
// value (a number, a boolean, null) is a valid key that no record has, so
// found is false.
func idArg(args domains.Args, name string) (key string, found bool, err error) {
	switch v := args[name].(type) {
	case string:
		return v, true, nil
	case []any, []string:
		return "", false, fmt.Errorf("unhashable type: 'list'")
	case map[string]any:
		return "", false, fmt.Errorf("unhashable type: 'dict'")
	}
	return "", false, nil
}

// idArgs is stringArgs for a tool whose parameters are all ids (idArg):
// found is false when one of them cannot name a record.
func idArgs(tool string, args domains.Args, params ...string) (ids []string, found bool, err error) {
	if err := pycompat.CheckKwargs(toolsClass, tool, args, params); err != nil {
		return nil, false, err
	}
	ids = make([]string, len(params))
	found = true
	for i, p := range params {
		id, ok, err := idArg(args, p)
		if err != nil {
			return nil, false, err
		}
		ids[i], found = id, found && ok
	}
	return ids, found, nil
}
