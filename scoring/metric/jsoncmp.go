package metric

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
)

// defaultNumberTolerance is the absolute difference allowed between numbers
// when a JSON criterion sets none (tRPC-Agent-Go's default).
const defaultNumberTolerance = 1e-6

// jsonCompare compares JSON values as tRPC-Agent-Go's JSONCriterion does.
// When explain is false it builds no reason (the fast path of matching);
// when true a mismatch says where and why.
type jsonCompare struct {
	tolerance float64
	explain   bool
}

// fail returns a mismatch, with its reason only when explaining.
func (c jsonCompare) fail(format string, args ...any) (bool, string) {
	if !c.explain {
		return false, ""
	}
	return false, fmt.Sprintf(format, args...)
}

// under prefixes a nested mismatch's reason with the key or index it is at.
func (c jsonCompare) under(at string, ok bool, why string) (bool, string) {
	if ok || !c.explain {
		return ok, why
	}
	return false, at + ": " + why
}

// mapKinds compares the shapes of two values: both objects, or neither.
func (c jsonCompare) mapKinds(actual, expected any) (am, em map[string]any, isMap bool, ok bool, why string) {
	am, aIsMap := actual.(map[string]any)
	em, eIsMap := expected.(map[string]any)
	switch {
	case aIsMap && !eIsMap:
		ok, why = c.fail("actual is an object, expected %s", show(expected))
		return nil, nil, false, ok, why
	case !aIsMap && eIsMap:
		ok, why = c.fail("actual %s is not an object", show(actual))
		return nil, nil, false, ok, why
	}
	return am, em, aIsMap, true, ""
}

// exact compares two values: objects by key set, arrays by length and
// order, numbers within the tolerance, anything else by deep equality.
func (c jsonCompare) exact(actual, expected any) (bool, string) {
	if actual == nil || expected == nil {
		if actual == nil && expected == nil {
			return true, ""
		}
		return c.fail("actual %s, expected %s", show(actual), show(expected))
	}
	am, em, isMap, ok, why := c.mapKinds(actual, expected)
	if !ok {
		return ok, why
	}
	if isMap {
		return c.exactObject(am, em)
	}
	al, aIsList := actual.([]any)
	el, eIsList := expected.([]any)
	switch {
	case aIsList && eIsList:
		if len(al) != len(el) {
			return c.fail("array of %d items, expected %d", len(al), len(el))
		}
		for i := range al {
			if ok, why := c.exact(al[i], el[i]); !ok {
				return c.under(fmt.Sprintf("[%d]", i), ok, why)
			}
		}
		return true, ""
	case aIsList:
		return c.fail("actual is an array, expected %s", show(expected))
	case eIsList:
		return c.fail("actual %s is not an array", show(actual))
	}
	if equalScalars(actual, expected, c.tolerance) {
		return true, ""
	}
	return c.fail("actual %s, expected %s", show(actual), show(expected))
}

func (c jsonCompare) exactObject(actual, expected map[string]any) (bool, string) {
	if ok, why := c.sameKeys(actual, expected, nil); !ok {
		return ok, why
	}
	if !c.explain { // the fast path: no reason, so any key order
		for k, v := range actual {
			if ok, _ := c.exact(v, expected[k]); !ok {
				return false, ""
			}
		}
		return true, ""
	}
	for _, k := range sortedKeys(actual) {
		if ok, why := c.exact(actual[k], expected[k]); !ok {
			return c.under(k, ok, why)
		}
	}
	return true, ""
}

// sameKeys requires both objects to have the same keys, leaving out those
// the ignore tree marks true.
func (c jsonCompare) sameKeys(actual, expected, ignore map[string]any) (bool, string) {
	if !c.explain {
		for k := range actual {
			if _, ok := expected[k]; !ok && !ignored(ignore, k) {
				return false, ""
			}
		}
		for k := range expected {
			if _, ok := actual[k]; !ok && !ignored(ignore, k) {
				return false, ""
			}
		}
		return true, ""
	}
	for _, k := range sortedKeys(actual) {
		if _, ok := expected[k]; !ok && !ignored(ignore, k) {
			return c.fail("key %q is not expected", k)
		}
	}
	for _, k := range sortedKeys(expected) {
		if _, ok := actual[k]; !ok && !ignored(ignore, k) {
			return c.fail("expected key %q is missing", k)
		}
	}
	return true, ""
}

