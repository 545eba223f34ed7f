// Package ecpcalc serves the calculator agent of agenttest over ECP, for
// tests that play the same eval sets over A2A and ECP.
package ecpcalc

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

// ThoughtMarker starts every private thought of the ECP calculator, so
// that tests can tell where private thoughts went.
const ThoughtMarker = "[calc private]"

// Options configure New.
type Options struct {
	// Running is how many "running" steps the agent takes before each
	// answer to a calculation (0: none).
	Running int
}

// New returns the calculator agent of agenttest.StartCalculator as an ECP
// agent: "calc add 2 3" pauses with a calculator call {"operation": "add",
// "a": 2, "b": 3}; the tool result {"result": 5} it is stepped with is
// answered "The result is 5." (a failed result "The calculator failed.");
// any other text "I can only calculate." Every step tells a private
// thought starting with ThoughtMarker and reports its usage.
// agent/inspect reads its state by dotted path: "turns" (user inputs since
// the reset), "steps", "last.operation", "last.result", or "" for all of
// it.
func New(o Options) ecp.Handler {
	return &calcECP{o: o, state: calcState{}}
}

// Factory makes a fresh agent (New) per WebSocket connection (see
// ecp.WebSocketHandler).
func Factory(o Options) func() ecp.Handler {
	return func() ecp.Handler { return New(o) }
}

type calcState map[string]any

type calcECP struct {
	o     Options
	mu    sync.Mutex
	state calcState
	// running counts the running steps of the pending calculation.
	running int
	pending *ecp.ToolCall
}

func (c *calcECP) Initialize(context.Context, ecp.InitializeParams) (ecp.InitializeResult, error) {
	return ecp.InitializeResult{Name: "calculator (ECP)", ProtocolVersion: ecp.ProtocolVersion}, nil
}

func (c *calcECP) Reset(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state, c.running, c.pending = calcState{}, 0, nil
	return nil
}

func (c *calcECP) Step(_ context.Context, p ecp.StepParams) (ecp.StepResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state["steps"] = count(c.state["steps"]) + 1
	usage := &ecp.Usage{Input: int64(len(strings.Fields(p.Input))), Output: 5}
	switch {
	case p.Context.Kind == ecp.KindToolResults:
		return c.answer(p.Input, usage)
	case c.pending != nil && p.Input == "":
		return c.call(usage), nil
	}
	c.state["turns"] = count(c.state["turns"]) + 1
	op, a, b, ok := agenttest.ParseCalc(p.Input)
	if !ok {
		return done("I can only calculate.", "no calculation asked", usage), nil
	}
	c.pending = &ecp.ToolCall{ID: "call-1", Name: "calculator", Arguments: map[string]any{"operation": op, "a": a, "b": b}}
	c.running = 0
	return c.call(usage), nil
}

// call pauses with the pending call, after the running steps asked for.
func (c *calcECP) call(usage *ecp.Usage) ecp.StepResult {
	thought := ThoughtMarker + " thinking"
	if c.running < c.o.Running {
		c.running++
		return ecp.StepResult{Status: ecp.StatusRunning, PrivateThought: &thought, Usage: usage}
	}
	thought = ThoughtMarker + " calling calculator"
	return ecp.StepResult{Status: ecp.StatusPaused, PrivateThought: &thought, ToolCalls: []ecp.ToolCall{*c.pending}, Usage: usage}
}

// answer reads the calculator's result.
func (c *calcECP) answer(input string, usage *ecp.Usage) (ecp.StepResult, error) {
	var tr ecp.ToolResults
	if err := json.Unmarshal([]byte(input), &tr); err != nil || len(tr.ToolResults) != 1 {
		return ecp.StepResult{}, &ecp.RPCError{Code: ecp.CodeInvalidParams, Message: "want one tool result"}
	}
	r := tr.ToolResults[0]
	var res struct {
		Result *float64 `json:"result"`
	}
	if r.Error || json.Unmarshal([]byte(r.Content), &res) != nil || res.Result == nil {
		c.pending = nil
		return done("The calculator failed.", "the tool failed: "+r.Content, usage), nil
	}
	c.state["last"] = map[string]any{"operation": c.pending.Arguments["operation"], "result": *res.Result}
	c.pending = nil
	return done("The result is "+strconv.FormatFloat(*res.Result, 'f', -1, 64)+".", "read the result", usage), nil
}

func done(text, thought string, usage *ecp.Usage) ecp.StepResult {
	thought = ThoughtMarker + " " + thought
	return ecp.StepResult{Status: ecp.StatusDone, PublicOutput: &text, PrivateThought: &thought, Usage: usage}
}

func count(v any) int {
	n, _ := v.(int)
	return n
}

// Inspect resolves a dotted path in the agent's state.
func (c *calcECP) Inspect(_ context.Context, path string) (any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var v any = map[string]any(c.state)
	if path == "" {
		return v, nil
	}
	for _, key := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, &ecp.RPCError{Code: ecp.CodeInvalidParams, Message: fmt.Sprintf("no state at %q", path)}
		}
		if v, ok = m[key]; !ok {
			return nil, &ecp.RPCError{Code: ecp.CodeInvalidParams, Message: fmt.Sprintf("no state at %q", path)}
		}
	}
	return v, nil
}
