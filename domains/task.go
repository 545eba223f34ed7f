package domains

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Basis is a reward basis: one criterion a task is scored on, as tau2-bench
// names it in its task files.
type Basis string

// Reward bases a task can be scored on. The reward of a simulation is the
// product of the rewards of its task's bases.
const (
	BasisDB           Basis = "DB"
	BasisAction       Basis = "ACTION"
	BasisCommunicate  Basis = "COMMUNICATE"
	BasisNLAssertion  Basis = "NL_ASSERTION"
	BasisEnvAssertion Basis = "ENV_ASSERTION"
)

// Task is one scenario of a domain: who the user is, what they want, and how
// the conversation is judged. The field names follow tau2-bench's task files
// so that its domains load into the same type.
type Task struct {
	ID          string           `json:"id"`
	Description *TaskDescription `json:"description,omitempty"`
	// Ticket is tau2's ticket: the problem as the agent would get it
	// (telecom's tasks have one); kept so that exports carry it.
	Ticket             *string             `json:"ticket,omitempty"`
	UserScenario       UserScenario        `json:"user_scenario"`
	InitialState       *InitialState       `json:"initial_state,omitempty"`
	EvaluationCriteria *EvaluationCriteria `json:"evaluation_criteria,omitempty"`
	// UserTools, when not nil, restricts the user tools a user simulator
	// gets to these names (tau2's user_tools). Informational for now:
	// proctor's user simulators do not call tools yet.
	UserTools []string `json:"user_tools,omitempty"`
	// Issues are tau2's known problems with the task (retail has a few),
	// kept as tau2's file gives them so that exports carry them.
	Issues json.RawMessage `json:"issues,omitempty"`
}

// TaskDescription documents a task for people reading results.
type TaskDescription struct {
	Purpose string `json:"purpose,omitempty"`
	Notes   string `json:"notes,omitempty"`
}

// UserScenario tells a user simulator who to be and what to say.
type UserScenario struct {
	Persona      string `json:"persona,omitempty"`
	Instructions any    `json:"instructions,omitempty"`
	// Script is proctor's scripted user: utterances said in order, one per
	// user turn. When it runs out the user says ###STOP###.
	Script []string `json:"script,omitempty"`
}

// InitialState is how a task's environment differs from the domain's fresh
// one. Domain.NewEnv applies it in tau2's order, before the conversation
// starts and before gold actions are replayed: InitializationData, then
// InitializationActions, then the tool calls of MessageHistory.
type InitialState struct {
	// InitializationData is deep-merged into the fresh databases.
	InitializationData *InitializationData `json:"initialization_data,omitempty"`
	// InitializationActions are calls made on a side before the
	// conversation: of a tool or of an env function (Toolbox.RegisterEnvFunc).
	// Both tau2's form {env_type, func_name, arguments} and proctor's
	// {name, arguments, requestor} are accepted (see Action.Func and
	// Action.Side).
	InitializationActions []Action `json:"initialization_actions,omitempty"`
	// MessageHistory is the conversation so far, in tau2's message format
	// (role, content, tool_calls, id...), kept as raw JSON. Domain.NewEnv
	// replays the tool calls it holds (see ReplayHistory); the rollout
	// starts the conversation from it (see History).
	MessageHistory json.RawMessage `json:"message_history,omitempty"`
}

// InitializationData holds partial databases, one per side, deep-merged
// into the fresh ones (see DeepMerge): objects merge key by key, any other
// value (lists included) replaces the old one.
type InitializationData struct {
	AgentData map[string]any `json:"agent_data,omitempty"`
	UserData  map[string]any `json:"user_data,omitempty"`
	// AgentDataJSON and UserDataJSON are the sides as the task's JSON
	// wrote them, in its key order, which tau2 keeps (records its read
	// tools print list their fields in it) and a Go map loses; empty when
	// the task was not decoded from JSON.
	AgentDataJSON json.RawMessage `json:"-"`
	UserDataJSON  json.RawMessage `json:"-"`
}

