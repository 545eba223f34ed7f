package store

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"go.etcd.io/bbolt"

	"github.com/proctor-eval/proctor/internal/a2afix"
)

// List implements taskstore.Store; see TaskStore for the request fields it
// honours and the order of the results.
func (s *TaskStore) List(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	if req == nil {
		req = &a2a.ListTasksRequest{}
	}
	user, err := s.listUser(ctx)
	if err != nil {
		return nil, err
	}
	pageSize, cur, err := listPaging(req)
	if err != nil {
		return nil, err
	}
	resp := &a2a.ListTasksResponse{Tasks: []*a2a.Task{}, PageSize: pageSize}
	err = s.db.view(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketA2ATasks)
		if b == nil {
			return nil
		}
		matches, err := matchingTasks(ctx, b, user, req)
		if err != nil {
			return err
		}
		resp.TotalSize = len(matches)
		page, next := taskPage(matches, cur, pageSize)
		resp.NextPageToken = next
		for _, m := range page {
			key := []byte(m.id)
			rec, err := decodeTask(key, b.Get(key))
			if err != nil {
				return err
			}
			a2afix.TrimListedTask(rec.task, req)
			resp.Tasks = append(resp.Tasks, rec.task)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// listUser returns the user whose tasks List returns, refusing an
// anonymous caller unless WithAnonymousTaskList.
func (s *TaskStore) listUser(ctx context.Context) (string, error) {
	user, err := s.auth(ctx)
	if err != nil {
		return "", fmt.Errorf("store: list a2a tasks: %w: %w", a2a.ErrUnauthenticated, err)
	}
	if user == "" && !s.anonymousList {
		return "", fmt.Errorf("store: list a2a tasks: %w: the caller has no user name", a2a.ErrUnauthenticated)
	}
	return user, nil
}

// listPaging validates the page size and decodes the page token of req;
// cur is nil for the first page.
func listPaging(req *a2a.ListTasksRequest) (pageSize int, cur *taskCursor, err error) {
	pageSize = req.PageSize
	if pageSize == 0 {
		pageSize = a2afix.DefaultPageSize
	} else if pageSize < 1 || pageSize > a2afix.MaxPageSize {
		return 0, nil, fmt.Errorf("page size must be between 1 and %d inclusive, got %d: %w", a2afix.MaxPageSize, pageSize, a2a.ErrInvalidParams)
	}
	if req.PageToken != "" {
		c, err := decodeTaskPageToken(req.PageToken)
		if err != nil {
			return 0, nil, err
		}
		cur = &c
	}
	return pageSize, cur, nil
}

// matchingTasks returns the positions of the user's tasks (every task,
// for an admin) in b that req selects, in List order.
func matchingTasks(ctx context.Context, b *bbolt.Bucket, user string, req *a2a.ListTasksRequest) ([]taskCursor, error) {
	var matches []taskCursor
	admin := isAdmin(ctx)
	err := forEach(ctx, b, func(k, v []byte) error {
		h, err := decodeTaskHeader(k, v)
		if err != nil {
			return err
		}
		if listMatches(&h, user, admin, req) {
			matches = append(matches, taskCursor{at: h.listTime(), id: string(k)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(matches, func(a, b taskCursor) int { return b.compare(a) })
	return matches, nil
}

// taskPage returns the page of matches (in List order) that follows cur
// (nil for the first page), and the token of the next page if there is
// one.
func taskPage(matches []taskCursor, cur *taskCursor, pageSize int) (page []taskCursor, next string) {
	page = matches
	if cur != nil {
		// The first task strictly after the cursor in list order.
		start := sort.Search(len(page), func(i int) bool { return page[i].compare(*cur) < 0 })
		page = page[start:]
	}
	if len(page) > pageSize {
		page = page[:pageSize]
		next = page[len(page)-1].token()
	}
	return page, next
}

// listMatches reports whether req lists the task of h for user (an admin
// lists every user's tasks).
func listMatches(h *taskHeader, user string, admin bool, req *a2a.ListTasksRequest) bool {
	switch {
	case h.User != user && !admin:
		return false
	case req.ContextID != "" && h.Task.ContextID != req.ContextID:
		return false
	case req.Status != a2a.TaskStateUnspecified && h.Task.Status.State != req.Status:
		return false
	case req.StatusTimestampAfter != nil && (h.Task.Status.Timestamp == nil ||
		h.Task.Status.Timestamp.Before(*req.StatusTimestampAfter)):
		// A task without a status timestamp cannot be shown to have
		// been updated after the time asked for.
		return false
	}
	return true
}

// taskCursor is a position in List order: descending list time (see
// listAt), then descending id.
type taskCursor struct {
	at time.Time
	id string
}

// compare orders cursors ascending by (time, id); List order is the
// reverse.
func (c taskCursor) compare(o taskCursor) int {
	if r := c.at.Compare(o.at); r != 0 {
		return r
	}
	return strings.Compare(c.id, o.id)
}

// token encodes the cursor as a2a-go's InMemory store does: base64url of
// "<RFC 3339 time>_<task id>", so tokens from either store are accepted by
// both (InMemory cannot read back ids that contain "_"; this store can).
func (c taskCursor) token() string {
	return base64.URLEncoding.EncodeToString([]byte(c.at.UTC().Format(time.RFC3339Nano) + "_" + c.id))
}

func decodeTaskPageToken(tok string) (taskCursor, error) {
	bad := func(why string) (taskCursor, error) {
		return taskCursor{}, fmt.Errorf("invalid page token %q (%s): %w", truncate([]byte(tok), 64), why, a2a.ErrInvalidParams)
	}
	raw, err := base64.URLEncoding.DecodeString(tok)
	if err != nil {
		return bad("not base64url")
	}
	ts, id, ok := strings.Cut(string(raw), "_") // RFC 3339 times contain no "_"
	if !ok {
		return bad("no separator")
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return bad("bad time")
	}
	return taskCursor{at: t, id: id}, nil
}
