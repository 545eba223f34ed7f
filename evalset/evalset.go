package evalset

import (
	"encoding/json"
	"time"
)

// Format is the file format an eval set was read from.
type Format string

// Formats.
const (
	FormatTRPC Format = "trpc" // tRPC-Agent-Go: <app>/<id>.evalset.json and <id>.metrics.json
	FormatADK  Format = "adk"  // Google ADK: *.evalset.json or *.test.json, test_config.json
	FormatYAML Format = "yaml" // proctor's YAML cases: one case per file
)

// Mode says how a case's conversation is read.
type Mode string

// Modes.
const (
	// ModeDefault plays the conversation's user messages against the agent;
	// its tools and final responses are what is expected.
	ModeDefault Mode = ""
	// ModeTrace scores the case's recorded conversation (actualConversation,
	// else conversation) without contacting any agent.
	ModeTrace Mode = "trace"
)

// Set is an eval set: cases identified by ID, with the metrics that score
// them when its file came with any.
type Set struct {
	// ID identifies the set (tRPC's evalSetId).
	ID          string     `json:"evalSetId,omitempty"`
	Name        string     `json:"name,omitempty"`
	Description string     `json:"description,omitempty"`
	Cases       []*Case    `json:"evalCases,omitempty"`
	Created     *EpochTime `json:"creationTimestamp,omitempty"`

	// AppName is the application the set belongs to: tRPC's directory name
	// (<dir>/<appName>/<id>.evalset.json), else the set's ID.
	AppName string `json:"-"`
	// Format and Path say where the set was read from.
	Format Format `json:"-"`
	Path   string `json:"-"`
	// Metrics are the metrics given with the set (tRPC's metrics file, ADK's
	// test_config.json), in order; a YAML set's cases carry their own.
	Metrics []*Metric `json:"-"`
}

// Case is one eval case: a conversation of invocations sent in order on one
// A2A conversation, or a scenario an LLM user plays.
type Case struct {
	// ID identifies the case within its set (tRPC's evalId).
	ID   string `json:"evalId,omitempty"`
	Mode Mode   `json:"evalMode,omitempty"`
	// ExpectedRunnerEnabled is tRPC's switch to produce the expected
	// invocations with a second runner; kept so the file round-trips.
	ExpectedRunnerEnabled bool `json:"expectedRunnerEnabled,omitempty"`
	// ContextMessages are sent once, before the first invocation's user
	// message (the agent keeps them in its session); an invocation's own
	// are sent with it.
	ContextMessages []*Message `json:"contextMessages,omitempty"`
	// Conversation is the turns: each invocation's user content is sent in
	// order; its tools and final response are what is expected.
	Conversation []*Invocation `json:"conversation,omitempty"`
	// Scenario, if set, replaces Conversation by a simulated user.
	Scenario *Scenario `json:"conversationScenario,omitempty"`
	// ActualConversation, for trace-mode cases, is what the agent did.
	ActualConversation []*Invocation `json:"actualConversation,omitempty"`
	SessionInput       *SessionInput `json:"sessionInput,omitempty"`
	Rubrics            []*CaseRubric `json:"rubrics,omitempty"`
	Created            *EpochTime    `json:"creationTimestamp,omitempty"`

	// The fields below are proctor's, not tRPC-Agent-Go's: a tRPC file has
	// none of them, so they are left out when it is written back.

	// Transport, from a YAML case, selects the binding the case is played
	// on ("jsonrpc", "rest", "grpc"), overriding the run's.
	Transport string `json:"transport,omitempty"`
	// MaxSteps, from a YAML case, bounds the tool calls the agent may make
	// in one invocation; 0 is no bound.
	MaxSteps int `json:"maxSteps,omitempty"`
	// Metrics, from a YAML case's expectations, score this case in place of
	// the set's metrics of the same name.
	Metrics []*Metric `json:"metrics,omitempty"`
	// Scorer, from a YAML case, names a metric of the run's metrics that
	// scores the case besides its Metrics; [Validate] checks it exists.
	Scorer string `json:"scorer,omitempty"`
	// Inspect, for ECP agents, are checks on the agent's state after the
	// case's last invocation (agent/inspect), reported as the case's
	// "ecp_inspect" metric; a run against an A2A agent refuses them.
	Inspect []*InspectAssertion `json:"inspect,omitempty"`
}

// CaseRubric is a rubric a case adds to one metric (tRPC's EvalCaseRubric).
type CaseRubric struct {
	MetricName  string         `json:"metricName,omitempty"`
	ID          string         `json:"id,omitempty"`
	Content     *RubricContent `json:"content,omitempty"`
	Description string         `json:"description,omitempty"`
	Type        string         `json:"type,omitempty"`
}

// ScenarioDriver says who drives a scenario.
type ScenarioDriver string

