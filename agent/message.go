package agent

import "github.com/proctor-eval/proctor/domains"

// Input is one message to the agent: either the user's words or the results
// of the tool calls the agent made in its previous reply (in call order).
type Input struct {
	// UserText is what the simulated user said.
	UserText string
	// ToolResults are the outcomes of the agent's previous tool calls.
	ToolResults []ToolOutcome
	// History is the conversation before the agent's first message, when
	// the task starts from a message history: the messages the agent took
	// part in (see domains.History). Only a first message carries it.
	History []domains.HistoryMessage
}

// ToolOutcome pairs a tool call the agent made with what it returned.
type ToolOutcome struct {
	// Call is the call as the agent made it (see [Reply.ToolCalls]).
	Call domains.ToolCall
	// Result is what the domain environment returned for it.
	Result domains.ToolResult
}

// Reply is an agent reply after parsing.
type Reply struct {
	// Text is what the user sees ("" when the reply is only tool calls).
	Text string
	// ToolCalls are the calls to run, in order. Every call has a non-empty
	// Name, non-nil Arguments and an ID unique within the reply: the agent's
	// own when it gave one, otherwise "call-1", "call-2", ...
	ToolCalls []domains.ToolCall
	// Format says how the reply was recognised. It is for results and
	// debugging only.
	Format ReplyFormat
}

// ReplyFormat says how a reply was recognised (by translation.ParseReply
// for a text agent, by the ECP adapter for an ECP one); its values are the
// ReplyFormat* constants.
type ReplyFormat string

// The values of [Reply.Format].
const (
	// ReplyFormatText is a reply that is plain text for the user.
	ReplyFormatText ReplyFormat = "text"
	// ReplyFormatJSON is a reply whose tool calls are JSON: the whole
	// reply, or JSON embedded in prose.
	ReplyFormatJSON ReplyFormat = "json"
	// ReplyFormatFencedJSON is a reply whose tool calls are in a fenced
	// code block.
	ReplyFormatFencedJSON ReplyFormat = "fenced_json"
	// ReplyFormatJSONTag is a reply whose tool calls are between <json>
	// tags.
	ReplyFormatJSONTag ReplyFormat = "json_tag"
	// ReplyFormatDataPart is a reply whose tool calls are in A2A data
	// parts.
	ReplyFormatDataPart ReplyFormat = "data_part"
)
