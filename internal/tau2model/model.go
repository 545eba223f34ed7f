// Package tau2model mirrors tau2-bench's results model: the pydantic models
// Results, Task and SimulationRun with everything they hold (the
// src/tau2/data_model simulation.py, tasks.py and message.py of the
// tau2-bench commit shared/tau2/MANIFEST.md names), as Go types that
// [Decode] reads strictly. Tests use it to check that what proctor exports
// (report.WriteTau2) is what tau2 would load, and to re-grade it.
//
// Each struct lists every field of its model, by its JSON name, in order.
// The tau2 tag says what pydantic requires: "req" for a field without a
// default (it must be present), "null" for an Optional one (it may be
// null); a field with neither may be absent but not null. Enum types
// (Requestor, RewardType, TerminationReason, ToolType, TaskIssueStatus)
// hold tau2's values. Models of tau2's voice and review features, which
// proctor never writes, are json.RawMessage: their presence is allowed,
// their content not checked.
package tau2model

import "encoding/json"

// Results is tau2's Results: a run's metadata, tasks and simulations.
type Results struct {
	Timestamp       *string           `json:"timestamp" tau2:"null"`
	Info            Info              `json:"info" tau2:"req"`
	Tasks           []Task            `json:"tasks" tau2:"req"`
	Simulations     []SimulationRun   `json:"simulations,omitzero"`
	SimulationIndex []json.RawMessage `json:"simulation_index" tau2:"null"`
}

// Info is tau2's Info: how the run was made.
type Info struct {
	GitCommit             string          `json:"git_commit" tau2:"req"`
	NumTrials             int             `json:"num_trials" tau2:"req"`
	MaxSteps              int             `json:"max_steps" tau2:"req"`
	MaxErrors             int             `json:"max_errors" tau2:"req"`
	UserInfo              UserInfo        `json:"user_info" tau2:"req"`
	AgentInfo             AgentInfo       `json:"agent_info" tau2:"req"`
	EnvironmentInfo       EnvironmentInfo `json:"environment_info" tau2:"req"`
	Seed                  *int64          `json:"seed" tau2:"null"`
	TextStreamingConfig   map[string]any  `json:"text_streaming_config" tau2:"null"`
	SpeechComplexity      json.RawMessage `json:"speech_complexity" tau2:"null"`
	AudioNativeConfig     json.RawMessage `json:"audio_native_config" tau2:"null"`
	RetrievalConfig       *string         `json:"retrieval_config" tau2:"null"`
	RetrievalConfigKwargs map[string]any  `json:"retrieval_config_kwargs" tau2:"null"`
}

// UserInfo is tau2's UserInfo: the user simulator.
type UserInfo struct {
	Implementation             string          `json:"implementation" tau2:"req"`
	LLM                        *string         `json:"llm" tau2:"null"`
	LLMArgs                    map[string]any  `json:"llm_args" tau2:"null"`
	GlobalSimulationGuidelines *string         `json:"global_simulation_guidelines" tau2:"null"`
	VoiceSettings              json.RawMessage `json:"voice_settings" tau2:"null"`
	PersonaConfig              json.RawMessage `json:"persona_config" tau2:"null"`
}

// AgentInfo is tau2's AgentInfo: the agent.
type AgentInfo struct {
	Implementation string          `json:"implementation" tau2:"req"`
	LLM            *string         `json:"llm" tau2:"null"`
	LLMArgs        map[string]any  `json:"llm_args" tau2:"null"`
	VoiceSettings  json.RawMessage `json:"voice_settings" tau2:"null"`
}

// EnvironmentInfo is tau2's EnvironmentInfo: the domain.
type EnvironmentInfo struct {
	DomainName string                     `json:"domain_name" tau2:"req"`
	Policy     string                     `json:"policy" tau2:"req"`
	ToolDefs   map[string]json.RawMessage `json:"tool_defs" tau2:"null"`
}

// Task is tau2's Task.
type Task struct {
	ID                 string              `json:"id" tau2:"req"`
	Description        *Description        `json:"description" tau2:"null"`
	UserScenario       UserScenario        `json:"user_scenario" tau2:"req"`
	Ticket             *string             `json:"ticket" tau2:"null"`
	InitialState       *InitialState       `json:"initial_state" tau2:"null"`
	EvaluationCriteria *EvaluationCriteria `json:"evaluation_criteria" tau2:"null"`
	Issues             []TaskIssue         `json:"issues" tau2:"null"`
	RequiredDocuments  []string            `json:"required_documents" tau2:"null"`
	UserTools          []string            `json:"user_tools" tau2:"null"`
}

