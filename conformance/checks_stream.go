package conformance

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// closeGrace is how long a stream may stay open after its final event.
const closeGrace = 2 * time.Second

// streamLog is what a drained stream sent.
type streamLog struct {
	items []event
	// finalIdx is the index of the first final event, -1 if none.
	finalIdx int
	// ended: the stream closed (EOF) by itself.
	ended bool
	// stayedOpen: the stream was still open closeGrace after the final
	// event.
	stayedOpen bool
	problem    string
	timedOut   bool
}

func (l streamLog) describeEnd() string {
	switch {
	case l.stayedOpen:
		return fmt.Sprintf("a stream still open %s after its final event", closeGrace)
	case l.timedOut:
		return fmt.Sprintf("no final event before the time limit (%s)", eventCount(len(l.items)))
	case l.problem != "":
		return fmt.Sprintf("%s after %s", l.problem, eventCount(len(l.items)))
	case l.finalIdx < 0:
		return fmt.Sprintf("a stream that closed after %s without a terminal state", eventCount(len(l.items)))
	}
	return eventCount(len(l.items))
}

// isFinal reports whether an event ends its stream: a Message, or a task
// state that is terminal or interrupted (0.3 status updates: final true).
func isFinal(o *wireObject, version string) bool {
	switch o.Kind {
	case kindMessage:
		return true
	case kindTask:
		return terminalState(o.State) || interruptedState(o.State)
	case kindStatus:
		if version == version03 {
			return o.Final || terminalState(o.State)
		}
		return terminalState(o.State) || interruptedState(o.State)
	}
	return false
}

// drain reads a stream to its end: until it closes, breaks, times out, or
// stays open closeGrace after its final event.
func drain(ev events, version string) streamLog {
	log := streamLog{finalIdx: -1}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		e, ok := ev.next()
		if !ok {
			log.ended = true
			return log
		}
		if e.problem != "" {
			if log.finalIdx >= 0 && e.timedOut {
				log.stayedOpen = true
			} else {
				log.problem, log.timedOut = e.problem, e.timedOut
			}
			return log
		}
		log.items = append(log.items, e)
		if log.finalIdx < 0 && e.obj != nil && isFinal(e.obj, version) {
			log.finalIdx = len(log.items) - 1
			timer = time.AfterFunc(closeGrace, ev.abort)
		}
	}
}

// checkStreams checks a streamed basic message, a subscription to a
// finished task and a disconnect mid-stream.
func (r *run) checkStreams(ctx context.Context, c caller, in Interface, lc lifecycle) {
	tr := []string{in.Name}
	m := outMessage{ID: newID(), ContextID: newID(), Text: r.o.messages.Basic}
	ev, rep := c.stream(ctx, m)
	streamed := []string{ReqStreamFirstEvent, ReqStreamOrder, ReqStreamFinal, ReqStreamClosed}
	if ev == nil {
		want := "HTTP 200 with Content-Type text/event-stream"
		if in.ProtocolBinding == bindingGRPC {
			want = "a gRPC server stream"
		}
		got := rep.describe()
		if rep.ex.ContentType != "" {
			got += fmt.Sprintf(" (Content-Type %s)", rep.ex.ContentType)
		}
		r.fail(ReqStreamHTTP, tr, want, got, rep.ex)
		for _, id := range streamed {
			r.skip(id, tr, "no stream (see "+ReqStreamHTTP+")")
		}
	} else {
		r.pass(ReqStreamHTTP, tr, "SendStreamingMessage answered with a stream")
		log := drain(ev, in.ProtocolVersion)
		ev.close()
		r.judgeStream(c, in, log, ev.exchange())
	}
	r.checkSubscribeDone(ctx, c, in, lc)
	r.checkDisconnect(ctx, c, in)
}

// judgeStream records the checks of one streamed answer: its first event,
// the events' form and order, its final event and its close.
func (r *run) judgeStream(c caller, in Interface, log streamLog, ex Exchange) {
	tr := []string{in.Name}
	if len(log.items) == 0 {
		r.fail(ReqStreamFirstEvent, tr, "a Task or a Message first", log.describeEnd(), ex)
		for _, id := range []string{ReqStreamOrder, ReqStreamFinal, ReqStreamClosed} {
			r.skip(id, tr, "no event (see "+ReqStreamFirstEvent+")")
		}
		return
	}
	taskID, contextID := r.judgeFirstEvent(c, in, log.items[0], ex)
	problems := streamProblems(in, log, taskID, contextID)
	if len(problems) > 0 {
		r.failMsg(ReqStreamOrder, tr, "stream events deviate: "+strings.Join(problems, "; "), ex)
	} else {
		r.pass(ReqStreamOrder, tr, fmt.Sprintf("%d well-formed events of one task", len(log.items)))
	}
	r.judgeStreamEnd(c, in, log, ex)
}

