package main

// The evaltool script plays eval cases (proctor's rollout.CasePlayer): the
// framework runs its own tool, so the whole turn (the call, the tool's
// response, the answer with a thought) crosses A2A as server/a2a converts
// it.
//
//   - asked about the weather, the model calls get_weather with
//     {"city":"Paris"}; the framework runs it ({"forecast":"sunny",
//     "temp_c":21});
//   - given the tool's response, it answers EvalAnswer, with EvalThought
//     as its reasoning content (a text part marked "thought");
//   - asked whether it remembers, it repeats the last line of the first
//     user message of its session: proof that the session (keyed by the
//     context id and the X-User-ID header) was kept.

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"trpc.group/trpc-go/trpc-agent-go/agent/llmagent"
	"trpc.group/trpc-go/trpc-agent-go/model"
	a2aserver "trpc.group/trpc-go/trpc-agent-go/server/a2a"
	"trpc.group/trpc-go/trpc-agent-go/tool"
	"trpc.group/trpc-go/trpc-agent-go/tool/function"
)

// ModeEvalTool is the eval-case script.
const ModeEvalTool Mode = "evaltool"

// Texts of the evaltool script. internal/interop expects exactly these.
const (
	EvalAnswer   = "It is sunny in Paris, 21 degrees."
	EvalThought  = "The tool says sunny and 21."
	EvalRemember = "remember"
	// EvalRecallPrefix starts the answer to a question about memory.
	EvalRecallPrefix = "You first asked: "
)

// weatherInput is get_weather's argument object.
type weatherInput struct {
	City string `json:"city"`
}

// weatherOutput is get_weather's result.
type weatherOutput struct {
	Forecast string `json:"forecast"`
	TempC    int    `json:"temp_c"`
}

// newEvalToolHandler serves the evaltool agent; the framework executes
// get_weather itself.
func newEvalToolHandler(base string) (http.Handler, error) {
	getWeather := function.NewFunctionTool(func(context.Context, weatherInput) (weatherOutput, error) {
		return weatherOutput{Forecast: "sunny", TempC: 21}, nil
	}, function.WithName("get_weather"), function.WithDescription("The weather in a city."))
	ag := llmagent.New("weather",
		llmagent.WithModel(evalModel{}),
		llmagent.WithDescription("Answers weather questions (tRPC-Agent-Go, scripted model)."),
		llmagent.WithInstruction("Answer weather questions."),
		llmagent.WithTools([]tool.Tool{getWeather}),
		llmagent.WithGenerationConfig(model.GenerationConfig{Stream: true}),
	)
	srv, err := a2aserver.New(a2aserver.WithAgent(ag, true), a2aserver.WithHost(base))
	if err != nil {
		return nil, fmt.Errorf("build the A2A server: %w", err)
	}
	return srv.Handler(), nil
}

// evalModel is the evaltool script's model.Model.
type evalModel struct{}

// Info names the model.
func (evalModel) Info() model.Info { return model.Info{Name: "proctor-eval-script"} }

// GenerateContent answers with the script's next step.
func (evalModel) GenerateContent(_ context.Context, req *model.Request) (<-chan *model.Response, error) {
	if req == nil {
		return nil, fmt.Errorf("nil request")
	}
	out := make(chan *model.Response, 8)
	defer close(out)
	id := responseID()
	msgs := req.Messages
	done := func(msg model.Message, finish string) *model.Response {
		return &model.Response{ID: id, Object: model.ObjectTypeChatCompletion, Created: time.Now().Unix(), Model: "proctor-eval-script", Done: true,
			Choices: []model.Choice{{Message: msg, FinishReason: ptr(finish)}},
			Usage:   &model.Usage{PromptTokens: 40, CompletionTokens: 9, TotalTokens: 49}}
	}
	last := msgs[len(msgs)-1]
	switch {
	case last.Role == model.RoleTool:
		out <- done(model.Message{Role: model.RoleAssistant, Content: EvalAnswer, ReasoningContent: EvalThought}, "stop")
	case strings.Contains(last.Content, EvalRemember):
		out <- done(model.Message{Role: model.RoleAssistant, Content: EvalRecallPrefix + lastLine(firstUserText(msgs))}, "stop")
	case strings.Contains(last.Content, "weather"):
		call := model.ToolCall{Type: "function", ID: "call-1", Function: model.FunctionDefinitionParam{Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)}}
		out <- done(model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{call}}, "tool_calls")
	default:
		out <- done(model.Message{Role: model.RoleAssistant, Content: "Hello."}, "stop")
	}
	return out, nil
}

func firstUserText(msgs []model.Message) string {
	for _, m := range msgs {
		if m.Role == model.RoleUser {
			return m.Content
		}
	}
	return ""
}

// lastLine is the user's own words after any context block proctor put
// before them.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
