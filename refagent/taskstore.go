package refagent

import (
	"container/list"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/proctor-eval/proctor/internal/a2afix"
)

// MaxTasks bounds the A2A tasks an agent's server keeps for GetTask and
// ListTasks (every reply is one task). Beyond it the least recently
// written (created or updated) task is forgotten and answers
// TaskNotFoundError like one that never existed. The agent's tasks are
// completed when created, so this is the oldest reply; and since ListTasks
// lists the most recently updated first, the forgotten tasks are always
// the end of the list, never a hole in a page. A task is kept as its JSON
// (a reply to a conversation's first message, some 2.5 KB, takes about
// 3.3 KB of heap in all), so the bound caps the tasks at some 35 MB.
const MaxTasks = 10000

// taskStore is an in-memory taskstore.Store that keeps at most max tasks,
// forgetting the least recently written first. It follows a2a-go's
// InMemory store: versions start at 1 and grow by one an update;
// UpdateRequest.PrevVersion, unless taskstore.TaskVersionMissing, must be
// the stored version (else taskstore.ErrConcurrentModification); another
// user's task is a2a.ErrTaskNotFound; List needs a user name (else
// a2a.ErrUnauthenticated), a page size of 1..100 (0 means 50; else
// a2a.ErrInvalidRequest) and a page token it gave (else
// a2a.ErrParseError), and keeps tasks without a status timestamp for any
// StatusTimestampAfter. Its order is the order of writes, newest first,
// where InMemory's is the write time's (ties, rare, broken by descending
// id). Tasks are kept as JSON, compact and copied in and out; a task must
// survive a JSON round trip, as it does on the wire.
type taskStore struct {
	auth taskstore.Authenticator
	max  int

	mu    sync.Mutex
	seq   uint64                       // writes so far
	byID  map[a2a.TaskID]*list.Element // of order
	order *list.List                   // of *taskRecord, most recently written first
}

var _ taskstore.Store = (*taskStore)(nil)

// taskRecord is one stored task: the fields List filters on, and the task
// as JSON. A record is never modified once stored; an update replaces it.
type taskRecord struct {
	id        a2a.TaskID
	contextID string
	state     a2a.TaskState
	stamp     *time.Time // the status timestamp
	user      string
	version   taskstore.TaskVersion
	seq       uint64 // the write that stored it: List's and eviction's order
	task      []byte
}

// newTaskStore returns an empty store of at most bound tasks (at least
// one) whose callers auth names.
func newTaskStore(bound int, auth taskstore.Authenticator) *taskStore {
	return &taskStore{auth: auth, max: max(bound, 1), byID: make(map[a2a.TaskID]*list.Element), order: list.New()}
}

// newTaskRecord encodes task for user.
func newTaskRecord(task *a2a.Task, user string) (*taskRecord, error) {
	if task == nil {
		return nil, errors.New("refagent: task store: no task to store")
	}
	data, err := json.Marshal(task)
	if err != nil {
		return nil, fmt.Errorf("refagent: task store: encode task %s: %w", task.ID, err)
	}
	rec := &taskRecord{id: task.ID, contextID: task.ContextID, state: task.Status.State, user: user, task: data}
	if task.Status.Timestamp != nil {
		t := *task.Status.Timestamp
		rec.stamp = &t
	}
	return rec, nil
}

// decode returns a fresh copy of the record's task.
func (r *taskRecord) decode() (*a2a.Task, error) {
	var t a2a.Task
	if err := json.Unmarshal(r.task, &t); err != nil {
		return nil, fmt.Errorf("refagent: task store: decode task %s: %w", r.id, err)
	}
	return &t, nil
}

// user names the caller of ctx.
func (s *taskStore) user(ctx context.Context) (string, error) {
	user, err := s.auth(ctx)
	if err != nil {
		return "", fmt.Errorf("refagent: task store: authenticate: %w", err)
	}
	return user, nil
}

// Create implements taskstore.Store.
func (s *taskStore) Create(ctx context.Context, task *a2a.Task) (taskstore.TaskVersion, error) {
	user, err := s.user(ctx)
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	rec, err := newTaskRecord(task, user)
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	rec.version = 1
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.byID[rec.id]; ok {
		return taskstore.TaskVersionMissing, fmt.Errorf("refagent: task store: task %s: %w", rec.id, taskstore.ErrTaskAlreadyExists)
	}
	s.write(rec, nil)
	return rec.version, nil
}

// Update implements taskstore.Store.
func (s *taskStore) Update(ctx context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	if req == nil {
		return taskstore.TaskVersionMissing, errors.New("refagent: task store: no update request")
	}
	user, err := s.user(ctx)
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	rec, err := newTaskRecord(req.Task, user)
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.byID[rec.id]
	if !ok || el.Value.(*taskRecord).user != user {
		return taskstore.TaskVersionMissing, fmt.Errorf("refagent: task store: update task %s: %w", rec.id, a2a.ErrTaskNotFound)
	}
	prev := el.Value.(*taskRecord).version
	if req.PrevVersion != taskstore.TaskVersionMissing && req.PrevVersion != prev {
		return taskstore.TaskVersionMissing, fmt.Errorf("refagent: task store: update task %s of version %d, stored %d: %w",
			rec.id, req.PrevVersion, prev, taskstore.ErrConcurrentModification)
	}
	rec.version = prev + 1
	s.write(rec, el)
	return rec.version, nil
}