// Description is tau2's Description of a task.
type Description struct {
	Purpose          *string `json:"purpose" tau2:"null"`
	RelevantPolicies *string `json:"relevant_policies" tau2:"null"`
	Notes            *string `json:"notes" tau2:"null"`
}

// UserScenario is tau2's UserScenario.
type UserScenario struct {
	Persona      *string      `json:"persona" tau2:"null"`
	Instructions Instructions `json:"instructions" tau2:"req"`
}

// StructuredUserInstructions is tau2's StructuredUserInstructions.
type StructuredUserInstructions struct {
	Domain           string  `json:"domain" tau2:"req"`
	ReasonForCall    string  `json:"reason_for_call" tau2:"req"`
	KnownInfo        *string `json:"known_info" tau2:"null"`
	UnknownInfo      *string `json:"unknown_info" tau2:"null"`
	TaskInstructions string  `json:"task_instructions" tau2:"req"`
}

// InitialState is tau2's InitialState.
type InitialState struct {
	InitializationData    *InitializationData `json:"initialization_data" tau2:"null"`
	InitializationActions []EnvFunctionCall   `json:"initialization_actions" tau2:"null"`
	MessageHistory        []Message           `json:"message_history" tau2:"null"`
}

// InitializationData is tau2's InitializationData.
type InitializationData struct {
	AgentData map[string]any `json:"agent_data" tau2:"null"`
	UserData  map[string]any `json:"user_data" tau2:"null"`
}

// EnvFunctionCall is tau2's EnvFunctionCall.
type EnvFunctionCall struct {
	EnvType   Requestor      `json:"env_type" tau2:"req"`
	FuncName  string         `json:"func_name" tau2:"req"`
	Arguments map[string]any `json:"arguments" tau2:"req"`
}

// EvaluationCriteria is tau2's EvaluationCriteria. Its reward_basis has a
// default ([DB, COMMUNICATE]) and may be absent, not null.
type EvaluationCriteria struct {
	Actions         []Action       `json:"actions" tau2:"null"`
	EnvAssertions   []EnvAssertion `json:"env_assertions" tau2:"null"`
	CommunicateInfo []string       `json:"communicate_info" tau2:"null"`
	NLAssertions    []string       `json:"nl_assertions" tau2:"null"`
	RewardBasis     []RewardType   `json:"reward_basis,omitzero"`
}

// Action is tau2's Action: an expected tool call.
type Action struct {
	ActionID    string         `json:"action_id" tau2:"req"`
	Requestor   Requestor      `json:"requestor,omitzero"`
	Name        string         `json:"name" tau2:"req"`
	Arguments   map[string]any `json:"arguments" tau2:"req"`
	Info        *string        `json:"info" tau2:"null"`
	CompareArgs []string       `json:"compare_args" tau2:"null"`
}

// EnvAssertion is tau2's EnvAssertion. AssertValue defaults to true when
// absent (a nil pointer here).
type EnvAssertion struct {
	EnvType     Requestor      `json:"env_type" tau2:"req"`
	FuncName    string         `json:"func_name" tau2:"req"`
	Arguments   map[string]any `json:"arguments" tau2:"req"`
	AssertValue *bool          `json:"assert_value,omitzero"`
	Message     *string        `json:"message" tau2:"null"`
}

// TaskIssue is tau2's TaskIssue.
type TaskIssue struct {
	ID             string          `json:"id" tau2:"req"`
	Title          string          `json:"title" tau2:"req"`
	Description    *string         `json:"description" tau2:"null"`
	Status         TaskIssueStatus `json:"status,omitzero"`
	Resolution     *string         `json:"resolution" tau2:"null"`
	CreatedAt      *string         `json:"created_at" tau2:"null"`
	ResolvedAt     *string         `json:"resolved_at" tau2:"null"`
	AuthorEmail    *string         `json:"author_email" tau2:"null"`
	PRLink         *string         `json:"pr_link" tau2:"null"`
	SimulationFile *string         `json:"simulation_file" tau2:"null"`
}

