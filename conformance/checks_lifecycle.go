package conformance

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// lifecycle is what the basic message left for later checks.
type lifecycle struct {
	// task is the basic message's task (nil for a message answer).
	task *wireObject
	// done is the id of a task in a terminal state, "" if none.
	done string
	// waiting is a task in input-required, if one was seen.
	waiting *wireObject
}

// checkLifecycle sends the basic message blocking and follows its task:
// the answer and its context id, the blocking semantics, GetTask, the
// task's end, historyLength, and a cancel once it is done.
func (r *run) checkLifecycle(ctx context.Context, c caller, in Interface) lifecycle {
	tr := []string{in.Name}
	var lc lifecycle
	s, o := r.sendBasic(ctx, c, in)
	if o == nil {
		return lc
	}
	lc.task = o
	r.track(c, o.ID, o.State)
	r.judgeBlocking(tr, in, o, s)
	final := r.checkTaskGet(ctx, c, in, o)
	final = r.awaitTask(ctx, c, tr, o, final, &lc)
	r.track(c, o.ID, final.State)
	r.samples = append(r.samples, sample{iface: in.Name, kind: kindTask, state: final.State, what: final.summary()})
	if final.History < 2 {
		r.skip(ReqHistoryLength, tr, fmt.Sprintf("the task has %d history messages: a limit of 1 would show nothing", final.History))
	} else {
		r.checkHistoryLength(ctx, c, tr, o, final)
	}
	return r.cancelDone(ctx, c, in, lc, final, o)
}

// sendBasic sends the basic message blocking and records send-message and
// context-id. It returns the answer, and the task it started, or nil when
// there is no task to follow (no usable answer, or a Message), in which
// case the checks that need one are skipped.
func (r *run) sendBasic(ctx context.Context, c caller, in Interface) (reply, *wireObject) {
	tr := []string{in.Name}
	m := outMessage{ID: newID(), ContextID: newID(), Text: r.o.messages.Basic}
	s := c.send(ctx, m, true)
	dependents := []string{ReqSendBlocking, ReqContextID, ReqTaskGet, ReqTaskTerminal, ReqHistoryLength, ReqCancelTerminal, ReqNotCancelable}
	if s.obj == nil || (s.obj.Kind != kindTask && s.obj.Kind != kindMessage) {
		received := s.describe()
		r.fail(ReqSendMessage, tr, "a Task or a Message", received, s.ex)
		for _, id := range dependents {
			r.skip(id, tr, "SendMessage gave no task or message (see "+ReqSendMessage+")")
		}
		r.samples = append(r.samples, sample{iface: in.Name, kind: "error", what: received})
		return s, nil
	}
	o := s.obj
	problems := append(append([]string(nil), o.Problems...), formProblems(o, in.ProtocolBinding, in.ProtocolVersion, false)...)
	if o.Kind == kindMessage && o.Role != "agent" && o.Role != "" {
		problems = append(problems, fmt.Sprintf("the answer's role is %q, not agent", o.Role))
	}
	if len(problems) > 0 {
		r.failMsg(ReqSendMessage, tr, fmt.Sprintf("SendMessage answered with %s that deviates: %s", o.summary(), strings.Join(problems, "; ")), s.ex)
	} else {
		r.pass(ReqSendMessage, tr, "SendMessage answered with "+o.summary())
	}
	switch o.ContextID {
	case m.ContextID:
		r.pass(ReqContextID, tr, "the answer keeps the contextId sent")
	case "":
		r.fail(ReqContextID, tr, "contextId "+jsonString(m.ContextID), "no contextId", s.ex)
	default:
		r.fail(ReqContextID, tr, "contextId "+jsonString(m.ContextID), "contextId "+jsonString(truncateText(o.ContextID, 60)), s.ex)
	}
	if o.Kind == kindMessage {
		r.samples = append(r.samples, sample{iface: in.Name, kind: kindMessage, what: "a message"})
		for _, id := range dependents[:1] {
			r.skip(id, tr, "the agent answered with a Message: there is no task")
		}
		for _, id := range dependents[2:] {
			r.skip(id, tr, "the agent answered with a Message: there is no task")
		}
		return s, nil
	}
	return s, o
}

