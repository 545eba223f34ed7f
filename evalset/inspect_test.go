package evalset

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInspectAssertionsValidated: a YAML case's and a tRPC case's inspect
// assertions give one of equals, contains, matches, name a path, and
// compile their regular expression; every violation names the case.
func TestInspectAssertionsValidated(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"cases/bad.yaml": `case: bad
input: {content: hi}
inspect:
  - {path: a, equals: 1, contains: x}
  - {equals: null}
  - {path: b, matches: "(["}
  - {path: c}
`,
		"app/s.evalset.json": `{"evalSetId":"s","evalCases":[{"evalId":"t","conversation":[{"userContent":{"role":"user","content":"hi"}}],
 "inspect":[{"path":"x","matches":"a("},{"path":"y","equals":null},{"path":"","contains":"z"}]}]}`,
	})
	_, err := Load(dir)
	want := []string{
		`cases/bad.yaml: inspect[0]: case "bad": give exactly one of equals, contains, matches (got 2)`,
		`cases/bad.yaml: inspect[1].path: case "bad": missing: name the agent state to read (a dotted path such as memory.short_term)`,
		`cases/bad.yaml: inspect[2].matches: case "bad": invalid regular expression (RE2): error parsing regexp: missing closing ]: ` + "`[`",
		`cases/bad.yaml: inspect[3]: case "bad": give exactly one of equals, contains, matches (got 0)`,
		`app/s.evalset.json: evalCases[0].inspect[0].matches: case "t": invalid regular expression (RE2): error parsing regexp: missing closing ): ` + "`a(`",
		`app/s.evalset.json: evalCases[0].inspect[2].path: case "t": missing: name the agent state to read (a dotted path such as memory.short_term)`,
	}
	if diff := cmp.Diff(want, lines(t, err, dir)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// TestInspectYAML reads a YAML case's assertions and tool results: equals
// takes any value (null included), as JSON.
func TestInspectYAML(t *testing.T) {
	dir := writeFiles(t, map[string]string{"cases/ok.yaml": `case: ok
input: {content: calc add 2 3}
expected:
  tool_calls: [{name: calculator, result: {result: 5}}]
inspect:
  - {path: memory.last, equals: {op: add, n: [1, 2.5]}}
  - {path: memory.none, equals: null}
  - {path: steps, matches: '^\d+$'}
`})
	sets, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := sets[0].Cases[0]
	digits := `^\d+$`
	want := []*InspectAssertion{
		{Path: "memory.last", Equals: json.RawMessage(`{"n":[1,2.5],"op":"add"}`)},
		{Path: "memory.none", Equals: json.RawMessage(`null`)},
		{Path: "steps", Matches: &digits},
	}
	if diff := cmp.Diff(want, c.Inspect); diff != "" {
		t.Errorf("inspect (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"result": float64(5)}, c.Conversation[0].Tools[0].Result); diff != "" {
		t.Errorf("tool result (-want +got):\n%s", diff)
	}
}

func TestInspectCheck(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name  string
		a     InspectAssertion
		value string
		want  bool
		text  string
	}{
		{"equal numbers", InspectAssertion{Equals: json.RawMessage(`3`)}, `3.0`, true, "3"},
		{"equal objects", InspectAssertion{Equals: json.RawMessage(`{"a":[1,"x"]}`)}, `{"a": [1, "x"]}`, true, `{"a":[1,"x"]}`},
		{"unequal", InspectAssertion{Equals: json.RawMessage(`{"a":1}`)}, `{"a":1,"b":2}`, false, `{"a":1,"b":2}`},
		{"null equals an absent value", InspectAssertion{Equals: json.RawMessage(`null`)}, ``, true, "null"},
		{"contains in a string", InspectAssertion{Contains: str("lo w")}, `"hello world"`, true, "hello world"},
		{"contains in JSON", InspectAssertion{Contains: str(`"k":2`)}, `{"k": 2}`, true, `{"k":2}`},
		{"matches", InspectAssertion{Matches: str(`^\d+$`)}, `42`, true, "42"},
		{"does not match", InspectAssertion{Matches: str(`^\d+$`)}, `"4x"`, false, "4x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, text, err := tt.a.Check(json.RawMessage(tt.value))
			if err != nil || ok != tt.want || text != tt.text {
				t.Errorf("Check(%s) = %v, %q, %v; want %v, %q", tt.value, ok, text, err, tt.want, tt.text)
			}
		})
	}
	if _, _, err := (&InspectAssertion{Contains: str("x")}).Check(json.RawMessage(`{`)); err == nil {
		t.Error("a value that is not JSON: no error")
	}
}

// FuzzInspectCheck evaluates assertions on values an agent returns: it
// must never panic.
func FuzzInspectCheck(f *testing.F) {
	f.Add(`{"a":[1,2]}`, `{"a":[1,2]}`, "a", `\d`)
	f.Add(`"text"`, `null`, "", "(")
	f.Fuzz(func(t *testing.T, value, equals, contains, matches string) {
		for _, a := range []InspectAssertion{{Equals: json.RawMessage(equals)}, {Contains: &contains}, {Matches: &matches}} {
			_, _, _ = a.Check(json.RawMessage(value))
		}
	})
}
