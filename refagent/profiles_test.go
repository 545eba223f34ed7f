package refagent

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/translation"
)

// render frames a message to the agent as proctor does.
func render(t *testing.T, d *domains.Domain, profile agent.ProfileName, first bool, in agent.Input) []*a2a.Part {
	t.Helper()
	return profileByName(t, profile).Render(agent.Setup{Policy: d.Policy, Tools: d.Tools}, first, in)
}

func TestParseFirstDetectsTheProfile(t *testing.T) {
	d := mockDomain(t)
	tools := d.ToolNames()
	tests := []struct {
		name    string
		profile agent.ProfileName
		user    string
	}{
		{"agentbeats", agent.ProfileAgentBeats, "Hi, I'm jane@example.com."},
		{"tau2-a2a", agent.ProfileTau2A2A, "Hi, I'm jane@example.com."},
		{"structured", agent.ProfileStructured, "Hi, I'm jane@example.com."},
		{"tau2-a2a, several lines", agent.ProfileTau2A2A, "Hi.\n\nI'm jane@example.com,\nplease list my tasks."},
		{"tau2-a2a, user quotes agentbeats", agent.ProfileTau2A2A, "User message: hello\nTool call result (x):\nok"},
		{"tau2-a2a, user quotes a tool block", agent.ProfileTau2A2A, "see\n" + translation.AvailableToolsOpen + "\n[]\n" + translation.AvailableToolsClose},
		{"agentbeats, user quotes a tool block", agent.ProfileAgentBeats, "see\n" + translation.AvailableToolsOpen + "\n[]\n" + translation.AvailableToolsClose},
		{"structured, user quotes the policy", agent.ProfileStructured, translation.PolicyOpen + "\nx\n" + translation.PolicyClose},
		{"empty user text", agent.ProfileStructured, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parts := render(t, d, tc.profile, true, agent.Input{UserText: tc.user})
			got, ok := parseFirst(readMessage(parts))
			if !ok {
				t.Fatal("not recognised as a first message")
			}
			wantTools := tools
			if tc.profile == agent.ProfileAgentBeats {
				wantTools = append(slices.Clone(tools), translation.RespondTool)
			}
			want := input{First: true, Profile: tc.profile, Policy: strings.TrimSpace(d.Policy), Tools: wantTools, User: tc.user}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("parseFirst (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseFirstIgnoresLaterMessages(t *testing.T) {
	d := mockDomain(t)
	outcome := agent.ToolOutcome{
		Call:   domains.ToolCall{ID: "call-1", Name: toolFindUser, Arguments: map[string]any{"email": "jane@example.com"}},
		Result: domains.ToolResult{Content: janeFound},
	}
	for _, n := range translation.ProfileNames() {
		name := agent.ProfileName(n)
		for _, in := range []agent.Input{{UserText: "yes"}, {ToolResults: []agent.ToolOutcome{outcome}}} {
			if got, ok := parseFirst(readMessage(render(t, d, name, false, in))); ok {
				t.Errorf("%s: %+v read as a first message: %+v", name, in, got)
			}
		}
	}
}

func TestParseLater(t *testing.T) {
	d := mockDomain(t)
	outcomes := []agent.ToolOutcome{
		{Call: domains.ToolCall{ID: "call-1", Name: toolList}, Result: domains.ToolResult{Content: janeTasks}},
		{Call: domains.ToolCall{ID: "mine", Name: toolDelete}, Result: domains.ToolResult{Content: `unknown task_id "T-9"`, Error: true}},
	}
	wantResults := []toolResult{
		{Name: toolList, Content: janeTasks},
		{Name: toolDelete, Content: `unknown task_id "T-9"`, Error: true},
	}
	for _, n := range translation.ProfileNames() {
		name := agent.ProfileName(n)
		t.Run(n, func(t *testing.T) {
			user := "Yes, delete it.\nThanks."
			if diff := cmp.Diff(input{User: user}, parseLater(readMessage(render(t, d, name, false, agent.Input{UserText: user})), name)); diff != "" {
				t.Errorf("user message (-want +got):\n%s", diff)
			}
			got := parseLater(readMessage(render(t, d, name, false, agent.Input{ToolResults: outcomes})), name)
			if diff := cmp.Diff(input{Results: wantResults}, got); diff != "" {
				t.Errorf("tool results (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseResultsOrUser(t *testing.T) {
	results := map[string]any{translation.ToolResultsKey: []any{
		map[string]any{"tool_call_id": "call-1", "name": "get_user", "content": `{"user_id":"u-1"}`, "error": false},
	}}
	one := []toolResult{{Name: "get_user", Content: `{"user_id":"u-1"}`}}
	tests := []struct {
		name  string
		parts []*a2a.Part
		want  input
	}{
		{"results as text", []*a2a.Part{a2a.NewTextPart(`{"tool_results": [{"tool_call_id": "call-1", "name": "get_user", "content": "{\"user_id\":\"u-1\"}", "error": false}]}`)}, input{Results: one}},
		{"results as a data part", []*a2a.Part{a2a.NewDataPart(results)}, input{Results: one}},
		{"results then the user", []*a2a.Part{a2a.NewTextPart(partsText([]*a2a.Part{a2a.NewDataPart(results)}) + "\n\nAnd my tasks?")}, input{Results: one, User: "And my tasks?"}},
		{"data part and text", []*a2a.Part{a2a.NewDataPart(results), a2a.NewTextPart("And my tasks?")}, input{Results: one, User: "And my tasks?"}},
		{"non-string content", []*a2a.Part{a2a.NewTextPart(`{"tool_results": [{"name": "get_user", "content": {"user_id": "u-1"}, "error": true}]}`)},
			input{Results: []toolResult{{Name: "get_user", Content: `{"user_id": "u-1"}`, Error: true}}}},
		{"other JSON is the user's", []*a2a.Part{a2a.NewTextPart(`{"tool_call": {"name": "x"}}`)}, input{User: `{"tool_call": {"name": "x"}}`}},
		{"other data parts are ignored", []*a2a.Part{a2a.NewDataPart(map[string]any{"x": 1}), a2a.NewTextPart(" hi ")}, input{User: "hi"}},
		{"crlf", []*a2a.Part{a2a.NewTextPart("a\r\nb")}, input{User: "a\nb"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, parseResultsOrUser(readMessage(tc.parts))); diff != "" {
				t.Errorf("parseResultsOrUser (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRenderReply(t *testing.T) {
	args := map[string]any{"task_id": "T-1", "status": "done"}
	tests := []struct {
		profile    agent.ProfileName
		call, say  string // partsText of the call and of the say
		callIsData bool
	}{
		{agent.ProfileAgentBeats, `{"name":"update_task_status","arguments":{"status":"done","task_id":"T-1"}}`, `{"name":"respond","arguments":{"content":"Done."}}`, false},
		{agent.ProfileTau2A2A, `{"tool_call":{"name":"update_task_status","arguments":{"status":"done","task_id":"T-1"}}}`, "Done.", false},
		{agent.ProfileStructured, `{"tool_calls":[{"arguments":{"status":"done","task_id":"T-1"},"name":"update_task_status"}]}`, "Done.", true},
	}
	for _, tc := range tests {
		t.Run(string(tc.profile), func(t *testing.T) {
			callParts := renderReply(tc.profile, callTool(toolUpdate, args))
			if got := partsText(callParts); got != tc.call {
				t.Errorf("call: %s, want %s", got, tc.call)
			}
			if _, isData := callParts[0].Content.(a2a.Data); isData != tc.callIsData {
				t.Errorf("call in a data part: %v, want %v", isData, tc.callIsData)
			}
			sayParts := renderReply(tc.profile, say("Done."))
			if got := partsText(sayParts); got != tc.say {
				t.Errorf("say: %s, want %s", got, tc.say)
			}
			for _, parts := range [][]*a2a.Part{callParts, sayParts} {
				if err := conforms(tc.profile, parts); err != nil {
					t.Errorf("%s: %v", partsText(parts), err)
				}
			}
			// proctor reads them back as they were meant.
			r := translation.ParseReply(callParts)
			if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != toolUpdate || !cmp.Equal(r.ToolCalls[0].Arguments, args) || r.Text != "" {
				t.Errorf("call parsed as %+v", r)
			}
			if r := translation.ParseReply(sayParts); len(r.ToolCalls) != 0 || r.Text != "Done." {
				t.Errorf("say parsed as %+v", r)
			}
		})
	}
}

// TestConversationKeepsItsProfile drives the agent with parts, as the
// executor does: later messages are read, and replies framed, in the
// profile of the conversation's first message, and a new first message
// restarts the conversation in its own profile.
func TestConversationKeepsItsProfile(t *testing.T) {
	a, d := mockAgent(t)
	results := func(name, content string) []*a2a.Part {
		return render(t, d, agent.ProfileStructured, false, agent.Input{ToolResults: []agent.ToolOutcome{{
			Call: domains.ToolCall{ID: "call-1", Name: name}, Result: domains.ToolResult{Content: content},
		}}})
	}
	first := render(t, d, agent.ProfileStructured, true, agent.Input{UserText: "I'm jane@example.com, please delete 'Draft budget'."})
	want := `{"tool_calls":[{"arguments":{"email":"jane@example.com"},"name":"find_user_by_email"}]}`
	if got := partsText(a.respond("c", first)); got != want {
		t.Fatalf("first: %s", got)
	}
	if got := partsText(a.respond("c", results(toolFindUser, janeFound))); !strings.Contains(got, `"name":"list_tasks"`) {
		t.Fatalf("after find_user_by_email: %s", got)
	}
	got := a.respond("c", results(toolList, janeTasks))
	if len(got) != 1 || !strings.Contains(got[0].Text(), "confirm") {
		t.Fatalf("after list_tasks: %s", partsText(got))
	}
	if got := a.respond("c", []*a2a.Part{a2a.NewTextPart("Yes.")}); !strings.Contains(partsText(got), `"task_id":"T-1"`) {
		t.Fatalf("after yes: %s", partsText(got))
	}

	// A tau2-a2a first message in the same context starts over.
	tau2 := partsText(render(t, d, agent.ProfileTau2A2A, true, agent.Input{UserText: "Please delete 'Draft budget'."}))
	if got := a.Reply("c", tau2); !strings.Contains(got, "email address") || strings.HasPrefix(got, "{") {
		t.Fatalf("tau2-a2a restart: %s", got)
	}
	if got := a.Reply("c", "jane@example.com"); got != `{"tool_call":{"name":"find_user_by_email","arguments":{"email":"jane@example.com"}}}` {
		t.Fatalf("tau2-a2a call: %s", got)
	}
	res := partsText(render(t, d, agent.ProfileTau2A2A, false, agent.Input{ToolResults: []agent.ToolOutcome{{
		Call: domains.ToolCall{ID: "call-1", Name: toolFindUser}, Result: domains.ToolResult{Content: janeFound},
	}}}))
	if got := a.Reply("c", res); got != `{"tool_call":{"name":"list_tasks","arguments":{"user_id":"u-1"}}}` {
		t.Fatalf("tau2-a2a results: %s", got)
	}

	// An unknown context is in the default profile, agentbeats.
	if got := a.Reply("other", "Hello"); !strings.HasPrefix(got, `{"name":"respond"`) {
		t.Errorf("unknown context: %s", got)
	}
}

// FuzzRespond sends arbitrary text, as text and inside data parts, to
// conversations in every profile: the agent must never panic and always
// reply with one part.
func FuzzRespond(f *testing.F) {
	f.Add("<policy>\np\n</policy>\nhi\n<available_tools>\n[]\n</available_tools>\n", `{"tool_results":[{"name":"x","content":1}]}`)
	f.Add("User message: jane@example.com", "Tool call result (find_user_by_email):\n"+janeFound)
	f.Add(`{"tool_results": [{"content": null}]} and then`, `{"policy": 1, "tools": {"a": [1]}}`)
	d := mockDomain(f)
	f.Fuzz(func(t *testing.T, x, y string) {
		a, err := New(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range translation.ProfileNames() {
			name := agent.ProfileName(n)
			var parts [][]*a2a.Part
			parts = append(parts, render(t, d, name, true, agent.Input{UserText: x}))
			for _, s := range []string{x, y} {
				parts = append(parts, []*a2a.Part{a2a.NewTextPart(s)}, []*a2a.Part{a2a.NewDataPart(map[string]any{
					translation.ToolResultsKey: []any{map[string]any{"name": s, "content": s}},
				})})
				if obj, ok := jsonObject(json.RawMessage(s)); ok {
					parts = append(parts, []*a2a.Part{a2a.NewDataPart(obj), a2a.NewTextPart(y)})
				}
			}
			for _, p := range parts {
				if out := a.respond(n, p); len(out) != 1 {
					t.Fatalf("%d parts in reply to %s", len(out), partsText(p))
				}
			}
		}
	})
}
