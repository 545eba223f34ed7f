package refagent

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// boundedAgentClient serves the reference agent keeping at most maxTasks
// tasks on loopback and returns an a2a-go client of it.
func boundedAgentClient(t *testing.T, maxTasks int) *sdkclient.Client {
	t.Helper()
	a, _ := mockAgent(t)
	a.maxTasks = maxTasks
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = a.Handler("http://" + srv.Listener.Addr().String() + "/")
	srv.Start()
	t.Cleanup(srv.Close)
	card, err := agentcard.DefaultResolver.Resolve(t.Context(), srv.URL)
	if err != nil {
		t.Fatalf("resolve card: %v", err)
	}
	client, err := sdkclient.NewFromCard(t.Context(), card)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	t.Cleanup(func() { client.Destroy() })
	return client
}

// listPages follows ListTasks' page tokens from the first page to the last
// and returns each page's task ids and TotalSize.
func listPages(t *testing.T, client *sdkclient.Client, pageSize int) (pages [][]a2a.TaskID, totals []int) {
	t.Helper()
	req := &a2a.ListTasksRequest{PageSize: pageSize}
	for range 100 {
		resp, err := client.ListTasks(t.Context(), req)
		if err != nil {
			t.Fatalf("ListTasks page %d: %v", len(pages)+1, err)
		}
		var ids []a2a.TaskID
		for _, task := range resp.Tasks {
			ids = append(ids, task.ID)
		}
		pages, totals = append(pages, ids), append(totals, resp.TotalSize)
		if resp.NextPageToken == "" {
			return pages, totals
		}
		req.PageToken = resp.NextPageToken
	}
	t.Fatal("ListTasks: more than 100 pages")
	return nil, nil
}

// TestOldestTasksForgotten: an agent keeping at most bound tasks, after
// bound+extra replies, answers TaskNotFoundError for the first extra tasks,
// as for a task that never existed, and keeps the last bound: GetTask
// finds them and ListTasks lists them, newest first, on pages of any size.
func TestOldestTasksForgotten(t *testing.T) {
	const bound, extra = 3, 2
	client := boundedAgentClient(t, bound)
	var ids []a2a.TaskID
	for i := range bound + extra {
		msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(fmt.Sprintf("message %d", i)))
		res, err := client.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: msg})
		if err != nil {
			t.Fatalf("SendMessage %d: %v", i, err)
		}
		task, ok := res.(*a2a.Task)
		if !ok {
			t.Fatalf("SendMessage %d answered %T, want a Task", i, res)
		}
		ids = append(ids, task.ID)
	}
	found := map[a2a.TaskID]string{}
	for _, id := range append(ids, "never-existed") {
		_, err := client.GetTask(t.Context(), &a2a.GetTaskRequest{ID: id})
		found[id] = errKind(err)
	}
	wantFound := map[a2a.TaskID]string{"never-existed": "task not found"}
	for i, id := range ids {
		wantFound[id] = "ok"
		if i < extra {
			wantFound[id] = "task not found"
		}
	}
	if diff := cmp.Diff(wantFound, found); diff != "" {
		t.Errorf("GetTask (-want +got):\n%s", diff)
	}
	kept := slices.Clone(ids[extra:])
	slices.Reverse(kept)
	for _, tc := range []struct {
		pageSize int
		want     [][]a2a.TaskID
	}{
		{0, [][]a2a.TaskID{kept}},
		{1, [][]a2a.TaskID{kept[:1], kept[1:2], kept[2:]}},
		{2, [][]a2a.TaskID{kept[:2], kept[2:]}},
		{bound, [][]a2a.TaskID{kept}},
	} {
		t.Run(fmt.Sprintf("pages of %d", tc.pageSize), func(t *testing.T) {
			pages, totals := listPages(t, client, tc.pageSize)
			if diff := cmp.Diff(tc.want, pages); diff != "" {
				t.Errorf("ListTasks pages (-want +got):\n%s", diff)
			}
			for _, n := range totals {
				if n != bound {
					t.Errorf("ListTasks totalSize %d, want %d", n, bound)
				}
			}
		})
	}
}

// errKind names the a2a or taskstore error err is, "ok" for none.
func errKind(err error) string {
	if err == nil {
		return "ok"
	}
	for _, known := range []error{a2a.ErrTaskNotFound, taskstore.ErrTaskAlreadyExists, taskstore.ErrConcurrentModification,
		a2a.ErrUnauthenticated, a2a.ErrInvalidRequest, a2a.ErrParseError} {
		if errors.Is(err, known) {
			return known.Error()
		}
	}
	return "other: " + err.Error()
}

