package report

// This file holds tau2-bench's results model (the pydantic models of
// src/tau2/data_model/simulation.py and tasks.py) as Go types whose JSON is
// tau2's; tau2.go converts proctor's results to it.

import (
	"encoding/json"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

// Tau2Results is tau2-bench's Results.
type Tau2Results struct {
	Timestamp   string           `json:"timestamp"`
	Info        Tau2Info         `json:"info"`
	Tasks       []Tau2Task       `json:"tasks"`
	Simulations []Tau2Simulation `json:"simulations"`
}

// Tau2Info is tau2-bench's Info.
type Tau2Info struct {
	GitCommit       string              `json:"git_commit"`
	NumTrials       int                 `json:"num_trials"`
	MaxSteps        int                 `json:"max_steps"`
	MaxErrors       int                 `json:"max_errors"`
	UserInfo        Tau2ParticipantInfo `json:"user_info"`
	AgentInfo       Tau2ParticipantInfo `json:"agent_info"`
	EnvironmentInfo Tau2EnvironmentInfo `json:"environment_info"`
	Seed            *int64              `json:"seed"`
	// RetrievalConfig is banking_knowledge's retrieval configuration
	// (tau2's Info.retrieval_config); left out for other domains.
	RetrievalConfig *string `json:"retrieval_config,omitempty"`
}

// Tau2ParticipantInfo is tau2-bench's UserInfo and AgentInfo (the fields
// they share).
type Tau2ParticipantInfo struct {
	Implementation string         `json:"implementation"`
	LLM            *string        `json:"llm"`
	LLMArgs        map[string]any `json:"llm_args"`
}

// Tau2EnvironmentInfo is tau2-bench's EnvironmentInfo.
type Tau2EnvironmentInfo struct {
	DomainName string         `json:"domain_name"`
	Policy     string         `json:"policy"`
	ToolDefs   map[string]any `json:"tool_defs"`
}

// Tau2Task is tau2-bench's Task, with the fields proctor's tasks have.
type Tau2Task struct {
	ID                 string                  `json:"id"`
	Description        *Tau2Description        `json:"description,omitempty"`
	Ticket             *string                 `json:"ticket,omitempty"`
	UserScenario       Tau2UserScenario        `json:"user_scenario"`
	InitialState       *Tau2InitialState       `json:"initial_state,omitempty"`
	EvaluationCriteria *Tau2EvaluationCriteria `json:"evaluation_criteria,omitempty"`
	Issues             json.RawMessage         `json:"issues,omitempty"`
}

// Tau2Description is tau2-bench's Description.
type Tau2Description struct {
	Purpose *string `json:"purpose"`
	Notes   *string `json:"notes"`
}

// Tau2UserScenario is tau2-bench's UserScenario; Instructions is a string
// or tau2's structured instructions (an object), as the task has it.
type Tau2UserScenario struct {
	Persona      *string `json:"persona"`
	Instructions any     `json:"instructions"`
}

// Tau2InitialState is tau2-bench's InitialState.
type Tau2InitialState struct {
	InitializationData    *Tau2InitializationData `json:"initialization_data"`
	InitializationActions []Tau2EnvFunctionCall   `json:"initialization_actions"`
	MessageHistory        json.RawMessage         `json:"message_history"`
}

// Tau2InitializationData is tau2-bench's InitializationData.
// Each side is the task's map, or its JSON as the task file wrote it (a
// json.RawMessage: tau2 keeps that key order, and its read tools print
// records in it).
type Tau2InitializationData struct {
	AgentData any `json:"agent_data"`
	UserData  any `json:"user_data"`
}

// Tau2EnvAssertion is tau2-bench's EnvAssertion.
type Tau2EnvAssertion struct {
	EnvType     string         `json:"env_type"`
	FuncName    string         `json:"func_name"`
	Arguments   map[string]any `json:"arguments"`
	AssertValue bool           `json:"assert_value"`
	Message     *string        `json:"message"`
}

// Tau2EnvAssertionCheck is tau2-bench's EnvAssertionCheck.
type Tau2EnvAssertionCheck struct {
	EnvAssertion Tau2EnvAssertion `json:"env_assertion"`
	Met          bool             `json:"met"`
	Reward       float64          `json:"reward"`
}

// Tau2EnvFunctionCall is tau2-bench's EnvFunctionCall.
type Tau2EnvFunctionCall struct {
	EnvType   string         `json:"env_type"`
	FuncName  string         `json:"func_name"`
	Arguments map[string]any `json:"arguments"`
}

// Tau2EvaluationCriteria is tau2-bench's EvaluationCriteria.
type Tau2EvaluationCriteria struct {
	Actions         []Tau2Action       `json:"actions"`
	EnvAssertions   []Tau2EnvAssertion `json:"env_assertions"`
	CommunicateInfo []string           `json:"communicate_info"`
	NLAssertions    []string           `json:"nl_assertions"`
	RewardBasis     []domains.Basis    `json:"reward_basis"`
}

// Tau2Action is tau2-bench's Action.
type Tau2Action struct {
	ActionID    string         `json:"action_id"`
	Requestor   string         `json:"requestor"`
	Name        string         `json:"name"`
	Arguments   map[string]any `json:"arguments"`
	Info        *string        `json:"info"`
	CompareArgs []string       `json:"compare_args"`
}

// Tau2Simulation is tau2-bench's SimulationRun.
type Tau2Simulation struct {
	ID                string         `json:"id"`
	TaskID            string         `json:"task_id"`
	Timestamp         string         `json:"timestamp"`
	StartTime         string         `json:"start_time"`
	EndTime           string         `json:"end_time"`
	Duration          float64        `json:"duration"`
	TerminationReason string         `json:"termination_reason"`
	AgentCost         *float64       `json:"agent_cost"`
	UserCost          *float64       `json:"user_cost"`
	RewardInfo        Tau2RewardInfo `json:"reward_info"`
	Messages          []Tau2Message  `json:"messages"`
	Trial             int            `json:"trial"`
	Seed              *int64         `json:"seed"`
	Info              map[string]any `json:"info"`
}

// Tau2RewardInfo is tau2-bench's RewardInfo.
type Tau2RewardInfo struct {
	Reward            float64                   `json:"reward"`
	DBCheck           *Tau2DBCheck              `json:"db_check"`
	EnvAssertions     []Tau2EnvAssertionCheck   `json:"env_assertions"`
	ActionChecks      []Tau2ActionCheck         `json:"action_checks"`
	NLAssertions      []Tau2NLAssertionCheck    `json:"nl_assertions"`
	CommunicateChecks []Tau2CommunicateCheck    `json:"communicate_checks"`
	RewardBasis       []domains.Basis           `json:"reward_basis"`
	RewardBreakdown   map[domains.Basis]float64 `json:"reward_breakdown"`
	Info              map[string]any            `json:"info"`
}

// Tau2DBCheck is tau2-bench's DBCheck.
type Tau2DBCheck struct {
	DBMatch  bool    `json:"db_match"`
	DBReward float64 `json:"db_reward"`
}

// Tau2ActionCheck is tau2-bench's ActionCheck.
type Tau2ActionCheck struct {
	Action       Tau2Action `json:"action"`
	ActionMatch  bool       `json:"action_match"`
	ActionReward float64    `json:"action_reward"`
	ToolType     *string    `json:"tool_type"`
}

// Tau2NLAssertionCheck is tau2-bench's NLAssertionCheck.
type Tau2NLAssertionCheck struct {
	NLAssertion   string `json:"nl_assertion"`
	Met           bool   `json:"met"`
	Justification string `json:"justification"`
}

// Tau2CommunicateCheck is tau2-bench's CommunicateCheck.
type Tau2CommunicateCheck struct {
	Info          string `json:"info"`
	Met           bool   `json:"met"`
	Justification string `json:"justification"`
}

// Tau2Message is one of tau2-bench's AssistantMessage, UserMessage and
// ToolMessage: ID, Requestor and Error are set on tool messages only,
// ToolCalls on the others only (MarshalJSON writes each kind's fields).
type Tau2Message struct {
	Role      string
	Content   *string
	ToolCalls []Tau2ToolCall
	ID        string
	Requestor string
	Error     bool
	TurnIdx   *int
	Timestamp *string
}

// Tau2ToolCall is tau2-bench's ToolCall.
type Tau2ToolCall struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Requestor string         `json:"requestor"`
}

