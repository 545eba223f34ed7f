package pycompat

import (
	"encoding/json"
	"math"
	"testing"
)

func TestTypeNameAndStr(t *testing.T) {
	cases := []struct {
		v        any
		typ, str string
		ok       bool
	}{
		{nil, "NoneType", "None", true},
		{true, "bool", "True", true},
		{false, "bool", "False", true},
		{json.Number("5551232002"), "int", "5551232002", true},
		{json.Number("-0"), "int", "0", true},
		{json.Number("2.0"), "float", "2.0", true},
		{json.Number("2e0"), "float", "2.0", true},
		{json.Number("1e999"), "float", "inf", true},
		{2.5, "float", "2.5", true},
		{math.Inf(-1), "float", "-inf", true},
		{int64(7), "int", "7", true},
		{"4G", "str", "4G", true},
		{[]any{}, "list", "", false},
		{map[string]any{}, "dict", "", false},
	}
	for _, c := range cases {
		if got := TypeName(c.v); got != c.typ {
			t.Errorf("TypeName(%#v) = %q, want %q", c.v, got, c.typ)
		}
		if got, ok := Str(c.v); got != c.str || ok != c.ok {
			t.Errorf("Str(%#v) = %q, %v, want %q, %v", c.v, got, ok, c.str, c.ok)
		}
	}
}