// userKey is the context key of the user the test stores' authenticator
// names.
type userKey struct{}

func asUser(ctx context.Context, user string) context.Context {
	return context.WithValue(ctx, userKey{}, user)
}

func userOf(ctx context.Context) (string, error) {
	user, _ := ctx.Value(userKey{}).(string)
	return user, nil
}

// storeStep is one write to a task store, as user: a Create, or an Update
// with its PrevVersion.
type storeStep struct {
	user   string
	create *a2a.Task
	update *a2a.Task
	prev   taskstore.TaskVersion
}

// storeOutcome is what a store answered a sequence of writes, Gets and
// Lists, page tokens aside (each store has its own).
type storeOutcome struct {
	Writes []string
	Gets   map[string]string
	Got    map[string]*taskstore.StoredTask
	Lists  map[string][]*a2a.ListTasksResponse
}

// testTask is a task of contextID in state, its status stamped at (none
// if zero), with history messages and an artifact if artifact.
func testTask(id, contextID string, state a2a.TaskState, at time.Time, history int, artifact bool) *a2a.Task {
	t := &a2a.Task{ID: a2a.TaskID(id), ContextID: contextID, Status: a2a.TaskStatus{State: state}}
	if !at.IsZero() {
		t.Status.Timestamp = &at
	}
	for i := range history {
		m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(fmt.Sprintf("%s says %d", id, i)))
		m.ID, m.TaskID, m.ContextID = fmt.Sprintf("%s-m%d", id, i), t.ID, contextID
		t.History = append(t.History, m)
	}
	if artifact {
		t.Artifacts = []*a2a.Artifact{{ID: a2a.ArtifactID(id + "-a"), Parts: a2a.ContentParts{a2a.NewTextPart("made by " + id)}}}
	}
	return t
}

// runStore makes steps on s, then Gets every task as alice and bob and
// Lists alice's tasks for each request of lists, following page tokens.
func runStore(t *testing.T, s taskstore.Store, steps []storeStep, lists map[string]a2a.ListTasksRequest) storeOutcome {
	t.Helper()
	out := storeOutcome{Gets: map[string]string{}, Got: map[string]*taskstore.StoredTask{}, Lists: map[string][]*a2a.ListTasksResponse{}}
	for _, st := range steps {
		ctx := asUser(t.Context(), st.user)
		var v taskstore.TaskVersion
		var err error
		if st.create != nil {
			v, err = s.Create(ctx, st.create)
		} else {
			v, err = s.Update(ctx, &taskstore.UpdateRequest{Task: st.update, PrevVersion: st.prev})
		}
		out.Writes = append(out.Writes, fmt.Sprintf("v%d %s", v, errKind(err)))
	}
	for _, user := range []string{"alice", "bob"} {
		for _, id := range []a2a.TaskID{"t1", "t2", "t3", "t4", "t5", "t6", "t7", "nope"} {
			got, err := s.Get(asUser(t.Context(), user), id)
			out.Gets[user+" "+string(id)] = errKind(err)
			if err == nil {
				out.Got[user+" "+string(id)] = got
			}
		}
	}
	for name, req := range lists {
		user := "alice"
		if name == "anonymous" {
			user = ""
		}
		out.Lists[name] = listAll(t, s, asUser(t.Context(), user), req)
	}
	return out
}

// listAll follows req's pages, returning each answer with its token
// replaced by "next" (or an answer whose token is the error's kind).
func listAll(t *testing.T, s taskstore.Store, ctx context.Context, req a2a.ListTasksRequest) []*a2a.ListTasksResponse {
	t.Helper()
	var pages []*a2a.ListTasksResponse
	for range 100 {
		resp, err := s.List(ctx, &req)
		if err != nil {
			return append(pages, &a2a.ListTasksResponse{NextPageToken: errKind(err)})
		}
		pages = append(pages, resp)
		if resp.NextPageToken == "" {
			return pages
		}
		req.PageToken, resp.NextPageToken = resp.NextPageToken, "next"
	}
	t.Fatal("List: more than 100 pages")
	return nil
}

