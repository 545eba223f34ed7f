package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/store"
)

// AuditLog is where a server writes its audit entries; *store.DB is one.
type AuditLog interface {
	AppendAudit(ctx context.Context, e store.AuditEntry) error
}

// auditOutcome is how an audited request ended, and why.
type auditOutcome struct {
	outcome store.AuditOutcome
	reason  string
}

func auditRefused(reason string) auditOutcome {
	return auditOutcome{store.AuditRefused, reason}
}

// audit writes one entry for ctx's tenant, when the server keeps an audit
// log. A write that fails is not the caller's problem: it is dropped.
func (s *Server) audit(ctx context.Context, action string, objects []string, out auditOutcome) {
	if s.cfg.Audit == nil {
		return
	}
	_ = s.cfg.Audit.AppendAudit(context.WithoutCancel(ctx), store.AuditEntry{
		Tenant: tenantOf(ctx), Action: action, Objects: objects, Outcome: out.outcome, Reason: out.reason,
	})
}

// auditUnauthenticated writes one entry of a caller without a valid
// token, from source: kept apart from the others (see store.AppendAudit),
// so that such callers cannot push the authenticated ones out.
func (s *Server) auditUnauthenticated(ctx context.Context, action, source, reason string) {
	if s.cfg.Audit == nil {
		return
	}
	_ = s.cfg.Audit.AppendAudit(context.WithoutCancel(ctx), store.AuditEntry{
		Action: action, Outcome: store.AuditRefused, Reason: reason, Unauthenticated: true, Source: source,
	})
}

// auditInterceptor writes an audit entry per A2A call: its method (and
// skill), the ids it names or makes, and its outcome. A stream is audited
// at its first event.
type auditInterceptor struct {
	a2asrv.PassthroughCallInterceptor
	s *Server
}

// auditCall is what Before learned of a call, for After.
type auditCall struct {
	action  string
	objects []string
	done    bool
}

type auditCallKey struct{}

// Before notes the call's action and the ids its request names.
func (ai auditInterceptor) Before(ctx context.Context, callCtx *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	call := &auditCall{action: callCtx.Method()}
	switch p := req.Payload.(type) {
	case *a2a.SendMessageRequest:
		if p.Message != nil {
			call.objects = appendID(call.objects, string(p.Message.TaskID))
			if r, err := parseRequest(p.Message); err == nil {
				call.action += "/" + string(r.kind)
				call.objects = append(call.objects, requestIDs(r)...)
			}
		}
	case *a2a.GetTaskRequest:
		call.objects = appendID(call.objects, string(p.ID))
	case *a2a.CancelTaskRequest:
		call.objects = appendID(call.objects, string(p.ID))
	case *a2a.SubscribeToTaskRequest:
		call.objects = appendID(call.objects, string(p.ID))
	}
	return context.WithValue(ctx, auditCallKey{}, call), nil, nil
}

// After writes the call's entry (once per call).
func (ai auditInterceptor) After(ctx context.Context, _ *a2asrv.CallContext, resp *a2asrv.Response) error {
	call, ok := ctx.Value(auditCallKey{}).(*auditCall)
	if !ok || call.done {
		return nil
	}
	call.done = true
	objects := call.objects
	if t, ok := resp.Payload.(*a2a.Task); ok && t != nil {
		objects = appendID(objects, string(t.ID))
	}
	ai.s.audit(ctx, call.action, objects, outcomeOf(resp))
	return nil
}

// requestIDs are the stored objects a skill request names.
func requestIDs(r request) []string {
	var ids []string
	switch {
	case r.results != nil:
		ids = appendID(ids, r.results.ID)
	case r.run != nil:
		ids = appendID(ids, r.run.Resume)
	}
	return ids
}

// appendID appends id unless it is empty or there already.
func appendID(ids []string, id string) []string {
	if id == "" {
		return ids
	}
	for _, x := range ids {
		if x == id {
			return ids
		}
	}
	return append(ids, id)
}

// outcomeOf is how a call's response says it ended: an error or a
// rejected task is refused, a failed task failed, anything else accepted.
func outcomeOf(resp *a2asrv.Response) auditOutcome {
	if resp.Err != nil {
		if errors.Is(resp.Err, a2a.ErrInternalError) {
			return auditOutcome{store.AuditFailed, resp.Err.Error()}
		}
		return auditRefused(resp.Err.Error())
	}
	t, ok := resp.Payload.(*a2a.Task)
	if !ok || t == nil {
		return auditOutcome{outcome: store.AuditAccepted}
	}
	switch t.Status.State {
	case a2a.TaskStateRejected:
		return auditRefused(taskStatusText(t.Status))
	case a2a.TaskStateFailed:
		return auditOutcome{store.AuditFailed, taskStatusText(t.Status)}
	}
	return auditOutcome{outcome: store.AuditAccepted}
}

// taskStatusText is the text of a task status's message.
func taskStatusText(st a2a.TaskStatus) string {
	if st.Message == nil {
		return string(st.State)
	}
	var b strings.Builder
	for _, p := range st.Message.Parts {
		if t := p.Text(); t != "" {
			fmt.Fprint(&b, t)
		}
	}
	return b.String()
}