// tau2ToolMessage is the JSON of tau2-bench's ToolMessage.
type tau2ToolMessage struct {
	ID        string  `json:"id"`
	Role      string  `json:"role"`
	Content   *string `json:"content"`
	Requestor string  `json:"requestor"`
	Error     bool    `json:"error"`
	TurnIdx   *int    `json:"turn_idx"`
	Timestamp *string `json:"timestamp"`
}

// tau2ParticipantMessage is the JSON of tau2-bench's AssistantMessage and
// UserMessage.
type tau2ParticipantMessage struct {
	Role      string         `json:"role"`
	Content   *string        `json:"content"`
	ToolCalls []Tau2ToolCall `json:"tool_calls"`
	TurnIdx   *int           `json:"turn_idx"`
	Timestamp *string        `json:"timestamp"`
}

// MarshalJSON writes a tool message as tau2's ToolMessage and any other as
// its AssistantMessage or UserMessage.
func (m Tau2Message) MarshalJSON() ([]byte, error) {
	if m.Role == string(result.RoleTool) {
		return json.Marshal(tau2ToolMessage{ID: m.ID, Role: m.Role, Content: m.Content, Requestor: m.Requestor, Error: m.Error, TurnIdx: m.TurnIdx, Timestamp: m.Timestamp})
	}
	return json.Marshal(tau2ParticipantMessage{Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, TurnIdx: m.TurnIdx, Timestamp: m.Timestamp})
}

// UnmarshalJSON reads any of the kinds MarshalJSON writes.
func (m *Tau2Message) UnmarshalJSON(b []byte) error {
	var v struct {
		tau2ToolMessage
		ToolCalls []Tau2ToolCall `json:"tool_calls"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = Tau2Message{Role: v.Role, Content: v.Content, ToolCalls: v.ToolCalls, ID: v.ID, Requestor: v.Requestor, Error: v.Error, TurnIdx: v.TurnIdx, Timestamp: v.Timestamp}
	return nil
}
