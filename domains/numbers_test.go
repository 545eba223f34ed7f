package domains

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestArgumentsKeepNumberLiterals: a tool call or an expected action read
// from JSON (a stored transcript, a task file) keeps 2 apart from 2.0, and
// writes them back as they were.
func TestArgumentsKeepNumberLiterals(t *testing.T) {
	const raw = `{"name":"refuel_data","arguments":{"gb_amount":2,"price":2.0,"big":1e3,"list":[1,2.5],"nested":{"n":-7}}}`
	want := map[string]any{
		"gb_amount": json.Number("2"), "price": json.Number("2.0"), "big": json.Number("1e3"),
		"list": []any{json.Number("1"), json.Number("2.5")}, "nested": map[string]any{"n": json.Number("-7")},
	}
	var call ToolCall
	if err := json.Unmarshal([]byte(raw), &call); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, call.Arguments); diff != "" {
		t.Errorf("tool call arguments (-want +got):\n%s", diff)
	}
	var action Action
	if err := json.Unmarshal([]byte(raw), &action); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, action.Arguments); diff != "" {
		t.Errorf("action arguments (-want +got):\n%s", diff)
	}
	back, err := json.Marshal(call.Arguments)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(back); got != `{"big":1e3,"gb_amount":2,"list":[1,2.5],"nested":{"n":-7},"price":2.0}` {
		t.Errorf("written back as %s", got)
	}
	// Inside other values, and as a list.
	var calls []ToolCall
	if err := json.Unmarshal([]byte(`[`+raw+`,{"name":"x","arguments":{}}]`), &calls); err != nil || len(calls) != 2 {
		t.Fatalf("list: %v %v", calls, err)
	}
	for _, bad := range []string{`{"name": 3}`, `{"arguments": []}`, `{`} {
		if err := json.Unmarshal([]byte(bad), &call); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
