package a2aclient

import (
	"maps"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// EventSource says where in the agent's reply an Event was found.
type EventSource string

// Event sources.
const (
	// EventMessage is a Message result, unary or streamed.
	EventMessage EventSource = "message"
	// EventStatus is a task's status message: a streamed status update's
	// (interim working ones included), or the status.message of a task
	// the agent answered or that was polled.
	EventStatus EventSource = "status"
	// EventArtifact is an artifact; streamed chunks of one artifact id
	// are one Event (appended chunks concatenated, a chunk without append
	// replacing what came before, as Response.Parts reads them).
	EventArtifact EventSource = "artifact"
	// EventHistory is an agent message of a task's history since the
	// user's message (an unstreamed or polled reply).
	EventHistory EventSource = "history"
)

// Event is one thing the agent emitted during its turn, where it came
// from and its metadata. Parts keep their own metadata (Part.Metadata).
type Event struct {
	Source EventSource
	// ID is the message id, or the artifact id of an EventArtifact.
	ID string
	// Name is an artifact's name.
	Name string
	// State is the task state an EventStatus came with.
	State a2a.TaskState
	Parts []*a2a.Part
	// Metadata is the message's or the artifact's metadata.
	Metadata map[string]any
	// EventMetadata is the metadata of the streamed status or artifact
	// update that carried the Event (where ADK reports token usage), or
	// of the task that held it.
	EventMetadata map[string]any
}

// turnLog collects the Events of one turn in the order they arrive, once
// each: a message seen again (by id, or by content when it has none) is
// not added twice, and an artifact seen again is updated in place. Once it
// holds indexFrom Events it indexes them, so that a long stream costs
// linear time; a turn of a few Events (most turns: one message) is
// searched in place, without the index's maps.
type turnLog struct {
	events []Event
	// messages index message Events by id, and those without an id by
	// their text; artifacts index the latest artifact Event of each id.
	// All three are nil while the log holds fewer than indexFrom Events.
	messages  map[string]int
	untitled  map[string]int
	artifacts map[string]int
}

// indexFrom is how many Events a turnLog holds before it indexes them.
const indexFrom = 8

func (l *turnLog) list() []Event { return slices.Clip(l.events) }

// find returns the index of the logged Event ev repeats, or -1. An
// artifact without an id repeats the latest one without an id.
func (l *turnLog) find(ev Event) int {
	if l.messages == nil {
		return l.scan(ev)
	}
	var i int
	var ok bool
	switch {
	case ev.Source == EventArtifact:
		i, ok = l.artifacts[ev.ID]
	case ev.ID != "":
		i, ok = l.messages[ev.ID]
	default:
		i, ok = l.untitled[PartsText(ev.Parts)]
	}
	if !ok {
		return -1
	}
	return i
}

// scan is find without the index: the latest logged Event with ev's key.
func (l *turnLog) scan(ev Event) int {
	text, untitled := "", ev.Source != EventArtifact && ev.ID == ""
	if untitled {
		text = PartsText(ev.Parts)
	}
	for i := len(l.events) - 1; i >= 0; i-- {
		e := &l.events[i]
		if (e.Source == EventArtifact) != (ev.Source == EventArtifact) || e.ID != ev.ID {
			continue
		}
		if !untitled || PartsText(e.Parts) == text {
			return i
		}
	}
	return -1
}

// push appends ev, and indexes the log once it holds indexFrom Events.
func (l *turnLog) push(ev Event) {
	l.events = append(l.events, ev)
	switch {
	case l.messages != nil:
		l.index(len(l.events) - 1)
	case len(l.events) >= indexFrom:
		l.messages, l.untitled, l.artifacts = map[string]int{}, map[string]int{}, map[string]int{}
		for i := range l.events {
			l.index(i)
		}
	}
}

// index adds the logged Event i to the index.
func (l *turnLog) index(i int) {
	ev := &l.events[i]
	switch {
	case ev.Source == EventArtifact:
		l.artifacts[ev.ID] = i
	case ev.ID != "":
		l.messages[ev.ID] = i
	default:
		l.untitled[PartsText(ev.Parts)] = i
	}
}

// add logs ev unless it repeats a logged Event; an artifact that repeats
// one replaces its parts (a task snapshot has the whole artifact).
func (l *turnLog) add(ev Event) {
	if len(ev.Parts) == 0 {
		return
	}
	i := l.find(ev)
	switch {
	case i < 0:
		l.push(ev)
	case ev.Source == EventArtifact:
		l.events[i].Parts = ev.Parts
		if ev.Metadata != nil {
			l.events[i].Metadata = ev.Metadata
		}
	}
}

// addAll logs events in order, with add's rules.
func (l *turnLog) addAll(events []Event) {
	for _, ev := range events {
		l.add(ev)
	}
}

// message logs an agent message found at source.
func (l *turnLog) message(source EventSource, m *a2a.Message, state a2a.TaskState, eventMeta map[string]any) {
	if m == nil {
		return
	}
	l.add(Event{Source: source, ID: m.ID, State: state, Parts: oneText(m.Parts), Metadata: m.Metadata, EventMetadata: eventMeta})
}

// artifactUpdate applies a streamed artifact update: a chunk with Append
// continues the artifact of its id, anything else replaces it. An update
// without parts changes nothing (tRPC-Agent-Go streams one per
// preprocessing step and one to close, all without an id), and one
// without an id that does not append is an artifact of its own
// (tRPC-Agent-Go sends a tool's response so).
func (l *turnLog) artifactUpdate(e *a2a.TaskArtifactUpdateEvent) {
	a := e.Artifact
	if a == nil || len(a.Parts) == 0 {
		return
	}
	ev := Event{Source: EventArtifact, ID: string(a.ID), Name: a.Name, Parts: oneText(a.Parts), Metadata: a.Metadata, EventMetadata: e.Metadata}
	i := l.find(ev)
	switch {
	case i < 0 || (a.ID == "" && !e.Append):
		l.push(ev)
	case e.Append:
		old := &l.events[i]
		old.Parts = continueText(old.Parts, oneText(a.Parts))
		old.Metadata = mergeMeta(old.Metadata, a.Metadata)
		old.EventMetadata = mergeMeta(old.EventMetadata, e.Metadata)
	default:
		l.events[i] = ev
	}
}

// mergeMeta returns a with b's keys added, as a new map when both are set.
func mergeMeta(a, b map[string]any) map[string]any {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

// task logs what a task shows of the turn that answers ts.sent: its
// agent messages since the user's message (all of them unless ts.seen
// reported them, when the history does not hold the user's message), its
// status message, then its artifacts.
func (l *turnLog) task(t *a2a.Task, ts turnStart) {
	state := normalizeState(string(t.Status.State))
	for _, m := range turnHistory(t.History, ts) {
		l.message(EventHistory, m, "", t.Metadata)
	}
	l.message(EventStatus, t.Status.Message, state, t.Metadata)
	for _, a := range t.Artifacts {
		if a != nil {
			l.add(Event{Source: EventArtifact, ID: string(a.ID), Name: a.Name, Parts: oneText(a.Parts), Metadata: a.Metadata, EventMetadata: t.Metadata})
		}
	}
}

// taskEvents is the Events a task shows of the turn (see turnLog.task).
func taskEvents(t *a2a.Task, ts turnStart) []Event {
	var l turnLog
	l.task(t, ts)
	return l.list()
}

// turnHistory returns the agent messages of history after the user's
// message ts.sent (else after the last user message, else all of them)
// that no earlier reply of the conversation reported.
func turnHistory(history []*a2a.Message, ts turnStart) []*a2a.Message {
	start := 0
	found := false
	for i, m := range history {
		if m != nil && ts.sent != "" && m.ID == ts.sent {
			start, found = i+1, true
			break
		}
	}
	for i := len(history) - 1; !found && i >= 0; i-- {
		if m := history[i]; m != nil && isUserRole(string(m.Role)) {
			start, found = i+1, true
		}
	}
	var turn []*a2a.Message
	for _, m := range history[start:] {
		if m != nil && isAgentRole(string(m.Role)) && len(m.Parts) > 0 && (m.ID == "" || !ts.seen[m.ID]) {
			turn = append(turn, m)
		}
	}
	return turn
}

// Metadata keys by which agents mark a text part as a thought: tRPC-Agent-Go
// writes "thought" (and "adk_thought" in its ADK compatibility mode), ADK
// writes "adk_thought".
const (
	thoughtKey    = "thought"
	adkThoughtKey = "adk_thought"
)

// IsThought reports whether p is a text part the agent marked as its
// private thought: metadata "thought" or "adk_thought" true (a boolean, or
// the string "true").
func IsThought(p *a2a.Part) bool {
	if p == nil || p.Metadata == nil || !isText(p) {
		return false
	}
	for _, k := range []string{thoughtKey, adkThoughtKey} {
		switch v := p.Metadata[k].(type) {
		case bool:
			if v {
				return true
			}
		case string:
			if v == "true" {
				return true
			}
		}
	}
	return false
}

// Interim is the text of the agent's messages in the turn that are not
// part of its answer (Parts), in order: progress it reported while it
// worked, such as a working status message ("Processing your
// question...") before an artifact. Streamed it arrives as status
// updates, unstreamed in the task's history: both read the same. Thoughts
// and data parts are left out, and so is a message whose text the answer
// already holds.
func (r *Response) Interim() []string {
	answer := PartsText(r.Parts)
	var out []string
	for _, ev := range r.Events {
		if ev.Source != EventStatus && ev.Source != EventHistory {
			continue
		}
		text := strings.TrimSpace(spokenText(ev.Parts))
		if text == "" || strings.Contains(answer, text) || slices.Contains(out, text) {
			continue
		}
		out = append(out, text)
	}
	return out
}

// spokenText is the text of parts that are neither thoughts nor data,
// joined by newlines.
func spokenText(parts []*a2a.Part) string {
	var said []string
	for _, p := range parts {
		if isText(p) && !IsThought(p) {
			said = append(said, p.Text())
		}
	}
	return strings.Join(said, "\n")
}
