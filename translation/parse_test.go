package translation

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
)

func textParts(texts ...string) []*a2a.Part {
	parts := make([]*a2a.Part, len(texts))
	for i, t := range texts {
		parts[i] = a2a.NewTextPart(t)
	}
	return parts
}

func call(id, name string, args map[string]any) domains.ToolCall {
	if args == nil {
		args = map[string]any{}
	}
	return domains.ToolCall{ID: id, Name: name, Arguments: args}
}

type parseCase struct {
	name  string
	parts []*a2a.Part
	want  agent.Reply
}

// parseCases is the table for TestParseReply; its text-only inputs also
// seed FuzzParseReply.
var parseCases = []parseCase{
	// Empty replies.
	{"empty", nil, agent.Reply{Format: "text"}},
	{"empty text part", textParts(""), agent.Reply{Format: "text"}},
	{"white space only", textParts("  \n\t "), agent.Reply{Format: "text"}},

	// Plain text.
	{"plain text", textParts("  Hello! How can I help you today?\n"),
		agent.Reply{Text: "Hello! How can I help you today?", Format: "text"}},
	{"text parts joined", textParts("Line one.", "Line two."),
		agent.Reply{Text: "Line one.\nLine two.", Format: "text"}},
	{"prose with braces is not JSON", textParts("Use {user_id} or {order_id}, please."),
		agent.Reply{Text: "Use {user_id} or {order_id}, please.", Format: "text"}},

	// name + arguments, each presentation.
	{"bare call", textParts(`{"name": "get_user", "arguments": {"user_id": "u-1"}}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1"})}, Format: "json"}},
	{"bare call with agent id", textParts(`{"id": "abc", "name": "get_user", "arguments": {}}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("abc", "get_user", nil)}, Format: "json"}},
	{"call in prose", textParts(`Let me look that up. {"name": "get_user", "arguments": {"user_id": "u-1"}} One moment.`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1"})}, Format: "json"}},
	{"call followed by prose", textParts(`{"name": "get_user", "arguments": {"user_id": "u-1"}}` + "\nI am checking."),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1"})}, Format: "json"}},
	{"fenced json", textParts("Sure.\n```json\n{\"name\": \"get_user\", \"arguments\": {\"user_id\": \"u-1\"}}\n```\n"),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1"})}, Format: "fenced_json"}},
	{"plain fence", textParts("```\n{\"name\": \"get_user\", \"arguments\": {\"user_id\": \"u-1\"}}\n```"),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1"})}, Format: "fenced_json"}},
	{"one-line fence", textParts("```{\"name\": \"get_user\", \"arguments\": {}}```"),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", nil)}, Format: "fenced_json"}},
	{"unclosed fence", textParts("```json\n{\"name\": \"get_user\", \"arguments\": {}}\n"),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", nil)}, Format: "fenced_json"}},
	{"second fence holds the call", textParts("```python\nprint('hi')\n```\nthen\n```json\n{\"name\": \"b\", \"arguments\": {}}\n```"),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "b", nil)}, Format: "fenced_json"}},
	{"json tag", textParts(`<json>{"name": "get_user", "arguments": {"user_id": "u-1"}}</json>`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1"})}, Format: "json_tag"}},
	{"json tag upper case in prose", textParts("I will check.\n<JSON>\n{\"name\": \"get_user\", \"arguments\": {}}\n</JSON>"),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", nil)}, Format: "json_tag"}},
	{"unclosed json tag", textParts(`<json>{"name": "get_user", "arguments": {}}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", nil)}, Format: "json_tag"}},

	// Other shapes.
	{"kwargs", textParts(`{"name": "get_user", "kwargs": {"user_id": "u-1"}}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1"})}, Format: "json"}},
	{"arguments win over kwargs", textParts(`{"name": "f", "arguments": {"a": 1}, "kwargs": {"b": 2}}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "f", map[string]any{"a": json.Number("1")})}, Format: "json"}},
	{"string-encoded arguments", textParts(`{"name": "get_user", "arguments": "{\"user_id\": \"u-1\", \"n\": 2}"}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1", "n": json.Number("2")})}, Format: "json"}},
	{"empty string arguments", textParts(`{"name": "list_all", "arguments": ""}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "list_all", nil)}, Format: "json"}},
	{"null arguments", textParts(`{"name": "list_all", "arguments": null}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "list_all", nil)}, Format: "json"}},
	{"tool_call wrapper", textParts(`{"tool_call": {"name": "get_user", "arguments": {"user_id": "u-1"}}}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1"})}, Format: "json"}},
	{"tool_call without arguments", textParts(`{"tool_call": {"name": "list_all"}}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "list_all", nil)}, Format: "json"}},
	{"tool_call kwargs", textParts(`{"tool_call": {"name": "f", "kwargs": {"x": true}}}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "f", map[string]any{"x": true})}, Format: "json"}},
	{"several calls", textParts(`{"tool_calls": [{"name": "a", "arguments": {"x": 1}}, {"name": "b"}, {"name": "c", "kwargs": {"y": [1, 2]}}]}`),
		agent.Reply{ToolCalls: []domains.ToolCall{
			call("call-1", "a", map[string]any{"x": json.Number("1")}),
			call("call-2", "b", nil),
			call("call-3", "c", map[string]any{"y": []any{json.Number("1"), json.Number("2")}}),
		}, Format: "json"}},
	{"openai style", textParts(`{"tool_calls": [{"id": "call_abc", "type": "function", "function": {"name": "get_user", "arguments": "{\"user_id\":\"u-1\"}"}}, {"type": "function", "function": {"name": "list_all", "arguments": "{}"}}]}`),
		agent.Reply{ToolCalls: []domains.ToolCall{
			call("call_abc", "get_user", map[string]any{"user_id": "u-1"}),
			call("call-2", "list_all", nil),
		}, Format: "json"}},
	{"openai message with content", textParts(`{"role": "assistant", "content": "Checking now.", "tool_calls": [{"id": "x1", "type": "function", "function": {"name": "get_user", "arguments": "{}"}}]}`),
		agent.Reply{Text: "Checking now.", ToolCalls: []domains.ToolCall{call("x1", "get_user", nil)}, Format: "json"}},
	{"openai tool definition is not a call", textParts(`{"type": "function", "function": {"name": "get_user", "description": "d", "parameters": {"type": "object"}}}`),
		agent.Reply{Text: `{"type": "function", "function": {"name": "get_user", "description": "d", "parameters": {"type": "object"}}}`, Format: "text"}},
	{"bare openai item", textParts(`{"type": "function", "function": {"name": "get_user", "arguments": {"user_id": "u-1"}}}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1"})}, Format: "json"}},
	{"top-level array", textParts(`[{"name": "a", "arguments": {}}, {"name": "b", "kwargs": {"k": "v"}}]`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "a", nil), call("call-2", "b", map[string]any{"k": "v"})}, Format: "json"}},
	{"fenced array", textParts("```json\n[{\"name\": \"a\", \"arguments\": {}}]\n```"),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "a", nil)}, Format: "fenced_json"}},
	{"call nested in other JSON", textParts(`{"thought": "I need the user first", "action": {"name": "get_user", "arguments": {"user_id": "u-1"}}}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1"})}, Format: "json"}},
	{"duplicate agent ids", textParts(`{"tool_calls": [{"id": "x", "name": "a"}, {"id": "x", "name": "b"}, {"id": "call-3", "name": "c"}, {"name": "d"}]}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("x", "a", nil), call("call-2", "b", nil), call("call-3", "c", nil), call("call-4", "d", nil)}, Format: "json"}},
	{"generated id avoids agent id", textParts(`{"tool_calls": [{"name": "a"}, {"id": "call-1", "name": "b"}]}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1-2", "a", nil), call("call-1", "b", nil)}, Format: "json"}},
	{"name is trimmed", textParts(`{"name": " get_user ", "arguments": {}}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", nil)}, Format: "json"}},

	// respond.
	{"respond only", textParts(`{"name": "respond", "arguments": {"content": "Your flight is booked."}}`),
		agent.Reply{Text: "Your flight is booked.", Format: "json"}},
	{"respond message key", textParts(`{"name": "respond", "arguments": {"message": "Hi there"}}`),
		agent.Reply{Text: "Hi there", Format: "json"}},
	{"respond text key", textParts(`{"name": "respond", "arguments": {"text": "Hi there"}}`),
		agent.Reply{Text: "Hi there", Format: "json"}},
	{"respond string arguments", textParts(`{"name": "respond", "arguments": "{\"content\": \"Hello\"}"}`),
		agent.Reply{Text: "Hello", Format: "json"}},
	{"respond tagged", textParts("<json>\n{\"name\": \"respond\", \"arguments\": {\"content\": \"Done.\"}}\n</json>"),
		agent.Reply{Text: "Done.", Format: "json_tag"}},
	{"respond fenced", textParts("```json\n{\"name\": \"respond\", \"arguments\": {\"content\": \"Done.\"}}\n```"),
		agent.Reply{Text: "Done.", Format: "fenced_json"}},
	{"respond with braces in content", textParts(`Answer: {"name": "respond", "arguments": {"content": "Use the form {\"a\": 1} or } { as needed"}}`),
		agent.Reply{Text: `Use the form {"a": 1} or } { as needed`, Format: "json"}},
	{"respond plus call", textParts(`{"tool_calls": [{"name": "respond", "arguments": {"content": "Checking."}}, {"name": "get_user", "arguments": {"user_id": "u-1"}}]}`),
		agent.Reply{Text: "Checking.", ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1"})}, Format: "json"}},
	{"respond plus call in array", textParts(`[{"name": "get_user", "arguments": {}}, {"name": "respond", "arguments": {"content": "One moment."}}]`),
		agent.Reply{Text: "One moment.", ToolCalls: []domains.ToolCall{call("call-1", "get_user", nil)}, Format: "json"}},
	{"respond without content is text", textParts(`{"name": "respond", "arguments": {}}`),
		agent.Reply{Text: `{"name": "respond", "arguments": {}}`, Format: "text"}},

	// Nested braces and quotes inside strings.
	{"braces inside strings in prose", textParts(`Calling now: {"name": "note", "arguments": {"text": "a } b { c \" } \\"}} done`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "note", map[string]any{"text": `a } b { c " } \`})}, Format: "json"}},
	{"unbalanced prose brace before call", textParts(`Oops { then {"name": "a", "arguments": {}}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "a", nil)}, Format: "json"}},
	{"stray quote in prose before call", textParts(`He said "hi. {"name": "a", "arguments": {"s": "x"}}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "a", map[string]any{"s": "x"})}, Format: "json"}},

	// Invalid JSON and JSON that is not a call.
	{"invalid JSON", textParts(`{"name": "get_user", "arguments": {"user_id": }`),
		agent.Reply{Text: `{"name": "get_user", "arguments": {"user_id": }`, Format: "text"}},
	{"single-quoted JSON", textParts(`{'name': 'get_user', 'arguments': {}}`),
		agent.Reply{Text: `{'name': 'get_user', 'arguments': {}}`, Format: "text"}},
	{"JSON that is not a call", textParts(`{"name": "Alice", "email": "alice@example.com"}`),
		agent.Reply{Text: `{"name": "Alice", "email": "alice@example.com"}`, Format: "text"}},
	{"array that is not calls", textParts(`[{"name": "Alice"}, {"name": "Bob"}]`),
		agent.Reply{Text: `[{"name": "Alice"}, {"name": "Bob"}]`, Format: "text"}},
	{"JSON scalar", textParts(`42`), agent.Reply{Text: `42`, Format: "text"}},
	{"empty name", textParts(`{"name": "", "arguments": {}}`),
		agent.Reply{Text: `{"name": "", "arguments": {}}`, Format: "text"}},
	{"blank name", textParts(`{"name": "  ", "arguments": {}}`),
		agent.Reply{Text: `{"name": "  ", "arguments": {}}`, Format: "text"}},
	{"numeric name", textParts(`{"name": 7, "arguments": {}}`),
		agent.Reply{Text: `{"name": 7, "arguments": {}}`, Format: "text"}},
	{"arguments array", textParts(`{"name": "f", "arguments": [1, 2]}`),
		agent.Reply{Text: `{"name": "f", "arguments": [1, 2]}`, Format: "text"}},
	{"arguments string not an object", textParts(`{"name": "f", "arguments": "[1, 2]"}`),
		agent.Reply{Text: `{"name": "f", "arguments": "[1, 2]"}`, Format: "text"}},
	{"arguments string not JSON", textParts(`{"name": "f", "arguments": "user u-1"}`),
		agent.Reply{Text: `{"name": "f", "arguments": "user u-1"}`, Format: "text"}},
	{"one bad item rejects the list", textParts(`{"tool_calls": [{"name": "a"}, {"name": ""}]}`),
		agent.Reply{Text: `{"tool_calls": [{"name": "a"}, {"name": ""}]}`, Format: "text"}},
	{"tool_calls not a list", textParts(`{"tool_calls": {"name": "a"}}`),
		agent.Reply{Text: `{"tool_calls": {"name": "a"}}`, Format: "text"}},
	{"empty tool_calls", textParts(`{"tool_calls": []}`),
		agent.Reply{Text: `{"tool_calls": []}`, Format: "text"}},
	{"tool_call not an object", textParts(`{"tool_call": "get_user"}`),
		agent.Reply{Text: `{"tool_call": "get_user"}`, Format: "text"}},
	{"bare name without arguments", textParts(`{"name": "get_user"}`),
		agent.Reply{Text: `{"name": "get_user"}`, Format: "text"}},
	{"fence that is not a call", textParts("Here is your booking:\n```json\n{\"booking\": \"B-1\"}\n```"),
		agent.Reply{Text: "Here is your booking:\n```json\n{\"booking\": \"B-1\"}\n```", Format: "text"}},

	// Data parts.
	{"data part call", []*a2a.Part{a2a.NewDataPart(map[string]any{"name": "get_user", "arguments": map[string]any{"user_id": "u-1"}})},
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1"})}, Format: "data_part"}},
	{"data part kwargs", []*a2a.Part{a2a.NewDataPart(map[string]any{"name": "get_user", "kwargs": map[string]any{"user_id": "u-1"}})},
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1"})}, Format: "data_part"}},
	{"args", textParts(`{"name": "get_user", "args": {"user_id": "u-1"}}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1"})}, Format: "json"}},
	{"arguments win over args", textParts(`{"name": "f", "args": {"b": 2}, "arguments": {"a": 1}}`),
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "f", map[string]any{"a": json.Number("1")})}, Format: "json"}},
	// tRPC-Agent-Go v1.11.2 server/a2a: a function call is a data part
	// with the arguments JSON-encoded under "args"; a function response
	// (the framework ran the tool itself) is not a call.
	{"tRPC-Agent-Go function call", []*a2a.Part{a2a.NewDataPart(map[string]any{
		"id": "call_1", "type": "function", "name": "find_user_by_email", "args": `{"email":"omar.haddad@example.com"}`,
	})},
		agent.Reply{ToolCalls: []domains.ToolCall{call("call_1", "find_user_by_email", map[string]any{"email": "omar.haddad@example.com"})}, Format: "data_part"}},
	{"tRPC-Agent-Go function response", []*a2a.Part{a2a.NewDataPart(map[string]any{"id": "call_1", "name": "find_user_by_email", "response": `{"user_id":"u-1002"}`}), a2a.NewTextPart("Found you.")},
		agent.Reply{Text: "Found you.", Format: "text"}},
	// ADK: the arguments are an object under "args".
	{"ADK function call", []*a2a.Part{a2a.NewDataPart(map[string]any{"id": "adk-1", "name": "list_tasks", "args": map[string]any{"user_id": "u-1002"}})},
		agent.Reply{ToolCalls: []domains.ToolCall{call("adk-1", "list_tasks", map[string]any{"user_id": "u-1002"})}, Format: "data_part"}},
	{"data part tool_call", []*a2a.Part{a2a.NewDataPart(map[string]any{"tool_call": map[string]any{"name": "get_user"}})},
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", nil)}, Format: "data_part"}},
	{"data part tool_calls", []*a2a.Part{a2a.NewDataPart(map[string]any{"tool_calls": []any{
		map[string]any{"name": "a", "arguments": "{\"x\": 1}"},
		map[string]any{"id": "i2", "type": "function", "function": map[string]any{"name": "b", "arguments": map[string]any{}}},
	}})},
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "a", map[string]any{"x": json.Number("1")}), call("i2", "b", nil)}, Format: "data_part"}},
	{"data part respond", []*a2a.Part{a2a.NewDataPart(map[string]any{"name": "respond", "arguments": map[string]any{"content": "Hello"}})},
		agent.Reply{Text: "Hello", Format: "data_part"}},
	{"data part with text", []*a2a.Part{a2a.NewTextPart("Let me check."), a2a.NewDataPart(map[string]any{"tool_calls": []any{map[string]any{"name": "a"}}})},
		agent.Reply{Text: "Let me check.", ToolCalls: []domains.ToolCall{call("call-1", "a", nil)}, Format: "data_part"}},
	{"data parts win over text calls", []*a2a.Part{a2a.NewTextPart(`{"name": "x", "arguments": {}}`), a2a.NewDataPart(map[string]any{"name": "y", "arguments": map[string]any{}})},
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "y", nil)}, Format: "data_part"}},
	{"several data parts", []*a2a.Part{a2a.NewDataPart(map[string]any{"name": "a", "arguments": map[string]any{}}), a2a.NewDataPart(map[string]any{"name": "b", "arguments": map[string]any{}})},
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "a", nil), call("call-2", "b", nil)}, Format: "data_part"}},
	{"data part that is not a call", []*a2a.Part{a2a.NewTextPart("Your order shipped."), a2a.NewDataPart(map[string]any{"order": "O-1", "status": "shipped"})},
		agent.Reply{Text: "Your order shipped.", Format: "text"}},
	{"data part with a text call", []*a2a.Part{a2a.NewTextPart(`{"name": "a", "arguments": {}}`), a2a.NewDataPart(map[string]any{"status": "ok"})},
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "a", nil)}, Format: "json"}},
	{"data part array of calls", []*a2a.Part{a2a.NewDataPart([]any{map[string]any{"name": "a", "arguments": map[string]any{}}})},
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "a", nil)}, Format: "data_part"}},
	{"data part with Go types", []*a2a.Part{a2a.NewDataPart(struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}{"get_user", map[string]string{"user_id": "u-1"}})},
		agent.Reply{ToolCalls: []domains.ToolCall{call("call-1", "get_user", map[string]any{"user_id": "u-1"})}, Format: "data_part"}},
	{"data part bad name", []*a2a.Part{a2a.NewDataPart(map[string]any{"name": 3, "arguments": map[string]any{}})},
		agent.Reply{Format: "text"}},
	{"data part unencodable", []*a2a.Part{a2a.NewDataPart(map[string]any{"name": "a", "arguments": map[string]any{"ch": make(chan int)}})},
		agent.Reply{Format: "text"}},

	// Parts that are not text or data.
	{"file, raw and nil parts ignored", []*a2a.Part{nil, a2a.NewFileURLPart("https://example.com/x.json", "application/json"), a2a.NewRawPart([]byte(`{"name":"a","arguments":{}}`)), a2a.NewTextPart("ok")},
		agent.Reply{Text: "ok", Format: "text"}},
	{"empty part", []*a2a.Part{{}}, agent.Reply{Format: "text"}},
}

func TestParseReply(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseReply(tc.parts)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseReply mismatch (-want +got):\n%s", diff)
			}
			checkReply(t, got, true)
		})
	}
}

// checkReply asserts the invariants every parsed reply satisfies.
func checkReply(t *testing.T, r agent.Reply, validUTF8 bool) {
	t.Helper()
	switch r.Format {
	case "text", "json", "fenced_json", "json_tag", "data_part":
	default:
		t.Errorf("unknown format %q", r.Format)
	}
	if r.Format == "text" && len(r.ToolCalls) > 0 {
		t.Errorf("format text with %d tool calls", len(r.ToolCalls))
	}
	if r.Text != strings.TrimSpace(r.Text) {
		t.Errorf("text %q is not trimmed", r.Text)
	}
	if validUTF8 && !utf8.ValidString(r.Text) {
		t.Errorf("text %q is not valid UTF-8", r.Text)
	}
	if len(r.ToolCalls) > maxToolCalls {
		t.Errorf("%d tool calls, more than %d", len(r.ToolCalls), maxToolCalls)
	}
	ids := map[string]bool{}
	for i, c := range r.ToolCalls {
		if c.Name == "" || c.Name != strings.TrimSpace(c.Name) || c.Name == RespondTool {
			t.Errorf("call %d has bad name %q", i, c.Name)
		}
		if c.Arguments == nil {
			t.Errorf("call %d (%s) has nil arguments", i, c.Name)
		}
		if c.ID == "" || ids[c.ID] {
			t.Errorf("call %d (%s) has empty or duplicate id %q", i, c.Name, c.ID)
		}
		ids[c.ID] = true
	}
}

// TestParseReplyHostile feeds inputs built to be slow or deep; each must be
// handled quickly and end up as plain text.
func TestParseReplyHostile(t *testing.T) {
	const mb = 1 << 20
	deepMap := map[string]any{}
	cur := deepMap
	for range 10_000 {
		next := map[string]any{}
		cur["a"] = next
		cur = next
	}
	cyclic := map[string]any{"name": "a"}
	cyclic["arguments"] = cyclic
	cases := []struct {
		name  string
		parts []*a2a.Part
	}{
		{"megabytes of open braces", textParts(strings.Repeat("{", 3*mb))},
		{"megabytes of brace pairs", textParts(strings.Repeat("{}", mb))},
		{"megabytes of tiny objects", textParts(strings.Repeat(`{"a":1} `, mb/4))},
		{"deep arrays", textParts(strings.Repeat("[", mb) + strings.Repeat("]", mb))},
		{"deep objects", textParts(strings.Repeat(`{"a":`, mb/5) + "1" + strings.Repeat("}", mb/5))},
		{"deep call arguments", textParts(`{"name":"f","arguments":` + strings.Repeat(`{"a":`, 10_000) + "1" + strings.Repeat("}", 10_001))},
		{"deep string arguments", textParts(`{"name":"f","arguments":"` + strings.Repeat(`{\"a\":`, 10_000) + "1" + strings.Repeat("}", 10_000) + `"}`)},
		{"many fences", textParts(strings.Repeat("```json\n{\"a\":[1,2,3]}\n```\n", mb/24))},
		{"many tags", textParts(strings.Repeat("<json>{\"a\":1}</json>", mb/20))},
		{"unclosed string", textParts(`{"` + strings.Repeat("a", 2*mb))},
		{"nested unclosed objects", textParts(strings.Repeat(`{"a": "x", "b": `, mb/16))},
		{"huge text", textParts(strings.Repeat("x{", 3*mb))},
		{"deep data part", []*a2a.Part{a2a.NewDataPart(deepMap)}},
		{"cyclic data part", []*a2a.Part{a2a.NewDataPart(cyclic)}},
		{"many calls", textParts(`{"tool_calls":[` + strings.Repeat(`{"name":"a"},`, maxToolCalls) + `{"name":"a"}]}`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r := ParseReply(tc.parts)
			elapsed := time.Since(start)
			checkReply(t, r, true)
			if len(r.ToolCalls) != 0 {
				t.Errorf("got %d tool calls from hostile input", len(r.ToolCalls))
			}
			if elapsed > 5*time.Second {
				t.Errorf("took %v", elapsed)
			}
			t.Logf("%v", elapsed)
		})
	}
}

// roundTripCalls are calls as an agent would make them.
var roundTripCalls = []domains.ToolCall{
	{Name: "get_user", Arguments: map[string]any{"user_id": "u-1001"}},
	{Name: "list_all", Arguments: map[string]any{}},
	{Name: "book", Arguments: map[string]any{
		"passengers": []any{map[string]any{"name": "Ann \"Jr\"", "age": 7.0}},
		"insurance":  true, "note": nil, "price": 123.45, "count": -3.0,
		"text": "braces } { ] [ and \\ backslash, `fence` </json> ```",
	}},
	{Name: "unicode_tool", Arguments: map[string]any{"city": "Zürich 東京 🚀", "empty": ""}},
	{Name: "nested", Arguments: map[string]any{"a": map[string]any{"b": map[string]any{"c": []any{[]any{}, map[string]any{}}}}}},
}

// asWritten is what the parser should give for arguments as Go's encoder
// writes them: the same values, numbers as the literals written.
func asWritten(t *testing.T, args map[string]any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := decodeLiterals(string(raw), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// presentations wrap an agent's JSON the ways agents do.
var presentations = map[string]func(string) string{
	"bare":   func(s string) string { return s },
	"prose":  func(s string) string { return "Sure, calling the tool now.\n" + s + "\nThanks!" },
	"fenced": func(s string) string { return "```json\n" + s + "\n```" },
	"tagged": func(s string) string { return "<json>" + s + "</json>" },
}

func TestRoundTrip(t *testing.T) {
	check := func(t *testing.T, want domains.ToolCall) {
		t.Helper()
		raw, err := json.Marshal(map[string]any{"name": want.Name, "arguments": want.Arguments})
		if err != nil {
			t.Fatal(err)
		}
		for pname, present := range presentations {
			r := ParseReply(textParts(present(string(raw))))
			if len(r.ToolCalls) != 1 || r.Text != "" {
				t.Fatalf("%s %s: got %#v", pname, raw, r)
			}
			got := r.ToolCalls[0]
			if got.Name != want.Name || !cmp.Equal(got.Arguments, asWritten(t, want.Arguments)) || got.ID != "call-1" {
				t.Errorf("%s: got %#v, want %#v", pname, got, want)
			}
		}
	}
	for _, c := range roundTripCalls {
		t.Run(c.Name, func(t *testing.T) { check(t, c) })
	}

	// All calls at once, as tool_calls and as an array, keep their order.
	items := make([]map[string]any, len(roundTripCalls))
	for i, c := range roundTripCalls {
		items[i] = map[string]any{"name": c.Name, "arguments": c.Arguments}
	}
	for _, v := range []any{map[string]any{"tool_calls": items}, items} {
		raw, _ := json.Marshal(v)
		r := ParseReply(textParts(string(raw)))
		if len(r.ToolCalls) != len(roundTripCalls) {
			t.Fatalf("got %d calls from %s", len(r.ToolCalls), raw)
		}
		for i, got := range r.ToolCalls {
			want := roundTripCalls[i]
			if got.Name != want.Name || !cmp.Equal(got.Arguments, asWritten(t, want.Arguments)) || got.ID != fmt.Sprintf("call-%d", i+1) {
				t.Errorf("call %d: got %#v, want %#v", i, got, want)
			}
		}
	}

	// Random calls.
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		want := domains.ToolCall{Name: randName(rng), Arguments: randObject(rng, 3)}
		t.Run(fmt.Sprintf("random-%d", i), func(t *testing.T) { check(t, want) })
	}
}

func randName(rng *rand.Rand) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz_0123456789"
	b := make([]byte, 1+rng.IntN(20))
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	if string(b) == RespondTool {
		return "respond_"
	}
	return string(b)
}

func randString(rng *rand.Rand) string {
	pieces := []string{"a", "Z", " ", "{", "}", "[", "]", `"`, `\`, "\n", "```", "<json>", "</json>", "é", "東", "🚀", ":", ","}
	var b strings.Builder
	for range rng.IntN(12) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

func randValue(rng *rand.Rand, depth int) any {
	k := rng.IntN(7)
	if depth <= 0 && k >= 5 {
		k = rng.IntN(5)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return rng.IntN(2) == 0
	case 2:
		return float64(rng.IntN(2000) - 1000)
	case 3:
		return rng.NormFloat64() * 1e6
	case 4:
		return randString(rng)
	case 5:
		arr := make([]any, rng.IntN(4))
		for i := range arr {
			arr[i] = randValue(rng, depth-1)
		}
		return arr
	}
	return randObject(rng, depth-1)
}

func randObject(rng *rand.Rand, depth int) map[string]any {
	m := map[string]any{}
	for range rng.IntN(5) {
		m[randString(rng)] = randValue(rng, depth)
	}
	return m
}
