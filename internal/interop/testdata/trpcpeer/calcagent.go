package main

// The calculator agent: one deterministic agent with tools, served over A2A
// (--mode calc) and run in-process by tRPC-Agent-Go's own evaluator
// (trpcpeer eval), so that proctor's eval-set scores can be compared with
// the framework's on the very same agent. Unlike the mock-domain scripts in
// main.go, the framework executes these tools itself.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"trpc.group/trpc-go/trpc-agent-go/agent"
	"trpc.group/trpc-go/trpc-agent-go/agent/llmagent"
	"trpc.group/trpc-go/trpc-agent-go/model"
	a2aserver "trpc.group/trpc-go/trpc-agent-go/server/a2a"
	"trpc.group/trpc-go/trpc-agent-go/tool"
	"trpc.group/trpc-go/trpc-agent-go/tool/function"
)

// ModeCalc serves the calculator agent.
const ModeCalc Mode = "calc"

// calcAgentName names the calculator agent.
const calcAgentName = "calc_helper"

// FixedTime is what current_time always answers.
const FixedTime = "2026-01-01T12:00:00Z"

// calcFallback is the answer to a message the script does not know.
const calcFallback = "Sorry, I only do arithmetic."

// calcFailText is the user message the model fails on, as a provider error
// would.
const calcFailText = "fail this turn"

// calcCall is one tool call of a scripted step: the tool and its JSON
// arguments.
type calcCall struct {
	Tool string
	Args string
}

// calcStep is what the model does with a user message: the tool calls it
// makes (all in one response), then, once their results are in, its answer.
type calcStep struct {
	Calls  []calcCall
	Answer string
}

// calcScript maps a user message's exact text to the step the model takes.
// Some steps are right and some are wrong (other arguments, an extra call,
// other text), so that eval cases built on them pass or fail each
// criterion on purpose.
func calcScript() map[string]calcStep {
	add23 := calcCall{"calculator", `{"operation":"add","a":2,"b":3}`}
	utc := calcCall{"current_time", `{"timezone":"UTC"}`}
	return map[string]calcStep{
		"add 2 and 3":                     {[]calcCall{add23}, "The result is 5."},
		"multiply 4 by 2.5":               {[]calcCall{{"calculator", `{"operation":"multiply","a":4,"b":2.5}`}}, "The result is 10."},
		"add 2 and 3, carelessly":         {[]calcCall{{"calculator", `{"operation":"add","a":2,"b":4}`}}, "The result is 6."},
		"add 2 and 3, twice":              {[]calcCall{add23, add23}, "The result is 5."},
		"add 2 and 3, loudly":             {[]calcCall{add23}, "THE RESULT IS 5."},
		"add 2 and 3 as JSON":             {[]calcCall{add23}, `{"operation":"add","result":5,"requestId":"req-7f3a"}`},
		"add 1 and 1, then tell the time": {[]calcCall{{"calculator", `{"operation":"add","a":1,"b":1}`}, utc}, "1 + 1 = 2, and it is 12:00 UTC."},
		"divide 10 by 3":                  {[]calcCall{{"calculator", `{"operation":"divide","a":10,"b":3}`}}, "The result is about 3.333."},
		"what time is it?":                {[]calcCall{utc}, "It is 12:00 UTC."},
		"hello":                           {nil, "Hello! I can add, subtract, multiply and divide."},
	}
}

// calculatorInput is the calculator tool's argument object.
type calculatorInput struct {
	Operation string  `json:"operation"`
	A         float64 `json:"a"`
	B         float64 `json:"b"`
}

// calculatorOutput is the calculator tool's result.
type calculatorOutput struct {
	Result float64 `json:"result"`
}

// timeInput is current_time's argument object.
type timeInput struct {
	Timezone string `json:"timezone"`
}

// timeOutput is current_time's result.
type timeOutput struct {
	Time     string `json:"time"`
	Timezone string `json:"timezone"`
}

