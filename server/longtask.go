package server

import (
	"context"
	"fmt"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// longTaskSpec is what a long-running skill brings to startLongTask: the
// texts that name it, and its own steps.
type longTaskSpec struct {
	// skill is the skill the task runs, for the audit log and metrics.
	skill Skill
	// accepted is the status text of the working task sent at once.
	accepted string
	// slot names what the task waits for while queued ("evaluation slot").
	slot string
	// canceled is CancelTask's status text until the steps set another
	// (longTask.onCancel).
	canceled string
	// steps do the skill's work once the task holds a slot, and say how
	// the task ends.
	steps func(t *longTask) taskEnd
}

// longTask is a long-running skill's task while its steps run: they read
// its context and report through it.
type longTask struct {
	ec     *a2asrv.ExecutorContext
	ctx    context.Context // ends when the task is canceled or the server stops
	cancel context.CancelFunc
	active *activeRun
	yield  func(a2a.Event, error) bool
	// stopped: yield said the task is over (canceled, or the client and
	// the server gave up); nothing more is sent.
	stopped       bool
	progressEvery time.Duration
	// stored tells when a status update is in the task store (nil: not
	// watched).
	stored *storeWatch
}

// taskEnd is how a long task ends: a final state with its status text and
// data, after an artifact when it has one. The zero taskEnd sends nothing:
// the task was stopped, and whoever stopped it reports it.
type taskEnd struct {
	state    a2a.TaskState
	text     string
	data     map[string]any
	artifact *taskArtifact
	// interrupted: the work stopped before its end and can be resumed
	// (a drain checkpoints such a task rather than ending it).
	interrupted bool
}

// taskArtifact is the artifact a completed long task sends, in one chunk.
type taskArtifact struct {
	name, description string
	parts             []*a2a.Part
}

// completed ends a task with its artifact.
func completed(art taskArtifact, text string, data map[string]any) taskEnd {
	return taskEnd{state: a2a.TaskStateCompleted, text: text, data: data, artifact: &art}
}

// failed ends a task that could not do its work.
func failed(text string, data map[string]any) taskEnd {
	return taskEnd{state: a2a.TaskStateFailed, text: text, data: data}
}

// rejected ends a task whose request turned out to be wrong once it ran.
func rejected(inv *skills.InvalidRequestError) taskEnd {
	return taskEnd{state: a2a.TaskStateRejected, text: violationsText(inv), data: map[string]any{"violations": inv.Violations}}
}

// startLongTask runs a long-running skill as an A2A task: a working task at
// once, a slot in the executor's queue (the task's place in line is sent
// while it waits), the skill's steps, then their artifact and final state.
// Cancel stops the steps through the task's context and reports the task
// canceled; when the server stops, the task says nothing more.
//
// A drain (see Server.drain) refuses a task that was not yet tracked, and
// checkpoints one it stops while queued or running: the task stays working
// and the next process carries it on (see Server.Resume).
func (e *executor) startLongTask(ctx context.Context, ec *a2asrv.ExecutorContext, spec longTaskSpec, yield func(a2a.Event, error) bool) {
	ticket, err := e.gate.admit(tenantOf(ctx))
	if err != nil {
		yield(rejectedTask(ec, err), nil)
		return
	}
	defer ticket.done()
	if !yield(firstEvent(ec, spec.accepted), nil) {
		return
	}
	if !e.drain.enter() {
		yield(statusEvent(ec, a2a.TaskStateRejected, DrainingText, map[string]any{"draining": true}), nil)
		return
	}
	t := e.track(ctx, ec, spec.canceled, yield)
	defer e.untrack(t)
	// How the task ended, for the metrics, as decided below: once the
	// final event is sent the caller may leave and end ctx, which says
	// nothing then of how the task ended.
	state, stopped := a2a.TaskStateCanceled, false // unless the steps end it otherwise
	defer func() { e.metrics.taskFinished(spec.skill, state, stopped) }()

	queued := ticket.wait(t.ctx, func() { t.working(e.gate.runningText(tenantOf(ctx)), map[string]any{"queued": true}) })
	var release func()
	if queued {
		release, queued = t.waitForSlot(e.queue, spec.slot, e.drain.startedChan())
	}
	if !queued {
		if e.drain.isDraining() && !t.active.wasCanceled() {
			stopped = true
			e.checkpoint(t, nil) // queued: it starts when proctor is back
		}
		stopped = stopped || ctx.Err() != nil
		return // otherwise canceled while queued: Cancel reports it
	}
	ticket.started()
	end := spec.steps(t)
	release()
	switch {
	case t.active.wasCanceled() || ctx.Err() != nil:
		// Cancel reports a canceled task; a dying server says nothing
		stopped = ctx.Err() != nil
	case t.active.wasDrained() || end.interrupted && e.drain.isDraining():
		stopped = true
		e.checkpoint(t, end.data)
	default:
		e.auditEnd(ctx, ec, spec.skill, end)
		if end.state != "" {
			state = end.state
		}
		t.finish(end, e.stored)
	}
}

// firstEvent is a long task's first event: the new working task, or, for
// a task a previous process left unfinished (see Server.Resume), a working
// status saying it carries on.
func firstEvent(ec *a2asrv.ExecutorContext, accepted string) a2a.Event {
	if ec.StoredTask != nil {
		return working(ec, "proctor restarted; this task carries on.", map[string]any{"resumed": true})
	}
	task := a2a.NewSubmittedTask(ec, ec.Message)
	task.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Message: statusMessage(ec, accepted, nil)}
	return task
}

