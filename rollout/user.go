package rollout

import (
	"context"
	"fmt"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

// Stop tokens a user simulator ends a conversation with (result's, named
// here for the rollout's callers).
const (
	StopToken       = result.StopToken
	TransferToken   = result.TransferToken
	OutOfScopeToken = result.OutOfScopeToken
)

// AgentGreeting opens every conversation, as in tau2-bench: the user
// simulator's first utterance answers it.
const AgentGreeting = result.AgentGreeting

// UserSimulator plays the user. It sees only what the agent says to the user,
// never tool calls.
type UserSimulator interface {
	// Reply returns the user's next utterance in answer to the agent's text.
	Reply(ctx context.Context, agentText string) (string, error)
}

// UserFactory makes a fresh user simulator for each simulation.
type UserFactory func(task *domains.Task, trial int) (UserSimulator, error)

// ScriptedUsers is the UserFactory of the scripted user simulator.
func ScriptedUsers(task *domains.Task, _ int) (UserSimulator, error) {
	return NewScriptedUser(task)
}

// ScriptedUser says its task's script line by line, whatever the agent says,
// then ###STOP###.
type ScriptedUser struct {
	script []string
	next   int
}

// NewScriptedUser returns the scripted user of a task, or an error for tasks
// that have no script (they need an LLM user simulator).
func NewScriptedUser(task *domains.Task) (*ScriptedUser, error) {
	if len(task.UserScenario.Script) == 0 {
		return nil, fmt.Errorf("task %s has no user script; it needs the LLM user simulator (--user llm)", task.ID)
	}
	return &ScriptedUser{script: task.UserScenario.Script}, nil
}

// Reply implements UserSimulator.
func (u *ScriptedUser) Reply(context.Context, string) (string, error) {
	if u.next >= len(u.script) {
		return StopToken, nil
	}
	s := u.script[u.next]
	u.next++
	return s, nil
}

// isUserStop reports whether a user utterance ends the conversation.
func isUserStop(s string) bool {
	return strings.Contains(s, StopToken) || strings.Contains(s, TransferToken) || strings.Contains(s, OutOfScopeToken)
}
