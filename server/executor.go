package server

import (
	"context"
	"iter"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	adka2a "google.golang.org/adk/server/adka2a/v2"

	"github.com/proctor-eval/proctor/skills"
)

// executor turns A2A requests into skill calls.
type executor struct {
	svc           *skills.Service
	queue         *queue
	progressEvery time.Duration
	cancelWait    time.Duration
	gate          *tenantGate
	// audit, when set, writes an audit entry (Server.audit).
	audit func(ctx context.Context, action string, objects []string, out auditOutcome)

	// metrics count the long tasks that end; log records evaluations'
	// start and end.
	metrics *metrics
	log     *slog.Logger

	// chat answers free text when a chat model is configured.
	chat *adka2a.Executor

	mu      sync.Mutex
	running map[a2a.TaskID]*activeRun
	// resumes are the tasks a previous process left unfinished that this
	// one carries on (see Server.Resume), until their execution starts.
	resumes map[a2a.TaskID]ResumableTask

	drain drainState
	// stored is the task store's watch (nil: no waiting for the store).
	stored *storeWatch
}

// activeRun is a long task being run (or waiting its turn), as Cancel sees
// it.
type activeRun struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	canceled bool
	drained  bool // stopped by a drain: checkpointed, not canceled
	// note and noteData are the status Cancel reports.
	note     string
	noteData map[string]any
}

// markCanceled records that Cancel stopped the run, and stops it.
func (r *activeRun) markCanceled() {
	r.mu.Lock()
	r.canceled = true
	r.mu.Unlock()
	r.cancel()
}

// wasCanceled reports whether Cancel stopped the run.
func (r *activeRun) wasCanceled() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.canceled
}

// cancelNote is the status Cancel reports.
func (r *activeRun) cancelNote() (string, map[string]any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.note, r.noteData
}

var _ a2asrv.AgentExecutor = (*executor)(nil)

// Execute implements a2asrv.AgentExecutor.
func (e *executor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		req, err := parseRequest(ec.Message)
		// From here on the request's credentials live in req only: the
		// tasks, replies and events made from ec show them redacted.
		ec = redacted(ec)
		if err != nil {
			yield(rejectedTask(ec, err), nil)
			return
		}
		if isLongKind(req.kind) && e.drain.isDraining() {
			yield(refuseWhileDraining(ec), nil)
			return
		}
		if r, ok := e.takeResume(ec); ok && r.EvaluationID != "" && req.kind == SkillRunEvaluation {
			req.run = resumeParams(req.run, r.EvaluationID)
		}
		switch req.kind {
		case freeText:
			e.answerText(ctx, ec, req.text, yield)
		case SkillListDomains:
			yield(e.listDomains(ec), nil)
		case SkillGetResults:
			yield(e.getResults(ctx, ec, req.results), nil)
		case SkillRunEvaluation:
			e.runEvaluation(ctx, ec, req.run, yield)
		case SkillCheckConformance:
			e.checkConformance(ctx, ec, req.conformance, yield)
		case SkillRunEvalSet:
			e.runEvalSet(ctx, ec, req.evalSet, yield)
		}
	}
}

// redacted is ec with its message's credentials redacted (see
// redactMessage); ec itself when there are none.
func redacted(ec *a2asrv.ExecutorContext) *a2asrv.ExecutorContext {
	msg := redactMessage(ec.Message)
	if msg == ec.Message {
		return ec
	}
	cp := *ec
	cp.Message = msg
	return &cp
}

// answerText answers free text: the chat model when one is configured,
// help otherwise.
func (e *executor) answerText(ctx context.Context, ec *a2asrv.ExecutorContext, said string, yield func(a2a.Event, error) bool) {
	if e.chat != nil && strings.TrimSpace(said) != "" {
		for ev, err := range e.chat.Execute(ctx, ec) {
			if !yield(ev, err) {
				return
			}
		}
		return
	}
	yield(answeredTask(ec, a2a.TaskStateCompleted, a2a.NewTextPart(helpText(said))), nil)
}

// Cancel implements a2asrv.AgentExecutor: it stops the task's long-running
// skill, waits for it to stop (an evaluation keeps its finished
// simulations), and reports the task canceled.
func (e *executor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		e.mu.Lock()
		active := e.running[ec.TaskID]
		e.mu.Unlock()
		if active == nil {
			e.cancelOther(ctx, ec, yield)
			return
		}
		active.markCanceled()
		// Wait for the task to stop, but answer within cancelWait: a
		// fifth of it is left to store and send the canceled status.
		select {
		case <-active.done:
		case <-time.After(e.cancelWait - e.cancelWait/5):
		case <-ctx.Done():
		}
		text, data := active.cancelNote()
		yield(statusEvent(ec, a2a.TaskStateCanceled, text, data), nil)
	}
}

// cancelOther cancels a task that is not a long task: a chat task, which
// ADK's executor owns; any other cannot be canceled.
func (e *executor) cancelOther(ctx context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
	if e.chat != nil && ec.StoredTask != nil && !ec.StoredTask.Status.State.Terminal() {
		for ev, err := range e.chat.Cancel(ctx, ec) {
			if !yield(ev, err) {
				return
			}
		}
		return
	}
	yield(nil, a2a.ErrTaskNotCancelable)
}