// judgeBlocking records send-blocking: a blocking send must answer once
// the task is terminal or interrupted (a MUST in 1.0, a SHOULD in 0.3).
func (r *run) judgeBlocking(tr []string, in Interface, o *wireObject, s reply) {
	level := Must
	if in.ProtocolVersion == version03 {
		level = Should // 0.3 leaves the blocking semantics loose
	}
	if terminalState(o.State) || interruptedState(o.State) {
		r.result(ReqSendBlocking, tr, Pass, "the blocking send answered once the task was "+o.State).Level = level
		return
	}
	res := r.result(ReqSendBlocking, tr, Fail, "", s.ex)
	res.Level, res.Expected, res.Received = level, "a task in a terminal or interrupted state", "a task in state "+orNone(o.State)
	res.Message = res.Expected + " expected, " + res.Received + " received"
}

// checkTaskGet asks for the task o and records task-get. It returns the
// latest view of the task: GetTask's answer when it is that task, else o.
func (r *run) checkTaskGet(ctx context.Context, c caller, in Interface, o *wireObject) *wireObject {
	tr := []string{in.Name}
	g := c.get(ctx, o.ID, nil)
	switch {
	case g.obj == nil || g.obj.Kind != kindTask:
		r.fail(ReqTaskGet, tr, "the task "+jsonString(o.ID), g.describe(), g.ex)
	case g.obj.ID != o.ID:
		r.fail(ReqTaskGet, tr, "the task "+jsonString(o.ID), "task "+jsonString(g.obj.ID), g.ex)
	default:
		if p := append(append([]string(nil), g.obj.Problems...), formProblems(g.obj, in.ProtocolBinding, in.ProtocolVersion, true)...); len(p) > 0 {
			r.failMsg(ReqTaskGet, tr, "GetTask answered with a task that deviates: "+strings.Join(p, "; "), g.ex)
		} else {
			r.pass(ReqTaskGet, tr, "GetTask returns the task ("+g.obj.State+")")
		}
	}
	if g.obj != nil && g.obj.Kind == kindTask && g.obj.ID == o.ID {
		return g.obj
	}
	return o
}

// awaitTask records task-terminal: from final, the latest view of task o,
// it polls until the task ends or waits for its client (then lc.waiting is
// set). It returns the last view of the task.
func (r *run) awaitTask(ctx context.Context, c caller, tr []string, o, final *wireObject, lc *lifecycle) *wireObject {
	switch {
	case interruptedState(final.State):
		lc.waiting = final
		r.skip(ReqTaskTerminal, tr, "the task waits for its client ("+final.State+")")
	case terminalState(final.State):
		r.pass(ReqTaskTerminal, tr, "the task ended "+final.State)
	default:
		last, polls, ok := r.waitTask(ctx, c, o.ID)
		switch {
		case ok && terminalState(last.obj.State):
			final = last.obj
			r.pass(ReqTaskTerminal, tr, fmt.Sprintf("the task ended %s after %d polls", final.State, polls))
		case ok:
			final = last.obj
			lc.waiting = final
			r.skip(ReqTaskTerminal, tr, "the task waits for its client ("+final.State+")")
		default:
			r.fail(ReqTaskTerminal, tr, fmt.Sprintf("a terminal state within %s", r.o.taskTimeout), last.describe(), last.ex)
		}
	}
	return final
}

// checkHistoryLength asks for task o with historyLength 1 and records
// history-length; final is the full task, with its history count.
func (r *run) checkHistoryLength(ctx context.Context, c caller, tr []string, o, final *wireObject) {
	one := 1
	h := c.get(ctx, o.ID, &one)
	switch {
	case h.obj == nil || h.obj.Kind != kindTask:
		r.fail(ReqHistoryLength, tr, "the task with at most 1 history message", h.describe(), h.ex)
	case h.obj.History > 1:
		r.fail(ReqHistoryLength, tr, "at most 1 history message (historyLength 1)", fmt.Sprintf("%d", h.obj.History), h.ex)
	default:
		r.pass(ReqHistoryLength, tr, fmt.Sprintf("historyLength 1 gave %d history messages (the full task has %d)", h.obj.History, final.History))
	}
}