// SimulationRun is tau2's SimulationRun.
type SimulationRun struct {
	ID                       string            `json:"id" tau2:"req"`
	TaskID                   string            `json:"task_id" tau2:"req"`
	Timestamp                string            `json:"timestamp"`
	StartTime                string            `json:"start_time" tau2:"req"`
	EndTime                  string            `json:"end_time" tau2:"req"`
	Duration                 float64           `json:"duration" tau2:"req"`
	TerminationReason        TerminationReason `json:"termination_reason" tau2:"req"`
	AgentCost                *float64          `json:"agent_cost" tau2:"null"`
	UserCost                 *float64          `json:"user_cost" tau2:"null"`
	AgentUsage               json.RawMessage   `json:"agent_usage" tau2:"null"`
	RewardInfo               *RewardInfo       `json:"reward_info" tau2:"null"`
	Messages                 []Message         `json:"messages" tau2:"null"`
	Ticks                    []json.RawMessage `json:"ticks" tau2:"null"`
	Trial                    *int              `json:"trial" tau2:"null"`
	Seed                     *int64            `json:"seed" tau2:"null"`
	Mode                     string            `json:"mode"`
	SpeechEnvironment        json.RawMessage   `json:"speech_environment" tau2:"null"`
	Review                   json.RawMessage   `json:"review" tau2:"null"`
	UserOnlyReview           json.RawMessage   `json:"user_only_review" tau2:"null"`
	Info                     map[string]any    `json:"info" tau2:"null"`
	AuthClassification       json.RawMessage   `json:"auth_classification" tau2:"null"`
	HallucinationRetriesUsed int               `json:"hallucination_retries_used"`
	HallucinationCheck       json.RawMessage   `json:"hallucination_check" tau2:"null"`
	ProviderSessionID        *string           `json:"provider_session_id" tau2:"null"`
	Policy                   *string           `json:"policy" tau2:"null"`
	EffectTimeline           json.RawMessage   `json:"effect_timeline" tau2:"null"`
}

// RewardInfo is tau2's RewardInfo.
type RewardInfo struct {
	Reward            float64                `json:"reward" tau2:"req"`
	DBCheck           *DBCheck               `json:"db_check" tau2:"null"`
	EnvAssertions     []EnvAssertionCheck    `json:"env_assertions" tau2:"null"`
	ActionChecks      []ActionCheck          `json:"action_checks" tau2:"null"`
	NLAssertions      []NLAssertionCheck     `json:"nl_assertions" tau2:"null"`
	CommunicateChecks []CommunicateCheck     `json:"communicate_checks" tau2:"null"`
	RewardBasis       []RewardType           `json:"reward_basis" tau2:"null"`
	RewardBreakdown   map[RewardType]float64 `json:"reward_breakdown" tau2:"null"`
	Info              map[string]any         `json:"info" tau2:"null"`
}

// DBCheck is tau2's DBCheck.
type DBCheck struct {
	DBMatch  bool    `json:"db_match" tau2:"req"`
	DBReward float64 `json:"db_reward" tau2:"req"`
}

// ActionCheck is tau2's ActionCheck.
type ActionCheck struct {
	Action       Action    `json:"action" tau2:"req"`
	ActionMatch  bool      `json:"action_match" tau2:"req"`
	ActionReward float64   `json:"action_reward" tau2:"req"`
	ToolType     *ToolType `json:"tool_type" tau2:"null"`
}

// EnvAssertionCheck is tau2's EnvAssertionCheck.
type EnvAssertionCheck struct {
	EnvAssertion EnvAssertion `json:"env_assertion" tau2:"req"`
	Met          bool         `json:"met" tau2:"req"`
	Reward       float64      `json:"reward" tau2:"req"`
}

// NLAssertionCheck is tau2's NLAssertionCheck.
type NLAssertionCheck struct {
	NLAssertion   string `json:"nl_assertion" tau2:"req"`
	Met           bool   `json:"met" tau2:"req"`
	Justification string `json:"justification" tau2:"req"`
}

// CommunicateCheck is tau2's CommunicateCheck.
type CommunicateCheck struct {
	Info          string `json:"info" tau2:"req"`
	Met           bool   `json:"met" tau2:"req"`
	Justification string `json:"justification" tau2:"req"`
}

// ToolCall is tau2's ToolCall.
type ToolCall struct {
	ID        string         `json:"id"`
	Name      string         `json:"name" tau2:"req"`
	Arguments map[string]any `json:"arguments" tau2:"req"`
	Requestor Requestor      `json:"requestor,omitzero"`
}

// SystemMessage is tau2's SystemMessage.
type SystemMessage struct {
	Role      string  `json:"role" tau2:"req"`
	Content   *string `json:"content" tau2:"null"`
	TurnIdx   *int    `json:"turn_idx" tau2:"null"`
	Timestamp *string `json:"timestamp" tau2:"null"`
}

