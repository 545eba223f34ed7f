package translation

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/domains"
)

// Setup is what the agent is told once, at the start of a conversation: the
// domain policy it must follow and the tools it may call.
type Setup struct {
	// Policy is the domain policy the agent must follow.
	Policy string
	// Tools are the domain's tools, in the order they are presented.
	Tools []domains.ToolSpec

	// memo holds what profiles derive from the Setup alone (the rendered
	// tool schemas, say), so that a Setup made once with NewSetup and used
	// for a whole evaluation renders them once. Nil renders every time.
	memo *setupMemo
}

// NewSetup returns a Setup whose profile-independent renderings are
// computed once and shared by every conversation that uses it. It is safe
// for concurrent use.
func NewSetup(policy string, tools []domains.ToolSpec) Setup {
	return Setup{Policy: policy, Tools: tools, memo: &setupMemo{values: map[string]any{}}}
}

type setupMemo struct {
	mu     sync.Mutex
	values map[string]any
}

// derived returns build(), computed once per key for a Setup made by
// NewSetup. Callers must treat the value as read-only: it is shared.
func derived[T any](s Setup, key string, build func() T) T {
	if s.memo == nil {
		return build()
	}
	s.memo.mu.Lock()
	defer s.memo.mu.Unlock()
	if v, ok := s.memo.values[key]; ok {
		return v.(T)
	}
	v := build()
	s.memo.values[key] = v
	return v
}

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

// ReplyFormat says how [ParseReply] recognised a reply; its values are the
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

// Profile decides what the remote agent is told and how. Replies are parsed
// by [ParseReply] whatever the profile.
type Profile interface {
	// Name is the profile's registered name, as accepted by [ProfileByName].
	Name() ProfileName
	// Render builds the parts of the next message to the agent. first is
	// true for the first message of a conversation, which carries the Setup.
	Render(setup Setup, first bool, in Input) []*a2a.Part
}

// ProfileName is the registered name of a [Profile]; its values are the
// Profile* constants. It is a string type so that names read from flags,
// configuration and JSON convert to it directly.
type ProfileName string

// The names of the profiles, as accepted by [ProfileByName].
const (
	// ProfileAgentBeats is the default profile: policy, tools and a
	// [RespondTool] pseudo-tool in a text first message; one JSON call per
	// reply.
	ProfileAgentBeats ProfileName = "agentbeats"
	// ProfileTau2A2A follows the tau2-bench A2A integration: text only,
	// the tools in an [AvailableToolsOpen] block, replies in plain text or
	// as {"tool_call": ...} / {"tool_calls": [...]} JSON.
	ProfileTau2A2A ProfileName = "tau2-a2a"
	// ProfileStructured puts the policy and tools in an A2A data part
	// ([SetupPolicyKey], [SetupToolsKey], [SetupReplyFormatKey]) and tool
	// results in another ([ToolResultsKey]).
	ProfileStructured ProfileName = "structured"
)

// defaultProfile is the profile used when none is named.
const defaultProfile = ProfileAgentBeats

// knownProfiles returns every profile, in name order. A function rather
// than a package variable, so nothing can change the set at run time.
func knownProfiles() []Profile {
	return []Profile{agentBeats{}, structured{}, tau2A2A{}}
}

// ProfileByName returns the named profile. The empty name selects the
// default profile, "agentbeats". An unknown name is an error that lists the
// known ones.
func ProfileByName(name ProfileName) (Profile, error) {
	if name == "" {
		name = defaultProfile
	}
	for _, p := range knownProfiles() {
		if p.Name() == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("translation: unknown profile %q (known: %s)", name, strings.Join(ProfileNames(), ", "))
}

// ProfileNames returns the names of the known profiles, sorted, as plain
// strings for flag help and validation messages.
func ProfileNames() []string {
	var names []string
	for _, p := range knownProfiles() {
		names = append(names, string(p.Name()))
	}
	slices.Sort(names)
	return names
}
