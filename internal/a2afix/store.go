package a2afix

import (
	"context"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// Store wraps a task store so that every task it saves carries a status
// timestamp (the time it is saved, when the agent set none). A2A 1.0
// §3.1.4 orders and filters ListTasks by status timestamp: a task without
// one cannot be shown to have been updated after statusTimestampAfter,
// yet a2a-go's store lists it for any such filter.
func Store(s taskstore.Store) taskstore.Store { return stampingStore{s} }

type stampingStore struct{ taskstore.Store }

func stamp(t *a2a.Task) {
	if t != nil && t.Status.Timestamp == nil {
		now := time.Now().UTC()
		t.Status.Timestamp = &now
	}
}

// Create implements taskstore.Store.
func (s stampingStore) Create(ctx context.Context, task *a2a.Task) (taskstore.TaskVersion, error) {
	stamp(task)
	return s.Store.Create(ctx, task)
}

// Update implements taskstore.Store.
func (s stampingStore) Update(ctx context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	if req != nil {
		stamp(req.Task)
	}
	return s.Store.Update(ctx, req)
}