// UnmarshalJSON implements json.Unmarshaler: the sides decode as maps and
// are kept as written (AgentDataJSON, UserDataJSON).
func (d *InitializationData) UnmarshalJSON(b []byte) error {
	type plain InitializationData
	if err := json.Unmarshal(b, (*plain)(d)); err != nil {
		return err
	}
	var raw struct {
		AgentData json.RawMessage `json:"agent_data"`
		UserData  json.RawMessage `json:"user_data"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if d.AgentData != nil {
		d.AgentDataJSON = raw.AgentData
	}
	if d.UserData != nil {
		d.UserDataJSON = raw.UserData
	}
	return nil
}

// EvaluationCriteria says how a finished conversation is scored.
type EvaluationCriteria struct {
	Actions         []Action `json:"actions,omitempty"`
	CommunicateInfo []string `json:"communicate_info,omitempty"`
	NLAssertions    []string `json:"nl_assertions,omitempty"`
	RewardBasis     []Basis  `json:"reward_basis,omitempty"`
	// EnvAssertions are checks on the final environment, scored by the
	// ENV_ASSERTION basis.
	EnvAssertions []EnvAssertion `json:"env_assertions,omitempty"`
}

// EnvAssertion calls a function by name on one side of the final
// environment (an env function or a tool; see Toolbox.RegisterEnvFunc). The
// function must return a boolean, which must equal the expected value.
type EnvAssertion struct {
	// EnvType is the side: "assistant" (the default) or "user".
	EnvType   string         `json:"env_type,omitempty"`
	FuncName  string         `json:"func_name"`
	Arguments map[string]any `json:"arguments,omitempty"`
	// AssertValue is the expected result; absent means true (use Expected).
	AssertValue *bool  `json:"assert_value,omitempty"`
	Message     string `json:"message,omitempty"`
}

// Expected is the value the assertion's function must return: AssertValue,
// true when absent.
func (a EnvAssertion) Expected() bool { return a.AssertValue == nil || *a.AssertValue }

// Action is an expected tool call. CompareArgs names the arguments that must
// match; nil means all of Arguments.
//
// An initialization action may instead be written in tau2's form, with
// EnvType and FuncName in place of Requestor and Name; Side and Func read
// either form.
type Action struct {
	ActionID  string         `json:"action_id,omitempty"`
	Requestor string         `json:"requestor,omitempty"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Info      string         `json:"info,omitempty"`
	// EnvType and FuncName are tau2's names for Requestor and Name in
	// initialization actions.
	EnvType  string `json:"env_type,omitempty"`
	FuncName string `json:"func_name,omitempty"`
	// CompareArgs is not omitempty: an empty list (compare nothing) and an
	// absent one (compare everything) mean opposite things.
	CompareArgs []string `json:"compare_args"`
}

// Requestors, and the sides of an environment they reach.
const (
	RequestorAssistant = "assistant"
	RequestorUser      = "user"
)

// Func is the name of the action's function: Name, or FuncName in tau2's
// form.
func (a Action) Func() string {
	if a.Name != "" {
		return a.Name
	}
	return a.FuncName
}

// Side is the side the action runs on: Requestor, or EnvType in tau2's form;
// "" means the agent's side.
func (a Action) Side() string {
	if a.Requestor != "" {
		return a.Requestor
	}
	return a.EnvType
}

// Bases returns the task's reward bases, defaulting to DB and COMMUNICATE as
// tau2-bench does when a task names none.
func (t *Task) Bases() []Basis {
	if t.EvaluationCriteria == nil || len(t.EvaluationCriteria.RewardBasis) == 0 {
		return []Basis{BasisDB, BasisCommunicate}
	}
	return t.EvaluationCriteria.RewardBasis
}

// Validate reports the first structural problem of a task: a task that can
// never be scored meaningfully is an error, not a silent 1.0.
func (t *Task) Validate() error {
	if t.ID == "" {
		return fmt.Errorf("task without id")
	}
	known := []Basis{BasisDB, BasisAction, BasisCommunicate, BasisNLAssertion, BasisEnvAssertion}
	for _, b := range t.Bases() {
		if !slices.Contains(known, b) {
			return fmt.Errorf("task %s: unknown reward basis %q", t.ID, b)
		}
	}
	if t.InitialState != nil {
		for i, a := range t.InitialState.InitializationActions {
			if a.Name != "" && a.FuncName != "" && a.Name != a.FuncName {
				return fmt.Errorf("task %s: initialization action %d: name %q and func_name %q differ", t.ID, i, a.Name, a.FuncName)
			}
			if a.Requestor != "" && a.EnvType != "" && a.Requestor != a.EnvType {
				return fmt.Errorf("task %s: initialization action %d: requestor %q and env_type %q differ", t.ID, i, a.Requestor, a.EnvType)
			}
			if a.Func() == "" {
				return fmt.Errorf("task %s: initialization action %d names no function", t.ID, i)
			}
		}
		if h := t.InitialState.MessageHistory; len(h) > 0 {
			if _, err := historyCalls(h); err != nil {
				return fmt.Errorf("task %s: message_history: %w", t.ID, err)
			}
		}
	}
	if t.EvaluationCriteria != nil {
		for i, a := range t.EvaluationCriteria.EnvAssertions {
			if a.FuncName == "" {
				return fmt.Errorf("task %s: env assertion %d names no function", t.ID, i)
			}
		}
	}
	return nil
}

// ParseTasks decodes a JSON array of tasks and validates each.
func ParseTasks(data []byte) ([]Task, error) {
	var tasks []Task
	if err := json.Unmarshal(data, &tasks); err != nil {
		return nil, fmt.Errorf("decode tasks: %w", err)
	}
	seen := make(map[string]bool, len(tasks))
	for i := range tasks {
		if err := tasks[i].Validate(); err != nil {
			return nil, fmt.Errorf("task %d: %w", i, err)
		}
		if seen[tasks[i].ID] {
			return nil, fmt.Errorf("duplicate task id %q", tasks[i].ID)
		}
		seen[tasks[i].ID] = true
	}
	return tasks, nil
}

// UnmarshalJSON implements json.Unmarshaler: numbers in Arguments decode as
// json.Number, as in ToolCall, so that an expected 2 is tau2's int 2.
func (a *Action) UnmarshalJSON(b []byte) error {
	type plain Action
	return decodeWithNumbers(b, (*plain)(a))
}
