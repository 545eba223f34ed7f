package pycompat

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
)

// TypeName is the name of the Python type that json.loads makes of a
// decoded JSON value, as Python's error messages write it: NoneType, bool,
// int, float, str, list or dict. A json.Number is an int unless its literal
// has a fraction or an exponent; a Go float64 is a float.
func TypeName(v any) string {
	switch t := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int, int64:
		return "int"
	case float64:
		return "float"
	case json.Number:
		if isIntLiteral(string(t)) {
			return "int"
		}
		return "float"
	case string:
		return "str"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return "object"
}

// Str is Python's str() of a decoded JSON scalar (None, True, 2, 2.0, a
// str as it is); ok is false for a list or dict, whose str() is their repr.
func Str(v any) (s string, ok bool) {
	switch t := v.(type) {
	case nil:
		return "None", true
	case bool:
		if t {
			return "True", true
		}
		return "False", true
	case int:
		return strconv.Itoa(t), true
	case int64:
		return strconv.FormatInt(t, 10), true
	case float64:
		return floatStr(t), true
	case json.Number:
		lit := string(t)
		if isIntLiteral(lit) {
			// Python's int has no size limit and prints no sign for 0.
			lit = strings.TrimPrefix(lit, "-")
			if strings.Trim(lit, "0") == "" {
				return "0", true
			}
			return string(t), true
		}
		f, _ := strconv.ParseFloat(lit, 64) // out of range: ±Inf, as Python reads it
		return floatStr(f), true
	case string:
		return t, true
	}
	return "", false
}

func isIntLiteral(s string) bool { return !strings.ContainsAny(s, ".eE") }

// floatStr is Python's str() of a float.
func floatStr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return pyjson.FormatFloat(f)
}
