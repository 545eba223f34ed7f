package domains

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Reward bases a task can be scored on. The reward of a simulation is the
// product of the rewards of its task's bases.
const (
	BasisDB           = "DB"
	BasisAction       = "ACTION"
	BasisCommunicate  = "COMMUNICATE"
	BasisNLAssertion  = "NL_ASSERTION"
	BasisEnvAssertion = "ENV_ASSERTION"
)

// Task is one scenario of a domain: who the user is, what they want, and how
// the conversation is judged. The field names follow tau2-bench's task files
// so that its domains load into the same type.
type Task struct {
	ID                 string              `json:"id"`
	Description        *TaskDescription    `json:"description,omitempty"`
	UserScenario       UserScenario        `json:"user_scenario"`
	InitialState       *InitialState       `json:"initial_state,omitempty"`
	EvaluationCriteria *EvaluationCriteria `json:"evaluation_criteria,omitempty"`
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

// InitialState holds actions applied to a fresh environment before the
// conversation starts (and before gold actions are replayed).
type InitialState struct {
	InitializationActions []Action `json:"initialization_actions,omitempty"`
}

// EvaluationCriteria says how a finished conversation is scored.
type EvaluationCriteria struct {
	Actions         []Action `json:"actions,omitempty"`
	CommunicateInfo []string `json:"communicate_info,omitempty"`
	NLAssertions    []string `json:"nl_assertions,omitempty"`
	RewardBasis     []string `json:"reward_basis,omitempty"`
}

// Action is an expected tool call. CompareArgs names the arguments that must
// match; nil means all of Arguments.
type Action struct {
	ActionID  string         `json:"action_id,omitempty"`
	Requestor string         `json:"requestor,omitempty"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Info      string         `json:"info,omitempty"`
	// CompareArgs is not omitempty: an empty list (compare nothing) and an
	// absent one (compare everything) mean opposite things.
	CompareArgs []string `json:"compare_args"`
}

// Bases returns the task's reward bases, defaulting to DB and COMMUNICATE as
// tau2-bench does when a task names none.
func (t *Task) Bases() []string {
	if t.EvaluationCriteria == nil || len(t.EvaluationCriteria.RewardBasis) == 0 {
		return []string{BasisDB, BasisCommunicate}
	}
	return t.EvaluationCriteria.RewardBasis
}

// Validate reports the first structural problem of a task: a task that can
// never be scored meaningfully is an error, not a silent 1.0.
func (t *Task) Validate() error {
	if t.ID == "" {
		return fmt.Errorf("task without id")
	}
	known := []string{BasisDB, BasisAction, BasisCommunicate, BasisNLAssertion, BasisEnvAssertion}
	for _, b := range t.Bases() {
		if !slices.Contains(known, b) {
			return fmt.Errorf("task %s: unknown reward basis %q", t.ID, b)
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
