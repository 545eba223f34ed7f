package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Kinds of A2A objects seen on the wire.
const (
	kindTask     = "task"
	kindMessage  = "message"
	kindStatus   = "status-update"
	kindArtifact = "artifact-update"
)

// Forms an object can arrive in.
const (
	// formWrapped is 1.0's (and the proto-JSON bindings'): a oneof member
	// naming the kind, {"task": {...}} or {"statusUpdate": {...}}.
	formWrapped = "wrapped"
	// formTagged is 0.3 JSON-RPC's: the object itself with "kind".
	formTagged = "tagged"
	// formBare is an object with neither.
	formBare = "bare"
)

// Name styles of enum values.
const (
	namesEnum  = "enum"  // TASK_STATE_COMPLETED, ROLE_AGENT
	namesPlain = "plain" // completed, agent
	namesMixed = "mixed"
)

// wireObject is a Task, Message, TaskStatusUpdateEvent or
// TaskArtifactUpdateEvent as an agent sent it, reduced to what the checks
// compare, with every deviation from the wire forms noted in Problems.
type wireObject struct {
	Kind string
	Form string
	// Names is how states and roles were written: namesEnum, namesPlain,
	// namesMixed, or "" when there were none.
	Names string
	// ID is the task's id or the message's messageId.
	ID string
	// TaskID is the task the object belongs to (a task's own id).
	TaskID    string
	ContextID string
	// State is the task's (or status update's) state, normalized to the
	// 0.3 spelling: "completed", "input-required", "canceled"; "" if none.
	State string
	// Final is a 0.3 status update's "final" flag.
	Final bool
	// Role is a message's role, normalized: "agent", "user".
	Role       string
	History    int
	HasHistory bool
	Artifacts  int
	// PartKinds are the kinds of the parts of a message, of a task's
	// artifacts and status message, or of an artifact update, sorted.
	PartKinds []string
	Problems  []string
}

// summary describes the object in a few words for messages: "a task
// (completed)", "a message".
func (o *wireObject) summary() string {
	if o == nil {
		return "nothing"
	}
	switch o.Kind {
	case kindTask:
		return fmt.Sprintf("a task (%s)", orNone(o.State))
	case kindStatus:
		return fmt.Sprintf("a status update (%s)", orNone(o.State))
	case kindArtifact:
		return "an artifact update"
	}
	return "a message"
}

func orNone(s string) string {
	if s == "" {
		return "no state"
	}
	return s
}

// validStates are the task states, in the 0.3 spelling wireObject uses.
func validStates() []string {
	return []string{"submitted", "working", "input-required", "completed", "canceled", "failed", "rejected", "auth-required"}
}

// terminalState reports whether a (normalized) state ends a task.
func terminalState(s string) bool {
	return s == "completed" || s == "canceled" || s == "failed" || s == "rejected"
}

// interruptedState reports whether a task waits for its client.
func interruptedState(s string) bool { return s == "input-required" || s == "auth-required" }

// wrapperKinds maps the members of 1.0's oneof wrappers to kinds.
func wrapperKinds() map[string]string {
	return map[string]string{"task": kindTask, "message": kindMessage, "statusUpdate": kindStatus, "artifactUpdate": kindArtifact}
}

// decodeObject decodes a SendMessage result, a GetTask/CancelTask result or
// a stream event. It fails only when raw is not a JSON object or its kind
// cannot be told; deviations are listed in Problems.
func decodeObject(raw []byte) (wireObject, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return wireObject{}, fmt.Errorf("not a JSON object: %s", truncateText(string(raw), 80))
	}
	o := wireObject{}
	inner := members
	if k, ok := members["kind"]; ok {
		o.Form = formTagged
		var kind string
		if json.Unmarshal(k, &kind) != nil {
			return wireObject{}, fmt.Errorf(`"kind" %s is not a string`, truncateText(string(k), 40))
		}
		switch kind {
		case "task", "message", "status-update", "artifact-update":
			o.Kind = kind
		default:
			return wireObject{}, fmt.Errorf("unknown kind %q", truncateText(kind, 40))
		}
	} else {
		var found []string
		for key, kind := range wrapperKinds() {
			if _, ok := members[key]; ok && !looksLikeTaskOrMessage(members, key) {
				found = append(found, key)
				o.Kind = kind
			}
		}
		sort.Strings(found)
		switch {
		case len(found) > 1:
			o.Problems = append(o.Problems, fmt.Sprintf("the oneof wrapper holds %s; exactly one member is allowed", strings.Join(found, " and ")))
			o.Kind = wrapperKinds()[found[0]]
			fallthrough
		case len(found) == 1:
			o.Form = formWrapped
			if err := json.Unmarshal(members[found[0]], &inner); err != nil || inner == nil {
				return wireObject{}, fmt.Errorf("%q is not an object", found[0])
			}
		default:
			o.Form = formBare
			switch {
			case members["status"] != nil && members["id"] != nil:
				o.Kind = kindTask
			case members["messageId"] != nil || members["role"] != nil:
				o.Kind = kindMessage
			case members["artifact"] != nil:
				o.Kind = kindArtifact
			case members["status"] != nil:
				o.Kind = kindStatus
			default:
				return wireObject{}, fmt.Errorf("neither a task, a message nor a stream event (members: %s)", memberNames(members))
			}
		}
	}
	switch o.Kind {
	case kindTask:
		o.decodeTask(inner)
	case kindMessage:
		o.decodeMessage(inner)
	case kindStatus:
		o.decodeStatusUpdate(inner)
	case kindArtifact:
		o.decodeArtifactUpdate(inner)
	}
	sort.Strings(o.PartKinds)
	return o, nil
}