// withIgnoreTree compares like exact but leaves out the object keys the
// tree marks true, descending into objects the tree names with a subtree
// (not into arrays).
func (c jsonCompare) withIgnoreTree(actual, expected any, tree map[string]any) (bool, string) {
	if len(tree) == 0 || actual == nil || expected == nil {
		return c.exact(actual, expected)
	}
	am, em, isMap, ok, why := c.mapKinds(actual, expected)
	if !ok {
		return ok, why
	}
	if !isMap {
		return c.exact(actual, expected)
	}
	if ok, why := c.sameKeys(am, em, tree); !ok {
		return ok, why
	}
	for _, k := range sortedKeys(am) {
		if ignored(tree, k) {
			continue
		}
		sub, _ := tree[k].(map[string]any)
		if ok, why := c.withIgnoreTree(am[k], em[k], sub); !ok {
			return c.under(k, ok, why)
		}
	}
	return true, ""
}

// withOnlyTree compares only the object keys the tree names: a true leaf
// compares the key's whole value, a subtree descends.
func (c jsonCompare) withOnlyTree(actual, expected any, tree map[string]any) (bool, string) {
	if actual == nil || expected == nil {
		return c.exact(actual, expected)
	}
	am, em, isMap, ok, why := c.mapKinds(actual, expected)
	if !ok {
		return ok, why
	}
	if !isMap {
		return c.exact(actual, expected)
	}
	for _, k := range sortedKeys(tree) {
		var sub map[string]any
		switch sel := tree[k].(type) {
		case bool:
			if !sel {
				continue
			}
		case map[string]any:
			sub = sel
		default:
			return c.fail("onlyTree.%s must be true, false or an object", k)
		}
		av, aok := am[k]
		ev, eok := em[k]
		switch {
		case !aok:
			return c.fail("key %q is missing from the actual value", k)
		case !eok:
			return c.fail("key %q is missing from the expected value", k)
		}
		if sub == nil {
			ok, why = c.exact(av, ev)
		} else {
			ok, why = c.withOnlyTree(av, ev, sub)
		}
		if !ok {
			return c.under(k, ok, why)
		}
	}
	return true, ""
}

func ignored(tree map[string]any, key string) bool {
	b, _ := tree[key].(bool)
	return b
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	if len(keys) > 1 {
		sort.Strings(keys)
	}
	return keys
}

// equalScalars compares numbers within the tolerance, anything else by
// deep equality.
func equalScalars(a, b any, tolerance float64) bool {
	af, aok := toFloat(a)
	bf, bok := toFloat(b)
	if aok && bok {
		return math.Abs(af-bf) <= tolerance
	}
	return reflect.DeepEqual(a, b)
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int8:
		return float64(n), true
	case int16:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint8:
		return float64(n), true
	case uint16:
		return float64(n), true
	case uint32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// show renders a value for a reason, bounded in length.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	const maxShown = 200
	if len(b) > maxShown {
		return string(b[:maxShown]) + "..."
	}
	return string(b)
}

// parseJSON reads exactly one JSON value from raw text.
func parseJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err == nil {
			return nil, errors.New("more than one JSON value")
		}
		return nil, err
	}
	return v, nil
}

// rawJSON is text to be read as JSON (a final response), as opposed to a
// value already decoded (a tool's arguments).
type rawJSON string

// decodeRaw decodes a rawJSON or json.RawMessage; other values are already
// decoded and are returned as they are.
func decodeRaw(v any) (any, error) {
	switch r := v.(type) {
	case rawJSON:
		return parseJSON([]byte(r))
	case json.RawMessage:
		return parseJSON(r)
	}
	return v, nil
}

// validJSON checks a value is valid JSON: raw text must parse, a decoded
// value must marshal.
func validJSON(v any) error {
	switch r := v.(type) {
	case rawJSON:
		_, err := parseJSON([]byte(r))
		return err
	case json.RawMessage:
		_, err := parseJSON(r)
		return err
	case string:
		_, err := parseJSON([]byte(r))
		return err
	case []byte:
		_, err := parseJSON(r)
		return err
	}
	_, err := json.Marshal(v)
	return err
}
