package a2aclient

import (
	"encoding/json"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// TestFromRawKeepsNumberLiterals: a reply read tolerantly keeps a data
// part's numbers as the agent wrote them, 2 apart from 2.0.
func TestFromRawKeepsNumberLiterals(t *testing.T) {
	cases := []struct {
		name, raw string
	}{
		{"0.3 message", `{"kind": "message", "role": "agent", "parts": [{"kind": "data", "data": {"n": 2, "x": 2.0, "l": [1e3]}}]}`},
		{"1.0 message", `{"message": {"role": "ROLE_AGENT", "parts": [{"data": {"n": 2, "x": 2.0, "l": [1e3]}}]}}`},
	}
	want := map[string]any{"n": json.Number("2"), "x": json.Number("2.0"), "l": []any{json.Number("1e3")}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, ok := fromRaw(json.RawMessage(c.raw))
			if !ok || len(out.parts) != 1 {
				t.Fatalf("fromRaw: %v %+v", ok, out)
			}
			d, ok := out.parts[0].Content.(a2a.Data)
			if !ok {
				t.Fatalf("part is %T", out.parts[0].Content)
			}
			if diff := cmp.Diff(want, d.Value); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
		})
	}
	if _, ok := fromRaw(json.RawMessage(`{"kind": "message"} {}`)); ok {
		t.Error("trailing data accepted")
	}
}
