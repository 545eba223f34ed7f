package agenttest

import (
	"context"
	"iter"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// PySDKInterim is what the Python SDK peers say in their working status
// message before each answer.
const PySDKInterim = "Processing your question..."

// interimExecutor answers as an agent on the official Python A2A SDK that
// reports progress: a working status message, then its reply as an
// artifact, then completed.
type interimExecutor struct {
	reply   ReplyFunc
	interim string
}

// InterimExecutor is an agent that says interim in a working status
// message, then answers with reply's text as an artifact and completes
// the task, as the Python SDK's TaskUpdater agents do.
func InterimExecutor(reply ReplyFunc, interim string) a2asrv.AgentExecutor {
	return interimExecutor{reply: reply, interim: interim}
}

func (e interimExecutor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		var texts []string
		if ec.Message != nil {
			for _, p := range ec.Message.Parts {
				texts = append(texts, p.Text())
			}
		}
		answer := e.reply(ctx, ec.ContextID, strings.Join(texts, "\n"))
		working := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(e.interim))
		for _, ev := range []a2a.Event{
			a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, working),
			a2a.NewArtifactEvent(ec, a2a.NewTextPart(answer)),
			a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil),
		} {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func (interimExecutor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// pySDK03Compat is a request handler that trims the history of unstreamed
// replies as the Python SDK 1.1.0's 0.3 compatibility layer does.
type pySDK03Compat struct{ a2asrv.RequestHandler }

// PySDK03Compat wraps h to answer SendMessage as the Python SDK 1.1.0's
// 0.3 compatibility layer does over gRPC and HTTP+JSON: it reads the 0.3
// request's historyLength, a proto3 int32 without presence, as 0 when the
// request has none, and honours 0 literally, so that the task it answers
// with carries no history (and the agent's working status message is lost
// with it) unless the client asked for some; historyLength N keeps the
// last N messages. GetTask is h's: without historyLength the whole
// history, as the layer answers. Mount it on a 0.3 gRPC or HTTP+JSON peer,
// whose a2a-go decoder turns a historyLength of 0 into none.
func PySDK03Compat(h a2asrv.RequestHandler) a2asrv.RequestHandler { return pySDK03Compat{h} }

func (h pySDK03Compat) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	res, err := h.RequestHandler.SendMessage(ctx, req)
	task, ok := res.(*a2a.Task)
	if err != nil || !ok {
		return res, err
	}
	keep := 0
	if req.Config != nil && req.Config.HistoryLength != nil {
		keep = *req.Config.HistoryLength
	}
	trimmed := *task
	trimmed.History = slices.Clone(task.History[max(0, len(task.History)-keep):])
	if len(trimmed.History) == 0 {
		trimmed.History = nil
	}
	return &trimmed, nil
}
