package airline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/domains/tau2/internal/pycompat"
	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
)

// This file holds the Python-flavoured value handling the tools need: how
// tau2 (CPython + pydantic) formats, compares and coerces the JSON values an
// agent sends.
//
// Dump values are the values of a pyjson dump tree: nil, bool, string, int64
// (a Python int), float64 (a Python float), []any and map[string]any.

// Float is a stored Python float (a payment method balance). It is written
// to tool output the way Python writes it, so 150.0 stays 150.0 rather than
// becoming 150.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	return appendJSONFloat(nil, float64(f)), nil
}

// Value is a field that tau2 assigns without validation (a reservation's
// cabin and baggage counts): whatever dump value the agent passed is stored,
// hashed and returned as it is. Usually a string or an int64.
type Value struct{ v any }

// V returns the dump value.
func (v Value) V() any { return v.v }

// MarshalJSON implements json.Marshaler, writing floats as Python does.
func (v Value) MarshalJSON() ([]byte, error) {
	return appendJSONValue(nil, v.v)
}

// UnmarshalJSON implements json.Unmarshaler: JSON integers become int64,
// other numbers float64.
func (v *Value) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	d, err := fromJSON(raw)
	if err != nil {
		return err
	}
	v.v = d
	return nil
}

// fromJSON converts a decoded JSON value (float64 or json.Number numbers) to
// the dump value Python's json.loads would have produced. A float64 with an
// integral value is taken to be a JSON integer: a float64 argument no longer
// tells 2 from 2.0 (proctor keeps json.Number literals, but callers of the
// Go API may pass float64), and agents write integers far more often than
// integral floats.
func fromJSON(v any) (any, error) {
	switch t := v.(type) {
	case nil, bool, string, int64:
		return t, nil
	case int:
		return int64(t), nil
	case float64:
		if i, ok := integral(t); ok {
			return i, nil
		}
		return t, nil
	case json.Number:
		s := string(t)
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return i, nil
			}
			return nil, fmt.Errorf("integer %s is out of range", s)
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !math.IsInf(f, 0) {
			return nil, fmt.Errorf("invalid number %s", s)
		}
		return f, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			d, err := fromJSON(e)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			d, err := fromJSON(e)
			if err != nil {
				return nil, err
			}
			out[k] = d
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported value of type %T", v)
}

// integral reports whether f is a whole number that fits an int64.
func integral(f float64) (int64, bool) {
	if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// appendJSONFloat writes a float for tool output. JSON has no NaN or
// infinities; Python writes them as bare NaN/Infinity, which is not JSON, so
// they are written as strings here.
func appendJSONFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	return append(b, pyjson.FormatFloat(f)...)
}

// appendJSONValue writes a dump value as JSON, floats as Python writes them,
// map keys sorted.
func appendJSONValue(b []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, t), nil
	case int64:
		return strconv.AppendInt(b, t, 10), nil
	case float64:
		return appendJSONFloat(b, t), nil
	case string:
		s, err := json.Marshal(t)
		return append(b, s...), err
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSONValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			s, err := json.Marshal(k)
			if err != nil {
				return nil, err
			}
			b = append(append(b, s...), ':')
			if b, err = appendJSONValue(b, t[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("cannot write %T as JSON", v)
}

// pyStr renders a dump value as Python's str() would, for messages.
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyReprValue(v)
}

