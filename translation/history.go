package translation

import (
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/domains"
)

// The conversation history block: when a task starts from a message
// history (tau2's initial_state.message_history), the first message to the
// agent carries the turns the agent took part in, oldest first, as a JSON
// array of chat messages. Text profiles put it between these tags; the
// structured profile in a data part under [HistoryKey].
const (
	HistoryOpen  = "<conversation_history>"
	HistoryClose = "</conversation_history>"
	// HistoryKey is the data-part key of the structured profile's history.
	HistoryKey = "conversation_history"
)

// historyIntro says what the history block is, in every profile.
const historyIntro = "This conversation began before this message. The messages so far, oldest first, " +
	"are listed below as JSON chat messages: \"user\" is the user, \"assistant\" is you (your tool calls " +
	"included), \"tool\" is the result of one of your tool calls (tool_call_id names the call). " +
	"Those calls have already been made; continue the conversation from where it stands."

// historyMessage is one prior message as the agent is shown it.
type historyMessage struct {
	Role       string            `json:"role"`
	Content    string            `json:"content,omitempty"`
	ToolCalls  []historyToolCall `json:"tool_calls,omitempty"`
	ToolCallID string            `json:"tool_call_id,omitempty"`
	Error      bool              `json:"error,omitempty"`
}

type historyToolCall struct {
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

func newHistoryMessages(history []domains.HistoryMessage) []historyMessage {
	out := make([]historyMessage, 0, len(history))
	for _, m := range history {
		hm := historyMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Error: m.Error}
		for _, c := range m.ToolCalls {
			args := c.Arguments
			if args == nil {
				args = map[string]any{}
			}
			hm.ToolCalls = append(hm.ToolCalls, historyToolCall{ID: c.ID, Name: c.Name, Arguments: args})
		}
		out = append(out, hm)
	}
	return out
}

// renderHistoryText is the history block of the text profiles, with the
// blank line that separates it from what follows; "" without history.
func renderHistoryText(history []domains.HistoryMessage) string {
	if len(history) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(HistoryOpen + "\n")
	b.WriteString(historyIntro + "\n")
	b.WriteString(indentedJSON(newHistoryMessages(history), "[]"))
	b.WriteString("\n" + HistoryClose + "\n\n")
	return b.String()
}

// historyDataPart is the structured profile's history part; nil without
// history.
func historyDataPart(history []domains.HistoryMessage) *a2a.Part {
	if len(history) == 0 {
		return nil
	}
	return a2a.NewDataPart(map[string]any{
		HistoryKey:    toGenericJSON(newHistoryMessages(history)),
		"description": historyIntro,
	})
}