// cancelDone cancels the basic message's task once it has ended: the agent
// must refuse, with TaskNotCancelableError.
func (r *run) cancelDone(ctx context.Context, c caller, in Interface, lc lifecycle, final, o *wireObject) lifecycle {
	tr := []string{in.Name}
	if !terminalState(final.State) {
		r.skip(ReqCancelTerminal, tr, "the task did not end")
		r.skip(ReqNotCancelable, tr, "the task did not end")
		return lc
	}
	lc.done = o.ID
	x := c.cancel(ctx, o.ID)
	switch {
	case x.isError():
		r.pass(ReqCancelTerminal, tr, "canceling the "+final.State+" task is refused")
		if errNotCancelable().matches(x, in.ProtocolBinding) {
			r.pass(ReqNotCancelable, tr, "the refusal is "+errNotCancelable().describe(in.ProtocolBinding))
		} else {
			r.fail(ReqNotCancelable, tr, errNotCancelable().describe(in.ProtocolBinding), x.describe(), x.ex)
		}
	case x.fail != nil:
		r.fail(ReqCancelTerminal, tr, "an error (TaskNotCancelableError)", x.describe(), x.ex)
		r.skip(ReqNotCancelable, tr, "no error to inspect (see "+ReqCancelTerminal+")")
	default:
		r.fail(ReqCancelTerminal, tr, "an error (TaskNotCancelableError)", x.describe()+" for the "+final.State+" task", x.ex)
		r.skip(ReqNotCancelable, tr, "the cancel succeeded: no error to inspect (see "+ReqCancelTerminal+")")
	}
	return lc
}

// waitTask polls a task until it is terminal or interrupted, with backoff,
// within the task time limit.
func (r *run) waitTask(ctx context.Context, c caller, id string) (last reply, polls int, ok bool) {
	deadline := time.Now().Add(r.o.taskTimeout)
	delay := 50 * time.Millisecond
	for {
		last = c.get(ctx, id, nil)
		polls++
		if last.obj == nil || last.obj.Kind != kindTask {
			return last, polls, false
		}
		if terminalState(last.obj.State) || interruptedState(last.obj.State) {
			return last, polls, true
		}
		if time.Now().Add(delay).After(deadline) {
			return last, polls, false
		}
		select {
		case <-ctx.Done():
			return last, polls, false
		case <-time.After(delay):
		}
		delay = min(delay*3/2, time.Second)
	}
}

// checkRunning starts the slow message, subscribes to its task (when the
// agent streams) and cancels it.
func (r *run) checkRunning(ctx context.Context, info *cardInfo, c caller, in Interface, lc lifecycle) {
	tr := []string{in.Name}
	m := outMessage{ID: newID(), ContextID: newID(), Text: r.o.messages.Slow}
	s := c.send(ctx, m, false)
	if s.obj == nil || s.obj.Kind != kindTask || terminalState(s.obj.State) {
		why := "the slow message gave " + s.describe() + ", not a running task; give a message that starts a longer task to check cancellation"
		if s.obj != nil && s.obj.Kind == kindTask {
			r.track(c, s.obj.ID, s.obj.State)
		}
		r.skip(ReqCancelRunning, tr, why)
		if info.streaming {
			r.skip(ReqSubscribe, tr, why)
		}
		return
	}
	id := s.obj.ID
	r.track(c, id, s.obj.State)
	if interruptedState(s.obj.State) && lc.waiting == nil {
		lc.waiting = s.obj
	}
	var sub events
	var subRep reply
	var first event
	var gotFirst bool
	// 1.0 subscriptions begin with the Task, read before the cancel; 0.3
	// leaves the first event open (§7.9), and an agent may send nothing
	// until the task changes: its first event is read after the cancel.
	v03 := in.ProtocolVersion == version03
	if info.streaming {
		sub, subRep = c.subscribe(ctx, id)
		if sub != nil {
			defer sub.close()
			if !v03 {
				first, gotFirst = sub.next()
			}
		}
	}
	canceled := r.judgeCancel(ctx, c, in, id)
	if info.streaming {
		if sub != nil && v03 {
			first, gotFirst = sub.next()
		}
		r.judgeSubscribe(in, id, sub, subRep, first, gotFirst, canceled)
	}
	if canceled {
		r.track(c, id, "canceled")
	}
}

