package scoring

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strings"
)

// pyEqual compares two decoded JSON values as Python's == compares what
// json.loads gives, which is how tau2-bench compares an action's arguments
// with a call's: numbers by exact value whatever their type (1 == 1.0, and
// an int is compared exactly with a float), booleans as the numbers 0 and 1
// (True == 1), strings by content, lists item by item, objects by their
// keys and values. Numbers may be float64, json.Number or Go integers.
func pyEqual(a, b any) bool {
	if an, ok := pyNumber(a); ok {
		bn, ok := pyNumber(b)
		return ok && an.equal(bn)
	}
	switch av := a.(type) {
	case nil:
		return b == nil
	case string:
		bv, ok := b.(string)
		return ok && av == bv
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !pyEqual(av[i], bv[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for k, x := range av {
			y, ok := bv[k]
			if !ok || !pyEqual(x, y) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// pyNum is a Python number: an exact rational, or a float that has none
// (an infinity, which json.loads gives for 1e400).
type pyNum struct {
	rat   *big.Rat
	float float64
}

func (n pyNum) equal(m pyNum) bool {
	if n.rat == nil || m.rat == nil {
		return n.rat == nil && m.rat == nil && n.float == m.float
	}
	return n.rat.Cmp(m.rat) == 0
}

// pyNumber reads v as Python would hold it: bools as 0 and 1, an integer
// literal exactly, a float literal as the float64 it rounds to.
func pyNumber(v any) (pyNum, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return pyNum{rat: big.NewRat(1, 1)}, true
		}
		return pyNum{rat: new(big.Rat)}, true
	case float64:
		return floatNum(x), true
	case float32:
		return floatNum(float64(x)), true
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if i, ok := new(big.Int).SetString(s, 10); ok {
				return pyNum{rat: new(big.Rat).SetInt(i)}, true
			}
		}
		f, err := x.Float64()
		if err != nil && !math.IsInf(f, 0) {
			return pyNum{}, false
		}
		return floatNum(f), true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return pyNum{rat: new(big.Rat).SetInt64(rv.Int())}, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return pyNum{rat: new(big.Rat).SetInt(new(big.Int).SetUint64(rv.Uint()))}, true
	}
	return pyNum{}, false
}

func floatNum(f float64) pyNum {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return pyNum{float: f}
	}
	return pyNum{rat: new(big.Rat).SetFloat64(f)}
}
