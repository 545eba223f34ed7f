package translation

import (
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2apb/v1/pbconv"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
)

// testOutcomes are the results of three calls, one of them failed.
var testOutcomes = []agent.ToolOutcome{
	{Call: call("call-1", "get_user", map[string]any{"user_id": "u-1"}), Result: domains.ToolResult{Content: `{"name":"Ann <A&B>"}`}},
	{Call: call("mine", "book_flight", map[string]any{"flight": "HAT001"}), Result: domains.ToolResult{Content: "flight full", Error: true}},
	{Call: call("call-3", "no_schema", nil), Result: domains.ToolResult{Content: ""}},
}

// wantResults is testOutcomes as the agent should read them back.
var wantResults = []toolResult{
	{ToolCallID: "call-1", Name: "get_user", Content: `{"name":"Ann <A&B>"}`},
	{ToolCallID: "mine", Name: "book_flight", Content: "flight full", Error: true},
	{ToolCallID: "call-3", Name: "no_schema", Content: ""},
}

// wantToolNames are the tools of testSetup as every profile lists them.
var wantToolNames = []string{"get_user", "book_flight", "broken_schema", "no_schema"}

// onlyText returns the text of a message that must be one text part.
func onlyText(t *testing.T, parts []*a2a.Part) string {
	t.Helper()
	if len(parts) != 1 {
		t.Fatalf("got %d parts, want one text part", len(parts))
	}
	txt, ok := parts[0].Content.(a2a.Text)
	if !ok {
		t.Fatalf("part is %T, want text", parts[0].Content)
	}
	return string(txt)
}

// decodeStrict decodes exactly one JSON value from s into v, rejecting
// unknown fields and trailing data.
func decodeStrict(t *testing.T, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("does not decode into %T: %v\n%s", v, err, s)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("trailing data after JSON value:\n%s", s)
	}
}

// decodeResultsText decodes a tool results object from JSON text and
// checks that ToolResultsKey is its only key.
func decodeResultsText(t *testing.T, s string) []toolResult {
	t.Helper()
	var keys map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &keys); err != nil || len(keys) != 1 || keys[ToolResultsKey] == nil {
		t.Fatalf("not a %q object (%v):\n%s", ToolResultsKey, err, s)
	}
	var r toolResults
	decodeStrict(t, s, &r)
	return r.ToolResults
}