// TestTaskStoreAsInMemory: where nothing is forgotten, the store answers
// a sequence of Creates, Updates, Gets (of its own user's tasks and
// another's) and Lists (filters, page sizes, history lengths, artifacts,
// bad requests) as a2a-go's InMemory store does.
func TestTaskStoreAsInMemory(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(minutes int) time.Time { return base.Add(time.Duration(minutes) * time.Minute) }
	steps := []storeStep{
		{user: "alice", create: testTask("t1", "A", a2a.TaskStateWorking, at(1), 3, true)},
		{user: "alice", create: testTask("t2", "B", a2a.TaskStateCompleted, time.Time{}, 1, false)},
		{user: "alice", create: testTask("t3", "A", a2a.TaskStateInputRequired, at(3), 0, false)},
		{user: "bob", create: testTask("t4", "A", a2a.TaskStateCompleted, at(4), 1, false)},
		{user: "alice", create: testTask("t5", "A", a2a.TaskStateCompleted, at(5), 2, true)},
		{user: "alice", create: testTask("t6", "B", a2a.TaskStateFailed, at(6), 1, false)},
		{user: "alice", create: testTask("t1", "A", a2a.TaskStateWorking, at(1), 0, false)},
		{user: "alice", update: testTask("t1", "A", a2a.TaskStateCompleted, at(7), 4, true), prev: 1},
		{user: "alice", update: testTask("t3", "A", a2a.TaskStateWorking, at(8), 1, false), prev: 5},
		{user: "bob", update: testTask("t1", "A", a2a.TaskStateCanceled, at(8), 0, false)},
		{user: "alice", update: testTask("t3", "A", a2a.TaskStateWorking, at(8), 1, false)},
		{user: "alice", update: testTask("nope", "A", a2a.TaskStateWorking, at(8), 0, false)},
		{user: "alice", create: testTask("t7", "A", a2a.TaskStateCompleted, at(9), 120, false)},
	}
	none, one, all := 0, 1, -1
	lists := map[string]a2a.ListTasksRequest{
		"all":                  {},
		"context A":            {ContextID: "A"},
		"completed":            {Status: a2a.TaskStateCompleted},
		"updated since 5":      {StatusTimestampAfter: new(at(5))},
		"pages of 2":           {PageSize: 2},
		"A by 1, artifacts":    {ContextID: "A", PageSize: 1, IncludeArtifacts: true},
		"no history":           {HistoryLength: &none},
		"last message":         {HistoryLength: &one, IncludeArtifacts: true},
		"whole history":        {HistoryLength: &all},
		"page of 101":          {PageSize: 101},
		"negative page":        {PageSize: -1},
		"bad token":            {PageToken: "invalid-token-xyz"},
		"anonymous":            {},
		"nothing":              {ContextID: "Z"},
		"completed in B by 1":  {ContextID: "B", Status: a2a.TaskStateCompleted, PageSize: 1},
		"updated since 9 by 3": {StatusTimestampAfter: new(at(9)), PageSize: 3},
	}
	clock := base
	inMemory := taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{Authenticator: userOf,
		TimeProvider: func() time.Time { clock = clock.Add(time.Second); return clock }})
	want := runStore(t, inMemory, steps, lists)
	got := runStore(t, newTaskStore(100, userOf), steps, lists)
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("InMemory (-) and ours (+) differ:\n%s", diff)
	}
}

// heapAfterGC is the live heap, in bytes, once the garbage is collected.
func heapAfterGC() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestTaskStoreMemoryBounded: the heap a store of bound tasks holds after
// 3*bound tasks of about 2.5 KB (a conversation's first message) is about
// what it held after bound: it grows by less than half what the first
// bound took, where a store that forgets nothing would take twice that.
func TestTaskStoreMemoryBounded(t *testing.T) {
	const bound = 2000
	s := newTaskStore(bound, func(context.Context) (string, error) { return anonymousUser, nil })
	text := strings.Repeat("policy and tools of the first message. ", 64) // 2.5 KB
	add := func(from, n int) {
		for i := from; i < from+n; i++ {
			msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(fmt.Sprintf("%d %s", i, text)))
			task := testTask(fmt.Sprintf("task-%d", i), fmt.Sprintf("context-%d", i), a2a.TaskStateCompleted, time.Now(), 0, false)
			task.History = []*a2a.Message{msg}
			if _, err := s.Create(t.Context(), task); err != nil {
				t.Fatalf("Create %d: %v", i, err)
			}
		}
	}
	before := heapAfterGC()
	add(0, bound)
	atBound := heapAfterGC()
	add(bound, 2*bound)
	after := heapAfterGC()
	runtime.KeepAlive(s)
	firstBound := int64(atBound) - int64(before)
	if grown := int64(after) - int64(atBound); firstBound <= 0 || grown > firstBound/2 {
		t.Errorf("heap %d bytes before, %d after %d tasks, %d after %d: grew %d past the bound, want under %d",
			before, atBound, bound, after, 3*bound, grown, firstBound/2)
	}
}
