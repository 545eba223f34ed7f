package store

import (
	"context"
	"fmt"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"go.etcd.io/bbolt"
)

// TaskRecovery is how RecoverTasks ends a task whose execution died with a
// previous process: a terminal state and the parts of its new status
// message; or, with Keep, nothing: the task stays as it is, for the new
// process to carry its work on (State and Parts are then ignored).
type TaskRecovery struct {
	State a2a.TaskState
	Parts []*a2a.Part
	Keep  bool
}

// EvaluationStatus looks up a stored evaluation's status ("running",
// "completed"...) by id; ok is false when there is no such evaluation.
type EvaluationStatus func(id string) (status string, ok bool)

// TaskRecoverer decides how an interrupted task ends. It may read the
// status of evaluations through evaluations (in the same transaction) and
// must not use the database otherwise.
type TaskRecoverer func(task *a2a.Task, evaluations EvaluationStatus) TaskRecovery

// RecoverTasks ends the A2A tasks whose execution died with a previous
// process (those MarkTasksInterrupted fails: neither terminal nor
// input-required), each as recover decides from the task and the state of
// the work it reported, and returns their ids in key order. Like
// MarkTasksInterrupted, the previous status message moves to the history,
// the version goes up by one and the owner is kept; it is one transaction,
// and a recovery to a state that is not terminal is an error that changes
// nothing. A task recover keeps (TaskRecovery.Keep) is left alone and not
// among the ids. `proctor serve` calls it at start-up, before it serves.
func (db *DB) RecoverTasks(ctx context.Context, recover TaskRecoverer) ([]a2a.TaskID, error) {
	now := time.Now().UTC().Round(0)
	var ids []a2a.TaskID
	err := db.update(ctx, func(tx *bbolt.Tx) error {
		ids = nil
		b := tx.Bucket(bucketA2ATasks)
		if b == nil {
			return nil // cannot happen: a writable Open creates it
		}
		evals := evaluationStatusIn(tx)
		changed, err := rewrite(ctx, b, kindA2ATask, func(k, v []byte) ([]byte, error) {
			return db.recoverTask(k, v, now, func(t *a2a.Task) TaskRecovery { return recover(t, evals) })
		})
		for _, k := range changed {
			ids = append(ids, a2a.TaskID(k))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// evaluationStatusIn reads evaluations' statuses in tx.
func evaluationStatusIn(tx *bbolt.Tx) EvaluationStatus {
	return func(id string) (string, bool) {
		b := tx.Bucket(bucketEvaluations)
		if b == nil || id == "" {
			return "", false
		}
		v := b.Get([]byte(id))
		if v == nil {
			return "", false
		}
		h, err := decodeEvalHeader([]byte(id), v)
		if err != nil {
			return "", false
		}
		return h.Status, true
	}
}

// recoverTask returns the stored value that ends the task stored as v under
// key k as decide says, or nil if the task was not interrupted.
func (db *DB) recoverTask(k, v []byte, now time.Time, decide func(*a2a.Task) TaskRecovery) ([]byte, error) {
	h, err := decodeTaskHeader(k, v)
	if err != nil || !interruptedByRestart(h.Task.Status.State) {
		return nil, err
	}
	rec, err := decodeTask(k, v)
	if err != nil {
		return nil, err
	}
	t := rec.task
	end := decide(t)
	if end.Keep {
		return nil, nil
	}
	if !end.State.Terminal() {
		return nil, fmt.Errorf("store: recover a2a task %q: state %q is not terminal", k, end.State)
	}
	if t.Status.Message != nil {
		t.History = append(t.History, t.Status.Message)
	}
	ts := now
	t.Status = a2a.TaskStatus{
		State:     end.State,
		Message:   a2a.NewMessageForTask(a2a.MessageRoleAgent, t, end.Parts...),
		Timestamp: &ts,
	}
	next, err := nextTaskVersion(k, rec.Version)
	if err != nil {
		return nil, err
	}
	taskJSON, err := db.encodeTask(t)
	if err != nil {
		return nil, err
	}
	return db.taskValue(string(k), taskRecordHead{Version: next, User: rec.User, UpdatedAt: now, ListAt: listAt(t, now, rec.listTime())}, taskJSON)
}

// TaskOwner is the user name that owns the A2A task id ("" for an
// unauthenticated caller's), whoever asks: for a server that carries on a
// task its previous process left unfinished, on its owner's behalf.
func (db *DB) TaskOwner(ctx context.Context, id a2a.TaskID) (string, error) {
	key := []byte(id)
	var owner string
	err := db.view(ctx, func(tx *bbolt.Tx) error {
		v, found, err := lookupTask(tx.Bucket(bucketA2ATasks), key)
		if err != nil {
			return err
		}
		if !found {
			return taskNotFound(string(id))
		}
		h, err := decodeTaskHeader(key, v)
		if err != nil {
			return err
		}
		owner = h.User
		return nil
	})
	return owner, err
}