// decodeResultsData decodes the tool results object of a data part.
func decodeResultsData(t *testing.T, p *a2a.Part) []toolResult {
	t.Helper()
	m, ok := p.Data().(map[string]any)
	if !ok {
		t.Fatalf("part is %T (%#v), want a data part holding an object", p.Content, p.Content)
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return decodeResultsText(t, string(raw))
}

// tau2Tool is one entry of the tau2-a2a tool list.
type tau2Tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// tau2ToolList decodes the last <available_tools> block of a message.
func tau2ToolList(t *testing.T, msg string) []tau2Tool {
	t.Helper()
	open := strings.LastIndex(msg, "\n"+AvailableToolsOpen+"\n")
	end := strings.LastIndex(msg, "\n"+AvailableToolsClose+"\n")
	if open < 0 || end < open {
		t.Fatalf("no tool list in:\n%s", msg)
	}
	var tools []tau2Tool
	decodeStrict(t, msg[open+len(AvailableToolsOpen)+2:end], &tools)
	return tools
}

// structuredSetup checks that a structured first message is a text part
// and a setup data part with exactly the documented keys, and returns them.
func structuredSetup(t *testing.T, parts []*a2a.Part) (string, map[string]any) {
	t.Helper()
	if len(parts) != 2 {
		t.Fatalf("got %d parts, want text and data", len(parts))
	}
	txt, ok := parts[0].Content.(a2a.Text)
	if !ok {
		t.Fatalf("part 0 is %T, want text", parts[0].Content)
	}
	data, ok := parts[1].Data().(map[string]any)
	if !ok {
		t.Fatalf("part 1 is %T (%#v), want a data part holding an object", parts[1].Content, parts[1].Content)
	}
	var keys []string
	for k := range data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{SetupPolicyKey, SetupReplyFormatKey, SetupToolsKey}; !slices.Equal(keys, want) {
		t.Fatalf("setup keys = %v, want %v", keys, want)
	}
	return string(txt), data
}

// structuredTools decodes the tools of a setup data part.
func structuredTools(t *testing.T, setup map[string]any) []renderedTool {
	t.Helper()
	if _, ok := setup[SetupToolsKey].([]any); !ok {
		t.Fatalf("tools are %T, want generic JSON []any", setup[SetupToolsKey])
	}
	raw, err := json.Marshal(setup[SetupToolsKey])
	if err != nil {
		t.Fatal(err)
	}
	var tools []renderedTool
	decodeStrict(t, string(raw), &tools)
	return tools
}

// checkToolSchemas checks the tools' names, in order, and their schemas.
func checkToolSchemas(t *testing.T, names []string, params []map[string]any, descriptions []string) {
	t.Helper()
	if !slices.Equal(names, wantToolNames) {
		t.Fatalf("tools = %v, want %v", names, wantToolNames)
	}
	for i, p := range params {
		if p["type"] != "object" {
			t.Errorf("tool %s parameters are not an object schema: %v", names[i], p)
		}
		if _, ok := p["properties"].(map[string]any); !ok {
			t.Errorf("tool %s parameters have no properties: %v", names[i], p)
		}
		if descriptions[i] != testSetup.Tools[i].Description {
			t.Errorf("tool %s description = %q", names[i], descriptions[i])
		}
	}
	if diff := cmp.Diff([]any{"flight"}, params[1]["required"]); diff != "" {
		t.Errorf("book_flight required mismatch (-want +got):\n%s", diff)
	}
}

func TestTau2A2AFirstMessage(t *testing.T) {
	p, err := ProfileByName(agent.ProfileTau2A2A)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		in   agent.Input
		body string // what stands between the policy and the tool list
	}{
		{"user text", agent.Input{UserText: "Hi, I want to book a flight.\nToday."}, "Hi, I want to book a flight.\nToday.\n\n"},
		{"user text naming the markers", agent.Input{UserText: "What is " + AvailableToolsOpen + "?"}, "What is " + AvailableToolsOpen + "?\n\n"},
		{"empty input", agent.Input{}, ""},
		{"tool results", agent.Input{ToolResults: testOutcomes}, "{\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg := onlyText(t, p.Render(testSetup, true, tc.in))
			head := PolicyOpen + "\n" + testSetup.Policy + "\n" + PolicyClose + "\n\n" + tc.body
			if !strings.HasPrefix(msg, head) {
				t.Errorf("message does not start with %q:\n%s", head, msg)
			}
			if len(tc.in.ToolResults) > 0 {
				body := msg[len(PolicyOpen+"\n"+testSetup.Policy+"\n"+PolicyClose+"\n\n"):strings.LastIndex(msg, "\n\n"+AvailableToolsOpen+"\n")]
				if diff := cmp.Diff(wantResults, decodeResultsText(t, body)); diff != "" {
					t.Errorf("results mismatch (-want +got):\n%s", diff)
				}
			}
			if tc.body == "" && !strings.HasPrefix(msg, PolicyOpen+"\n"+testSetup.Policy+"\n"+PolicyClose+"\n\n"+AvailableToolsOpen+"\n") {
				t.Errorf("empty input leaves a gap:\n%s", msg)
			}
			for _, want := range []string{
				`{"tool_call": {"name": "<tool name>", "arguments": {...}}}`,
				`{"tool_calls": [{"name": "<tool name>", "arguments": {...}}, ...]}`,
				`{"tool_results": [{"tool_call_id": "call-1", "name": "<tool name>", "content": `,
				"plain text",
			} {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q:\n%s", want, msg)
				}
			}
			for _, tool := range testSetup.Tools {
				if !strings.Contains(msg, `"name": "`+tool.Name+`"`) {
					t.Errorf("message lacks tool %s", tool.Name)
				}
			}
			if strings.Contains(msg, `"`+RespondTool+`"`) {
				t.Errorf("message offers the %s pseudo-tool:\n%s", RespondTool, msg)
			}

			tools := tau2ToolList(t, msg)
			var names, descriptions []string
			var params []map[string]any
			for _, tool := range tools {
				names = append(names, tool.Name)
				descriptions = append(descriptions, tool.Description)
				params = append(params, tool.Parameters)
			}
			checkToolSchemas(t, names, params, descriptions)
			if !strings.HasSuffix(msg, "\n"+AvailableToolsClose+"\n\n"+tau2Instructions) {
				t.Errorf("message does not end with the tool list and the instructions:\n%s", msg)
			}
		})
	}
}

