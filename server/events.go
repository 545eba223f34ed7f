package server

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/skills"
)

// violationsText lists a rejected request's violations.
func violationsText(inv *skills.InvalidRequestError) string {
	return "The request was rejected:\n- " + strings.Join(inv.Violations, "\n- ")
}

// rejectedTask is a task that ends at once: the request cannot be run.
func rejectedTask(ec *a2asrv.ExecutorContext, err error) *a2a.Task {
	var inv *skills.InvalidRequestError
	text, data := err.Error(), map[string]any{}
	if errors.As(err, &inv) {
		text, data["violations"] = violationsText(inv), inv.Violations
	}
	return endedTask(ec, a2a.TaskStateRejected, statusMessage(ec, text, data))
}

// answeredTask is a request answered on the spot (help, list_domains,
// get_results): a task that ends at once in state (completed, or failed
// when the answer is an error), the answer's parts its status message.
// Answering with a task rather than a bare message leaves a record that
// GetTask and ListTasks find, which tools listing an agent's work expect.
func answeredTask(ec *a2asrv.ExecutorContext, state a2a.TaskState, parts ...*a2a.Part) *a2a.Task {
	return endedTask(ec, state, a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, parts...))
}

// endedTask is the request's task, new, already in state with msg as its
// status message and the request's message as its history.
func endedTask(ec *a2asrv.ExecutorContext, state a2a.TaskState, msg *a2a.Message) *a2a.Task {
	task := a2a.NewSubmittedTask(ec, ec.Message)
	now := time.Now().UTC()
	task.Status = a2a.TaskStatus{State: state, Message: msg, Timestamp: &now}
	return task
}

// working is a working status update.
func working(ec *a2asrv.ExecutorContext, text string, data map[string]any) *a2a.TaskStatusUpdateEvent {
	return statusEvent(ec, a2a.TaskStateWorking, text, data)
}

// statusEvent is a status update: state, with text and data (when any) in
// its message.
func statusEvent(ec *a2asrv.ExecutorContext, state a2a.TaskState, text string, data map[string]any) *a2a.TaskStatusUpdateEvent {
	return a2a.NewStatusUpdateEvent(ec, state, statusMessage(ec, text, data))
}

// statusMessage is proctor's message of a task status: text, and data
// as a data part when there is any.
func statusMessage(ec *a2asrv.ExecutorContext, text string, data map[string]any) *a2a.Message {
	parts := []*a2a.Part{a2a.NewTextPart(text)}
	if len(data) > 0 {
		parts = append(parts, dataPart(data))
	}
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, parts...)
}

// dataPart carries v as plain JSON values, which every transport and
// protocol version can encode.
func dataPart(v any) *a2a.Part {
	raw, err := json.Marshal(v)
	if err != nil {
		return a2a.NewTextPart("unencodable result: " + err.Error())
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return a2a.NewTextPart("unencodable result: " + err.Error())
	}
	return a2a.NewDataPart(generic)
}