// judgeCancel cancels a running task and records cancel-running; it
// reports whether the task ended canceled. The task is looked up first
// and again after a refusal: one that ended before the cancel arrived is
// no cancel to judge (a skip), whatever the agent answered.
func (r *run) judgeCancel(ctx context.Context, c caller, in Interface, id string) bool {
	tr := []string{in.Name}
	if g := c.get(ctx, id, nil); g.obj != nil && terminalState(g.obj.State) {
		r.skip(ReqCancelRunning, tr, "the task ended ("+g.obj.State+") before the cancel could be sent")
		return g.obj.State == "canceled"
	}
	x := c.cancel(ctx, id)
	switch {
	case x.obj != nil && x.obj.Kind == kindTask && x.obj.State == "canceled":
		r.pass(ReqCancelRunning, tr, "CancelTask answered with the task, canceled")
		return true
	case x.obj != nil && x.obj.Kind == kindTask && !terminalState(x.obj.State):
		// Accepted, and still ending: give it a moment.
		last, _, _ := r.waitTask(ctx, c, id)
		if last.obj != nil && last.obj.State == "canceled" {
			r.pass(ReqCancelRunning, tr, "CancelTask answered with the task "+x.obj.State+"; it was canceled shortly after")
			return true
		}
		r.fail(ReqCancelRunning, tr, "the task canceled", x.describe()+", then "+last.describe(), x.ex, last.ex)
	case x.obj != nil && x.obj.Kind == kindTask:
		r.skip(ReqCancelRunning, tr, "the task ended ("+x.obj.State+") before the cancel arrived")
	case x.isError():
		// A task that ended before the cancel arrived says nothing about
		// canceling a running one, whatever error the server used: the
		// code is error-not-cancelable's to judge.
		if g := c.get(ctx, id, nil); g.obj != nil && terminalState(g.obj.State) {
			r.skip(ReqCancelRunning, tr, "the task ended ("+g.obj.State+") before the cancel arrived, which got "+x.describe())
			return false
		}
		want := "the task canceled"
		if errNotCancelable().matches(x, in.ProtocolBinding) {
			want = "the running task canceled"
		}
		r.fail(ReqCancelRunning, tr, want, x.describe(), x.ex)
	default:
		r.fail(ReqCancelRunning, tr, "the task canceled", x.describe(), x.ex)
	}
	return false
}

