package translation

import (
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/agent"
)

// Markers of the tau2-a2a profile. Agents written against the profile look
// for them, so they are part of the wire contract and must not change.
const (
	// AvailableToolsOpen and AvailableToolsClose enclose the tool list of
	// the first message, each on a line of its own. Between them is a JSON
	// array of {"name", "description", "parameters"} objects (parameters
	// is a JSON Schema object), in the domain's order. The tool list is the
	// last such block of the message: only the instructions follow it.
	AvailableToolsOpen  = "<available_tools>"
	AvailableToolsClose = "</available_tools>"
)

// tau2A2A is the tau2-a2a profile, modelled on the tau2-bench A2A
// integration proposal. Every message is one text part.
//
// The first message is the policy between [PolicyOpen] and [PolicyClose],
// a blank line, the user's words, a blank line, the tools between
// [AvailableToolsOpen] and [AvailableToolsClose], a blank line and the
// reply instructions. Later messages are the user's words alone: the tool
// list is not repeated, because the conversation's messages share one A2A
// context and the proposal describes no reminder (its prototype repeats
// the list in every user message, which multiplies the prompt size of a
// long conversation for nothing the agent does not already have).
//
// Tool results are the JSON object described at [ToolResultsKey], alone in
// the message, so that an agent can decode the whole text. There is no
// respond pseudo-tool: plain text is the answer to the user.
type tau2A2A struct{}

func (tau2A2A) Name() agent.ProfileName { return agent.ProfileTau2A2A }

func (tau2A2A) Render(setup agent.Setup, first bool, in agent.Input) []*a2a.Part {
	body := renderTau2Input(in)
	if !first {
		return []*a2a.Part{a2a.NewTextPart(body)}
	}
	var b strings.Builder
	b.WriteString(PolicyOpen + "\n")
	b.WriteString(strings.TrimSpace(setup.Policy))
	b.WriteString("\n" + PolicyClose + "\n\n")
	b.WriteString(renderHistoryText(in.History))
	if body != "" {
		b.WriteString(body)
		b.WriteString("\n\n")
	}
	b.WriteString(AvailableToolsOpen + "\n")
	b.WriteString(derived(setup, "tau2-a2a/tools", func() string { return indentedJSON(toolFunctions(setup.Tools), "[]") }))
	b.WriteString("\n" + AvailableToolsClose + "\n\n")
	b.WriteString(tau2Instructions)
	return []*a2a.Part{a2a.NewTextPart(b.String())}
}

// renderTau2Input renders the tool results object, then (after a blank
// line) the user's words. The simulator never sends both at once.
func renderTau2Input(in agent.Input) string {
	var blocks []string
	if len(in.ToolResults) > 0 {
		blocks = append(blocks, indentedJSON(newToolResults(in.ToolResults), ""))
	}
	if in.UserText != "" {
		blocks = append(blocks, in.UserText)
	}
	return strings.Join(blocks, "\n\n")
}

// Reply instructions shared by the tau2-a2a and structured profiles.
const (
	// callsHidden says what the user sees.
	callsHidden = "A reply that calls tools is not shown to the user, and the user never sees their results. "
	// resultsExample shows one entry of the tool results object.
	resultsExample = `{"` + ToolResultsKey + `": [{"tool_call_id": "call-1", "name": "<tool name>", ` +
		`"content": "<what the tool returned, or the error message>", "error": false}]}`
	// callIDs says how results are matched to calls.
	callIDs = "There is one entry per call, in call order; a call you gave an \"id\" keeps it as " +
		"tool_call_id, the others are numbered call-1, call-2, ... by their position in your reply."
)

// tau2Instructions close the first message of the tau2-a2a profile.
const tau2Instructions = "You are the assistant in this conversation and must follow the policy above. " +
	"The text between the policy and the tool list is the user's first message; every later message is " +
	"either what the user says next or the results of your tool calls. The tools you can call are listed " +
	"between " + AvailableToolsOpen + " and " + AvailableToolsClose + ", each with its name, description " +
	"and parameters (a JSON Schema).\n\n" +
	"To talk to the user, reply with plain text. To call a tool, reply with only this JSON object:\n" +
	`{"` + ToolCallKey + `": {"name": "<tool name>", "arguments": {...}}}` + "\n" +
	"To call several tools in one reply, list them in the order they should run:\n" +
	`{"` + ToolCallsKey + `": [{"name": "<tool name>", "arguments": {...}}, ...]}` + "\n" +
	callsHidden + "The results come back to you in the next message as one JSON object:\n" +
	resultsExample + "\n" + callIDs
