package translation

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
)

// testHistory is a prior conversation: the user asked, the agent called a
// tool, got its result and answered.
var testHistory = []domains.HistoryMessage{
	{Role: "user", Content: "Book HAT001 for me."},
	{Role: "assistant", ToolCalls: []domains.ToolCall{{ID: "call_1", Name: "book_flight", Arguments: map[string]any{"flight": "HAT001", "seats": json.Number("2")}, Requestor: "assistant"}}},
	{Role: "tool", Content: `{"ok": true}`, ToolCallID: "call_1", Requestor: "assistant"},
	{Role: "assistant", Content: "Booked."},
}

// wantHistory is testHistory as the agent should read it back.
var wantHistory = []any{
	map[string]any{"role": "user", "content": "Book HAT001 for me."},
	map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call_1", "name": "book_flight", "arguments": map[string]any{"flight": "HAT001", "seats": 2.0}}}},
	map[string]any{"role": "tool", "content": `{"ok": true}`, "tool_call_id": "call_1"},
	map[string]any{"role": "assistant", "content": "Booked."},
}

// historyInText decodes the JSON array between the history tags.
func historyInText(t *testing.T, text string) any {
	t.Helper()
	i, j := strings.Index(text, HistoryOpen), strings.Index(text, HistoryClose)
	if i < 0 || j < i {
		t.Fatalf("no history block in:\n%s", text)
	}
	block := text[i+len(HistoryOpen) : j]
	var v any
	if err := json.Unmarshal([]byte(block[strings.Index(block, "\n["):]), &v); err != nil {
		t.Fatalf("history block: %v\n%s", err, block)
	}
	return v
}

// historyInParts finds the history in a rendered message: a data part
// (structured) or a text block.
func historyInParts(t *testing.T, parts []*a2a.Part) any {
	t.Helper()
	for _, p := range parts {
		switch c := p.Content.(type) {
		case a2a.Data:
			if m, ok := c.Value.(map[string]any); ok && m[HistoryKey] != nil {
				h := m[HistoryKey]
				return h
			}
		case a2a.Text:
			if strings.Contains(string(c), HistoryOpen) {
				return historyInText(t, string(c))
			}
		}
	}
	return nil
}

func TestHistoryRendering(t *testing.T) {
	inputs := []struct {
		name  string
		first bool
		in    agent.Input
		want  any // the history the agent reads; nil: none
		user  bool
	}{
		{"user answers the history", true, agent.Input{UserText: "Thanks!", History: testHistory}, wantHistory, true},
		{"agent goes on", true, agent.Input{History: testHistory}, wantHistory, false},
		{"no history", true, agent.Input{UserText: "Thanks!"}, nil, true},
		{"only the first message carries it", false, agent.Input{UserText: "Thanks!", History: testHistory}, nil, true},
	}
	for _, name := range ProfileNames() {
		p, _ := ProfileByName(agent.ProfileName(name))
		for _, c := range inputs {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				parts := p.Render(testSetup, c.first, c.in)
				if diff := cmp.Diff(c.want, historyInParts(t, parts)); diff != "" {
					t.Errorf("history (-want +got):\n%s", diff)
				}
				all := renderedAll(parts)
				if got := strings.Contains(all, "Thanks!"); got != c.user {
					t.Errorf("user text shown = %v, want %v:\n%s", got, c.user, all)
				}
				if !c.user && strings.Contains(all, AgentBeatsUserPrefix) {
					t.Errorf("an empty user message is rendered:\n%s", all)
				}
				if diff := cmp.Diff(parts, overWire(t, parts)); diff != "" {
					t.Errorf("JSON changes the message (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// renderedAll is every part of a message as text (data parts as JSON).
func renderedAll(parts []*a2a.Part) string {
	var out []string
	for _, p := range parts {
		switch c := p.Content.(type) {
		case a2a.Text:
			out = append(out, string(c))
		case a2a.Data:
			b, _ := json.Marshal(c.Value)
			out = append(out, string(b))
		}
	}
	return strings.Join(out, "\n")
}