func TestTau2A2ALaterMessages(t *testing.T) {
	p, _ := ProfileByName(agent.ProfileTau2A2A)
	cases := []struct {
		name     string
		in       agent.Input
		wantText string       // the whole message, when results is nil
		results  []toolResult // the tool results the message starts with
		after    string       // what follows the results object
	}{
		{name: "user text", in: agent.Input{UserText: "My id is u-1.\nThanks"}, wantText: "My id is u-1.\nThanks"},
		{name: "user text that looks like JSON", in: agent.Input{UserText: `{"a": 1}`}, wantText: `{"a": 1}`},
		{name: "empty input", in: agent.Input{}, wantText: ""},
		{name: "tool results", in: agent.Input{ToolResults: testOutcomes}, results: wantResults},
		{name: "results then user text", in: agent.Input{ToolResults: testOutcomes[:1], UserText: "Also this."}, results: wantResults[:1], after: "\n\nAlso this."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg := onlyText(t, p.Render(testSetup, false, tc.in))
			if strings.Contains(msg, PolicyOpen) || strings.Contains(msg, AvailableToolsOpen) {
				t.Errorf("later message repeats the setup:\n%s", msg)
			}
			if tc.results == nil {
				if msg != tc.wantText {
					t.Errorf("message = %q, want %q", msg, tc.wantText)
				}
				return
			}
			dec := json.NewDecoder(strings.NewReader(msg))
			var first json.RawMessage
			if err := dec.Decode(&first); err != nil {
				t.Fatalf("message does not start with JSON: %v\n%s", err, msg)
			}
			if diff := cmp.Diff(tc.results, decodeResultsText(t, string(first))); diff != "" {
				t.Errorf("results mismatch (-want +got):\n%s", diff)
			}
			if rest := msg[dec.InputOffset():]; rest != tc.after {
				t.Errorf("after the results: %q, want %q", rest, tc.after)
			}
			if !strings.Contains(msg, `"content": "{\"name\":\"Ann <A&B>\"}"`) {
				t.Errorf("content escaped for HTML or altered:\n%s", msg)
			}
		})
	}
}

