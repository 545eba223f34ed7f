// Command trpcgen writes the evalset_result.json that report's golden test
// reads: tRPC-Agent-Go's own evaluator (module evaluation v1.10.0, its local
// eval-set, metric and result managers) runs an eval set three times
// against an LLM agent of the framework whose model is scripted, and its
// local result manager writes the file. It is a module of its own so that
// proctor does not depend on the framework.
//
//	go run . OUT_DIR
//
// writes OUT_DIR/<appName>/<appName>_<evalSetId>_<uuid>.evalset_result.json
// (and the eval set and metrics files it read beside it). The script:
//
//   - weather_ok: calls get_weather {"city":"Paris"} then answers
//     "Sunny in Paris, 21°C." (passes both metrics every run);
//   - weather_flaky: as weather_ok on runs 1 and 3; on run 2 calls
//     get_weather {"city":"Lyon"} and answers "Rainy in Lyon." (fails both);
//   - greet_wrong: answers "Bonjour" where "Hello" was expected (fails the
//     final response, passes the empty trajectory);
//   - model_error: the model fails, so inference fails (errorMessage set).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"trpc.group/trpc-go/trpc-agent-go/agent/llmagent"
	"trpc.group/trpc-go/trpc-agent-go/evaluation"
	"trpc.group/trpc-go/trpc-agent-go/evaluation/evalresult"
	evalresultlocal "trpc.group/trpc-go/trpc-agent-go/evaluation/evalresult/local"
	"trpc.group/trpc-go/trpc-agent-go/evaluation/evalset"
	evalsetlocal "trpc.group/trpc-go/trpc-agent-go/evaluation/evalset/local"
	"trpc.group/trpc-go/trpc-agent-go/evaluation/metric"
	metriclocal "trpc.group/trpc-go/trpc-agent-go/evaluation/metric/local"
	"trpc.group/trpc-go/trpc-agent-go/model"
	"trpc.group/trpc-go/trpc-agent-go/runner"
	"trpc.group/trpc-go/trpc-agent-go/tool"
	"trpc.group/trpc-go/trpc-agent-go/tool/function"
)

const (
	appName   = "weather_app"
	evalSetID = "smoke"
)

const evalSetJSON = `{
  "evalSetId": "smoke",
  "name": "smoke",
  "evalCases": [
    {"evalId": "weather_ok", "conversation": [{"invocationId": "w1",
      "userContent": {"role": "user", "content": "weather_ok: what is the weather in Paris?"},
      "finalResponse": {"role": "assistant", "content": "Sunny in Paris"},
      "tools": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}],
     "sessionInput": {"appName": "weather_app", "userId": "u1"}},
    {"evalId": "weather_flaky", "conversation": [{"invocationId": "f1",
      "userContent": {"role": "user", "content": "weather_flaky: what is the weather in Paris?"},
      "finalResponse": {"role": "assistant", "content": "Sunny in Paris"},
      "tools": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}],
     "sessionInput": {"appName": "weather_app", "userId": "u1"}},
    {"evalId": "greet_wrong", "conversation": [{"invocationId": "g1",
      "userContent": {"role": "user", "content": "greet_wrong: say hello"},
      "finalResponse": {"role": "assistant", "content": "Hello"}}],
     "sessionInput": {"appName": "weather_app", "userId": "u1"}},
    {"evalId": "model_error", "conversation": [{"invocationId": "e1",
      "userContent": {"role": "user", "content": "model_error: anything"},
      "finalResponse": {"role": "assistant", "content": "never"}}],
     "sessionInput": {"appName": "weather_app", "userId": "u1"}}
  ]
}`

const metricsJSON = `[
  {"metricName": "tool_trajectory_avg_score", "threshold": 1,
   "criterion": {"toolTrajectory": {"orderSensitive": true,
     "defaultStrategy": {"name": {"matchStrategy": "exact"}, "arguments": {"matchStrategy": "exact"}, "result": {"ignore": true}}}}},
  {"metricName": "final_response_avg_score", "threshold": 1,
   "criterion": {"finalResponse": {"text": {"matchStrategy": "contains"}}}}
]`

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: trpcgen OUT_DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintf(os.Stderr, "trpcgen: %v\n", err)
		os.Exit(1)
	}
}

