package translation

import (
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/agent"
)

// Keys of the setup data part of the structured profile. Agents written
// against the profile look for them, so they are part of the wire contract
// and must not change.
const (
	// SetupPolicyKey holds the domain policy, a string.
	SetupPolicyKey = "policy"
	// SetupToolsKey holds the tools, an array in OpenAI function format:
	// {"type": "function", "function": {"name", "description", "parameters"}}.
	SetupToolsKey = "tools"
	// SetupReplyFormatKey holds the reply instructions, a string.
	SetupReplyFormatKey = "reply_format"
)

// structured is the structured profile: what is data travels as A2A data
// parts, what is said as text parts.
//
// The first message is a text part with the user's words followed by a
// data part with [SetupPolicyKey], [SetupToolsKey] and
// [SetupReplyFormatKey]. Later messages are the user's words as a text
// part, or the tool results as a data part holding the object described at
// [ToolResultsKey]. The setup data part is always the last part of the
// first message; tool results come before the user's words when a message
// has both (the simulator never sends both). There is no respond
// pseudo-tool: text is the answer to the user.
type structured struct{}

func (structured) Name() agent.ProfileName { return agent.ProfileStructured }

func (structured) Render(setup agent.Setup, first bool, in agent.Input) []*a2a.Part {
	parts := make([]*a2a.Part, 0, 3)
	if len(in.ToolResults) > 0 {
		items := newToolResults(in.ToolResults).ToolResults
		parts = append(parts, a2a.NewDataPart(map[string]any{ToolResultsKey: toGenericJSON(items)}))
	}
	if in.UserText != "" || (len(in.ToolResults) == 0 && (!first || len(in.History) == 0)) {
		parts = append(parts, a2a.NewTextPart(in.UserText))
	}
	if first {
		if p := historyDataPart(in.History); p != nil {
			parts = append(parts, p)
		}
		parts = append(parts, a2a.NewDataPart(map[string]any{
			SetupPolicyKey:      strings.TrimSpace(setup.Policy),
			SetupToolsKey:       derived(setup, "structured/tools", func() any { return toGenericJSON(openAITools(toolFunctions(setup.Tools))) }),
			SetupReplyFormatKey: structuredReplyFormat,
		}))
	}
	return parts
}

// structuredReplyFormat is the value of [SetupReplyFormatKey].
const structuredReplyFormat = "You are the assistant in this conversation and must follow the policy in this data part. " +
	"What the user says arrives as text; the tools you can call are listed under \"" + SetupToolsKey +
	"\" in OpenAI function format. To talk to the user, reply with text. To call tools, reply with a data part " +
	`{"` + ToolCallsKey + `": [{"name": "<tool name>", "arguments": {...}}, ...]}` +
	" listing the calls in the order they should run (the same JSON object as the whole text of your reply is accepted too). " +
	callsHidden + "The results come back to you in the next message as a data part " + resultsExample + ". " + callIDs
