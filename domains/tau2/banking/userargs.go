package banking

import (
	"slices"
	"strings"
)

// give_discoverable_user_tool and call_discoverable_user_tool check the
// names in their parsed arguments with Python's `for name in args` and
// `name in args`, before anything asks for a dict: JSON that is no object
// goes through those checks as Python's list, str, number, bool or None
// does (a list's items and a str's characters are its names; a number
// does not iterate). These are those checks on any JSON value.

// pyIter is Python's iteration of a JSON value: a dict's keys, a list's
// items, a str's characters; or the TypeError of a value that does not
// iterate.
func pyIter(v any) ([]any, string) {
	switch x := v.(type) {
	case *Obj:
		keys := x.Keys()
		items := make([]any, len(keys))
		for i, k := range keys {
			items[i] = k
		}
		return items, ""
	case []any:
		return x, ""
	case string:
		var items []any
		for _, r := range x {
			items = append(items, string(r))
		}
		return items, ""
	}
	return nil, raiseTypeError("'" + pyTypeName(v) + "' object is not iterable")
}

// pyContains is Python's `name in v` for a JSON value v: a dict's key, a
// list's item, a substring of a str; or the TypeError of a value that
// holds nothing.
func pyContains(v any, name string) (bool, string) {
	switch x := v.(type) {
	case *Obj:
		return x.Has(name), ""
	case []any:
		return slices.ContainsFunc(x, func(item any) bool { return pyEqual(item, name) }), ""
	case string:
		return strings.Contains(x, name), ""
	}
	return false, raiseTypeError("argument of type '" + pyTypeName(v) + "' is not iterable")
}

// unexpectedParam is `for name in args: if name not in params: return
// "Error: Unexpected parameter: ..."` where params is a signature's
// mapping (self in it when withSelf): "" when every name is a parameter,
// else that answer or the TypeError of args that do not iterate or of a
// name Python cannot hash.
func unexpectedParam(args any, params []string, withSelf bool) string {
	names, typeErr := pyIter(args)
	if typeErr != "" {
		return typeErr
	}
	for _, name := range names {
		if typeErr := unhashableError(name); typeErr != "" {
			return typeErr
		}
		if s, ok := name.(string); ok && (slices.Contains(params, s) || withSelf && s == "self") {
			continue
		}
		return errorf("Unexpected parameter: %s", pyStr(name))
	}
	return ""
}

// missingParam is `for p in required: if p not in args: return "Error:
// Missing required parameter: ..."`: "" when args hold them all, else that
// answer or the TypeError of args that hold nothing.
func missingParam(args any, d discoverable) string {
	for _, p := range d.info.Signature {
		if slices.Contains(d.info.Optional, p) {
			continue
		}
		has, typeErr := pyContains(args, p)
		if typeErr != "" {
			return typeErr
		}
		if !has {
			return errorf("Missing required parameter: %s", p)
		}
	}
	return ""
}

// userQualname is the qualified name Python gives a user discoverable
// tool in a TypeError of its call.
func userQualname(name string) string {
	return "tau2.domains.banking_knowledge.tools." + userClass + "." + name
}