func run(out string) error {
	dir := filepath.Join(out, appName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, evalSetID+".evalset.json"), []byte(evalSetJSON), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, evalSetID+".metrics.json"), []byte(metricsJSON), 0o644); err != nil {
		return err
	}
	ag := llmagent.New("weather_agent",
		llmagent.WithModel(&scriptModel{calls: map[string]int{}}),
		llmagent.WithInstruction("Answer about the weather."),
		llmagent.WithTools([]tool.Tool{weatherTool()}),
	)
	r := runner.NewRunner(appName, ag)
	defer r.Close()
	ev, err := evaluation.New(appName, r,
		evaluation.WithEvalSetManager(evalsetlocal.New(evalset.WithBaseDir(out))),
		evaluation.WithMetricManager(metriclocal.New(metric.WithBaseDir(out))),
		evaluation.WithEvalResultManager(evalresultlocal.New(evalresult.WithBaseDir(out))),
		evaluation.WithNumRuns(3),
	)
	if err != nil {
		return err
	}
	defer ev.Close()
	res, err := ev.Evaluate(context.Background(), evalSetID)
	if err != nil {
		return err
	}
	fmt.Println(res.EvalResult.EvalSetResultID, res.OverallStatus)
	return nil
}

type weatherInput struct {
	City string `json:"city"`
}

func weatherTool() tool.Tool {
	return function.NewFunctionTool(func(_ context.Context, in weatherInput) (map[string]any, error) {
		if in.City == "Paris" {
			return map[string]any{"city": in.City, "sky": "sunny", "celsius": 21}, nil
		}
		return map[string]any{"city": in.City, "sky": "rainy", "celsius": 12}, nil
	}, function.WithName("get_weather"), function.WithDescription("The weather in a city."))
}

// scriptModel answers by the case named at the start of the user's message;
// weather_flaky goes wrong on its second run.
type scriptModel struct {
	mu    sync.Mutex
	calls map[string]int // first calls per case, counting runs
}

func (*scriptModel) Info() model.Info { return model.Info{Name: "script"} }

func (m *scriptModel) GenerateContent(_ context.Context, req *model.Request) (<-chan *model.Response, error) {
	user, toolDone := "", false
	for _, msg := range req.Messages {
		switch msg.Role {
		case model.RoleUser:
			user = msg.Content
		case model.RoleTool:
			toolDone = true
		}
	}
	caseID, _, _ := strings.Cut(user, ":")
	if caseID == "model_error" {
		return nil, errors.New("scripted model failure")
	}
	m.mu.Lock()
	if !toolDone {
		m.calls[caseID]++
	}
	run := m.calls[caseID]
	m.mu.Unlock()
	city, answer := "Paris", "Sunny in Paris, 21°C."
	if caseID == "weather_flaky" && run == 2 {
		city, answer = "Lyon", "Rainy in Lyon."
	}
	out := make(chan *model.Response, 1)
	defer close(out)
	msg := model.Message{Role: model.RoleAssistant}
	switch {
	case caseID == "greet_wrong":
		msg.Content = "Bonjour"
	case !toolDone:
		args, _ := json.Marshal(weatherInput{City: city})
		msg.ToolCalls = []model.ToolCall{{Type: "function", ID: fmt.Sprintf("call_%s_%d", caseID, run),
			Function: model.FunctionDefinitionParam{Name: "get_weather", Arguments: args}}}
	default:
		msg.Content = answer
	}
	out <- &model.Response{ID: "r", Object: model.ObjectTypeChatCompletion, Created: time.Now().Unix(), Model: "script", Done: true,
		Choices: []model.Choice{{Message: msg}}}
	return out, nil
}