func calculate(_ context.Context, in calculatorInput) (calculatorOutput, error) {
	switch in.Operation {
	case "add":
		return calculatorOutput{in.A + in.B}, nil
	case "subtract":
		return calculatorOutput{in.A - in.B}, nil
	case "multiply":
		return calculatorOutput{in.A * in.B}, nil
	case "divide":
		if in.B == 0 {
			return calculatorOutput{}, errors.New("division by zero")
		}
		return calculatorOutput{in.A / in.B}, nil
	}
	return calculatorOutput{}, fmt.Errorf("unknown operation %q: want add, subtract, multiply or divide", in.Operation)
}

func currentTime(_ context.Context, in timeInput) (timeOutput, error) {
	return timeOutput{Time: FixedTime, Timezone: in.Timezone}, nil
}

// calcTools are the calculator agent's tools, executed by the framework.
func calcTools() []tool.Tool {
	return []tool.Tool{
		function.NewFunctionTool(calculate, function.WithName("calculator"),
			function.WithDescription("Add, subtract, multiply or divide two numbers.")),
		function.NewFunctionTool(currentTime, function.WithName("current_time"),
			function.WithDescription("The current time in a timezone.")),
	}
}

// newCalcAgent builds the calculator agent: an llmagent with the two tools
// and the scripted calcModel.
func newCalcAgent() agent.Agent {
	return llmagent.New(calcAgentName,
		llmagent.WithModel(&calcModel{script: calcScript()}),
		llmagent.WithDescription("Does arithmetic with a calculator tool (tRPC-Agent-Go, scripted model)."),
		llmagent.WithInstruction("Use the calculator for arithmetic."),
		llmagent.WithTools(calcTools()),
	)
}

// newCalcHandler serves the calculator agent with server/a2a, card and all
// built by the framework, with base as the card's url.
func newCalcHandler(base string) (http.Handler, error) {
	srv, err := a2aserver.New(a2aserver.WithAgent(newCalcAgent(), true), a2aserver.WithHost(base))
	if err != nil {
		return nil, fmt.Errorf("build the A2A server: %w", err)
	}
	return srv.Handler(), nil
}

// calcModel is a model.Model that follows calcScript: given a user message,
// it makes the step's tool calls; given the calls' results, it answers. It
// is used by pointer: the framework compares models, and a map is not
// comparable.
type calcModel struct{ script map[string]calcStep }

// Info names the model.
func (*calcModel) Info() model.Info { return model.Info{Name: "proctor-calc-script"} }

// GenerateContent answers the request with the script's next move.
func (m *calcModel) GenerateContent(_ context.Context, req *model.Request) (<-chan *model.Response, error) {
	if req == nil || len(req.Messages) == 0 {
		return nil, errors.New("empty request")
	}
	text := lastUserText(req.Messages)
	if text == calcFailText {
		return nil, errors.New("scripted model failure")
	}
	step, known := m.script[text]
	if !known {
		step = calcStep{Answer: calcFallback}
	}
	msg := model.Message{Role: model.RoleAssistant, Content: step.Answer}
	finish := "stop"
	// The calls come first; once the last message is a tool result, the
	// step answers.
	if last := req.Messages[len(req.Messages)-1]; last.Role != model.RoleTool && len(step.Calls) > 0 {
		msg = model.Message{Role: model.RoleAssistant, ToolCalls: toolCalls(step.Calls)}
		finish = "tool_calls"
	}
	out := make(chan *model.Response, 1)
	out <- &model.Response{
		ID: responseID(), Object: model.ObjectTypeChatCompletion, Model: "proctor-calc-script", Done: true,
		Choices: []model.Choice{{Message: msg, FinishReason: &finish}},
		Usage:   &model.Usage{PromptTokens: len(req.Messages), CompletionTokens: len(msg.Content), TotalTokens: len(req.Messages) + len(msg.Content)},
	}
	close(out)
	return out, nil
}

// toolCalls are a step's calls, with ids unique within the conversation
// (the framework matches results to calls by id).
func toolCalls(calls []calcCall) []model.ToolCall {
	prefix := strings.TrimPrefix(responseID(), "chatcmpl-")
	out := make([]model.ToolCall, len(calls))
	for i, c := range calls {
		out[i] = model.ToolCall{Type: "function", ID: fmt.Sprintf("call_%s_%d", prefix, i+1),
			Function: model.FunctionDefinitionParam{Name: c.Tool, Arguments: []byte(c.Args)}}
	}
	return out
}