func TestStructuredFirstMessage(t *testing.T) {
	p, err := ProfileByName(agent.ProfileStructured)
	if err != nil {
		t.Fatal(err)
	}
	parts := p.Render(testSetup, true, agent.Input{UserText: "Hi, I want to book a flight."})
	text, setup := structuredSetup(t, parts)
	if text != "Hi, I want to book a flight." {
		t.Errorf("text part = %q", text)
	}
	if setup[SetupPolicyKey] != testSetup.Policy {
		t.Errorf("policy = %#v", setup[SetupPolicyKey])
	}
	format, _ := setup[SetupReplyFormatKey].(string)
	for _, want := range []string{
		`{"tool_calls": [{"name": "<tool name>", "arguments": {...}}, ...]}`,
		`{"tool_results": [{"tool_call_id": "call-1", "name": "<tool name>", "content": `,
		"data part", "policy", "reply with text",
	} {
		if !strings.Contains(format, want) {
			t.Errorf("reply format lacks %q: %q", want, format)
		}
	}

	tools := structuredTools(t, setup)
	var names, descriptions []string
	var params []map[string]any
	for _, tool := range tools {
		if tool.Type != "function" {
			t.Errorf("tool %s has type %q", tool.Function.Name, tool.Type)
		}
		names = append(names, tool.Function.Name)
		descriptions = append(descriptions, tool.Function.Description)
		params = append(params, tool.Function.Parameters)
	}
	checkToolSchemas(t, names, params, descriptions)

	// The setup follows tool results too, and an empty input still has a
	// text part.
	parts = p.Render(testSetup, true, agent.Input{ToolResults: testOutcomes})
	if len(parts) != 2 || !cmp.Equal(decodeResultsData(t, parts[0]), wantResults) {
		t.Fatalf("first message with tool results: %d parts", len(parts))
	}
	if _, ok := parts[1].Data().(map[string]any)[SetupToolsKey]; !ok {
		t.Errorf("setup is not the last part")
	}
	if text, _ := structuredSetup(t, p.Render(testSetup, true, agent.Input{})); text != "" {
		t.Errorf("empty input text = %q", text)
	}
}

func TestStructuredLaterMessages(t *testing.T) {
	p, _ := ProfileByName(agent.ProfileStructured)
	cases := []struct {
		name string
		in   agent.Input
		// want lists the parts: a string for a text part, a []toolResult
		// for a tool results data part.
		want []any
	}{
		{"user text", agent.Input{UserText: "My id is u-1."}, []any{"My id is u-1."}},
		{"empty input", agent.Input{}, []any{""}},
		{"tool results", agent.Input{ToolResults: testOutcomes}, []any{wantResults}},
		{"results then user text", agent.Input{ToolResults: testOutcomes[2:], UserText: "Also this."}, []any{wantResults[2:], "Also this."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parts := p.Render(testSetup, false, tc.in)
			if len(parts) != len(tc.want) {
				t.Fatalf("got %d parts, want %d", len(parts), len(tc.want))
			}
			for i, want := range tc.want {
				switch w := want.(type) {
				case string:
					if txt, ok := parts[i].Content.(a2a.Text); !ok || string(txt) != w {
						t.Errorf("part %d = %#v, want text %q", i, parts[i].Content, w)
					}
				case []toolResult:
					if diff := cmp.Diff(w, decodeResultsData(t, parts[i])); diff != "" {
						t.Errorf("part %d results (-want +got):\n%s", i, diff)
					}
					items, ok := parts[i].Data().(map[string]any)[ToolResultsKey].([]any)
					if !ok || len(items) != len(w) {
						t.Fatalf("results are not generic JSON: %#v", parts[i].Data())
					}
					if _, ok := items[0].(map[string]any)["error"].(bool); !ok {
						t.Errorf("error flag is not a boolean: %#v", items[0])
					}
				}
			}
		})
	}
}