// write stores rec as the most recent write, in place of el (nil for a
// new task), and forgets the least recent tasks beyond the bound. s.mu
// must be held.
func (s *taskStore) write(rec *taskRecord, el *list.Element) {
	s.seq++
	rec.seq = s.seq
	if el != nil {
		el.Value = rec
		s.order.MoveToFront(el)
		return
	}
	s.byID[rec.id] = s.order.PushFront(rec)
	for s.order.Len() > s.max {
		oldest := s.order.Remove(s.order.Back()).(*taskRecord)
		delete(s.byID, oldest.id)
	}
}

// Get implements taskstore.Store.
func (s *taskStore) Get(ctx context.Context, id a2a.TaskID) (*taskstore.StoredTask, error) {
	user, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	var rec *taskRecord
	if el, ok := s.byID[id]; ok {
		rec = el.Value.(*taskRecord)
	}
	s.mu.Unlock()
	if rec == nil || rec.user != user {
		return nil, fmt.Errorf("refagent: task store: get task %s: %w", id, a2a.ErrTaskNotFound)
	}
	task, err := rec.decode()
	if err != nil {
		return nil, err
	}
	return &taskstore.StoredTask{Task: task, Version: rec.version, User: rec.user}, nil
}

// List implements taskstore.Store.
func (s *taskStore) List(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	if req == nil {
		req = &a2a.ListTasksRequest{}
	}
	user, err := s.user(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", a2a.ErrUnauthenticated, err)
	}
	if user == "" {
		return nil, fmt.Errorf("refagent: task store: list tasks: the caller has no user name: %w", a2a.ErrUnauthenticated)
	}
	pageSize, before, err := listPaging(req)
	if err != nil {
		return nil, err
	}
	matches := s.matching(user, req)
	page, next := listPage(matches, before, pageSize)
	tasks, err := listedTasks(page, req)
	if err != nil {
		return nil, err
	}
	return &a2a.ListTasksResponse{Tasks: tasks, TotalSize: len(matches), PageSize: pageSize, NextPageToken: next}, nil
}

// listPaging returns the page size req asks for and the write its page
// token says the page starts before (0 for the first page).
func listPaging(req *a2a.ListTasksRequest) (pageSize int, before uint64, err error) {
	pageSize = req.PageSize
	if pageSize == 0 {
		pageSize = a2afix.DefaultPageSize
	} else if pageSize < 1 || pageSize > a2afix.MaxPageSize {
		return 0, 0, fmt.Errorf("page size must be between 1 and %d inclusive, got %d: %w", a2afix.MaxPageSize, pageSize, a2a.ErrInvalidRequest)
	}
	if req.PageToken == "" {
		return pageSize, 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(req.PageToken)
	if err == nil {
		before, err = strconv.ParseUint(string(raw), 10, 64)
	}
	if err != nil || before == 0 {
		return 0, 0, fmt.Errorf("page token %.64q is not one this agent gave (pass the nextPageToken of the previous page): %w",
			req.PageToken, a2a.ErrParseError)
	}
	return pageSize, before, nil
}

// pageToken is the token of the page after the task written by write seq.
func pageToken(seq uint64) string {
	return base64.RawURLEncoding.EncodeToString(strconv.AppendUint(nil, seq, 10))
}

// matching returns the user's records that req selects, most recently
// written first.
func (s *taskStore) matching(user string, req *a2a.ListTasksRequest) []*taskRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	var matches []*taskRecord
	for el := s.order.Front(); el != nil; el = el.Next() {
		rec := el.Value.(*taskRecord)
		switch {
		case rec.user != user,
			req.ContextID != "" && rec.contextID != req.ContextID,
			req.Status != a2a.TaskStateUnspecified && rec.state != req.Status,
			req.StatusTimestampAfter != nil && rec.stamp != nil && rec.stamp.Before(*req.StatusTimestampAfter):
			continue
		}
		matches = append(matches, rec)
	}
	return matches
}

// listPage returns the page of matches (most recently written first) that
// starts after write before (0: at the start), and the next page's token
// when there is one.
func listPage(matches []*taskRecord, before uint64, pageSize int) (page []*taskRecord, next string) {
	page = matches
	if before != 0 {
		page = page[sort.Search(len(page), func(i int) bool { return page[i].seq < before }):]
	}
	if len(page) > pageSize {
		page = page[:pageSize]
		next = pageToken(page[pageSize-1].seq)
	}
	return page, next
}

// listedTasks decodes the tasks of page, with the history and artifacts
// req asks for (a2afix.TrimListedTask).
func listedTasks(page []*taskRecord, req *a2a.ListTasksRequest) ([]*a2a.Task, error) {
	var tasks []*a2a.Task
	for _, rec := range page {
		t, err := rec.decode()
		if err != nil {
			return nil, err
		}
		a2afix.TrimListedTask(t, req)
		tasks = append(tasks, t)
	}
	return tasks, nil
}
