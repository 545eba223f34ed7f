package translation

import (
	"encoding/json"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
)

// Markers of the agentbeats profile. proctor's reference agent parses them,
// so they are part of the wire contract and must not change.
const (
	// AgentBeatsUserPrefix starts the line that carries the user's words.
	AgentBeatsUserPrefix = "User message: "
	// AgentBeatsToolResultPrefix starts each tool result block, which reads
	// "Tool call result (<tool name>):\n<content>".
	AgentBeatsToolResultPrefix = "Tool call result ("
	// RespondTool is the pseudo-tool the agent calls to talk to the user. A
	// call of it is never run: its content becomes [agent.Reply.Text].
	RespondTool = "respond"
)

// agentBeats is the default profile: the first message carries the policy,
// the tools as OpenAI function JSON plus the respond pseudo-tool, and the
// reply format; every message then carries the user's words or tool results
// as plain text.
type agentBeats struct{}

func (agentBeats) Name() agent.ProfileName { return agent.ProfileAgentBeats }

func (agentBeats) Render(setup agent.Setup, first bool, in agent.Input) []*a2a.Part {
	input := renderAgentBeatsInput(in)
	if !first {
		return []*a2a.Part{a2a.NewTextPart(input)}
	}
	preamble := derived(setup, "agentbeats/preamble", func() string { return agentBeatsPreamble(setup) })
	text := preamble + renderHistoryText(in.History) + input
	if input == "" {
		// A history that ends with the agent's turn: nothing follows it.
		text = strings.TrimRight(text, "\n")
	}
	return []*a2a.Part{a2a.NewTextPart(text)}
}

// agentBeatsPreamble is what the first message says before the input: the
// policy, the tools and the reply format.
func agentBeatsPreamble(setup agent.Setup) string {
	var b strings.Builder
	b.WriteString(PolicyOpen + "\n")
	b.WriteString(strings.TrimSpace(setup.Policy))
	b.WriteString("\n" + PolicyClose + "\n\n")
	b.WriteString("You are the assistant in this conversation and must follow the policy above. " +
		"In every reply you either call one tool or talk to the user, never both: " +
		"you may call at most one tool per reply. " +
		"Tool results come back to you in the next message; the user does not see your tool calls or their results.\n\n")
	b.WriteString("These are the tools you can use, in OpenAI function format. " +
		"The \"" + RespondTool + "\" tool sends a message to the user:\n")
	b.WriteString(openAIToolsJSON(setup.Tools))
	b.WriteString("\n\n")
	b.WriteString("Answer with exactly one JSON object and nothing else:\n" +
		`{"name": "<tool name or ` + RespondTool + `>", "arguments": {...}}` + "\n" +
		"You may wrap the object in <json>...</json>. To talk to the user, reply with " +
		`{"name": "` + RespondTool + `", "arguments": {"content": "<your message>"}}.` + "\n\n")
	return b.String()
}

// renderAgentBeatsInput renders tool results (one block per outcome, in call
// order) and then the user's words. With neither, it renders an empty user
// message so that every message has a body.
func renderAgentBeatsInput(in agent.Input) string {
	blocks := make([]string, 0, len(in.ToolResults)+1)
	for _, o := range in.ToolResults {
		content := o.Result.Content
		if o.Result.Error && !strings.HasPrefix(content, "Error") {
			content = "Error: " + content
		}
		blocks = append(blocks, AgentBeatsToolResultPrefix+o.Call.Name+"):\n"+content)
	}
	if in.UserText != "" || (len(in.ToolResults) == 0 && len(in.History) == 0) {
		blocks = append(blocks, AgentBeatsUserPrefix+in.UserText)
	}
	return strings.Join(blocks, "\n\n")
}

const respondParameters = `{"type":"object","properties":{"content":{"type":"string",` +
	`"description":"The message to send to the user."}},"required":["content"]}`

// respondFunction describes the [RespondTool] pseudo-tool.
func respondFunction() openAIFunction {
	return openAIFunction{
		Name: RespondTool,
		Description: "Send a message to the user: use it to talk to the user, " +
			"for example to ask for information, confirm an action or give an answer.",
		Parameters: json.RawMessage(respondParameters),
	}
}

// openAIToolsJSON renders the domain tools plus the respond pseudo-tool as
// an indented JSON array in OpenAI function format.
func openAIToolsJSON(specs []domains.ToolSpec) string {
	return indentedJSON(openAITools(append(toolFunctions(specs), respondFunction())), "[]")
}