// TestRespondToolLeftOut checks that no profile offers a domain tool named
// like the pseudo-tool: ParseReply would turn its calls into text.
func TestRespondToolLeftOut(t *testing.T) {
	setup := agent.Setup{Policy: "p", Tools: []domains.ToolSpec{
		{Name: RespondTool, Parameters: json.RawMessage(`{"type":"object"}`)},
		{Name: "real", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
	}}
	tau2, _ := ProfileByName(agent.ProfileTau2A2A)
	tools := tau2ToolList(t, onlyText(t, tau2.Render(setup, true, agent.Input{UserText: "hi"})))
	if len(tools) != 1 || tools[0].Name != "real" {
		t.Errorf("tau2-a2a tools = %+v", tools)
	}
	st, _ := ProfileByName(agent.ProfileStructured)
	_, data := structuredSetup(t, st.Render(setup, true, agent.Input{UserText: "hi"}))
	if got := structuredTools(t, data); len(got) != 1 || got[0].Function.Name != "real" {
		t.Errorf("structured tools = %+v", got)
	}
	// No tools at all is an empty list, not null.
	if tools := tau2ToolList(t, onlyText(t, tau2.Render(agent.Setup{}, true, agent.Input{UserText: "hi"}))); tools == nil || len(tools) != 0 {
		t.Errorf("tau2-a2a tools without tools = %#v", tools)
	}
	_, data = structuredSetup(t, st.Render(agent.Setup{}, true, agent.Input{UserText: "hi"}))
	if got, ok := data[SetupToolsKey].([]any); !ok || len(got) != 0 {
		t.Errorf("structured tools without tools = %#v", data[SetupToolsKey])
	}
}

// overWire sends parts through the A2A JSON encoding, as an HTTP
// transport would, and returns what the other side decodes.
func overWire(t *testing.T, parts []*a2a.Part) []*a2a.Part {
	t.Helper()
	raw, err := json.Marshal(a2a.NewMessage(a2a.MessageRoleUser, parts...))
	if err != nil {
		t.Fatalf("message does not encode: %v", err)
	}
	var back a2a.Message
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatalf("message does not decode: %v\n%s", err, raw)
	}
	return back.Parts
}

// TestRenderedMessagesTravel checks that every profile's messages survive
// each wire encoding unchanged: JSON, protobuf (gRPC, which accepts only
// objects of generic JSON values in data parts) and protocol 0.3.
func TestRenderedMessagesTravel(t *testing.T) {
	inputs := []struct {
		first bool
		in    agent.Input
	}{
		{true, agent.Input{UserText: "Hi"}},
		{false, agent.Input{UserText: "More"}},
		{false, agent.Input{ToolResults: testOutcomes}},
	}
	for _, name := range ProfileNames() {
		p, _ := ProfileByName(agent.ProfileName(name))
		for _, c := range inputs {
			parts := p.Render(testSetup, c.first, c.in)
			if diff := cmp.Diff(parts, overWire(t, parts)); diff != "" {
				t.Errorf("%s: JSON changes the message (-want +got):\n%s", name, diff)
			}

			msg := a2a.NewMessage(a2a.MessageRoleUser, parts...)
			pb, err := pbconv.ToProtoSendMessageRequest(&a2a.SendMessageRequest{Message: msg})
			if err != nil {
				t.Fatalf("%s: protobuf rejects the message: %v", name, err)
			}
			back, err := pbconv.FromProtoSendMessageRequest(pb)
			if err != nil {
				t.Fatalf("%s: protobuf: %v", name, err)
			}
			if diff := cmp.Diff(a2a.ContentParts(parts), back.Message.Parts); diff != "" {
				t.Errorf("%s: protobuf changes the message (-want +got):\n%s", name, diff)
			}

			for i, lp := range a2av0.FromV1Message(msg).Parts {
				if diff := cmp.Diff(parts[i], a2av0.ToV1Part(lp)); diff != "" {
					t.Errorf("%s: protocol 0.3 changes part %d (-want +got):\n%s", name, i, diff)
				}
			}
		}
	}
}

// agentCall is a call as a simulated agent makes it; id is optional.
type agentCall struct {
	id   string
	name string
	args map[string]any
}

func (c agentCall) object() map[string]any {
	m := map[string]any{"name": c.name, "arguments": c.args}
	if c.id != "" {
		m["id"] = c.id
	}
	return m
}

// simAgent is an agent written against one profile, as its documentation
// describes it.
type simAgent struct {
	profile agent.ProfileName
	// tools reads the tool names from the first message.
	tools func(t *testing.T, parts []*a2a.Part) []string
	// reply makes calls in the profile's reply format.
	reply func(calls []agentCall) []*a2a.Part
	// results reads the tool results of a later message.
	results func(t *testing.T, parts []*a2a.Part) []toolResult
	// format is the Reply.Format the reply parses with.
	format agent.ReplyFormat
	// text is the Reply.Text of a reply with calls.
	text string
}