// looksLikeTaskOrMessage tells a bare Message apart from a wrapper: a bare
// Message has "messageId" beside its members, a wrapper only the oneof.
func looksLikeTaskOrMessage(members map[string]json.RawMessage, key string) bool {
	if key != "message" {
		return false
	}
	return members["messageId"] != nil || members["role"] != nil
}

func memberNames(m map[string]json.RawMessage) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, truncateText(k, 30))
	}
	sort.Strings(names)
	if len(names) > 8 {
		names = append(names[:8], "...")
	}
	return strings.Join(names, ", ")
}

func (o *wireObject) problem(format string, args ...any) {
	if len(o.Problems) < 20 {
		o.Problems = append(o.Problems, fmt.Sprintf(format, args...))
	}
}

// str reads a string member; present reports whether it was there at all.
func (o *wireObject) str(m map[string]json.RawMessage, key, where string) (s string, present bool) {
	raw, ok := m[key]
	if !ok || string(raw) == "null" {
		return "", false
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		o.problem("%s.%s is %s, not a string", where, key, truncateText(string(raw), 40))
		return "", true
	}
	return s, true
}

func (o *wireObject) required(m map[string]json.RawMessage, key, where string) string {
	s, ok := o.str(m, key, where)
	if !ok || s == "" {
		o.problem("%s has no %s", where, key)
	}
	return s
}

func (o *wireObject) noteNames(style string) {
	switch {
	case o.Names == "":
		o.Names = style
	case o.Names != style:
		o.Names = namesMixed
	}
}

// state normalizes a state name and notes its style.
func (o *wireObject) state(raw, where string) string {
	s := strings.TrimSpace(raw)
	upper := strings.ToUpper(s)
	if rest, ok := strings.CutPrefix(upper, "TASK_STATE_"); ok {
		o.noteNames(namesEnum)
		s = strings.ReplaceAll(strings.ToLower(rest), "_", "-")
	} else {
		o.noteNames(namesPlain)
	}
	if s == "cancelled" {
		s = "canceled" // the 0.3 proto spelling
	}
	if !slices.Contains(validStates(), s) && !(s == "unknown" && o.Names == namesPlain) {
		o.problem("%s state %q is not a task state", where, truncateText(raw, 40))
	}
	return s
}

func (o *wireObject) role(raw, where string) string {
	switch raw {
	case "ROLE_AGENT", "ROLE_USER":
		o.noteNames(namesEnum)
		return strings.ToLower(strings.TrimPrefix(raw, "ROLE_"))
	case "agent", "user":
		o.noteNames(namesPlain)
		return raw
	}
	o.problem("%s role %q is neither agent nor user", where, truncateText(raw, 40))
	return raw
}

func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

func array(raw json.RawMessage) ([]json.RawMessage, bool) {
	var a []json.RawMessage
	if json.Unmarshal(raw, &a) != nil {
		return nil, false
	}
	return a, true
}

func (o *wireObject) decodeTask(m map[string]json.RawMessage) {
	o.ID = o.required(m, "id", "task")
	o.TaskID = o.ID
	o.ContextID, _ = o.str(m, "contextId", "task")
	o.decodeStatus(m, "task")
	if raw, ok := m["artifacts"]; ok && string(raw) != "null" {
		arts, ok := array(raw)
		if !ok {
			o.problem("task.artifacts is not an array")
		}
		o.Artifacts = len(arts)
		for _, a := range arts {
			o.decodeArtifact(a, "task.artifacts[]")
		}
	}
	if raw, ok := m["history"]; ok && string(raw) != "null" {
		hist, ok := array(raw)
		if !ok {
			o.problem("task.history is not an array")
		}
		o.History, o.HasHistory = len(hist), true
		for _, h := range hist {
			if hm, ok := object(h); ok {
				var sub wireObject
				sub.decodeMessage(hm)
				o.mergeNames(sub)
				for _, p := range sub.Problems {
					o.problem("task.history[]: %s", p)
				}
			} else {
				o.problem("task.history[] holds a non-object")
			}
		}
	}
}

