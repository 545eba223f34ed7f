package translation

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
)

var testSetup = agent.Setup{
	Policy: "You are an airline agent.\nNever book without confirmation. Prices are in <USD> & EUR.",
	Tools: []domains.ToolSpec{
		{Name: "get_user", Description: "Look up a user by id.", Parameters: json.RawMessage(`{"type":"object","properties":{"user_id":{"type":"string"}},"required":["user_id"]}`)},
		{Name: "book_flight", Description: "Book a flight <now>.", Parameters: json.RawMessage(`{
			"type": "object",
			"properties": {"flight": {"type": "string"}, "seats": {"type": "integer"}},
			"required": ["flight"]
		}`)},
		{Name: "broken_schema", Description: "Has no usable schema.", Parameters: json.RawMessage(`{not json`)},
		{Name: "no_schema", Description: "Has no schema at all."},
	},
}

// renderedText renders and checks that the result is one or more text parts.
func renderedText(t *testing.T, p Profile, first bool, in agent.Input) string {
	t.Helper()
	parts := p.Render(testSetup, first, in)
	if len(parts) == 0 {
		t.Fatal("no parts rendered")
	}
	var texts []string
	for i, part := range parts {
		txt, ok := part.Content.(a2a.Text)
		if !ok {
			t.Fatalf("part %d is %T, want text", i, part.Content)
		}
		texts = append(texts, string(txt))
	}
	return strings.Join(texts, "\n")
}

type renderedTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters"`
	} `json:"function"`
}

