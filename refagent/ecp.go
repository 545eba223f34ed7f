package refagent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/ecp"
)

// ThoughtMarker starts every private thought of the reference agent over
// ECP, so that tests can tell where private thoughts went.
const ThoughtMarker = "[refagent private]"

// ECP returns the reference agent as one ECP agent (see package ecp): one
// conversation at a time, cleared by agent/reset. The first step after a
// reset carries the policy and tools in its context; a step of kind
// tool_results carries {"tool_results": [...]} as its input. The agent
// answers "done" with public_output for the user, or "paused" with one
// tool call, and tells its reasoning in private_thought.
func (a *Agent) ECP() ecp.Handler { return &ecpAgent{agent: a, conv: &conversation{}} }

// ECPFactory returns a maker of fresh ECP agents, one per WebSocket
// connection (see ecp.WebSocketHandler); they share the Agent's domain.
func (a *Agent) ECPFactory() func() ecp.Handler { return a.ECP }

// ecpAgent is the reference agent over ECP.
type ecpAgent struct {
	agent *Agent
	mu    sync.Mutex
	conv  *conversation
	steps int
}

// Initialize names the agent and its version.
func (e *ecpAgent) Initialize(context.Context, ecp.InitializeParams) (ecp.InitializeResult, error) {
	return ecp.InitializeResult{
		Name:            "proctor reference agent (" + e.agent.domain.Name + ")",
		ProtocolVersion: ecp.ProtocolVersion,
		Capabilities:    map[string]any{"version": Version, "tool_calls_per_step": 1},
	}, nil
}

// Reset forgets the conversation.
func (e *ecpAgent) Reset(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.conv, e.steps = &conversation{}, 0
	return nil
}

// Step reads one input and answers with the rules' next move.
func (e *ecpAgent) Step(_ context.Context, p ecp.StepParams) (res ecp.StepResult, err error) {
	in, err := ecpInput(p)
	if err != nil {
		return res, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.steps++
	defer func() {
		// A bug in the rules must cost one conversation, not the agent.
		if r := recover(); r != nil {
			e.conv = &conversation{}
			res, err = ecpResult(say("Sorry, something went wrong on my side. Let's start over: what can I do for you?")), nil
		}
	}()
	return ecpResult(e.conv.step(in)), nil
}

// Inspect answers "steps" (steps since the reset), "user_id" and
// "authenticated".
func (e *ecpAgent) Inspect(_ context.Context, path string) (any, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch path {
	case "steps":
		return e.steps, nil
	case "user_id":
		return e.conv.userID, nil
	case "authenticated":
		return e.conv.userID != "", nil
	}
	return nil, &ecp.RPCError{Code: ecp.CodeInvalidParams, Message: fmt.Sprintf("unknown path %q (known: steps, user_id, authenticated)", path)}
}

// ecpInput reads a step as the rules' input.
func ecpInput(p ecp.StepParams) (input, error) {
	in := input{User: p.Input}
	if p.Context.Policy != "" || len(p.Context.Tools) > 0 {
		in.First, in.Profile, in.Policy = true, agent.ProfileStructured, p.Context.Policy
		in.Tools = toolNames(string(p.Context.Tools))
	}
	if p.Context.Kind == ecp.KindToolResults {
		var tr ecp.ToolResults
		if err := json.Unmarshal([]byte(p.Input), &tr); err != nil {
			return in, &ecp.RPCError{Code: ecp.CodeInvalidParams, Message: "a tool_results input must hold {\"tool_results\": [...]}: " + err.Error()}
		}
		in.User = ""
		for _, r := range tr.ToolResults {
			in.Results = append(in.Results, toolResult{Name: r.Name, Content: r.Content, Error: r.Error})
		}
	}
	return in, nil
}

// ecpResult frames a reply as a step result. Its usage is zero tokens:
// the rules use no model (ECP 0.1.0 §3.3 asks every step for its usage).
func ecpResult(r reply) ecp.StepResult {
	usage := &ecp.Usage{Reported: true}
	if r.Name == respondTool {
		text, _ := r.Arguments["content"].(string)
		thought := ThoughtMarker + " answering the user"
		return ecp.StepResult{Status: ecp.StatusDone, PublicOutput: &text, PrivateThought: &thought, Usage: usage}
	}
	args := r.Arguments
	if args == nil {
		args = map[string]any{}
	}
	thought := ThoughtMarker + " calling " + r.Name
	return ecp.StepResult{Status: ecp.StatusPaused, PrivateThought: &thought, ToolCalls: []ecp.ToolCall{{Name: r.Name, Arguments: args}}, Usage: usage}
}
