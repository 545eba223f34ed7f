package telecom

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pycompat"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
)

// tau2 calls a tool's Python function with the call's arguments as keyword
// arguments, unchecked against the declared schema (domains-spec.md 1.1).
// These helpers mirror what follows: an unknown or missing argument fails
// with Python's TypeError wording. Where tau2 would carry a value of the
// wrong JSON type into the function, the tools mirror Python where
// bad_calls.json records it (doc.go lists them) and otherwise fail the
// call with a type error.

// str returns a string argument ("" allowed).
func str(args domains.Args, name string) (string, error) {
	s, ok := args[name].(string)
	if !ok {
		return "", fmt.Errorf("argument '%s' must be a string, got %s", name, typeName(args[name]))
	}
	return s, nil
}

// boolean returns a boolean argument.
func boolean(args domains.Args, name string) (bool, error) {
	b, ok := args[name].(bool)
	if !ok {
		return false, fmt.Errorf("argument '%s' must be a boolean, got %s", name, typeName(args[name]))
	}
	return b, nil
}

// optBool returns an optional boolean argument: nil when absent or null.
func optBool(args domains.Args, name string) (*bool, error) {
	if v, ok := args[name]; !ok || v == nil {
		return nil, nil
	}
	b, err := boolean(args, name)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// number is a numeric argument as Python holds it: an int or a float. The
// difference shows where tau2 formats the value (str(2) is "2", str(2.0)
// "2.0"). proctor passes the agent's numbers on as json.Number literals,
// which keep the distinction, as a Go int does; a float64 (from a Go
// caller) is taken to be a float, as the parameters that use number are
// declared.
type number struct {
	f     float64
	isInt bool
}

// String is Python's str() of the number.
func (n number) String() string {
	if n.isInt {
		return strconv.FormatFloat(n.f, 'f', 0, 64)
	}
	return pyjson.FormatFloat(n.f)
}

// num returns a numeric argument.
func num(args domains.Args, name string) (number, error) {
	switch v := args[name].(type) {
	case float64:
		return number{f: v}, nil
	case int:
		return number{f: float64(v), isInt: true}, nil
	case int64:
		return number{f: float64(v), isInt: true}, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return number{}, fmt.Errorf("argument '%s' must be a number, got %s", name, v)
		}
		return number{f: f, isInt: !strings.ContainsAny(string(v), ".eE")}, nil
	}
	return number{}, fmt.Errorf("argument '%s' must be a number, got %s", name, typeName(args[name]))
}

// integer returns an integer argument; an integral float counts.
func integer(args domains.Args, name string) (int, error) {
	n, err := num(args, name)
	if err != nil {
		return 0, err
	}
	if n.f != math.Trunc(n.f) || math.Abs(n.f) > 1<<53 {
		return 0, fmt.Errorf("argument '%s' must be an integer, got %v", name, n)
	}
	return int(n.f), nil
}

// sliceBound reads an argument tau2 only uses as a slice bound (list[:n]),
// as Python takes it when slicing, after the tool's other work: absent, the
// default; null, no bound (n itself); an int or a bool (an int in Python),
// its value; anything else fails as Python's slicing does.
func sliceBound(args domains.Args, name string, def, n int) (int, error) {
	v, ok := args[name]
	switch t := v.(type) {
	case nil:
		if !ok {
			return def, nil
		}
		return n, nil
	case bool:
		if t {
			return 1, nil
		}
		return 0, nil
	case json.Number, int, int64:
		if pycompat.TypeName(v) == "int" {
			i, err := integer(args, name)
			if err != nil {
				// Beyond an int64: Python clamps the bound to the list.
				if strings.HasPrefix(fmt.Sprint(t), "-") {
					return 0, nil
				}
				return n, nil
			}
			return i, nil
		}
	}
	return 0, errors.New("slice indices must be integers or None or have an __index__ method")
}

// typeName names a JSON value's type the way Python names the decoded
// value's.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "None"
	case string:
		return "str"
	case bool:
		return "bool"
	case float64:
		return "float"
	case int, int64:
		return "int"
	case json.Number:
		return "number"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}