// toolsInMessage decodes the JSON array of tools from a first message: the
// first line that starts with "[".
func toolsInMessage(t *testing.T, msg string) []renderedTool {
	t.Helper()
	i := strings.Index(msg, "\n[")
	if i < 0 {
		t.Fatalf("no tools array in:\n%s", msg)
	}
	var tools []renderedTool
	dec := json.NewDecoder(strings.NewReader(msg[i+1:]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tools); err != nil {
		t.Fatalf("tools JSON does not decode: %v", err)
	}
	return tools
}

func TestAgentBeatsFirstMessage(t *testing.T) {
	p, err := ProfileByName("agentbeats")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "agentbeats" {
		t.Errorf("Name = %q", p.Name())
	}
	msg := renderedText(t, p, true, agent.Input{UserText: "Hi, I want to book a flight."})

	if !strings.HasPrefix(msg, "<policy>\n"+testSetup.Policy+"\n</policy>\n") {
		t.Errorf("message does not start with the policy:\n%s", msg)
	}
	for _, want := range []string{
		"at most one tool", `{"name": "<tool name or respond>", "arguments": {...}}`, "<json>...</json>",
		"\n\n" + AgentBeatsUserPrefix + "Hi, I want to book a flight.",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if !strings.HasSuffix(msg, "\n"+AgentBeatsUserPrefix+"Hi, I want to book a flight.") {
		t.Errorf("message does not end with the user line:\n%s", msg)
	}
	for _, tool := range testSetup.Tools {
		if !strings.Contains(msg, `"`+tool.Name+`"`) {
			t.Errorf("message lacks tool %s", tool.Name)
		}
	}

	tools := toolsInMessage(t, msg)
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Function.Name)
		if tool.Type != "function" {
			t.Errorf("tool %s has type %q", tool.Function.Name, tool.Type)
		}
		if tool.Function.Description == "" {
			t.Errorf("tool %s has no description", tool.Function.Name)
		}
		if tool.Function.Parameters["type"] != "object" {
			t.Errorf("tool %s parameters are not an object schema: %v", tool.Function.Name, tool.Function.Parameters)
		}
		if _, ok := tool.Function.Parameters["properties"].(map[string]any); !ok {
			t.Errorf("tool %s parameters have no properties: %v", tool.Function.Name, tool.Function.Parameters)
		}
	}
	if want := []string{"get_user", "book_flight", "broken_schema", "no_schema", RespondTool}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	if diff := cmp.Diff([]any{"flight"}, tools[1].Function.Parameters["required"]); diff != "" {
		t.Errorf("book_flight required mismatch (-want +got):\n%s", diff)
	}
	if tools[1].Function.Description != "Book a flight <now>." {
		t.Errorf("description altered: %q", tools[1].Function.Description)
	}

	respond := tools[len(tools)-1].Function
	content, _ := respond.Parameters["properties"].(map[string]any)["content"].(map[string]any)
	if content["type"] != "string" || content["description"] == "" {
		t.Errorf("respond content schema = %v", content)
	}
	if diff := cmp.Diff([]any{"content"}, respond.Parameters["required"]); diff != "" {
		t.Errorf("respond required mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(strings.ToLower(respond.Description), "user") {
		t.Errorf("respond description %q does not mention the user", respond.Description)
	}
}

func TestAgentBeatsLaterMessages(t *testing.T) {
	p, _ := ProfileByName("")
	msg := renderedText(t, p, false, agent.Input{UserText: "My id is u-1.\nThanks"})
	if want := AgentBeatsUserPrefix + "My id is u-1.\nThanks"; msg != want {
		t.Errorf("user message = %q, want %q", msg, want)
	}
	if strings.Contains(msg, "<policy>") {
		t.Error("later message repeats the policy")
	}

	in := agent.Input{ToolResults: []agent.ToolOutcome{
		{Call: domains.ToolCall{ID: "call-1", Name: "get_user", Arguments: map[string]any{"user_id": "u-1"}}, Result: domains.ToolResult{Content: `{"name":"Ann"}`}},
		{Call: domains.ToolCall{ID: "call-2", Name: "book_flight"}, Result: domains.ToolResult{Content: "Error: flight full", Error: true}},
		{Call: domains.ToolCall{ID: "call-3", Name: "cancel"}, Result: domains.ToolResult{Content: "no such booking", Error: true}},
	}}
	want := "Tool call result (get_user):\n{\"name\":\"Ann\"}\n\n" +
		"Tool call result (book_flight):\nError: flight full\n\n" +
		"Tool call result (cancel):\nError: no such booking"
	if got := renderedText(t, p, false, in); got != want {
		t.Errorf("tool results =\n%q\nwant\n%q", got, want)
	}

	// Tool results in the first message follow the setup.
	first := renderedText(t, p, true, in)
	if !strings.HasSuffix(first, "\n\n"+want) || strings.Contains(first, AgentBeatsUserPrefix) {
		t.Errorf("first message with tool results:\n%s", first)
	}

	// An empty input still renders a user line.
	if got := renderedText(t, p, false, agent.Input{}); got != AgentBeatsUserPrefix {
		t.Errorf("empty input = %q", got)
	}
}

func TestAgentBeatsRespondToolNotDuplicated(t *testing.T) {
	p, _ := ProfileByName("agentbeats")
	setup := agent.Setup{Policy: "p", Tools: []domains.ToolSpec{{Name: RespondTool, Parameters: json.RawMessage(`{"type":"object"}`)}}}
	parts := p.Render(setup, true, agent.Input{UserText: "hi"})
	tools := toolsInMessage(t, parts[0].Text())
	if len(tools) != 1 || tools[0].Function.Name != RespondTool {
		t.Errorf("tools = %+v", tools)
	}
}

// TestAgentBeatsReferenceReply checks that a reply in the format the first
// message asks for parses back: the contract between Render and ParseReply.
func TestAgentBeatsReferenceReply(t *testing.T) {
	r := ParseReply([]*a2a.Part{a2a.NewTextPart(`<json>{"name": "book_flight", "arguments": {"flight": "HAT001", "seats": 2}}</json>`)})
	want := []domains.ToolCall{{ID: "call-1", Name: "book_flight", Arguments: map[string]any{"flight": "HAT001", "seats": json.Number("2")}}}
	if !cmp.Equal(r.ToolCalls, want) || r.Text != "" {
		t.Errorf("got %#v", r)
	}
}

func TestProfileByName(t *testing.T) {
	for _, name := range []agent.ProfileName{"", "agentbeats"} {
		p, err := ProfileByName(name)
		if err != nil || p == nil || p.Name() != "agentbeats" {
			t.Errorf("ProfileByName(%q) = %v, %v", name, p, err)
		}
	}
	_, err := ProfileByName("nope")
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "agentbeats") {
		t.Errorf("unknown profile error = %v", err)
	}
	if got := ProfileNames(); !slices.Equal(got, []string{"agentbeats", "structured", "tau2-a2a"}) {
		t.Errorf("ProfileNames = %v", got)
	}
	for _, n := range ProfileNames() {
		if p, err := ProfileByName(agent.ProfileName(n)); err != nil || string(p.Name()) != n {
			t.Errorf("profile %q: %v, %v", n, p, err)
		}
	}
}