// track registers a task Cancel can stop, with its own context.
func (e *executor) track(ctx context.Context, ec *a2asrv.ExecutorContext, canceledText string, yield func(a2a.Event, error) bool) *longTask {
	runCtx, cancel := context.WithCancel(ctx)
	active := &activeRun{cancel: cancel, done: make(chan struct{}), note: canceledText}
	e.mu.Lock()
	e.running[ec.TaskID] = active
	e.mu.Unlock()
	return &longTask{ec: ec, ctx: runCtx, cancel: cancel, active: active, yield: yield, progressEvery: e.progressEvery, stored: e.stored}
}

// untrack forgets a task that ended and tells a waiting Cancel so.
func (e *executor) untrack(t *longTask) {
	e.mu.Lock()
	delete(e.running, t.ec.TaskID)
	e.mu.Unlock()
	close(t.active.done)
	t.cancel()
	e.drain.leave()
}

// waitForSlot takes a slot in q, sending the task's place in line each
// time it changes. It returns the slot's release, or false when the task
// ended, or drained closed, while it waited.
func (t *longTask) waitForSlot(q *queue, slot string, drained <-chan struct{}) (release func(), ok bool) {
	ctx, stop := context.WithCancel(t.ctx)
	defer stop()
	go func() {
		select {
		case <-drained:
			stop()
		case <-ctx.Done():
		}
	}()
	release, err := q.acquire(ctx, func(pos, total int) {
		t.working(fmt.Sprintf("Queued: position %d of %d waiting for a free %s.", pos, total, slot),
			map[string]any{"queued": true, "position": pos, "waiting": total})
	})
	if err != nil {
		return nil, false // canceled while queued: Cancel reports it
	}
	if t.stopped {
		release()
		return nil, false
	}
	return release, true
}

// send sends ev unless the task is over; it reports whether the task goes
// on.
func (t *longTask) send(ev a2a.Event) bool {
	if !t.stopped {
		t.stopped = !t.yield(ev, nil)
	}
	return !t.stopped
}

// working sends a working status; it reports whether the task goes on.
func (t *longTask) working(text string, data map[string]any) bool {
	return t.send(working(t.ec, text, data))
}

// progress sends a working status with the work's progress and waits
// until the task store holds it (at most storedWait). Progress then never
// queues up behind the store: a2a-go stores each update in turn, writing
// the whole task (a large request, a history that grows), and a run whose
// work outpaces the writes was shown far behind it (57 of 3,000 eval-set
// cases done, when all were). reportProgress sends the newest figures
// each time.
func (t *longTask) progress(text string, data map[string]any) bool {
	return t.stored.sendStored(t, working(t.ec, text, data))
}

// onCancel sets the status CancelTask reports from now on.
func (t *longTask) onCancel(text string, data map[string]any) {
	t.active.mu.Lock()
	t.active.note, t.active.noteData = text, data
	t.active.mu.Unlock()
}

// finish sends end: its artifact, then its final status, and waits for
// stored to hold it (see storeWatch).
func (t *longTask) finish(end taskEnd, stored *storeWatch) {
	if end.state == a2a.TaskStateUnspecified {
		return
	}
	if a := end.artifact; a != nil {
		ev := a2a.NewArtifactEvent(t.ec, a.parts...)
		ev.Artifact.Name = a.name
		ev.Artifact.Description = a.description
		ev.LastChunk = true
		if !t.send(ev) {
			return
		}
	}
	stored.sendStored(t, statusEvent(t.ec, end.state, end.text, end.data))
}

// reportProgress runs work while it sends a working status for each
// progress work reports (the latest, when reports come faster than they
// can be sent) and, every progressEvery, the last one again marked "Still
// running.". A status the client no longer takes cancels work. It returns
// work's error and the last progress sent (start when none was).
func reportProgress[P any](t *longTask, start P, show func(P) (string, map[string]any), work func(context.Context, func(P)) error) (P, error) {
	progress := make(chan P, 1)
	finished := make(chan error, 1)
	go func() {
		finished <- work(t.ctx, func(p P) {
			select { // keep the latest: updates may be slower than the work
			case progress <- p:
			default:
				select {
				case <-progress:
				default:
				}
				progress <- p
			}
		})
	}()
	ticker := time.NewTicker(t.progressEvery)
	defer ticker.Stop()
	last := start
	for {
		var text string
		var data map[string]any
		select {
		case p := <-progress:
			last = p
			text, data = show(p)
		case <-ticker.C:
			text, data = show(last)
			text += " Still running."
		case err := <-finished:
			return last, err
		}
		if !t.progress(text, data) {
			t.cancel()
		}
	}
}

// auditEnd writes the audit entry of a long task's end: its skill, task
// and the ids it made, and how it ended.
func (e *executor) auditEnd(ctx context.Context, ec *a2asrv.ExecutorContext, skill Skill, end taskEnd) {
	if e.audit == nil || end.state == a2a.TaskStateUnspecified {
		return
	}
	objects := []string{string(ec.TaskID)}
	for _, key := range []string{"evaluation_id", "eval_set_run_id", "conformance_id"} {
		if id, ok := end.data[key].(string); ok {
			objects = appendID(objects, id)
		}
	}
	out := auditOutcome{outcome: store.AuditAccepted}
	switch end.state {
	case a2a.TaskStateRejected:
		out = auditRefused(end.text)
	case a2a.TaskStateFailed:
		out = auditOutcome{store.AuditFailed, end.text}
	}
	e.audit(ctx, string(skill)+" ended", objects, out)
}