// Scenario drivers.
const (
	DriverActual   ScenarioDriver = "actual"
	DriverExpected ScenarioDriver = "expected"
)

// Scenario is a multi-turn conversation an LLM user simulator plays with
// the agent (tRPC's conversationScenario, ADK's conversation_scenario).
type Scenario struct {
	Driver ScenarioDriver `json:"driver,omitempty"`
	// StartingPrompt, if set, is the user's first message.
	StartingPrompt string `json:"startingPrompt,omitempty"`
	// Plan is the user's objective and when to stop.
	Plan string `json:"conversationPlan,omitempty"`
	// StopSignal ends the conversation when the user says it.
	StopSignal string `json:"stopSignal,omitempty"`
	// MaxInvocations bounds the agent's turns; nil or 0 is no bound.
	MaxInvocations *int `json:"maxAllowedInvocations,omitempty"`
}

// SessionInput is how the case's session starts.
type SessionInput struct {
	AppName string         `json:"appName,omitempty"`
	UserID  string         `json:"userId,omitempty"`
	State   map[string]any `json:"state,omitempty"`
}

// Invocation is one turn: the user's message and what the agent did.
type Invocation struct {
	ID                    string     `json:"invocationId,omitempty"`
	ContextMessages       []*Message `json:"contextMessages,omitempty"`
	UserContent           *Message   `json:"userContent,omitempty"`
	FinalResponse         *Message   `json:"finalResponse,omitempty"`
	Tools                 []*Tool    `json:"tools,omitempty"`
	IntermediateResponses []*Message `json:"intermediateResponses,omitempty"`
	Created               *EpochTime `json:"creationTimestamp,omitempty"`
}

// Tool is one tool call and its result. The call ID is not compared.
type Tool struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments any    `json:"arguments,omitempty"`
	Result    any    `json:"result,omitempty"`

	// ArgsContain, from a YAML case, are texts that must each appear in
	// the call's arguments (as JSON); when set they replace the arguments
	// comparison.
	ArgsContain []string `json:"argsContain,omitempty"`
	// Parallel, from a YAML case, marks an expected call that may come in
	// any order with the adjacent calls so marked.
	Parallel bool `json:"parallel,omitempty"`
}

// Role is a message's author.
type Role string

// Roles, as tRPC-Agent-Go's model package spells them.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is a message of an invocation, in tRPC-Agent-Go's model.Message
// JSON: only text is sent or compared, the rest is kept for round trips.
type Message struct {
	Role         Role          `json:"role"`
	Content      string        `json:"content,omitempty"`
	ContentParts []ContentPart `json:"content_parts,omitempty"`
	// ToolID and ToolName name the call a tool message answers.
	ToolID   string `json:"tool_id,omitempty"`
	ToolName string `json:"tool_name,omitempty"`
	// ToolCalls are an assistant message's tool calls, in tRPC-Agent-Go's
	// model.ToolCall JSON, kept verbatim.
	ToolCalls []json.RawMessage `json:"tool_calls,omitempty"`
	// ReasoningContent is the agent's private thought: recorded, never
	// shown to a judge or a user simulator.
	ReasoningContent   string `json:"reasoning_content,omitempty"`
	ReasoningSignature string `json:"reasoning_signature,omitempty"`
}

// ContentPart is one part of a message. Only text parts are sent or
// compared; the others are kept verbatim so that a file round-trips, and
// [Validate] refuses them in what proctor sends.
type ContentPart struct {
	Type       string          `json:"type"`
	Text       *string         `json:"text,omitempty"`
	Image      json.RawMessage `json:"image,omitempty"`
	Audio      json.RawMessage `json:"audio,omitempty"`
	Video      json.RawMessage `json:"video,omitempty"`
	File       json.RawMessage `json:"file,omitempty"`
	ContentRef json.RawMessage `json:"content_ref,omitempty"`
}

// Text is the message's text: Content, else its text parts joined.
func (m *Message) Text() string {
	if m == nil {
		return ""
	}
	if m.Content != "" {
		return m.Content
	}
	var s string
	for _, p := range m.ContentParts {
		if p.Text != nil {
			s += *p.Text
		}
	}
	return s
}

// EpochTime is a time written as fractional Unix seconds, as tRPC-Agent-Go
// writes creationTimestamp (the zero time as 0).
type EpochTime struct{ time.Time }

// MarshalJSON writes the time as Unix seconds.
func (t EpochTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("0"), nil
	}
	return json.Marshal(float64(t.UnixNano()) / float64(time.Second))
}

// UnmarshalJSON reads Unix seconds.
func (t *EpochTime) UnmarshalJSON(b []byte) error {
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return err
	}
	t.Time = time.Unix(0, int64(secs*float64(time.Second))).UTC()
	return nil
}