func tau2Reply(calls []agentCall) []*a2a.Part {
	var v any
	if len(calls) == 1 {
		v = map[string]any{ToolCallKey: calls[0].object()}
	} else {
		items := make([]any, len(calls))
		for i, c := range calls {
			items[i] = c.object()
		}
		v = map[string]any{ToolCallsKey: items}
	}
	raw, _ := json.Marshal(v)
	return []*a2a.Part{a2a.NewTextPart(string(raw))}
}

var simAgents = []simAgent{
	{
		profile: agent.ProfileTau2A2A,
		tools: func(t *testing.T, parts []*a2a.Part) []string {
			var names []string
			for _, tool := range tau2ToolList(t, onlyText(t, parts)) {
				names = append(names, tool.Name)
			}
			return names
		},
		reply: tau2Reply,
		results: func(t *testing.T, parts []*a2a.Part) []toolResult {
			return decodeResultsText(t, onlyText(t, parts))
		},
		format: "json",
	},
	{
		profile: agent.ProfileStructured,
		tools: func(t *testing.T, parts []*a2a.Part) []string {
			_, setup := structuredSetup(t, parts)
			var names []string
			for _, tool := range structuredTools(t, setup) {
				names = append(names, tool.Function.Name)
			}
			return names
		},
		reply: func(calls []agentCall) []*a2a.Part {
			items := make([]any, len(calls))
			for i, c := range calls {
				items[i] = c.object()
			}
			return []*a2a.Part{
				a2a.NewTextPart("Let me check that for you."),
				a2a.NewDataPart(map[string]any{ToolCallsKey: items}),
			}
		},
		results: func(t *testing.T, parts []*a2a.Part) []toolResult {
			if len(parts) != 1 {
				t.Fatalf("got %d parts, want one data part", len(parts))
			}
			return decodeResultsData(t, parts[0])
		},
		format: "data_part",
		// Text next to data-part calls is kept (the user does not see it).
		text: "Let me check that for you.",
	},
	{
		// An agent of the structured profile that cannot send data parts.
		profile: agent.ProfileStructured,
		tools: func(t *testing.T, parts []*a2a.Part) []string {
			_, setup := structuredSetup(t, parts)
			var names []string
			for _, tool := range structuredTools(t, setup) {
				names = append(names, tool.Function.Name)
			}
			return names
		},
		reply: func(calls []agentCall) []*a2a.Part {
			items := make([]any, len(calls))
			for i, c := range calls {
				items[i] = c.object()
			}
			raw, _ := json.Marshal(map[string]any{ToolCallsKey: items})
			return []*a2a.Part{a2a.NewTextPart(string(raw))}
		},
		results: func(t *testing.T, parts []*a2a.Part) []toolResult {
			return decodeResultsData(t, parts[0])
		},
		format: "json",
	},
}