// judgeSubscribe records subscribe: the first event must be the task (0.3:
// any event of the task), and once the task was canceled the stream must
// end with it.
func (r *run) judgeSubscribe(in Interface, id string, sub events, subRep reply, first event, gotFirst, canceled bool) {
	tr := []string{in.Name}
	if sub == nil {
		r.fail(ReqSubscribe, tr, "a stream of the task's events", subRep.describe(), subRep.ex)
		return
	}
	wantFirst, began := "the Task as the first event", "the subscription began with the task"
	firstOK := gotFirst && first.obj != nil && first.obj.Kind == kindTask
	if in.ProtocolVersion == version03 {
		wantFirst, began = "an event of the task", "the subscription streamed the task"
		firstOK = gotFirst && first.obj != nil && first.obj.Kind != kindMessage
	}
	switch {
	case !gotFirst:
		r.fail(ReqSubscribe, tr, wantFirst, "a stream that closed at once", sub.exchange())
		return
	case first.obj == nil:
		r.fail(ReqSubscribe, tr, wantFirst, describeEvent(first), sub.exchange())
		return
	case !firstOK:
		r.fail(ReqSubscribe, tr, wantFirst, first.obj.summary(), sub.exchange())
		return
	case first.obj.TaskID != id:
		r.fail(ReqSubscribe, tr, "task "+jsonString(id), "task "+jsonString(first.obj.TaskID), sub.exchange())
		return
	}
	if !canceled {
		r.pass(ReqSubscribe, tr, began+"; its end was not observed, as the task could not be canceled")
		return
	}
	log := drain(&replay{events: sub, first: &first}, in.ProtocolVersion)
	switch {
	case log.finalIdx < 0:
		r.fail(ReqSubscribe, tr, "the stream ending with the canceled state", log.describeEnd(), sub.exchange())
	case !log.ended:
		r.fail(ReqSubscribe, tr, "the stream closed after the final event", log.describeEnd(), sub.exchange())
	default:
		r.pass(ReqSubscribe, tr, fmt.Sprintf("%s and ended with %s", began, log.items[log.finalIdx].obj.summary()))
	}
}

// replay is a stream whose first event, already read, is read again.
type replay struct {
	events
	first *event
}

func (r *replay) next() (event, bool) {
	if e := r.first; e != nil {
		r.first = nil
		return *e, true
	}
	return r.events.next()
}

func describeEvent(e event) string {
	switch {
	case e.errReply != nil:
		return "an error event: " + e.errReply.describe()
	case e.problem != "":
		return e.problem
	case e.obj != nil:
		return e.obj.summary()
	}
	return "nothing"
}

// checkMultiTurn answers a task waiting in input-required.
func (r *run) checkMultiTurn(ctx context.Context, c caller, in Interface, lc lifecycle) {
	tr := []string{in.Name}
	waiting := lc.waiting
	if waiting == nil && r.o.messages.MultiTurn != r.o.messages.Basic && r.o.messages.MultiTurn != r.o.messages.Slow {
		s := c.send(ctx, outMessage{ID: newID(), ContextID: newID(), Text: r.o.messages.MultiTurn}, true)
		if s.obj != nil && s.obj.Kind == kindTask {
			r.track(c, s.obj.ID, s.obj.State)
			if s.obj.State == "input-required" {
				waiting = s.obj
			}
		}
	}
	if waiting == nil || waiting.State != "input-required" {
		r.skip(ReqMultiTurn, tr, "no task asked for input (input-required); give a message that makes a skill ask for more")
		return
	}
	f := c.send(ctx, outMessage{ID: newID(), ContextID: waiting.ContextID, TaskID: waiting.ID, Text: r.o.messages.FollowUp}, true)
	// A server can report input-required a moment before its previous turn
	// has wound down (a2a-go answers "task execution is already in
	// progress" then), notably when the send was not blocking: an error
	// answer is retried twice, a quarter second apart, before it counts.
	for retry := 0; retry < 2 && f.isError() && ctx.Err() == nil; retry++ {
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
		f = c.send(ctx, outMessage{ID: newID(), ContextID: waiting.ContextID, TaskID: waiting.ID, Text: r.o.messages.FollowUp}, true)
	}
	switch {
	case f.obj == nil:
		r.fail(ReqMultiTurn, tr, "task "+jsonString(waiting.ID)+" continued", f.describe(), f.ex)
	case f.obj.Kind == kindTask && f.obj.ID != waiting.ID:
		r.fail(ReqMultiTurn, tr, "task "+jsonString(waiting.ID)+" continued", "another task, "+jsonString(f.obj.ID), f.ex)
	default:
		if f.obj.Kind == kindTask {
			r.track(c, f.obj.ID, f.obj.State)
		}
		r.pass(ReqMultiTurn, tr, "the follow-up continued the task: "+f.obj.summary())
	}
}
