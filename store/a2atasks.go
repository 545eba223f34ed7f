package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"go.etcd.io/bbolt"
)

// TaskStore keeps the tasks of an a2a-go server (`proctor serve`) in the
// a2a_tasks bucket of the database, so that they survive restarts. It
// implements taskstore.Store; pass it to a2asrv.WithTaskStore. Get one
// from DB.TaskStore.
//
// It follows the semantics of a2a-go's reference store
// (taskstore.InMemory) wherever a2a-go's server relies on them:
//
//   - Create stores version 1 and fails with an error wrapping
//     taskstore.ErrTaskAlreadyExists if the id is taken.
//   - Update stores version+1. When UpdateRequest.PrevVersion is not
//     taskstore.TaskVersionMissing and differs from the stored version,
//     it fails with an error wrapping taskstore.ErrConcurrentModification
//     and changes nothing; TaskVersionMissing skips the check. The check
//     and the write are one bbolt transaction, so concurrent updaters that
//     read the same version cannot both win.
//   - Get, and Update of a task that does not exist or that belongs to
//     another user, fail with an error wrapping a2a.ErrTaskNotFound (the
//     owner mismatch is masked as not-found, as A2A requires).
//   - List honours ContextID, Status, StatusTimestampAfter (tasks without
//     a status timestamp are left out: InMemory keeps them), PageSize (0
//     means 50; outside 1..100 is an error wrapping a2a.ErrInvalidParams,
//     InMemory's a2a.ErrInvalidRequest), PageToken (an invalid one is an
//     error wrapping a2a.ErrInvalidParams, InMemory's a2a.ErrParseError:
//     A2A 1.0 §3.3.2 calls both validation errors), HistoryLength (nil
//     keeps the last 100 messages, 0 none, a negative value all) and
//     IncludeArtifacts. It returns only the caller's tasks, most recently
//     updated first, ties broken by descending id; TotalSize counts every
//     match. Tenant is ignored, as by InMemory. A caller whose user name
//     is empty (every caller, without an authenticator) gets an error
//     wrapping a2a.ErrUnauthenticated unless WithAnonymousTaskList.
//   - Tasks are copied in and out: a caller may modify what it passed to
//     Create or Update, or got from Get or List.
//
// Differences from InMemory, all due to storing JSON: a task must survive
// a JSON round trip (a2a-go sends tasks as JSON anyway), else Create and
// Update fail and store nothing; numbers in metadata and data parts read
// back as float64, as they would after any JSON transport; page tokens
// carry ids containing "_" correctly; List returns an empty, non-nil
// Tasks slice when nothing matches; and nil tasks or requests are errors
// rather than panics.
//
// Each Create and Update is one bbolt transaction, fsynced on commit.
// A record (the task's JSON and a small envelope) is bounded by the
// database's record-size limit (64 MiB); a task growing past it makes
// Update fail with an error saying so. List runs in one read transaction:
// it decodes the envelope and the filtered fields (id, context id, state,
// status timestamp) of every stored task, then fully decodes only the page
// it returns, so it costs time linear in the size of the bucket, like
// InMemory's List. A record too damaged for that is an error naming its
// key; a record damaged only beyond those fields fails the calls that
// return that task.
//
// A TaskStore is safe for concurrent use. It never closes the database.
type TaskStore struct {
	db            *DB
	auth          taskstore.Authenticator
	now           func() time.Time
	anonymousList bool
}

var _ taskstore.Store = (*TaskStore)(nil)

// TaskStoreOption configures DB.TaskStore.
type TaskStoreOption func(*TaskStore)

// WithTaskAuthenticator sets the function naming the user who makes a call;
// tasks are owned by the user who created them, and other users see them
// as not found. Without it every caller is the empty user, as in
// taskstore.NewInMemory(nil). To keep the per-user isolation that a2a-go's
// default server store has, pass a2asrv.NewTaskStoreAuthenticator(), which
// reads the user from the request's a2asrv.CallContext (unauthenticated
// requests are the empty user).
func WithTaskAuthenticator(auth taskstore.Authenticator) TaskStoreOption {
	return func(s *TaskStore) {
		if auth != nil {
			s.auth = auth
		}
	}
}

// WithTenantTasks makes the owner of a task the Tenant of the context
// that creates it (see WithTenant; "" without one), and lets an admin
// tenant get, update and list every task, whoever owns it. The owner of a
// task never changes, an admin's update included.
func WithTenantTasks() TaskStoreOption {
	return func(s *TaskStore) {
		s.auth = func(ctx context.Context) (string, error) { return tenantName(ctx), nil }
	}
}

// isAdmin reports whether ctx acts for an admin tenant, who sees every
// task.
func isAdmin(ctx context.Context) bool {
	t, ok := TenantFrom(ctx)
	return ok && t.Admin
}

// WithAnonymousTaskList lets callers whose user name is empty List the
// tasks owned by the empty user name, that is the tasks of every
// unauthenticated caller. Without it, List refuses them with
// a2a.ErrUnauthenticated, as a2a-go's InMemory does; Get, Create and
// Update work for them either way. Use it when the server has no
// authentication and its tasks are not secret.
func WithAnonymousTaskList() TaskStoreOption {
	return func(s *TaskStore) { s.anonymousList = true }
}

// withTaskClock sets the clock used for the last-updated time (which
// orders List among tasks without a status timestamp); for tests.
func withTaskClock(now func() time.Time) TaskStoreOption {
	return func(s *TaskStore) { s.now = now }
}