// judgeFirstEvent records stream-first-event: a Task or a Message (or, in
// 0.3, a status update). It returns the task and context ids the rest of
// the stream must keep.
func (r *run) judgeFirstEvent(c caller, in Interface, first event, ex Exchange) (taskID, contextID string) {
	tr := []string{in.Name}
	switch {
	case first.obj == nil:
		r.fail(ReqStreamFirstEvent, tr, "a Task or a Message first", describeEvent(first), ex)
	case first.obj.Kind == kindTask || first.obj.Kind == kindMessage ||
		(in.ProtocolVersion == version03 && first.obj.Kind == kindStatus):
		r.pass(ReqStreamFirstEvent, tr, "the stream began with "+first.obj.summary())
		taskID, contextID = first.obj.TaskID, first.obj.ContextID
		if first.obj.Kind == kindTask {
			r.track(c, first.obj.ID, first.obj.State)
		}
	default:
		r.fail(ReqStreamFirstEvent, tr, "a Task or a Message first", first.obj.summary(), ex)
	}
	return taskID, contextID
}

// streamProblems lists what is wrong with a stream's events (for
// stream-order): error events, malformed events, events after a Message,
// and events of another task or context (it stops looking after ten),
// then the stream's own problem.
func streamProblems(in Interface, log streamLog, taskID, contextID string) []string {
	var problems []string
	first := log.items[0]
	messageOnly := first.obj != nil && first.obj.Kind == kindMessage
	for i, e := range log.items {
		switch {
		case e.errReply != nil:
			problems = append(problems, fmt.Sprintf("event %d is an error: %s", i+1, e.errReply.describe()))
		case e.obj != nil:
			for _, p := range append(append([]string(nil), e.obj.Problems...), formProblems(e.obj, in.ProtocolBinding, in.ProtocolVersion, false)...) {
				problems = append(problems, fmt.Sprintf("event %d: %s", i+1, p))
			}
			if i > 0 && messageOnly {
				problems = append(problems, fmt.Sprintf("event %d follows a Message; a message stream holds exactly one Message", i+1))
			}
			if i > 0 && !messageOnly && taskID != "" && e.obj.TaskID != taskID {
				problems = append(problems, fmt.Sprintf("event %d belongs to task %q, not %q", i+1, truncateText(e.obj.TaskID, 40), truncateText(taskID, 40)))
			}
			if i > 0 && !messageOnly && contextID != "" && e.obj.ContextID != "" && e.obj.ContextID != contextID {
				problems = append(problems, fmt.Sprintf("event %d has contextId %q, not %q", i+1, truncateText(e.obj.ContextID, 40), truncateText(contextID, 40)))
			}
		}
		if len(problems) > 10 {
			break
		}
	}
	if log.problem != "" && !log.timedOut {
		problems = append(problems, log.problem)
	}
	return problems
}

// judgeStreamEnd records stream-final-event and stream-closes: the stream
// must reach a final event, and close right after it.
func (r *run) judgeStreamEnd(c caller, in Interface, log streamLog, ex Exchange) {
	tr := []string{in.Name}
	if log.finalIdx < 0 {
		want := "an event with a terminal or interrupted state"
		if in.ProtocolVersion == version03 {
			want = "a status update with final: true"
		}
		r.fail(ReqStreamFinal, tr, want, log.describeEnd(), ex)
		r.skip(ReqStreamClosed, tr, "no final event (see "+ReqStreamFinal+")")
		return
	}
	final := log.items[log.finalIdx].obj
	if in.ProtocolVersion == version03 && final.Kind == kindStatus && !final.Final {
		r.fail(ReqStreamFinal, tr, "final: true on the last status update", fmt.Sprintf("%s without final: true", final.summary()), ex)
	} else {
		r.pass(ReqStreamFinal, tr, "the stream reached "+final.summary())
	}
	if final.Kind == kindTask || final.Kind == kindStatus {
		r.track(c, final.TaskID, final.State)
	}
	after := len(log.items) - 1 - log.finalIdx
	switch {
	case after > 0:
		r.fail(ReqStreamClosed, tr, "nothing after the final event", fmt.Sprintf("%d more events", after), ex)
	case log.stayedOpen:
		r.fail(ReqStreamClosed, tr, "the stream closed after the final event", log.describeEnd(), ex)
	case !log.ended && log.problem != "":
		r.fail(ReqStreamClosed, tr, "the stream closed after the final event", log.problem, ex)
	default:
		r.pass(ReqStreamClosed, tr, "the stream closed after its final event")
	}
}

