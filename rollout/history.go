package rollout

import (
	"context"
	"fmt"
	"strings"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

// HistoryUser is a UserSimulator that can be shown the conversation as it
// stood before the simulation started (a task's message history), as
// tau2's user simulator is: the user's own messages and tool results and
// the agent's messages to the user, never the agent's tool calls.
type HistoryUser interface {
	UserSimulator
	// StartFrom gives the user the prior messages, oldest first, before
	// its first Reply.
	StartFrom(history []domains.HistoryMessage)
}

// startFromHistory starts a simulation from the task's message history, as
// tau2's orchestrator does: the history heads the transcript, marked as
// history, with no greeting; the agent and the user are each shown what
// they may see of it; and its last message says who speaks next. A
// non-empty reason ends the simulation.
func (r *simRun) startFromHistory(ctx context.Context, history []domains.HistoryMessage, user UserSimulator) (agent.Input, result.TerminationReason, error) {
	for _, m := range historyTranscript(history) {
		r.add(m)
	}
	r.history = len(history)
	n := len(history)
	last := history[n-1]
	switch {
	case last.Role == domains.RequestorAssistant && !last.IsToolCall():
		// The agent spoke to the user last: the user answers it.
		if strings.Contains(last.Content, StopToken) {
			return agent.Input{}, result.TermAgentStop, nil
		}
		showUser(user, history[:n-1])
		utterance, err := user.Reply(ctx, last.Content)
		if err != nil {
			term, err := r.timeoutOr(ctx, result.TermUserError, fmt.Errorf("user simulator: %w", err))
			return agent.Input{}, term, err
		}
		r.add(result.Message{Role: result.RoleUser, Content: utterance})
		if isUserStop(utterance) {
			return agent.Input{}, result.TermUserStop, nil
		}
		return agent.Input{UserText: utterance, History: agentView(history)}, "", nil
	case last.Role == domains.RequestorUser && !last.IsToolCall():
		// The user spoke last: it is the agent's first input.
		showUser(user, history)
		if isUserStop(last.Content) {
			return agent.Input{}, result.TermUserStop, nil
		}
		return agent.Input{UserText: last.Content, History: agentView(history[:n-1])}, "", nil
	case last.Role == domains.RoleTool && last.Requestor == domains.RequestorAssistant:
		// The agent's tool calls were answered: the agent goes on.
		showUser(user, history)
		return agent.Input{History: agentView(history)}, "", nil
	case last.Role == domains.RequestorAssistant:
		// The agent's last calls are unanswered: they run now.
		showUser(user, history[:n-1])
		outcomes := r.runAgentCalls(ctx, last.ToolCalls)
		return agent.Input{History: agentView(history), ToolResults: outcomes}, "", nil
	default:
		return agent.Input{}, result.TermInfrastructure,
			fmt.Errorf("task %s: a message history that ends with the user's tool calls or their results is not supported", r.task.ID)
	}
}

// showUser gives a HistoryUser the part of history a user sees.
func showUser(user UserSimulator, history []domains.HistoryMessage) {
	hu, ok := user.(HistoryUser)
	if !ok {
		return
	}
	var seen []domains.HistoryMessage
	for _, m := range history {
		switch {
		case m.Role == domains.RequestorUser,
			m.Role == domains.RequestorAssistant && !m.IsToolCall(),
			m.Role == domains.RoleTool && m.Requestor == domains.RequestorUser:
			seen = append(seen, m)
		}
	}
	hu.StartFrom(seen)
}

// agentView is the part of history the agent sees, as tau2 gives it to its
// agent: its own messages, the user's words, the results of its own calls.
func agentView(history []domains.HistoryMessage) []domains.HistoryMessage {
	var seen []domains.HistoryMessage
	for _, m := range history {
		switch {
		case m.Role == domains.RequestorAssistant,
			m.Role == domains.RequestorUser && !m.IsToolCall(),
			m.Role == domains.RoleTool && m.Requestor == domains.RequestorAssistant:
			seen = append(seen, m)
		}
	}
	return seen
}

// historyTranscript converts a message history to transcript messages
// marked as history. A tool message is named after the call it answers.
func historyTranscript(history []domains.HistoryMessage) []result.Message {
	names := map[string]string{} // call id -> tool name
	out := make([]result.Message, 0, len(history))
	for _, h := range history {
		m := result.Message{Role: result.Role(h.Role), Content: h.Content, History: true}
		if h.Role == domains.RoleTool {
			m.ToolCallID, m.Name, m.Error = h.ToolCallID, names[h.ToolCallID], h.Error
			if h.Requestor == domains.RequestorUser {
				m.Requestor = domains.RequestorUser
			}
		}
		for _, c := range h.ToolCalls {
			names[c.ID] = c.Name
			m.ToolCalls = append(m.ToolCalls, c)
		}
		out = append(out, m)
	}
	return out
}
