package a2aclient

import (
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"syscall"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/internal/backoff"
)

// stream makes the call with SendStreamingMessage and assembles the events
// into one reply: a Message ends the turn at once; task snapshots, status
// updates (whose messages, interim ones included, go to the history) and
// artifact chunks (appended or replaced by artifact id) build up a task
// until a status update ends the agent's turn. A stream that ends
// without such an update leaves the task to be polled.
func (cv *Conversation) stream(ctx context.Context, ex *exchange, msg *a2a.Message) (extracted, error) {
	var task *a2a.Task
	// Event-level metadata carries what task snapshots drop: ADK reports
	// token usage on its artifact updates, for one.
	var eventMeta []map[string]any
	// log is the turn as it streamed, in order (Response.Events).
	var log turnLog
	done := func(out extracted) extracted {
		out.metadata = append(out.metadata, eventMeta...)
		log.addAll(out.events)
		out.events = log.list()
		return out
	}
	ensure := func(id a2a.TaskID, contextID string) {
		if task == nil {
			// A continued task streams updates without a snapshot: its
			// history, as far as this turn goes, starts with the message.
			task = &a2a.Task{ID: id, ContextID: contextID, History: []*a2a.Message{msg}}
		}
		if task.ID == "" {
			task.ID = id
		}
	}
	for ev, err := range cv.client.sdk.SendStreamingMessage(ctx, cv.client.sendRequest(msg)) {
		if err != nil {
			return extracted{}, err
		}
		if err := ex.overLimitErr(cv.client.opts.maxResponseBytes); err != nil {
			return extracted{}, err
		}
		switch e := ev.(type) {
		case *a2a.Message:
			out := fromResult(e, cv.turnStart())
			log.addAll(out.events)
			out.events = log.list()
			return out, nil
		case *a2a.Task:
			t := *e
			task = &t
			log.task(e, cv.turnStart())
		case *a2a.TaskStatusUpdateEvent:
			ensure(e.TaskID, e.ContextID)
			eventMeta = append(eventMeta, e.Metadata)
			log.message(EventStatus, e.Status.Message, normalizeState(string(e.Status.State)), e.Metadata)
			// The agent's turn is every message it sends, interim ones
			// included: keep them in the history, as the server does.
			if m := task.Status.Message; m != nil && (e.Status.Message == nil || !sameMessage(m, e.Status.Message)) && !inHistory(task.History, m) {
				task.History = append(slices.Clip(task.History), m)
			}
			task.Status = e.Status
			if st := normalizeState(string(e.Status.State)); st != a2a.TaskStateUnspecified && turnOver(st) {
				return done(fromTask(task, cv.turnStart())), nil
			}
		case *a2a.TaskArtifactUpdateEvent:
			ensure(e.TaskID, e.ContextID)
			eventMeta = append(eventMeta, e.Metadata)
			log.artifactUpdate(e)
			mergeArtifact(task, e)
		}
	}
	if task == nil {
		return extracted{}, errors.New("the stream ended without a message or a task")
	}
	return done(fromTask(task, cv.turnStart())), nil
}

// mergeArtifact applies an artifact update to the task: a chunk with Append
// extends the artifact of the same id, anything else replaces it (an agent
// that streams chunks and then the whole text again, as tRPC-Agent-Go does,
// means the whole text once). An appended chunk continues the text of the
// artifact's last part: text streamed in pieces is one text, and a tool call
// split mid-word (Mastra) must be read whole.
func mergeArtifact(task *a2a.Task, e *a2a.TaskArtifactUpdateEvent) {
	if e.Artifact == nil {
		return
	}
	for i, a := range task.Artifacts {
		if a != nil && a.ID == e.Artifact.ID {
			if e.Append {
				merged := *a
				merged.Parts = continueText(a.Parts, e.Artifact.Parts)
				task.Artifacts[i] = &merged
			} else {
				task.Artifacts[i] = e.Artifact
			}
			return
		}
	}
	task.Artifacts = append(task.Artifacts, e.Artifact)
}

// continueText returns parts followed by next, as a new slice, with the
// text of next's first part continuing the text of parts' last part when
// both are text: text that arrives in pieces is one text, and no separator
// the agent did not send is put between the pieces. A thought (IsThought)
// never continues an answer, nor an answer a thought. Neither argument is
// modified.
func continueText(parts, next []*a2a.Part) []*a2a.Part {
	out := make([]*a2a.Part, 0, len(parts)+len(next))
	out = append(out, parts...)
	if n := len(out); n > 0 && len(next) > 0 && isText(out[n-1]) && isText(next[0]) && IsThought(out[n-1]) == IsThought(next[0]) {
		joined := *out[n-1]
		joined.Content = a2a.Text(out[n-1].Text() + next[0].Text())
		out[n-1], next = &joined, next[1:]
	}
	return append(out, next...)
}

// inHistory reports whether m is one of history's messages.
func inHistory(history []*a2a.Message, m *a2a.Message) bool {
	return slices.ContainsFunc(history, func(h *a2a.Message) bool { return h != nil && sameMessage(h, m) })
}

// isText reports whether p is a text part.
func isText(p *a2a.Part) bool {
	if p == nil {
		return false
	}
	_, ok := p.Content.(a2a.Text)
	return ok
}

// transient reports whether a failed attempt may succeed if made again:
// the connection was refused or reset, a gateway said 502/503/504, or gRPC
// said UNAVAILABLE. Other failures are the agent's answer and are not
// retried.
func transient(err error, ex *exchange) bool {
	ex.mu.Lock()
	status, code := ex.status, ex.grpcCode
	ex.mu.Unlock()
	switch {
	case errors.Is(err, ErrDeniedTarget):
		return false // WithDenyPrivateTargets: the same address again
	case status == 502 || status == 503 || status == 504:
		return true
	case code == "Unavailable":
		return true
	case errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE):
		return true
	case status == 0 && code == "" && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || closedIdle(err)):
		// The connection closed before any response: a kept-alive
		// connection the server had dropped, or a reset.
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

// retryDelay is the delay before retry number attempt (0-based):
// exponential from base (doubling at most 16 times), capped at 30 s, with
// full jitter so that many conversations failing together do not retry
// together.
func retryDelay(base time.Duration, attempt int) time.Duration {
	return backoff.Policy{Base: base, Max: 30 * time.Second, MaxDoublings: 16, Jitter: backoff.Full}.Delay(attempt)
}
