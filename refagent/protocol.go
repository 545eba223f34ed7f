package refagent

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/translation"
)

// The markers of the agentbeats message profile, as proctor sends them.
const (
	policyOpen       = translation.PolicyOpen
	policyClose      = translation.PolicyClose
	toolResultPrefix = translation.AgentBeatsToolResultPrefix
	// errorPrefix starts the content of a failed call's result block.
	errorPrefix = "Error: "
	respondTool = translation.RespondTool
)

// input is one incoming message, parsed.
type input struct {
	// First is set when the message opens a conversation: it carried the
	// policy and the tool list.
	First bool
	// Profile is the message profile a first message was framed in (one
	// of translation's Profile* names); it is set by [parseFirst] only.
	Profile agent.ProfileName
	Policy  string
	// Tools are the names in the tool list of the first message (including
	// the respond pseudo-tool in the agentbeats profile), when it could be
	// parsed.
	Tools []string
	// User is what the user said; empty for a tool-results message.
	User string
	// Results are the tool results the message carried, in order.
	Results []toolResult
}

// toolResult is the result of one tool call: a "Tool call result (name):"
// block of the agentbeats profile, or an entry of the tool results object of
// the tau2-a2a and structured profiles.
type toolResult struct {
	Name    string
	Content string // without the agentbeats profile's "Error: " prefix
	Error   bool
}

// reply is the agent's next move: a tool call, or respond with content.
type reply struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// say is a reply that speaks to the user.
func say(text string) reply {
	return reply{Name: respondTool, Arguments: map[string]any{"content": text}}
}

// callTool is a reply that calls a tool.
func callTool(name string, args map[string]any) reply {
	return reply{Name: name, Arguments: args}
}

// JSON renders the reply as the single JSON object the agentbeats profile
// expects.
func (r reply) JSON() string {
	if r.Arguments == nil {
		r.Arguments = map[string]any{}
	}
	b, err := json.Marshal(r)
	if err != nil { // arguments are strings and numbers: cannot happen
		b, _ = json.Marshal(say("Sorry, something went wrong on my side."))
	}
	return string(b)
}

var (
	resultHeaderRE = regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(toolResultPrefix) + `([^)\n]*)\):[ \t]*\n?`)
	userLineRE     = regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(strings.TrimSpace(translation.AgentBeatsUserPrefix)) + `[ \t]*`)
)

// parseInput reads the text of one message of the agentbeats profile. It is
// tolerant:
// text without any marker is taken as the user speaking.
func parseInput(text string) input {
	var in input
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if i := strings.Index(text, policyOpen); i >= 0 {
		in.First = true
		rest := text[i+len(policyOpen):]
		if j := strings.Index(rest, policyClose); j >= 0 {
			in.Policy = strings.TrimSpace(rest[:j])
			in.Tools = toolNames(rest[j+len(policyClose):])
		}
	}
	trimmed := strings.TrimSpace(text)
	switch {
	case !in.First && strings.HasPrefix(trimmed, toolResultPrefix):
		in.Results = parseResults(trimmed)
	default:
		// The user's words follow the last "User message:" marker; in the
		// first message that is the last line of the preamble.
		if locs := userLineRE.FindAllStringIndex(text, -1); len(locs) > 0 {
			in.User = strings.TrimSpace(text[locs[len(locs)-1][1]:])
		} else if !in.First {
			in.User = trimmed
		}
	}
	return in
}

// parseResults splits a message into its "Tool call result (name):" blocks.
func parseResults(text string) []toolResult {
	locs := resultHeaderRE.FindAllStringSubmatchIndex(text, -1)
	out := make([]toolResult, 0, len(locs))
	for k, loc := range locs {
		end := len(text)
		if k+1 < len(locs) {
			end = locs[k+1][0]
		}
		content := strings.TrimSpace(text[loc[1]:end])
		r := toolResult{Name: strings.TrimSpace(text[loc[2]:loc[3]]), Content: content}
		if rest, ok := strings.CutPrefix(content, errorPrefix); ok {
			r.Error, r.Content = true, rest
		} else if content == strings.TrimSpace(errorPrefix) {
			r.Error, r.Content = true, ""
		}
		out = append(out, r)
	}
	return out
}

// toolNames finds the first JSON array in text and returns the function names
// it lists, accepting both {"name": ...} and {"type": "function", "function":
// {"name": ...}} entries. It returns nil when there is no such array.
func toolNames(text string) []string {
	for off := 0; off < len(text); {
		i := strings.IndexByte(text[off:], '[')
		if i < 0 {
			return nil
		}
		off += i
		var entries []struct {
			Name     string `json:"name"`
			Function *struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if err := json.NewDecoder(strings.NewReader(text[off:])).Decode(&entries); err == nil {
			var names []string
			for _, e := range entries {
				switch {
				case e.Function != nil && e.Function.Name != "":
					names = append(names, e.Function.Name)
				case e.Name != "":
					names = append(names, e.Name)
				}
			}
			if len(names) > 0 {
				return names
			}
		}
		off++
	}
	return nil
}
