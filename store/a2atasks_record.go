package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"go.etcd.io/bbolt"
)

// The stored value of an A2A task is a JSON object:
//
//	{"version":3,"user":"","updated_at":"2026-01-02T03:04:05.123456789Z","task":{...}}
//
// task is the task as a2a-go marshals it; the key is its id. version is
// the taskstore.TaskVersion (>= 1), user the owner named by the
// authenticator on Create, updated_at the time of the last write, and
// list_at the task's place in List order (see listAt; records written
// before it existed are ordered by updated_at). The List order time is
// part of page tokens.
type taskRecordHead struct {
	Version   taskstore.TaskVersion `json:"version"`
	User      string                `json:"user"`
	UpdatedAt time.Time             `json:"updated_at"`
	ListAt    time.Time             `json:"list_at,omitzero"`
}

// listTime is the time List orders the task by.
func (h taskRecordHead) listTime() time.Time {
	if !h.ListAt.IsZero() {
		return h.ListAt
	}
	return h.UpdatedAt
}

// listAt is where a write puts task in List order: at its status
// timestamp (A2A 1.0 §3.1.4 orders ListTasks by it), else at the write's
// time now, and never before prev, where earlier writes put it. A write
// that leaves the status alone (an artifact, a history message) then does
// not move the task past tasks whose status changed later, and a task only
// ever moves to the front, so paging neither repeats nor skips it.
func listAt(task *a2a.Task, now, prev time.Time) time.Time {
	at := now
	if task != nil && task.Status.Timestamp != nil {
		at = *task.Status.Timestamp
	}
	if at.Before(prev) {
		return prev
	}
	return at
}

type taskRecord struct {
	taskRecordHead
	Task json.RawMessage `json:"task"`
}

// taskHeader is what filters need from a stored task; decoding into it
// skips building the task's messages, parts and artifacts.
type taskHeader struct {
	taskRecordHead
	Task struct {
		ID        a2a.TaskID `json:"id"`
		ContextID string     `json:"contextId"`
		Status    struct {
			State     a2a.TaskState `json:"state"`
			Timestamp *time.Time    `json:"timestamp"`
		} `json:"status"`
	} `json:"task"`
}

// taskOwner reads the owner of a stored task from the head of its record
// (the fields before "task", in the order written), without reading the
// task; "" when the record says none before its task (the full decode
// then decides).
func taskOwner(v []byte) string {
	dec := json.NewDecoder(bytes.NewReader(v))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil || key == "task" {
			return ""
		}
		if key == "user" {
			var user string
			if dec.Decode(&user) != nil {
				return ""
			}
			return user
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}

// storedA2ATask is a decoded record.
type storedA2ATask struct {
	taskRecordHead
	task *a2a.Task
}

func corruptTask(key []byte, format string, args ...any) error {
	return fmt.Errorf("store: corrupt a2a task %q: %s", key, fmt.Sprintf(format, args...))
}

func taskNotFound(id string) error {
	return fmt.Errorf("store: a2a task %q: %w", id, a2a.ErrTaskNotFound)
}

// lookupTask returns the value stored under key in b, which may be nil
// (a database from before a2a_tasks, read-only).
func lookupTask(b *bbolt.Bucket, key []byte) (v []byte, found bool, err error) {
	if b == nil {
		return nil, false, nil
	}
	k, v := b.Cursor().Seek(key)
	if !bytes.Equal(k, key) {
		return nil, false, nil
	}
	if v == nil {
		return nil, true, corruptTask(key, "a nested bucket where a record was expected")
	}
	return v, true, nil
}

func (h *taskRecordHead) check(key []byte) error {
	if h.Version < 1 {
		return corruptTask(key, "version %d, want at least 1", h.Version)
	}
	return nil
}

// decodeTaskHeader decodes the envelope of a stored task and the task's
// indexed fields. A corrupt value yields an error naming the key.
func decodeTaskHeader(key, v []byte) (taskHeader, error) {
	var h taskHeader
	if v == nil {
		return h, corruptTask(key, "a nested bucket where a record was expected")
	}
	if err := json.Unmarshal(v, &h); err != nil {
		return h, corruptTask(key, "%v", err)
	}
	if err := h.check(key); err != nil {
		return h, err
	}
	if string(h.Task.ID) != string(key) {
		return h, corruptTask(key, "the record holds task %q", truncate([]byte(h.Task.ID), 64))
	}
	return h, nil
}

// decodeTask decodes a stored task. A corrupt value yields an error naming
// the key, never a panic.
func decodeTask(key, v []byte) (storedA2ATask, error) {
	if v == nil {
		return storedA2ATask{}, corruptTask(key, "a nested bucket where a record was expected")
	}
	var rec taskRecord
	if err := json.Unmarshal(v, &rec); err != nil {
		return storedA2ATask{}, corruptTask(key, "%v", err)
	}
	if err := rec.check(key); err != nil {
		return storedA2ATask{}, err
	}
	if len(bytes.TrimSpace(rec.Task)) == 0 || string(bytes.TrimSpace(rec.Task)) == "null" {
		return storedA2ATask{}, corruptTask(key, "no task in the record")
	}
	var task a2a.Task
	if err := json.Unmarshal(rec.Task, &task); err != nil {
		return storedA2ATask{}, corruptTask(key, "task: %v", err)
	}
	if string(task.ID) != string(key) {
		return storedA2ATask{}, corruptTask(key, "the record holds task %q", truncate([]byte(task.ID), 64))
	}
	return storedA2ATask{taskRecordHead: rec.taskRecordHead, task: &task}, nil
}

// encodeTask marshals task as a2a-go does and checks that it reads back, so
// that the store never holds a task that Get cannot return (a2a.Part with
// no content, for example, marshals but does not unmarshal).
func (db *DB) encodeTask(task *a2a.Task) ([]byte, error) {
	b, err := encodeJSON(task)
	if err != nil {
		return nil, fmt.Errorf("store: encode a2a task %q: %w", truncate([]byte(task.ID), 64), err)
	}
	// The envelope adds well under 1 KiB; checking the task alone first
	// reports the size of what the caller controls.
	if err := db.checkSize(fmt.Sprintf("a2a task %q", truncate([]byte(task.ID), 64)), len(b)); err != nil {
		return nil, err
	}
	var probe a2a.Task
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("store: a2a task %q does not survive a JSON round trip, so it cannot be stored: %w", truncate([]byte(task.ID), 64), err)
	}
	return b, nil
}

// taskValue builds a stored value from its envelope and the task's JSON
// (which encodeTask produced, so it is valid and compact) without
// re-encoding the task.
func (db *DB) taskValue(id string, h taskRecordHead, task []byte) ([]byte, error) {
	head, err := encodeJSON(h)
	if err != nil {
		return nil, fmt.Errorf("store: encode a2a task %q: %w", id, err)
	}
	const field = `,"task":`
	val := make([]byte, 0, len(head)+len(field)+len(task))
	val = append(val, head[:len(head)-1]...) // drop the closing brace
	val = append(val, field...)
	val = append(val, task...)
	val = append(val, '}')
	if err := db.checkSize(fmt.Sprintf("a2a task %q", id), len(val)); err != nil {
		return nil, err
	}
	return val, nil
}

func nextTaskVersion(key []byte, v taskstore.TaskVersion) (taskstore.TaskVersion, error) {
	if v == math.MaxInt64 {
		return 0, corruptTask(key, "version %d cannot be incremented", v)
	}
	return v + 1, nil
}
