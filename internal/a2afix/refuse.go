package a2afix

import (
	"context"
	"errors"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// refusalKey is the context key of a refusal.
type refusalKey struct{}

// withRefusal marks a request, before a2a-go's transport handler decodes
// it, as one to refuse with err. [Handler] answers it with err instead of
// serving it, so that a2a-go writes the error in the binding's own form
// (JSON-RPC code, HTTP status and google.rpc.Status body, gRPC status).
func withRefusal(ctx context.Context, err error) context.Context {
	if err == nil {
		return ctx
	}
	if earlier := refusal(ctx); earlier != nil {
		return ctx // the first reason stands: a version refusal before a parameter one
	}
	return context.WithValue(ctx, refusalKey{}, err)
}

// refusal returns the error a request was marked to be refused with.
func refusal(ctx context.Context) error {
	err, _ := ctx.Value(refusalKey{}).(error)
	return err
}

// Handler wraps a request handler so that:
//   - a request a2afix's transport wrappers refused (an A2A-Version the
//     interface does not serve, ListTasks parameters a2a-go cannot parse)
//     is answered with that error;
//   - ListTasks parameters are validated (A2A 1.0 §3.3.2: servers MUST
//     validate all input parameters) and invalid ones answered
//     InvalidParamsError, a bad page token included;
//   - an empty ListTasks page lists tasks as [] rather than null;
//   - SubscribeToTask on a task in a terminal state is refused with
//     UnsupportedOperationError, and on a task GetTask does not find
//     (another owner's, or none) with GetTask's error.
func Handler(h a2asrv.RequestHandler) a2asrv.RequestHandler { return handler{h} }

type handler struct{ a2asrv.RequestHandler }

// refusedSeq is a stream that only says err.
func refusedSeq(err error) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) { yield(nil, err) }
}

// GetTask implements a2asrv.RequestHandler.
func (h handler) GetTask(ctx context.Context, req *a2a.GetTaskRequest) (*a2a.Task, error) {
	if err := refusal(ctx); err != nil {
		return nil, err
	}
	return h.RequestHandler.GetTask(ctx, req)
}

// ListTasks implements a2asrv.RequestHandler.
func (h handler) ListTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	if err := refusal(ctx); err != nil {
		return nil, err
	}
	if req == nil {
		req = &a2a.ListTasksRequest{}
	}
	if v := listTasksViolation(req); v != nil {
		return nil, v.err()
	}
	resp, err := h.RequestHandler.ListTasks(ctx, req)
	// The stores answer a page token they cannot read -32700 and a page
	// size out of range -32600: both are parameters the client sent.
	if err != nil && (errors.Is(err, a2a.ErrParseError) || errors.Is(err, a2a.ErrInvalidRequest)) {
		field := "pageSize"
		if req.PageToken != "" && errors.Is(err, a2a.ErrParseError) {
			field = "pageToken"
		}
		return nil, violation{field, err.Error()}.err()
	}
	if resp != nil && resp.Tasks == nil {
		// tasks is a required array (a2a.proto ListTasksResponse):
		// a2a-go's store writes null when nothing matches.
		resp.Tasks = []*a2a.Task{}
	}
	return resp, err
}

// CancelTask implements a2asrv.RequestHandler.
func (h handler) CancelTask(ctx context.Context, req *a2a.CancelTaskRequest) (*a2a.Task, error) {
	if err := refusal(ctx); err != nil {
		return nil, err
	}
	return h.RequestHandler.CancelTask(ctx, req)
}

// SendMessage implements a2asrv.RequestHandler.
func (h handler) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	if err := refusal(ctx); err != nil {
		return nil, err
	}
	return h.RequestHandler.SendMessage(ctx, req)
}

// SendStreamingMessage implements a2asrv.RequestHandler.
func (h handler) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	if err := refusal(ctx); err != nil {
		return refusedSeq(err)
	}
	return h.RequestHandler.SendStreamingMessage(ctx, req)
}

// SubscribeToTask implements a2asrv.RequestHandler.
func (h handler) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	if err := refusal(ctx); err != nil {
		return refusedSeq(err)
	}
	if req != nil {
		// a2a-go subscribes to a running execution by id alone, without
		// asking the task store whether the caller may see the task:
		// GetTask asks it, so a task the caller may not read is not found
		// here either (§3.3.2), rather than streamed to a stranger.
		task, err := h.GetTask(ctx, &a2a.GetTaskRequest{ID: req.ID})
		if err != nil {
			return refusedSeq(err)
		}
		if task.Status.State.Terminal() {
			return refusedSeq(a2a.NewError(a2a.ErrUnsupportedOperation, "task "+string(req.ID)+" is "+string(task.Status.State)+": there is nothing left to subscribe to"))
		}
	}
	return h.RequestHandler.SubscribeToTask(ctx, req)
}

// GetTaskPushConfig implements a2asrv.RequestHandler.
func (h handler) GetTaskPushConfig(ctx context.Context, req *a2a.GetTaskPushConfigRequest) (*a2a.PushConfig, error) {
	if err := refusal(ctx); err != nil {
		return nil, err
	}
	return h.RequestHandler.GetTaskPushConfig(ctx, req)
}

// ListTaskPushConfigs implements a2asrv.RequestHandler.
func (h handler) ListTaskPushConfigs(ctx context.Context, req *a2a.ListTaskPushConfigRequest) (*a2a.ListTaskPushConfigResponse, error) {
	if err := refusal(ctx); err != nil {
		return nil, err
	}
	return h.RequestHandler.ListTaskPushConfigs(ctx, req)
}

// CreateTaskPushConfig implements a2asrv.RequestHandler.
func (h handler) CreateTaskPushConfig(ctx context.Context, req *a2a.PushConfig) (*a2a.PushConfig, error) {
	if err := refusal(ctx); err != nil {
		return nil, err
	}
	return h.RequestHandler.CreateTaskPushConfig(ctx, req)
}

// DeleteTaskPushConfig implements a2asrv.RequestHandler.
func (h handler) DeleteTaskPushConfig(ctx context.Context, req *a2a.DeleteTaskPushConfigRequest) error {
	if err := refusal(ctx); err != nil {
		return err
	}
	return h.RequestHandler.DeleteTaskPushConfig(ctx, req)
}

// GetExtendedAgentCard implements a2asrv.RequestHandler.
func (h handler) GetExtendedAgentCard(ctx context.Context, req *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
	if err := refusal(ctx); err != nil {
		return nil, err
	}
	return h.RequestHandler.GetExtendedAgentCard(ctx, req)
}
