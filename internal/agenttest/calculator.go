package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// CalculatorEvalSet is a tRPC-Agent-Go eval set for the calculator agent
// (StartCalculator), with CalculatorMetrics its metrics: "add" and
// "two-turns" pass, "sub" expects the wrong answer, and "hello" expects a
// tool call the agent does not make.
const CalculatorEvalSet = `{
  "evalSetId": "calc",
  "evalCases": [
    {"evalId": "add", "conversation": [{"invocationId": "add-1",
      "userContent": {"role": "user", "content": "calc add 2 3"},
      "finalResponse": {"role": "assistant", "content": "The result is 5."},
      "tools": [{"name": "calculator", "arguments": {"operation": "add", "a": 2, "b": 3}, "result": {"result": 5}}]}]},
    {"evalId": "sub", "conversation": [{"invocationId": "sub-1",
      "userContent": {"role": "user", "content": "calc sub 7 4"},
      "finalResponse": {"role": "assistant", "content": "The result is 4."},
      "tools": [{"name": "calculator", "arguments": {"operation": "sub", "a": 7, "b": 4}, "result": {"result": 3}}]}]},
    {"evalId": "two-turns", "conversation": [
      {"invocationId": "t-1", "userContent": {"role": "user", "content": "calc mul 6 7"},
       "finalResponse": {"role": "assistant", "content": "The result is 42."},
       "tools": [{"name": "calculator", "arguments": {"operation": "mul", "a": 6, "b": 7}, "result": {"result": 42}}]},
      {"invocationId": "t-2", "userContent": {"role": "user", "content": "thanks"},
       "finalResponse": {"role": "assistant", "content": "I can only calculate."}}]},
    {"evalId": "hello", "conversation": [{"invocationId": "hello-1",
      "userContent": {"role": "user", "content": "hello"},
      "finalResponse": {"role": "assistant", "content": "I can only calculate."},
      "tools": [{"name": "calculator", "arguments": {"operation": "add", "a": 1, "b": 1}, "result": {"result": 2}}]}]}
  ]
}`

// CalculatorMetrics score CalculatorEvalSet: the tool trajectory, in order
// and exactly, and the final response's text, exactly.
const CalculatorMetrics = `[
  {"metricName": "tool_trajectory_avg_score", "threshold": 1,
   "criterion": {"toolTrajectory": {"orderSensitive": true, "defaultStrategy": {
     "name": {"matchStrategy": "exact"}, "arguments": {"matchStrategy": "exact"}, "result": {"matchStrategy": "exact"}}}}},
  {"metricName": "final_response_avg_score", "threshold": 1,
   "criterion": {"finalResponse": {"text": {"matchStrategy": "exact"}}}}
]`

// CalculatorOptions configure StartCalculator.
type CalculatorOptions struct {
	// Delay is how long every turn takes before its first event: a slow
	// agent, for overhead and wall-time measurements.
	Delay time.Duration
	// Lean serves the agent without a2a-go's server: SendMessage answered
	// at once with the completed task (the tool messages in its history),
	// at a fraction of the CPU, so that benchmarks running the agent in
	// proctor's own process measure proctor rather than the agent's SDK.
	Lean bool
}

// StartCalculator serves a real a2a-go JSON-RPC agent that does arithmetic
// with a calculator tool and reports its tool use the way tRPC-Agent-Go's
// and ADK's A2A servers do: a working status message with a function_call
// data part, then one with the function_response, then a completed task
// whose artifact is the answer. "calc add 2 3" calls calculator with
// {"operation": "add", "a": 2, "b": 3} and answers "The result is 5."; any
// other text is answered "I can only calculate." without a tool.
func StartCalculator(tb testing.TB, o CalculatorOptions) *httptest.Server {
	tb.Helper()
	if o.Lean {
		return serve(tb, leanCalculator(o))
	}
	return serve(tb, a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(calculator{o})))
}

