package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// maxUnstored bounds how many tasks unstoredTasks remembers; the oldest
// is forgotten first (a restart recovers it from its evaluation anyway).
const maxUnstored = 10000

// retryUnstoredEvery is how often a read of an unstored task tries again
// to store it.
const retryUnstoredEvery = 2 * time.Second

// unstoredTasks is a task store that does not let a storage failure (a full
// disk) leave a task `working` forever. When a task's update cannot be
// written, the task as callers see it (GetTask, ListTasks) ends at once:
// failed with the storage error and, for an evaluation, the request that
// resumes it once the storage is fixed; an update that was itself a
// terminal state (the executor's own report) is shown as it was meant.
// Reads of such a task try to store it again now and then; a restart
// recovers the stored task from its evaluation (RecoverTasks) if they
// never succeed.
type unstoredTasks struct {
	taskstore.Store

	mu      sync.Mutex
	pending map[a2a.TaskID]*unstoredTask
	order   []a2a.TaskID // oldest first, to bound pending
}

// unstoredTask is the end of a task whose update could not be stored.
type unstoredTask struct {
	task      *a2a.Task
	lastTried time.Time
}

func newUnstoredTasks(s taskstore.Store) *unstoredTasks {
	return &unstoredTasks{Store: s, pending: map[a2a.TaskID]*unstoredTask{}}
}

// storageFailure reports whether err is the store failing to write, as
// opposed to an answer about the request (a conflict, a missing task, a
// canceled call).
func storageFailure(err error) bool {
	return err != nil && !errors.Is(err, taskstore.ErrConcurrentModification) && !errors.Is(err, a2a.ErrTaskNotFound) &&
		!errors.Is(err, taskstore.ErrTaskAlreadyExists) && !errors.Is(err, context.Canceled) &&
		!errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, a2a.ErrUnauthenticated)
}

// Update implements taskstore.Store.
func (s *unstoredTasks) Update(ctx context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	v, err := s.Store.Update(ctx, req)
	if storageFailure(err) && req != nil && req.Task != nil {
		s.remember(req.Task, err)
	}
	return v, err
}

// remember keeps the end of a task whose update failed with err; the
// first end it is told stays (a2a-go's own failure report follows the
// executor's).
func (s *unstoredTasks) remember(intended *a2a.Task, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.pending[intended.ID]; ok {
		return
	}
	task := *intended
	if !task.Status.State.Terminal() {
		task.Status = unstoredStatus(&task, err)
	}
	if len(s.order) >= maxUnstored {
		delete(s.pending, s.order[0])
		s.order = s.order[1:]
	}
	s.pending[task.ID] = &unstoredTask{task: &task, lastTried: time.Now()}
	s.order = append(s.order, task.ID)
}

// unstoredStatus is the failed status of a task whose update could not be
// stored.
func unstoredStatus(task *a2a.Task, err error) a2a.TaskStatus {
	now := time.Now().UTC()
	text := fmt.Sprintf("proctor could not store this task's progress (%v), so the task stopped.", err)
	data := map[string]any{}
	if evalID := taskEvaluationID(task); evalID != "" {
		var hint string
		hint, data = resumeHint(evalID)
		text += fmt.Sprintf(" Evaluation %s keeps the simulations it stored: once the storage is fixed, %s.", evalID, hint)
	}
	data["storage_error"] = err.Error()
	parts := []*a2a.Part{a2a.NewTextPart(text), dataPart(data)}
	return a2a.TaskStatus{State: a2a.TaskStateFailed, Message: a2a.NewMessageForTask(a2a.MessageRoleAgent, task, parts...), Timestamp: &now}
}

// Get implements taskstore.Store: an unstored task shows its end.
func (s *unstoredTasks) Get(ctx context.Context, id a2a.TaskID) (*taskstore.StoredTask, error) {
	stored, err := s.Store.Get(ctx, id)
	if err != nil {
		return stored, err
	}
	return s.overlay(ctx, stored), nil
}

// List implements taskstore.Store: unstored tasks show their ends.
func (s *unstoredTasks) List(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	resp, err := s.Store.List(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	for i, t := range resp.Tasks {
		if end := s.end(t.ID); end != nil {
			cp := *t
			cp.Status = end.Status
			resp.Tasks[i] = &cp
		}
	}
	return resp, nil
}

// end is the remembered end of an unstored task, nil for any other.
func (s *unstoredTasks) end(id a2a.TaskID) *a2a.Task {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pending[id]; p != nil {
		return p.task
	}
	return nil
}

// overlay shows an unstored task's end in place of what is stored, first
// trying again (now and then) to store it.
func (s *unstoredTasks) overlay(ctx context.Context, stored *taskstore.StoredTask) *taskstore.StoredTask {
	s.mu.Lock()
	p := s.pending[stored.Task.ID]
	retry := p != nil && time.Since(p.lastTried) >= retryUnstoredEvery
	if retry {
		p.lastTried = time.Now()
	}
	s.mu.Unlock()
	if p == nil {
		return stored
	}
	if retry && !stored.Task.Status.State.Terminal() {
		if v, err := s.Store.Update(ctx, &taskstore.UpdateRequest{Task: p.task, PrevTask: stored.Task, PrevVersion: stored.Version}); err == nil {
			s.forget(stored.Task.ID)
			return &taskstore.StoredTask{Task: p.task, Version: v, User: stored.User}
		}
	}
	if stored.Task.Status.State.Terminal() {
		s.forget(stored.Task.ID) // stored since, by whoever
		return stored
	}
	cp := *stored.Task
	cp.Status = p.task.Status
	cp.Artifacts = p.task.Artifacts
	return &taskstore.StoredTask{Task: &cp, Version: stored.Version, User: stored.User}
}

// forget drops a task that is stored as it ended.
func (s *unstoredTasks) forget(id a2a.TaskID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pending, id)
	for i, x := range s.order {
		if x == id {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}
