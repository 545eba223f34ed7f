package rollout

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/evalset"
)

// TestCaseMocks checks which expected result answers an ECP agent's tool
// call: same name and equal arguments (numbers as numbers), or every
// args_contain text; the call's own invocation first, unused results
// before used ones; none for a call no expected tool matches.
func TestCaseMocks(t *testing.T) {
	c := &evalset.Case{ID: "c", Conversation: []*evalset.Invocation{
		{ID: "i1", Tools: []*evalset.Tool{
			{Name: "calc", Arguments: map[string]any{"a": 1}, Result: "first"},
			{Name: "calc", Arguments: map[string]any{"a": 1}, Result: "second"},
			{Name: "search", ArgsContain: []string{"Paris"}, Result: map[string]any{"hits": 2}},
			{Name: "no-result", Arguments: map[string]any{}},
		}},
		{ID: "i2", Tools: []*evalset.Tool{
			{Name: "calc", Arguments: map[string]any{"a": 1}, Result: "from i2"},
			{Name: "any-args", Result: true},
		}},
	}}
	m := newCaseMocks(c)
	type call struct {
		invocation, name string
		args             any
	}
	calls := []call{
		{"i1", "calc", map[string]any{"a": 1.0}},
		{"i1", "calc", map[string]any{"a": 1.0}},
		{"i1", "calc", map[string]any{"a": 1.0}},
		{"i2", "calc", map[string]any{"a": 1.0}},
		{"i1", "calc", map[string]any{"a": 2.0}},
		{"i1", "search", map[string]any{"q": "weather in Paris"}},
		{"i1", "search", map[string]any{"q": "Rome"}},
		{"i1", "no-result", map[string]any{}},
		{"i1", "any-args", map[string]any{"x": "y"}},
	}
	var got []any
	for _, cl := range calls {
		res, ok := m.result(cl.invocation, cl.name, cl.args)
		if !ok {
			res = "none"
		}
		got = append(got, res)
	}
	want := []any{"first", "second", "first", "from i2", "none", map[string]any{"hits": 2.0}, "none", "none", true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}