// ParticipantMessage is tau2's AssistantMessage and UserMessage, which have
// the same fields.
type ParticipantMessage struct {
	Role                  string          `json:"role" tau2:"req"`
	Content               *string         `json:"content" tau2:"null"`
	ToolCalls             []ToolCall      `json:"tool_calls" tau2:"null"`
	IsAudio               bool            `json:"is_audio"`
	TurnIdx               *int            `json:"turn_idx" tau2:"null"`
	Timestamp             *string         `json:"timestamp" tau2:"null"`
	Cost                  *float64        `json:"cost" tau2:"null"`
	Usage                 map[string]any  `json:"usage" tau2:"null"`
	RawData               map[string]any  `json:"raw_data" tau2:"null"`
	GenerationTimeSeconds *float64        `json:"generation_time_seconds" tau2:"null"`
	AudioFormat           json.RawMessage `json:"audio_format" tau2:"null"`
	AudioContent          *string         `json:"audio_content" tau2:"null"`
	AudioPath             *string         `json:"audio_path" tau2:"null"`
	AudioScriptGold       *string         `json:"audio_script_gold" tau2:"null"`
	SpeechEffects         json.RawMessage `json:"speech_effects" tau2:"null"`
	SourceEffects         json.RawMessage `json:"source_effects" tau2:"null"`
	ChannelEffects        json.RawMessage `json:"channel_effects" tau2:"null"`
	TurnTakingAction      json.RawMessage `json:"turn_taking_action" tau2:"null"`
	UtteranceIDs          []string        `json:"utterance_ids" tau2:"null"`
	ChunkID               *int            `json:"chunk_id" tau2:"null"`
	IsFinalChunk          *bool           `json:"is_final_chunk,omitzero"`
	Source                *string         `json:"source" tau2:"null"`
	ContainsSpeech        *bool           `json:"contains_speech,omitzero"`
}

// ToolMessage is tau2's ToolMessage: a tool's answer to the call whose id
// it has. Requestor defaults to the assistant.
type ToolMessage struct {
	ID        string    `json:"id" tau2:"req"`
	Role      string    `json:"role" tau2:"req"`
	Content   *string   `json:"content" tau2:"null"`
	Requestor Requestor `json:"requestor,omitzero"`
	Error     bool      `json:"error"`
	TurnIdx   *int      `json:"turn_idx" tau2:"null"`
	Timestamp *string   `json:"timestamp" tau2:"null"`
}

// MultiToolMessage is tau2's MultiToolMessage: several tool messages.
type MultiToolMessage struct {
	Role         string        `json:"role" tau2:"req"`
	ToolMessages []ToolMessage `json:"tool_messages" tau2:"req"`
}

// Message is one of tau2's messages: the field for its kind is set.
type Message struct {
	System      *SystemMessage
	Participant *ParticipantMessage // role "assistant" or "user"
	Tool        *ToolMessage
	MultiTool   *MultiToolMessage
}

// Instructions is a user scenario's instructions: text, or tau2's
// StructuredUserInstructions.
type Instructions struct {
	Text       *string
	Structured *StructuredUserInstructions
}

// Requestor is tau2's ToolRequestor: who makes a call, or which side of the
// environment a function runs on.
type Requestor string

// The requestors.
const (
	RequestorAssistant Requestor = "assistant"
	RequestorUser      Requestor = "user"
)

// Valid reports whether r is one of tau2's requestors.
func (r Requestor) Valid() bool { return r == RequestorAssistant || r == RequestorUser }

// RewardType is tau2's RewardType: a reward basis.
type RewardType string

// Valid reports whether t is one of tau2's reward types.
func (t RewardType) Valid() bool {
	switch t {
	case "DB", "ENV_ASSERTION", "NL_ASSERTION", "ACTION", "COMMUNICATE":
		return true
	}
	return false
}

// TerminationReason is tau2's TerminationReason.
type TerminationReason string

// Valid reports whether r is one of tau2's termination reasons.
func (r TerminationReason) Valid() bool {
	switch r {
	case "user_stop", "agent_stop", "max_steps", "timeout", "too_many_errors", "agent_error", "user_error",
		"infrastructure_error", "context_window_exceeded", "unexpected_error":
		return true
	}
	return false
}

// ToolType is tau2's ToolType.
type ToolType string

// Valid reports whether t is one of tau2's tool types.
func (t ToolType) Valid() bool { return t == "read" || t == "write" || t == "think" || t == "generic" }

// TaskIssueStatus is tau2's TaskIssueStatus.
type TaskIssueStatus string

// Valid reports whether s is one of tau2's task issue statuses.
func (s TaskIssueStatus) Valid() bool { return s == "open" || s == "resolved" || s == "wont_fix" }
