package store

import (
	"context"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// DefaultTaskInterruptedReason is the status message MarkTasksInterrupted
// gives failed tasks when the caller passes no reason.
const DefaultTaskInterruptedReason = "proctor restarted while this task was in progress; its execution was lost. Send the request again to start a new task."

// interruptedByRestart reports whether a task in state st had an execution
// running in the process that stored it: every state but the terminal ones
// and input-required, which a2a-go treats as the end of an execution (the
// next message from the client starts a new one from the stored task).
// auth-required is included: a2a-go keeps that execution running.
func interruptedByRestart(st a2a.TaskState) bool {
	return !st.Terminal() && st != a2a.TaskStateInputRequired
}

// MarkTasksInterrupted fails the A2A tasks whose execution died with a
// previous process, and returns their ids in key order. `proctor serve`
// calls it at start-up, after Open and before its a2a-go handler serves
// any request (tasks executing in this process would be failed too).
//
// A task is interrupted if its state is neither terminal (completed,
// failed, canceled, rejected) nor input-required: submitted, working,
// auth-required and unspecified. Each is set, as a2a-go would on a status
// update, to state failed with an agent status message whose text is
// reason (DefaultTaskInterruptedReason if empty) and a timestamp of now;
// its previous status message, if any, moves to the history. Its version
// goes up by one, so an execution that somehow still held the old version
// would get taskstore.ErrConcurrentModification, and its owner is kept.
// No authenticator is involved: it covers every user's tasks.
//
// It is one transaction: on error (including a corrupt record, named in the
// error) nothing is changed.
func (db *DB) MarkTasksInterrupted(ctx context.Context, reason string) ([]a2a.TaskID, error) {
	if reason == "" {
		reason = DefaultTaskInterruptedReason
	}
	return db.RecoverTasks(ctx, func(*a2a.Task, EvaluationStatus) TaskRecovery {
		return TaskRecovery{State: a2a.TaskStateFailed, Parts: []*a2a.Part{a2a.NewTextPart(reason)}}
	})
}