// checkSubscribeDone subscribes to a finished task (1.0 only: 0.3 did not
// say what happens).
func (r *run) checkSubscribeDone(ctx context.Context, c caller, in Interface, lc lifecycle) {
	tr := []string{in.Name}
	if in.ProtocolVersion != version10 {
		return
	}
	if lc.done == "" {
		r.skip(ReqSubscribeDone, tr, "no finished task to subscribe to")
		return
	}
	want := errUnsupported()
	sub, rep := c.subscribe(ctx, lc.done)
	if sub == nil {
		if want.matches(rep, in.ProtocolBinding) {
			r.pass(ReqSubscribeDone, tr, "subscribing to a finished task is refused with "+want.describe(in.ProtocolBinding))
		} else {
			r.fail(ReqSubscribeDone, tr, want.describe(in.ProtocolBinding), rep.describe(), rep.ex)
		}
		return
	}
	defer sub.close()
	first, ok := sub.next()
	switch {
	case !ok:
		r.fail(ReqSubscribeDone, tr, want.describe(in.ProtocolBinding), "a stream that closed without an event", sub.exchange())
	case first.errReply != nil && streamErrorMatches(want, *first.errReply, in.ProtocolBinding):
		r.pass(ReqSubscribeDone, tr, "subscribing to a finished task is refused with "+want.describe(in.ProtocolBinding)+" (as a stream event)")
	default:
		r.fail(ReqSubscribeDone, tr, want.describe(in.ProtocolBinding), "a stream with "+describeEvent(first), sub.exchange())
	}
}

// streamErrorMatches tells an error event carrying the wanted error: the
// JSON-RPC code, the gRPC status, or for HTTP+JSON the error body's code.
func streamErrorMatches(w wantError, e reply, binding string) bool {
	if binding == bindingREST && e.rpcErr != nil {
		for _, s := range w.http {
			if e.rpcErr.Code == s {
				return true
			}
		}
		return false
	}
	return w.matches(e, binding)
}

// checkDisconnect starts the slow message streamed, hangs up after its
// first event, and asks for the task.
func (r *run) checkDisconnect(ctx context.Context, c caller, in Interface) {
	tr := []string{in.Name}
	m := outMessage{ID: newID(), ContextID: newID(), Text: r.o.messages.Slow}
	ev, _ := c.stream(ctx, m)
	if ev == nil {
		r.skip(ReqStreamDisconnect, tr, "no stream (see "+ReqStreamHTTP+")")
		return
	}
	first, ok := ev.next()
	ev.close()
	if !ok || first.obj == nil || first.obj.Kind != kindTask {
		r.skip(ReqStreamDisconnect, tr, "the stream's first event was "+describeEvent(first)+", not a task to ask for afterwards")
		return
	}
	id := first.obj.ID
	r.track(c, id, first.obj.State)
	if terminalState(first.obj.State) {
		r.skip(ReqStreamDisconnect, tr, "the task had ended with the first event: nothing was left running to disconnect from")
		return
	}
	g := c.get(ctx, id, nil)
	if g.obj != nil && g.obj.Kind == kindTask && g.obj.ID == id {
		r.track(c, id, g.obj.State)
		r.pass(ReqStreamDisconnect, tr, "after the client hung up, GetTask still returns the task ("+g.obj.State+")")
		if !terminalState(g.obj.State) {
			// Stop the work now rather than at the end: it may hold a slot
			// the next checks need.
			if x := c.cancel(ctx, id); x.obj != nil {
				r.track(c, id, x.obj.State)
			}
		}
		return
	}
	r.fail(ReqStreamDisconnect, tr, "the task "+jsonString(id)+" after the client hung up", g.describe(), g.ex)
}

// eventCount is "1 event" or "3 events".
func eventCount(n int) string {
	if n == 1 {
		return "1 event"
	}
	return fmt.Sprintf("%d events", n)
}