// TaskStore returns a taskstore.Store keeping A2A tasks in this database
// (see TaskStore for its semantics). It is cheap: every call returns a new
// view of the same bucket, so stores made with different options see the
// same tasks. On a database opened WithReadOnly, Create and Update fail.
func (db *DB) TaskStore(opts ...TaskStoreOption) *TaskStore {
	s := &TaskStore{
		db:   db,
		auth: func(context.Context) (string, error) { return "", nil },
		now:  time.Now,
	}
	for _, opt := range opts {
		if opt != nil {
			opt(s)
		}
	}
	return s
}

func (s *TaskStore) user(ctx context.Context) (string, error) {
	u, err := s.auth(ctx)
	if err != nil {
		return "", fmt.Errorf("store: a2a task store: authentication failed: %w", err)
	}
	return u, nil
}

func (s *TaskStore) clock() time.Time { return s.now().UTC().Round(0) }

// Create implements taskstore.Store: it stores a new task at version 1,
// owned by the authenticated user. It fails with an error wrapping
// taskstore.ErrTaskAlreadyExists if a task with this id exists (whoever
// owns it). The task id must be 1 to 1024 bytes.
func (s *TaskStore) Create(ctx context.Context, task *a2a.Task) (taskstore.TaskVersion, error) {
	if task == nil {
		return taskstore.TaskVersionMissing, errors.New("store: create a2a task: nil task")
	}
	id := string(task.ID)
	if err := validateID(kindA2ATask, id); err != nil {
		return taskstore.TaskVersionMissing, err
	}
	user, err := s.user(ctx)
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	taskJSON, err := s.db.encodeTask(task)
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	const version = taskstore.TaskVersion(1)
	now := s.clock()
	val, err := s.db.taskValue(id, taskRecordHead{Version: version, User: user, UpdatedAt: now, ListAt: listAt(task, now, time.Time{})}, taskJSON)
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	key := []byte(id)
	err = s.db.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketA2ATasks)
		_, found, err := lookupTask(b, key)
		if err != nil {
			return err
		}
		if found {
			return fmt.Errorf("store: a2a task %q: %w", id, taskstore.ErrTaskAlreadyExists)
		}
		if err := b.Put(key, val); err != nil {
			return fmt.Errorf("store: create a2a task %q: %w", id, err)
		}
		return nil
	})
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	return version, nil
}

// Update implements taskstore.Store: it replaces the task req.Task.ID with
// req.Task and returns the new version, one more than the stored one.
// If req.PrevVersion is not taskstore.TaskVersionMissing and is not the
// stored version, it fails with an error wrapping
// taskstore.ErrConcurrentModification. A missing task, or one owned by
// another user, fails with an error wrapping a2a.ErrTaskNotFound. The
// owner never changes. req.Event and req.PrevTask are not used.
func (s *TaskStore) Update(ctx context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	if req == nil || req.Task == nil {
		return taskstore.TaskVersionMissing, errors.New("store: update a2a task: nil task")
	}
	id := string(req.Task.ID)
	if err := validateID(kindA2ATask, id); err != nil {
		return taskstore.TaskVersionMissing, err
	}
	user, err := s.user(ctx)
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	taskJSON, err := s.db.encodeTask(req.Task)
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	now := s.clock()
	key := []byte(id)
	var version taskstore.TaskVersion
	err = s.db.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketA2ATasks)
		v, found, err := lookupTask(b, key)
		if err != nil {
			return err
		}
		if !found {
			return taskNotFound(id)
		}
		h, err := decodeTaskHeader(key, v)
		if err != nil {
			return err
		}
		if h.User != user && !isAdmin(ctx) {
			return taskNotFound(id)
		}
		if req.PrevVersion != taskstore.TaskVersionMissing && req.PrevVersion != h.Version {
			return fmt.Errorf("store: a2a task %q is at version %d, not %d: %w", id, h.Version, req.PrevVersion, taskstore.ErrConcurrentModification)
		}
		next, err := nextTaskVersion(key, h.Version)
		if err != nil {
			return err
		}
		head := taskRecordHead{Version: next, User: h.User, UpdatedAt: now, ListAt: listAt(req.Task, now, h.listTime())}
		val, err := s.db.taskValue(id, head, taskJSON)
		if err != nil {
			return err
		}
		if err := b.Put(key, val); err != nil {
			return fmt.Errorf("store: update a2a task %q: %w", id, err)
		}
		version = next
		return nil
	})
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	return version, nil
}

// Get implements taskstore.Store: it returns the task, its version and its
// owner. A missing task, or one owned by another user, is an error
// wrapping a2a.ErrTaskNotFound.
func (s *TaskStore) Get(ctx context.Context, taskID a2a.TaskID) (*taskstore.StoredTask, error) {
	id := string(taskID)
	if id == "" || len(id) > maxIDLen {
		return nil, taskNotFound(truncate([]byte(id), 64))
	}
	key := []byte(id)
	var (
		rec  storedA2ATask
		user string
	)
	err := s.db.view(ctx, func(tx *bbolt.Tx) error {
		v, found, err := lookupTask(tx.Bucket(bucketA2ATasks), key)
		if err != nil {
			return err
		}
		if !found {
			return taskNotFound(id)
		}
		if user, err = s.user(ctx); err != nil {
			return err
		}
		// Another user's task is not found, and found as fast as a task
		// that does not exist: its owner is read before the task is.
		if taskOwner(v) != user && !isAdmin(ctx) {
			return taskNotFound(id)
		}
		rec, err = decodeTask(key, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	if rec.User != user && !isAdmin(ctx) {
		return nil, taskNotFound(id)
	}
	return &taskstore.StoredTask{Task: rec.task, Version: rec.Version, User: rec.User}, nil
}