func (o *wireObject) mergeNames(sub wireObject) {
	if sub.Names != "" {
		o.noteNames(sub.Names)
		if sub.Names == namesMixed {
			o.Names = namesMixed
		}
	}
}

// decodeStatus reads the "status" member of a task or status update.
func (o *wireObject) decodeStatus(m map[string]json.RawMessage, where string) {
	raw, ok := m["status"]
	if !ok {
		o.problem("%s has no status", where)
		return
	}
	st, ok := object(raw)
	if !ok {
		o.problem("%s.status is not an object", where)
		return
	}
	s, ok := o.str(st, "state", where+".status")
	if !ok || s == "" {
		o.problem("%s.status has no state", where)
	} else {
		o.State = o.state(s, where+".status")
	}
	// 0.3 proto JSON names the status message "update"; 1.0 and 0.3
	// JSON-RPC "message".
	for _, key := range []string{"message", "update"} {
		if mraw, ok := st[key]; ok && string(mraw) != "null" {
			if mm, ok := object(mraw); ok {
				var sub wireObject
				sub.decodeMessage(mm)
				o.mergeNames(sub)
				o.PartKinds = append(o.PartKinds, sub.PartKinds...)
				for _, p := range sub.Problems {
					o.problem("%s.status.%s: %s", where, key, p)
				}
			} else {
				o.problem("%s.status.%s is not an object", where, key)
			}
		}
	}
}

func (o *wireObject) decodeMessage(m map[string]json.RawMessage) {
	o.ID = o.required(m, "messageId", "message")
	o.ContextID, _ = o.str(m, "contextId", "message")
	o.TaskID, _ = o.str(m, "taskId", "message")
	if r, ok := o.str(m, "role", "message"); !ok || r == "" {
		o.problem("message has no role")
	} else {
		o.Role = o.role(r, "message")
	}
	key := "parts"
	if _, ok := m["parts"]; !ok {
		if _, ok := m["content"]; ok {
			key = "content" // the 0.3 proto JSON name
		}
	}
	o.decodeParts(m[key], "message."+key)
}

func (o *wireObject) decodeParts(raw json.RawMessage, where string) {
	if raw == nil || string(raw) == "null" {
		o.problem("%s is missing", where)
		return
	}
	parts, ok := array(raw)
	if !ok {
		o.problem("%s is not an array", where)
		return
	}
	if len(parts) == 0 {
		o.problem("%s is empty", where)
	}
	for _, p := range parts {
		pm, ok := object(p)
		if !ok {
			o.problem("%s[] holds a non-object", where)
			continue
		}
		o.PartKinds = append(o.PartKinds, partKind(pm))
	}
}

// partKind tells what a part holds: text, data or file, whatever its form
// (1.0 oneof members, 0.3 "kind", 0.3 proto JSON "file").
func partKind(p map[string]json.RawMessage) string {
	if k, ok := p["kind"]; ok {
		var kind string
		if json.Unmarshal(k, &kind) == nil && (kind == "text" || kind == "data" || kind == "file") {
			return kind
		}
		return "unknown"
	}
	switch {
	case p["text"] != nil:
		return "text"
	case p["data"] != nil:
		return "data"
	case p["file"] != nil, p["raw"] != nil, p["url"] != nil:
		return "file"
	}
	return "unknown"
}

func (o *wireObject) decodeArtifact(raw json.RawMessage, where string) {
	am, ok := object(raw)
	if !ok {
		o.problem("%s is not an object", where)
		return
	}
	if id, _ := o.str(am, "artifactId", where); id == "" {
		o.problem("%s has no artifactId", where)
	}
	o.decodeParts(am["parts"], where+".parts")
}

func (o *wireObject) decodeStatusUpdate(m map[string]json.RawMessage) {
	o.TaskID = o.required(m, "taskId", "statusUpdate")
	o.ContextID = o.required(m, "contextId", "statusUpdate")
	o.decodeStatus(m, "statusUpdate")
	if raw, ok := m["final"]; ok {
		if json.Unmarshal(raw, &o.Final) != nil {
			o.problem("statusUpdate.final is not a boolean")
		}
	}
}

func (o *wireObject) decodeArtifactUpdate(m map[string]json.RawMessage) {
	o.TaskID = o.required(m, "taskId", "artifactUpdate")
	o.ContextID = o.required(m, "contextId", "artifactUpdate")
	raw, ok := m["artifact"]
	if !ok {
		o.problem("artifactUpdate has no artifact")
		return
	}
	o.decodeArtifact(raw, "artifactUpdate.artifact")
}

// truncateText shortens s to at most n bytes (on a rune boundary), marking
// the cut.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