// leanCalculator answers JSON-RPC SendMessage with the whole turn as a
// completed task.
func leanCalculator(o CalculatorOptions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
			Params struct {
				Message *a2a.Message `json:"message"`
			} `json:"params"`
		}
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Method != "SendMessage" || req.Params.Message == nil {
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
				"error": map[string]any{"code": -32600, "message": "only SendMessage is served"}})
			return
		}
		if o.Delay > 0 {
			t := time.NewTimer(o.Delay)
			defer t.Stop()
			select {
			case <-t.C:
			case <-r.Context().Done():
				return
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": a2a.StreamResponse{Event: leanTask(req.Params.Message)}})
	})
}

// leanTask is the completed task of one turn.
func leanTask(in *a2a.Message) *a2a.Task {
	var text string
	for _, p := range in.Parts {
		text += p.Text()
	}
	task := &a2a.Task{ID: a2a.NewTaskID(), ContextID: in.ContextID, History: []*a2a.Message{in}}
	answer := "I can only calculate."
	if op, a, b, ok := ParseCalc(text); ok {
		v := apply(op, a, b)
		for i, d := range []struct {
			kind string
			data map[string]any
		}{
			{"function_call", map[string]any{"id": "call-1", "name": "calculator", "args": map[string]any{"operation": op, "a": a, "b": b}}},
			{"function_response", map[string]any{"id": "call-1", "name": "calculator", "response": map[string]any{"result": v}}},
		} {
			part := a2a.NewDataPart(d.data)
			part.Metadata = map[string]any{"type": d.kind}
			m := a2a.NewMessage(a2a.MessageRoleAgent, part)
			m.ID, m.TaskID, m.ContextID = fmt.Sprintf("%s-%d", task.ID, i), task.ID, in.ContextID
			task.History = append(task.History, m)
		}
		answer = "The result is " + strconv.FormatFloat(v, 'f', -1, 64) + "."
	}
	task.Artifacts = []*a2a.Artifact{{ID: a2a.NewArtifactID(), Parts: []*a2a.Part{a2a.NewTextPart(answer)}}}
	task.Status = a2a.TaskStatus{State: a2a.TaskStateCompleted}
	return task
}

type calculator struct{ o CalculatorOptions }

func (c calculator) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if c.o.Delay > 0 {
			t := time.NewTimer(c.o.Delay)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				yield(nil, ctx.Err())
				return
			}
		}
		var text string
		if ec.Message != nil {
			for _, p := range ec.Message.Parts {
				text += p.Text()
			}
		}
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		op, a, b, ok := ParseCalc(text)
		answer := "I can only calculate."
		if ok {
			v := apply(op, a, b)
			args := map[string]any{"operation": op, "a": a, "b": b}
			if !yield(toolStatus(ec, "function_call", map[string]any{"id": "call-1", "name": "calculator", "args": args}), nil) ||
				!yield(toolStatus(ec, "function_response", map[string]any{"id": "call-1", "name": "calculator", "response": map[string]any{"result": v}}), nil) {
				return
			}
			answer = "The result is " + strconv.FormatFloat(v, 'f', -1, 64) + "."
		}
		art := a2a.NewArtifactEvent(ec, a2a.NewTextPart(answer))
		if !yield(art, nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

func (calculator) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// toolStatus is a working status update whose message carries a tool call
// or response as a data part, typed in its metadata.
func toolStatus(ec *a2asrv.ExecutorContext, kind string, data map[string]any) a2a.Event {
	part := a2a.NewDataPart(data)
	part.Metadata = map[string]any{"type": kind}
	msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, part)
	return a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, msg)
}

// ParseCalc reads "calc OP A B": the calculation the calculator agents
// (StartCalculator, ecpcalc) are asked for.
func ParseCalc(text string) (op string, a, b float64, ok bool) {
	f := strings.Fields(text)
	if len(f) != 4 || f[0] != "calc" {
		return "", 0, 0, false
	}
	a, errA := strconv.ParseFloat(f[2], 64)
	b, errB := strconv.ParseFloat(f[3], 64)
	switch f[1] {
	case "add", "sub", "mul", "div":
		return f[1], a, b, errA == nil && errB == nil
	}
	return "", 0, 0, false
}

func apply(op string, a, b float64) float64 {
	switch op {
	case "add":
		return a + b
	case "sub":
		return a - b
	case "mul":
		return a * b
	}
	if b == 0 {
		return 0
	}
	return a / b
}
