package translation

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// TestNumbersKeepTheirLiteral: an agent's 2 reaches the tool as an
// integer and its 2.0 as a float, as tau2's json.loads reads them, in
// every shape a call can take.
func TestNumbersKeepTheirLiteral(t *testing.T) {
	cases := []struct {
		name  string
		parts []*a2a.Part
		want  map[string]any
	}{
		{"text, integer", textParts(`{"name": "refuel_data", "arguments": {"gb_amount": 2}}`), map[string]any{"gb_amount": json.Number("2")}},
		{"text, float", textParts(`{"name": "refuel_data", "arguments": {"gb_amount": 2.0}}`), map[string]any{"gb_amount": json.Number("2.0")}},
		{"text, exponent", textParts(`{"name": "refuel_data", "arguments": {"gb_amount": 2e0}}`), map[string]any{"gb_amount": json.Number("2e0")}},
		{"text, nested", textParts(`<json>{"name": "f", "arguments": {"a": [1, 1.5, {"b": -0}]}}</json>`),
			map[string]any{"a": []any{json.Number("1"), json.Number("1.5"), map[string]any{"b": json.Number("-0")}}}},
		{"string-encoded arguments", textParts(`{"name": "f", "arguments": "{\"n\": 3, \"x\": 3.25}"}`), map[string]any{"n": json.Number("3"), "x": json.Number("3.25")}},
		{"data part, integral", []*a2a.Part{a2a.NewDataPart(map[string]any{"tool_calls": []any{map[string]any{"name": "f", "arguments": map[string]any{"n": 2.0}}}})},
			map[string]any{"n": json.Number("2")}},
		{"data part, fraction and large", []*a2a.Part{a2a.NewDataPart(map[string]any{"tool_calls": []any{map[string]any{"name": "f", "arguments": map[string]any{"x": 2.5, "big": 1e300, "list": []any{3.0}}}}})},
			map[string]any{"x": json.Number("2.5"), "big": json.Number("1e+300"), "list": []any{json.Number("3")}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ParseReply(c.parts)
			if len(r.ToolCalls) != 1 {
				t.Fatalf("got %#v", r)
			}
			if diff := cmp.Diff(c.want, r.ToolCalls[0].Arguments); diff != "" {
				t.Errorf("arguments (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFloatLiteral(t *testing.T) {
	cases := []struct {
		in   float64
		want any
	}{
		{2, json.Number("2")},
		{-7, json.Number("-7")},
		{0.1, json.Number("0.1")},
		{1 << 53, json.Number("9007199254740992")},
		{1 << 54, json.Number("1.8014398509481984e+16")},
		{1e21, json.Number("1e+21")},
		{math.Inf(1), math.Inf(1)},
	}
	for _, c := range cases {
		if got := floatLiteral(c.in); !cmp.Equal(got, c.want) {
			t.Errorf("floatLiteral(%v) = %#v, want %#v", c.in, got, c.want)
		}
	}
}

func TestLiteralNumbersCopies(t *testing.T) {
	in := map[string]any{"a": []any{1.0, map[string]any{"b": 2.5}}}
	out := literalNumbers(in)
	if diff := cmp.Diff(map[string]any{"a": []any{1.0, map[string]any{"b": 2.5}}}, in); diff != "" {
		t.Errorf("input changed:\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"a": []any{json.Number("1"), map[string]any{"b": json.Number("2.5")}}}, out); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestDecodeLiteralsRejectsTrailing(t *testing.T) {
	var v any
	for _, s := range []string{`{"a": 1} {}`, `{"a": 1}]`, `{`} {
		if err := decodeLiterals(s, &v); err == nil {
			t.Errorf("decodeLiterals(%q) accepted", s)
		}
	}
	if err := decodeLiterals(` {"a": 1} `, &v); err != nil {
		t.Errorf("surrounding space: %v", err)
	}
}
