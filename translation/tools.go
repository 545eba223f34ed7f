package translation

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
)

// Markers shared by several profiles. proctor's reference agent and other
// agents written against a profile look for them, so they are part of the
// wire contract and must not change.
const (
	// PolicyOpen and PolicyClose enclose the domain policy in the first
	// message of the agentbeats and tau2-a2a profiles, each on a line of
	// its own.
	PolicyOpen  = "<policy>"
	PolicyClose = "</policy>"

	// ToolCallKey is the key of the single-call reply object
	// {"tool_call": {"name": ..., "arguments": {...}}} that the tau2-a2a
	// profile asks for.
	ToolCallKey = "tool_call"
	// ToolCallsKey is the key of the several-calls reply object
	// {"tool_calls": [{"name": ..., "arguments": {...}}, ...]} that the
	// tau2-a2a and structured profiles ask for. The calls run in order.
	ToolCallsKey = "tool_calls"

	// ToolResultsKey is the key of the object that carries tool results
	// back to the agent in the tau2-a2a profile (as JSON text) and the
	// structured profile (as a data part):
	//
	//	{"tool_results": [{"tool_call_id": "call-1", "name": "get_user", "content": "...", "error": false}, ...]}
	//
	// There is one entry per call of the agent's previous reply, in call
	// order. tool_call_id is the call's id: the agent's own when it gave
	// one, otherwise "call-<position>" (see [agent.Reply.ToolCalls]). content is
	// the tool's output, or the error message when error is true.
	ToolResultsKey = "tool_results"
)

// openAITool is one entry of the tools array in OpenAI function format.
type openAITool struct {
	Type     string         `json:"type"`
	Function openAIFunction `json:"function"`
}

// openAIFunction describes one tool: the OpenAI "function" object, which the
// tau2-a2a profile also uses on its own.
type openAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// emptyParameters stands in for a tool whose schema is missing or malformed,
// so that rendering never fails.
const emptyParameters = `{"type":"object","properties":{}}`

// toolFunctions describes the domain tools, in order. A tool whose
// parameters are not a JSON object gets an empty object schema. A domain
// tool named like the [RespondTool] pseudo-tool is left out whatever the
// profile: [ParseReply] turns every call of that name into text, so the
// agent could not call it anyway.
func toolFunctions(specs []domains.ToolSpec) []openAIFunction {
	fns := make([]openAIFunction, 0, len(specs)+1)
	for _, s := range specs {
		if s.Name == RespondTool {
			continue
		}
		params := s.Parameters
		if t := bytes.TrimSpace(params); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
			params = json.RawMessage(emptyParameters)
		}
		fns = append(fns, openAIFunction{Name: s.Name, Description: s.Description, Parameters: params})
	}
	return fns
}

// openAITools wraps function descriptions in OpenAI's tools format.
func openAITools(fns []openAIFunction) []openAITool {
	tools := make([]openAITool, len(fns))
	for i, fn := range fns {
		tools[i] = openAITool{Type: "function", Function: fn}
	}
	return tools
}

// toolResult is one entry of a tool results object (see [ToolResultsKey]).
type toolResult struct {
	ToolCallID string `json:"tool_call_id"`
	Name       string `json:"name"`
	Content    string `json:"content"`
	Error      bool   `json:"error"`
}

// toolResults is the tool results object; its one key is [ToolResultsKey].
type toolResults struct {
	ToolResults []toolResult `json:"tool_results"`
}

// newToolResults lists the outcomes in call order. Contents are passed on
// as they are: the error flag, not a prefix, marks a failed call.
func newToolResults(outcomes []agent.ToolOutcome) toolResults {
	items := make([]toolResult, len(outcomes))
	for i, o := range outcomes {
		items[i] = toolResult{ToolCallID: o.Call.ID, Name: o.Call.Name, Content: o.Result.Content, Error: o.Result.Error}
	}
	return toolResults{ToolResults: items}
}

// indentedJSON encodes v as JSON indented by two spaces, without escaping
// HTML characters (tool descriptions and results are read by a model, not
// embedded in HTML) and without a trailing newline. It returns fallback if
// v does not encode, which the values rendered here never fail to do.
func indentedJSON(v any, fallback string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fallback
	}
	return strings.TrimRight(buf.String(), "\n")
}

// toGenericJSON converts v to generic JSON values (map[string]any, []any,
// string, float64, bool, nil), the only values every A2A transport can
// carry in a data part: the protobuf bindings, for one, reject structs and
// json.RawMessage. It returns nil if v does not encode.
func toGenericJSON(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil
	}
	return out
}
