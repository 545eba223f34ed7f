package translation

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/agent"
)

// FuzzParseReply parses arbitrary text, and the same input decoded as JSON
// in a data part, checking that parsing never panics and that its result
// keeps the invariants of checkReply.
func FuzzParseReply(f *testing.F) {
	for _, tc := range parseCases {
		var texts []string
		for _, p := range tc.parts {
			if p == nil {
				continue
			}
			if s, ok := p.Content.(a2a.Text); ok {
				texts = append(texts, string(s))
			}
			if d, ok := p.Content.(a2a.Data); ok {
				if raw, err := json.Marshal(d.Value); err == nil {
					f.Add(string(raw))
				}
			}
		}
		f.Add(strings.Join(texts, "\n"))
	}
	for _, c := range roundTripCalls {
		raw, _ := json.Marshal(map[string]any{"name": c.Name, "arguments": c.Arguments})
		for _, present := range presentations {
			f.Add(present(string(raw)))
		}
	}
	// Agents echo their prompts: every profile's messages.
	for _, name := range ProfileNames() {
		p, _ := ProfileByName(agent.ProfileName(name))
		for _, first := range []bool{true, false} {
			for _, part := range p.Render(testSetup, first, agent.Input{UserText: "hi", ToolResults: testOutcomes}) {
				switch c := part.Content.(type) {
				case a2a.Text:
					f.Add(string(c))
				case a2a.Data:
					if raw, err := json.Marshal(c.Value); err == nil {
						f.Add(string(raw))
					}
				}
			}
		}
	}
	f.Add(strings.Repeat("{", 200))
	f.Add(strings.Repeat(`{"a":`, 80) + "1" + strings.Repeat("}", 80))

	f.Fuzz(func(t *testing.T, s string) {
		valid := utf8.ValidString(s)

		r := ParseReply([]*a2a.Part{a2a.NewTextPart(s)})
		checkReply(t, r, valid)
		if r.Format == "text" && r.Text != strings.TrimSpace(s) {
			t.Errorf("plain text %q altered to %q", s, r.Text)
		}
		if diff := cmp.Diff(r, ParseReply([]*a2a.Part{a2a.NewTextPart(s)})); diff != "" {
			t.Errorf("not deterministic (-want first +got second):\n%s", diff)
		}
		checkReparse(t, r)

		var v any
		if json.Unmarshal([]byte(s), &v) != nil || v == nil {
			return
		}
		d := ParseReply([]*a2a.Part{a2a.NewDataPart(v)})
		checkReply(t, d, true)
		if d.Format != "data_part" && (d.Format != "text" || d.Text != "") {
			t.Errorf("data part alone gave %#v", d)
		}
		checkReparse(t, d)
		both := ParseReply([]*a2a.Part{a2a.NewTextPart(s), a2a.NewDataPart(v)})
		checkReply(t, both, valid)
		if d.Format == "data_part" && !cmp.Equal(both.ToolCalls, d.ToolCalls) && len(d.ToolCalls) > 0 {
			t.Errorf("data part calls %v lost next to text: %v", d.ToolCalls, both.ToolCalls)
		}
	})
}

// checkReparse renders a reply's calls as an agent would and checks they
// parse back to the same calls.
func checkReparse(t *testing.T, r agent.Reply) {
	t.Helper()
	if len(r.ToolCalls) == 0 {
		return
	}
	items := make([]map[string]any, len(r.ToolCalls))
	for i, c := range r.ToolCalls {
		items[i] = map[string]any{"id": c.ID, "name": c.Name, "arguments": c.Arguments}
	}
	raw, err := json.Marshal(map[string]any{"tool_calls": items})
	if err != nil {
		t.Fatalf("calls do not encode: %v", err)
	}
	again := ParseReply([]*a2a.Part{a2a.NewTextPart(string(raw))})
	if diff := cmp.Diff(r.ToolCalls, again.ToolCalls); diff != "" {
		t.Errorf("calls do not round-trip (-want +got):\n%s", diff)
	}
}