// TestProfileRoundTrip plays whole exchanges: the agent reads the tools
// from the first message, calls several of them in its profile's reply
// format, proctor parses the calls, runs them and sends the results, the
// agent maps the results to its calls, calls one more tool, then talks to
// the user.
func TestProfileRoundTrip(t *testing.T) {
	for _, a := range simAgents {
		t.Run(string(a.profile)+"/"+string(a.format), func(t *testing.T) {
			p, err := ProfileByName(a.profile)
			if err != nil {
				t.Fatal(err)
			}
			names := a.tools(t, overWire(t, p.Render(testSetup, true, agent.Input{UserText: "Book HAT001 for u-1."})))
			if !slices.Equal(names, wantToolNames) {
				t.Fatalf("agent sees tools %v", names)
			}

			turns := [][]agentCall{
				{
					{name: names[0], args: map[string]any{"user_id": "u-1"}},
					{id: "mine", name: names[1], args: map[string]any{
						"flight": "HAT001", "seats": json.Number("2"), "note": `<ok> & "quoted" }{`,
						"passengers": []any{map[string]any{"name": "Ann"}},
					}},
					{name: names[3], args: map[string]any{}},
				},
				{{name: names[2], args: map[string]any{"x": true}}},
			}
			for turn, calls := range turns {
				reply := ParseReply(overWire(t, a.reply(calls)))
				if reply.Format != a.format || reply.Text != a.text {
					t.Errorf("turn %d: format %q, text %q", turn, reply.Format, reply.Text)
				}
				if len(reply.ToolCalls) != len(calls) {
					t.Fatalf("turn %d: got %d calls, want %d: %#v", turn, len(reply.ToolCalls), len(calls), reply.ToolCalls)
				}
				var outcomes []agent.ToolOutcome
				var want []toolResult
				for i, c := range calls {
					got := reply.ToolCalls[i]
					wantID := c.id
					if wantID == "" {
						wantID = "call-" + strconv.Itoa(i+1)
					}
					if got.ID != wantID || got.Name != c.name || !cmp.Equal(got.Arguments, c.args) {
						t.Errorf("turn %d call %d = %#v, want %s %s %v", turn, i, got, wantID, c.name, c.args)
					}
					res := domains.ToolResult{Content: "result of " + c.name, Error: i == 1}
					outcomes = append(outcomes, agent.ToolOutcome{Call: got, Result: res})
					want = append(want, toolResult{ToolCallID: wantID, Name: c.name, Content: res.Content, Error: res.Error})
				}
				back := a.results(t, overWire(t, p.Render(testSetup, false, agent.Input{ToolResults: outcomes})))
				if diff := cmp.Diff(want, back); diff != "" {
					t.Errorf("turn %d: agent reads results (-want +got):\n%s", turn, diff)
				}
			}

			// Plain text is the answer to the user.
			reply := ParseReply(overWire(t, []*a2a.Part{a2a.NewTextPart("Your flight HAT001 is booked.")}))
			if reply.Text != "Your flight HAT001 is booked." || len(reply.ToolCalls) != 0 {
				t.Errorf("answer = %#v", reply)
			}
		})
	}
}

func TestProfileNames(t *testing.T) {
	want := []string{string(agent.ProfileAgentBeats), string(agent.ProfileStructured), string(agent.ProfileTau2A2A)}
	if got := ProfileNames(); !slices.Equal(got, want) || !slices.IsSorted(got) {
		t.Errorf("ProfileNames = %v, want %v", got, want)
	}
	if want[0] != "agentbeats" || want[1] != "structured" || want[2] != "tau2-a2a" {
		t.Errorf("profile names changed: %v", want)
	}
	for _, tc := range []struct{ name, want agent.ProfileName }{
		{"", "agentbeats"},
		{"agentbeats", "agentbeats"},
		{"tau2-a2a", "tau2-a2a"},
		{"structured", "structured"},
	} {
		p, err := ProfileByName(tc.name)
		if err != nil || p.Name() != tc.want {
			t.Errorf("ProfileByName(%q) = %v, %v; want %s", tc.name, p, err, tc.want)
		}
	}
	for _, bad := range []agent.ProfileName{"nope", "Tau2-A2A", " structured"} {
		_, err := ProfileByName(bad)
		if err == nil || !strings.Contains(err.Error(), "agentbeats, structured, tau2-a2a") {
			t.Errorf("ProfileByName(%q) error = %v", bad, err)
		}
	}
}

// TestEchoedPromptIsText checks that an agent that echoes what it was told,
// examples of the reply format included, makes no tool calls.
func TestEchoedPromptIsText(t *testing.T) {
	for _, name := range ProfileNames() {
		p, _ := ProfileByName(agent.ProfileName(name))
		for _, first := range []bool{true, false} {
			parts := p.Render(testSetup, first, agent.Input{UserText: "hi", ToolResults: testOutcomes})
			if r := ParseReply(parts); len(r.ToolCalls) != 0 {
				t.Errorf("%s (first %v): echo parses as calls %#v", name, first, r.ToolCalls)
			}
		}
	}
}