// pyReprValue renders a dump value as Python's repr() would.
func pyReprValue(v any) string {
	switch t := v.(type) {
	case nil:
		return "None"
	case bool:
		if t {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		return pyjson.FormatFloat(t)
	case string:
		return pycompat.Repr(t)
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = pyReprValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		parts := make([]string, 0, len(t))
		for _, k := range sortedKeys(t) {
			parts = append(parts, pycompat.Repr(k)+": "+pyReprValue(t[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// pyTypeName is Python's name for the type of a dump value.
func pyTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int64:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

// hashable reports whether Python could use the value as a dict key (a
// lookup with a list or dict raises TypeError).
func hashable(v any) error {
	switch v.(type) {
	case []any, map[string]any:
		return fmt.Errorf("unhashable type: '%s'", pyTypeName(v))
	}
	return nil
}

// pyEqual is Python's == on dump values: numbers (and bools) compare by
// value, containers element-wise.
func pyEqual(a, b any) bool {
	if x, ok := pyNumber(a); ok {
		y, ok := pyNumber(b)
		return ok && x == y
	}
	switch t := a.(type) {
	case nil:
		return b == nil
	case string:
		s, ok := b.(string)
		return ok && s == t
	case []any:
		u, ok := b.([]any)
		if !ok || len(u) != len(t) {
			return false
		}
		for i := range t {
			if !pyEqual(t[i], u[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		u, ok := b.(map[string]any)
		if !ok || len(u) != len(t) {
			return false
		}
		for k, e := range t {
			f, ok := u[k]
			if !ok || !pyEqual(e, f) {
				return false
			}
		}
		return true
	}
	return false
}

// pyNumber returns the numeric value of an int, float or bool dump value.
// (Comparing through float64 is exact for the int64 values tools see.)
func pyNumber(v any) (float64, bool) {
	switch t := v.(type) {
	case bool:
		if t {
			return 1, true
		}
		return 0, true
	case int64:
		return float64(t), true
	case float64:
		return t, true
	}
	return 0, false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Lax coercions: what pydantic's lax mode accepts when the tool code builds
// a record model from the agent's arguments.

// laxInt converts a value for an int field: integral numbers, bools and
// integer strings ("3", " 3 ", "1_000", "3.00") pass; fractions, other
// strings and null fail.
func laxInt(field string, v any) (int64, error) {
	switch t := v.(type) {
	case bool:
		if t {
			return 1, nil
		}
		return 0, nil
	case int64:
		return t, nil
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return 0, fmt.Errorf("%s: input should be a finite number", field)
		}
		if i, ok := integral(t); ok {
			return i, nil
		}
		if t != math.Trunc(t) {
			return 0, fmt.Errorf("%s: input should be a valid integer, got a number with a fractional part", field)
		}
		return 0, fmt.Errorf("%s: input should be a valid integer, got a number out of range", field)
	case string:
		if i, ok := parseIntString(t); ok {
			return i, nil
		}
		return 0, fmt.Errorf("%s: input should be a valid integer, unable to parse string as an integer", field)
	}
	return 0, fmt.Errorf("%s: input should be a valid integer", field)
}

// parseIntString parses a string as pydantic does for an int field.
func parseIntString(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if whole, frac, ok := strings.Cut(s, "."); ok {
		if frac == "" || strings.Trim(frac, "0") != "" {
			return 0, false
		}
		s = whole
	}
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 || body == "" || body[0] == '_' || body[len(body)-1] == '_' || strings.Contains(body, "__") {
		return 0, false
	}
	for _, c := range body {
		if c != '_' && (c < '0' || c > '9') {
			return 0, false
		}
	}
	i, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
	return i, err == nil
}

// laxFloat converts a value for a float field: numbers, bools and numeric
// strings pass.
func laxFloat(field string, v any) (float64, error) {
	switch t := v.(type) {
	case bool:
		if t {
			return 1, nil
		}
		return 0, nil
	case int64:
		return float64(t), nil
	case float64:
		return t, nil
	case string:
		s := strings.TrimSpace(t)
		lower := strings.ToLower(strings.TrimLeft(s, "+-"))
		if s != "" && !strings.HasPrefix(lower, "0x") && !strings.HasPrefix(lower, "_") {
			if f, err := strconv.ParseFloat(s, 64); err == nil || math.IsInf(f, 0) {
				return f, nil
			}
		}
		return 0, fmt.Errorf("%s: input should be a valid number, unable to parse string as a number", field)
	}
	return 0, fmt.Errorf("%s: input should be a valid number", field)
}

// laxStr checks a value for a str field: pydantic never makes a string out
// of a number.
func laxStr(field string, v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", fmt.Errorf("%s: input should be a valid string", field)
}

// laxLiteral checks a value against a Literal field's allowed strings.
func laxLiteral(field string, v any, allowed ...string) (string, error) {
	if s, ok := v.(string); ok && slices.Contains(allowed, s) {
		return s, nil
	}
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = "'" + a + "'"
	}
	return "", fmt.Errorf("%s: input should be %s", field, joinOr(quoted))
}

func joinOr(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// pyIterable mirrors how tau2 iterates a list argument before it coerces the
// items: an empty string or object iterates as nothing (so it acts as an
// empty list); any other non-list fails. (Not reproduced: Python would
// iterate a non-empty string or object too, and update_reservation_passengers
// would even store one whose length equals the passenger count.)
func pyIterable(field string, v any) ([]any, error) {
	switch t := v.(type) {
	case []any:
		return t, nil
	case string:
		if t == "" {
			return nil, nil
		}
	case map[string]any:
		if len(t) == 0 {
			return nil, nil
		}
	case nil, bool, int64, float64:
		return nil, fmt.Errorf("'%s' object is not iterable", pyTypeName(v))
	}
	return nil, fmt.Errorf("%s: input should be a valid list", field)
}

// allDicts reports whether every item is an object: only then does tau2
// coerce the items to records.
func allDicts(items []any) bool {
	for _, it := range items {
		if _, ok := it.(map[string]any); !ok {
			return false
		}
	}
	return true
}
