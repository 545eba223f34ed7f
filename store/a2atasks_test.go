package store

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"iter"
	"math"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"github.com/google/go-cmp/cmp"
	"go.etcd.io/bbolt"
)

// Many of these tests are ports of a2a-go's a2asrv/taskstore/store_test.go
// (v2.4.0), which defines the behaviour of its reference InMemory store.

func newTaskStore(t testing.TB, opts ...TaskStoreOption) (*DB, *TaskStore) {
	t.Helper()
	db := openTemp(t)
	return db, db.TaskStore(opts...)
}

func mustCreateTask(t testing.TB, s *TaskStore, tasks ...*a2a.Task) {
	t.Helper()
	for _, task := range tasks {
		if v, err := s.Create(context.Background(), task); err != nil || v != 1 {
			t.Fatalf("Create(%q) = %d, %v; want 1, nil", task.ID, v, err)
		}
	}
}

func mustUpdateTask(t testing.TB, s *TaskStore, task *a2a.Task, prev taskstore.TaskVersion) taskstore.TaskVersion {
	t.Helper()
	v, err := s.Update(context.Background(), &taskstore.UpdateRequest{Task: task, Event: task, PrevVersion: prev})
	if err != nil {
		t.Fatalf("Update(%q, prev %d): %v", task.ID, prev, err)
	}
	return v
}

func mustGetTask(t testing.TB, s *TaskStore, id a2a.TaskID) *taskstore.StoredTask {
	t.Helper()
	got, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%q): %v", id, err)
	}
	return got
}

func taskIDs(tasks []*a2a.Task) []a2a.TaskID {
	out := make([]a2a.TaskID, len(tasks))
	for i, t := range tasks {
		out[i] = t.ID
	}
	return out
}

func namedUser(name string) taskstore.Authenticator {
	return func(context.Context) (string, error) { return name, nil }
}

var taskStartTime = time.Date(2025, 12, 4, 15, 50, 0, 0, time.UTC)

// increasingClock returns start+1s, start+2s, ... on successive calls.
func increasingClock(start time.Time) func() time.Time {
	var mu sync.Mutex
	n := 0
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		n++
		return start.Add(time.Duration(n) * time.Second)
	}
}

// offsetClock returns start+offsets[i] seconds on the i-th call.
func offsetClock(start time.Time, offsets ...int64) func() time.Time {
	return func() time.Time {
		cur := offsets[0]
		offsets = offsets[1:]
		return start.Add(time.Duration(cur) * time.Second)
	}
}

func pageToken(updated time.Time, id a2a.TaskID) string {
	return base64.URLEncoding.EncodeToString([]byte(updated.Format(time.RFC3339Nano) + "_" + string(id)))
}

func TestTaskStoreRoundTrip(t *testing.T) {
	ts := time.Date(2026, 3, 4, 5, 6, 7, 891011121, time.FixedZone("x", 3600))
	full := &a2a.Task{
		ID:        "full",
		ContextID: "ctx",
		Status: a2a.TaskStatus{
			State:     a2a.TaskStateInputRequired,
			Message:   &a2a.Message{ID: "m-status", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.NewTextPart("more?")}},
			Timestamp: &ts,
		},
		History: []*a2a.Message{
			{ID: "m1", Role: a2a.MessageRoleUser, TaskID: "full", ContextID: "ctx", Parts: a2a.ContentParts{
				a2a.NewTextPart("<b>&</b>"), a2a.NewRawPart([]byte{0, 1, 2}), a2a.NewFileURLPart("https://x/y", "image/png"),
			}},
		},
		Artifacts: []*a2a.Artifact{{ID: "a1", Name: "out", Description: "d", Parts: a2a.ContentParts{
			a2a.NewDataPart(map[string]any{"k": "v", "list": []any{"a", true, nil}}),
		}}},
		Metadata: map[string]any{"k1": 42, "k2": []any{1, 2, 3}, "s": "x"},
	}
	// What comes back: JSON has no ints, so numbers read back as float64
	// (InMemory, which copies with gob, keeps ints).
	wantMeta := map[string]any{"k1": 42.0, "k2": []any{1.0, 2.0, 3.0}, "s": "x"}

	tests := []struct {
		name string
		task *a2a.Task
	}{
		{"minimal", &a2a.Task{ID: a2a.NewTaskID(), ContextID: "id"}},
		{"full", full},
		{"odd id", &a2a.Task{ID: "my task/é_with_underscores", ContextID: "c"}},
	}
	_, s := newTaskStore(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustCreateTask(t, s, tt.task)
			got := mustGetTask(t, s, tt.task.ID)
			if got.Version != 1 || got.User != "" {
				t.Errorf("Version, User = %d, %q; want 1, \"\"", got.Version, got.User)
			}
			want := *tt.task
			if tt.task.Metadata != nil {
				want.Metadata = wantMeta
			}
			if want.Status.Timestamp != nil {
				if !got.Task.Status.Timestamp.Equal(*want.Status.Timestamp) {
					t.Errorf("Timestamp = %v, want %v", got.Task.Status.Timestamp, want.Status.Timestamp)
				}
				want.Status.Timestamp = got.Task.Status.Timestamp
			}
			if diff := cmp.Diff(&want, got.Task); diff != "" {
				t.Errorf("round trip mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTaskStoreGetUpdated(t *testing.T) {
	_, s := newTaskStore(t)
	task := &a2a.Task{ID: a2a.NewTaskID(), ContextID: "id"}
	mustCreateTask(t, s, task)
	task.ContextID = "id2"
	if v := mustUpdateTask(t, s, task, taskstore.TaskVersionMissing); v != 2 {
		t.Errorf("Update = version %d, want 2", v)
	}
	if got := mustGetTask(t, s, task.ID); got.Task.ContextID != "id2" || got.Version != 2 {
		t.Fatalf("Get = %+v (version %d), want context id2, version 2", got.Task, got.Version)
	}
}

func TestTaskStoreStoredImmutability(t *testing.T) {
	_, s := newTaskStore(t, WithAnonymousTaskList())
	task := &a2a.Task{
		ID:        a2a.NewTaskID(),
		Status:    a2a.TaskStatus{State: a2a.TaskStateWorking},
		Artifacts: []*a2a.Artifact{{Name: "foo", Parts: a2a.ContentParts{a2a.NewTextPart("x")}}},
		Metadata:  map[string]any{},
	}
	mustCreateTask(t, s, task)
	// The caller's task is not aliased by the store...
	task.Status = a2a.TaskStatus{State: a2a.TaskStateCompleted}
	task.Artifacts[0] = &a2a.Artifact{Name: "bar"}
	task.Metadata["key"] = "modified"
	got := mustGetTask(t, s, task.ID)
	if got.Task.Status.State != a2a.TaskStateWorking || got.Task.Artifacts[0].Name != "foo" || got.Task.Metadata["key"] != nil {
		t.Fatalf("stored task changed with the caller's: %+v", got.Task)
	}
	// ...nor are the tasks Get and List return.
	got.Task.Status.State = a2a.TaskStateFailed
	got.Task.Artifacts[0].Name = "baz"
	list, err := s.List(context.Background(), &a2a.ListTasksRequest{IncludeArtifacts: true})
	if err != nil {
		t.Fatal(err)
	}
	list.Tasks[0].ContextID = "modified"
	again := mustGetTask(t, s, task.ID)
	if again.Task.Status.State != a2a.TaskStateWorking || again.Task.Artifacts[0].Name != "foo" || again.Task.ContextID != "" {
		t.Fatalf("stored task changed with a returned one: %+v", again.Task)
	}
}

func TestTaskStoreNotFound(t *testing.T) {
	ctx := context.Background()
	_, s := newTaskStore(t)
	mustCreateTask(t, s, &a2a.Task{ID: "exists"})
	tests := []struct {
		name string
		call func() error
	}{
		{"Get missing", func() error { _, err := s.Get(ctx, "invalid"); return err }},
		{"Get empty id", func() error { _, err := s.Get(ctx, ""); return err }},
		{"Get over-long id", func() error { _, err := s.Get(ctx, a2a.TaskID(strings.Repeat("x", maxIDLen+1))); return err }},
		{"Get prefix", func() error { _, err := s.Get(ctx, "exist"); return err }},
		{"Update missing", func() error {
			_, err := s.Update(ctx, &taskstore.UpdateRequest{Task: &a2a.Task{ID: "invalid"}})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Fatalf("err = %v, want ErrTaskNotFound", err)
			}
			// a2a-go's handler wraps it again; errors.Is must still see it.
			if wrapped := fmt.Errorf("failed to get task: %w", err); !errors.Is(wrapped, a2a.ErrTaskNotFound) {
				t.Fatal("lost through wrapping")
			}
		})
	}
	if _, err := s.Get(ctx, "invalid"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("a failed Update created the task: %v", err)
	}
}

func TestTaskStoreInvalidWrites(t *testing.T) {
	ctx := context.Background()
	_, s := newTaskStore(t)
	mustCreateTask(t, s, &a2a.Task{ID: "t1"})
	tests := []struct {
		name    string
		call    func() error
		wantErr error  // checked with errors.Is when set
		wantSub string // else the error must contain this
	}{
		{"Create duplicate", func() error { _, err := s.Create(ctx, &a2a.Task{ID: "t1"}); return err }, taskstore.ErrTaskAlreadyExists, ""},
		{"Create nil", func() error { _, err := s.Create(ctx, nil); return err }, nil, "nil task"},
		{"Create empty id", func() error { _, err := s.Create(ctx, &a2a.Task{}); return err }, nil, "empty a2a task id"},
		{"Create over-long id", func() error {
			_, err := s.Create(ctx, &a2a.Task{ID: a2a.TaskID(strings.Repeat("x", maxIDLen+1))})
			return err
		}, nil, "longer than"},
		{"Update nil request", func() error { _, err := s.Update(ctx, nil); return err }, nil, "nil task"},
		{"Update nil task", func() error { _, err := s.Update(ctx, &taskstore.UpdateRequest{}); return err }, nil, "nil task"},
		{"Create part without content", func() error {
			_, err := s.Create(ctx, &a2a.Task{ID: "t2", History: []*a2a.Message{{ID: "m", Parts: a2a.ContentParts{{}}}}})
			return err
		}, nil, "does not survive a JSON round trip"},
		{"Update part without content", func() error {
			_, err := s.Update(ctx, &taskstore.UpdateRequest{Task: &a2a.Task{ID: "t1", Artifacts: []*a2a.Artifact{{Parts: a2a.ContentParts{{}}}}}})
			return err
		}, nil, "does not survive a JSON round trip"},
		{"Create NaN metadata", func() error {
			_, err := s.Create(ctx, &a2a.Task{ID: "t3", Metadata: map[string]any{"x": math.NaN()}})
			return err
		}, nil, "encode a2a task"},
		{"Create cyclic metadata", func() error {
			m := map[string]any{}
			m["self"] = m
			_, err := s.Create(ctx, &a2a.Task{ID: "t4", Metadata: m})
			return err
		}, nil, "encode a2a task"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			switch {
			case err == nil:
				t.Fatal("succeeded")
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			case tt.wantErr == nil && !strings.Contains(err.Error(), tt.wantSub):
				t.Fatalf("err = %v, want containing %q", err, tt.wantSub)
			}
		})
	}
	for _, id := range []a2a.TaskID{"t2", "t3", "t4"} {
		if _, err := s.Get(ctx, id); !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Errorf("failed Create stored %q: %v", id, err)
		}
	}
	if got := mustGetTask(t, s, "t1"); got.Version != 1 || len(got.Task.Artifacts) != 0 {
		t.Errorf("failed Update changed t1: version %d, %+v", got.Version, got.Task)
	}
}

func TestTaskStoreVersions(t *testing.T) {
	ctx := context.Background()
	_, s := newTaskStore(t)
	task := &a2a.Task{ID: a2a.NewTaskID(), ContextID: "id"}
	mustCreateTask(t, s, task)
	steps := []struct {
		name        string
		prev        taskstore.TaskVersion
		contextID   string
		wantVersion taskstore.TaskVersion // 0: want ErrConcurrentModification
	}{
		{"matching version", 1, "a", 2},
		{"version check skipped", taskstore.TaskVersionMissing, "b", 3},
		{"stale version", 2, "stale", 0},
		{"first version", 1, "stale", 0},
		{"future version", 99, "stale", 0},
		{"negative version", -1, "stale", 0},
		{"current version again", 3, "c", 4},
	}
	wantContext, wantVersion := "id", taskstore.TaskVersion(1)
	for _, st := range steps {
		task.ContextID = st.contextID
		v, err := s.Update(ctx, &taskstore.UpdateRequest{Task: task, PrevVersion: st.prev})
		if st.wantVersion == 0 {
			if !errors.Is(err, taskstore.ErrConcurrentModification) || v != taskstore.TaskVersionMissing {
				t.Fatalf("%s: Update = %d, %v; want ErrConcurrentModification", st.name, v, err)
			}
		} else {
			if err != nil || v != st.wantVersion {
				t.Fatalf("%s: Update = %d, %v; want %d", st.name, v, err, st.wantVersion)
			}
			if !v.After(wantVersion) {
				t.Fatalf("%s: version %d is not after %d", st.name, v, wantVersion)
			}
			wantContext, wantVersion = st.contextID, v
		}
		got := mustGetTask(t, s, task.ID)
		if got.Version != wantVersion || got.Task.ContextID != wantContext {
			t.Fatalf("%s: Get = version %d, context %q; want %d, %q", st.name, got.Version, got.Task.ContextID, wantVersion, wantContext)
		}
	}
}

// Port of TestInMemoryTaskStore_ConcurrentVersionIncrements: unchecked
// updates all succeed, each with its own version.
func TestTaskStoreConcurrentVersionIncrements(t *testing.T) {
	_, s := newTaskStore(t)
	task := &a2a.Task{ID: a2a.NewTaskID(), ContextID: "id"}
	mustCreateTask(t, s, task)
	const n = 100
	versions := make(chan taskstore.TaskVersion, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			v, err := s.Update(context.Background(), &taskstore.UpdateRequest{
				Task: &a2a.Task{ID: task.ID, ContextID: fmt.Sprint(i)}, PrevVersion: taskstore.TaskVersionMissing,
			})
			if err != nil {
				t.Error(err)
			}
			versions <- v
		})
	}
	wg.Wait()
	close(versions)
	var got []taskstore.TaskVersion
	for v := range versions {
		got = append(got, v)
	}
	slices.Sort(got)
	for i, v := range got {
		if v != taskstore.TaskVersion(i+2) {
			t.Fatalf("versions = %v, want 2..%d each once", got, n+1)
		}
	}
	if v := mustGetTask(t, s, task.ID).Version; v != n+1 {
		t.Errorf("final version %d, want %d", v, n+1)
	}
}

// Many goroutines update the same task from the same version: exactly one
// wins each round, the others get ErrConcurrentModification.
func TestTaskStoreConcurrentSameVersion(t *testing.T) {
	ctx := context.Background()
	_, s := newTaskStore(t)
	task := &a2a.Task{ID: a2a.NewTaskID()}
	mustCreateTask(t, s, task)
	const rounds, n = 5, 40
	for round := range rounds {
		prev := mustGetTask(t, s, task.ID).Version
		var (
			wg        sync.WaitGroup
			mu        sync.Mutex
			winners   []string
			conflicts int
		)
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				ctxID := fmt.Sprintf("r%d-g%d", round, i)
				v, err := s.Update(ctx, &taskstore.UpdateRequest{Task: &a2a.Task{ID: task.ID, ContextID: ctxID}, PrevVersion: prev})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil && v == prev+1:
					winners = append(winners, ctxID)
				case errors.Is(err, taskstore.ErrConcurrentModification):
					conflicts++
				default:
					t.Errorf("Update = %d, %v", v, err)
				}
			})
		}
		close(start)
		wg.Wait()
		if len(winners) != 1 || conflicts != n-1 {
			t.Fatalf("round %d: %d winners, %d conflicts; want 1 and %d", round, len(winners), conflicts, n-1)
		}
		got := mustGetTask(t, s, task.ID)
		if got.Version != prev+1 || got.Task.ContextID != winners[0] {
			t.Fatalf("round %d: stored version %d, context %q; want %d, %q", round, got.Version, got.Task.ContextID, prev+1, winners[0])
		}
	}
}

// Read-modify-write with retries on conflict loses no update: every
// goroutine's message ends up in the history exactly once.
func TestTaskStoreConcurrentRetries(t *testing.T) {
	ctx := context.Background()
	_, s := newTaskStore(t)
	id := a2a.NewTaskID()
	mustCreateTask(t, s, &a2a.Task{ID: id})
	const n = 30
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			for attempt := 0; ; attempt++ {
				st, err := s.Get(ctx, id)
				if err != nil {
					t.Error(err)
					return
				}
				st.Task.History = append(st.Task.History, &a2a.Message{ID: fmt.Sprint(i), Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewTextPart("x")}})
				_, err = s.Update(ctx, &taskstore.UpdateRequest{Task: st.Task, PrevVersion: st.Version})
				if err == nil {
					return
				}
				if !errors.Is(err, taskstore.ErrConcurrentModification) || attempt > 10*n {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	got := mustGetTask(t, s, id)
	if got.Version != n+1 || len(got.Task.History) != n {
		t.Fatalf("version %d, %d messages; want %d, %d", got.Version, len(got.Task.History), n+1, n)
	}
	seen := map[string]bool{}
	for _, m := range got.Task.History {
		if seen[m.ID] {
			t.Fatalf("message %s twice", m.ID)
		}
		seen[m.ID] = true
	}
}

type ctxUserKey struct{}

func TestTaskStoreCrossTenantIsolation(t *testing.T) {
	ctx := context.Background()
	_, s := newTaskStore(t, WithTaskAuthenticator(func(ctx context.Context) (string, error) {
		u, _ := ctx.Value(ctxUserKey{}).(string)
		return u, nil
	}))
	alice := context.WithValue(ctx, ctxUserKey{}, "alice")
	bob := context.WithValue(ctx, ctxUserKey{}, "bob")

	aliceTask := &a2a.Task{ID: a2a.NewTaskID(), Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}
	if _, err := s.Create(alice, aliceTask); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(bob, aliceTask.ID); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("bob Get: %v, want ErrTaskNotFound", err)
	}
	if _, err := s.Update(bob, &taskstore.UpdateRequest{Task: aliceTask}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("bob Update: %v, want ErrTaskNotFound", err)
	}
	if _, err := s.Create(bob, aliceTask); !errors.Is(err, taskstore.ErrTaskAlreadyExists) {
		t.Fatalf("bob Create of alice's id: %v, want ErrTaskAlreadyExists", err)
	}
	bobTask := &a2a.Task{ID: a2a.NewTaskID(), Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}
	if _, err := s.Create(bob, bobTask); err != nil {
		t.Fatal(err)
	}
	for user, want := range map[context.Context][]a2a.TaskID{alice: {aliceTask.ID}, bob: {bobTask.ID}} {
		resp, err := s.List(user, &a2a.ListTasksRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if got := taskIDs(resp.Tasks); !slices.Equal(got, want) || resp.TotalSize != 1 {
			t.Errorf("List = %v (total %d), want %v", got, resp.TotalSize, want)
		}
	}
	st, err := s.Get(alice, aliceTask.ID)
	if err != nil || st.User != "alice" {
		t.Fatalf("alice Get = %+v, %v", st, err)
	}
	// An update keeps the owner.
	if _, err := s.Update(alice, &taskstore.UpdateRequest{Task: aliceTask, PrevVersion: st.Version}); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Get(alice, aliceTask.ID); err != nil || st.User != "alice" || st.Version != 2 {
		t.Fatalf("alice Get after update = %+v, %v", st, err)
	}
}

func TestTaskStoreAuthenticatorErrors(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	mustCreateTask(t, db.TaskStore(), &a2a.Task{ID: "t"})
	authErr := errors.New("no token")
	s := db.TaskStore(WithTaskAuthenticator(func(context.Context) (string, error) { return "", authErr }))
	calls := map[string]func() error{
		"Create": func() error { _, err := s.Create(ctx, &a2a.Task{ID: "u"}); return err },
		"Update": func() error { _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: &a2a.Task{ID: "t"}}); return err },
		"Get":    func() error { _, err := s.Get(ctx, "t"); return err },
		"List":   func() error { _, err := s.List(ctx, &a2a.ListTasksRequest{}); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, authErr) {
			t.Errorf("%s: %v, want wrapping the authenticator's error", name, err)
		}
	}
	if _, err := s.List(ctx, &a2a.ListTasksRequest{}); !errors.Is(err, a2a.ErrUnauthenticated) {
		t.Errorf("List: %v, want ErrUnauthenticated", err)
	}
	// Get of a missing task says not found before asking who the caller is,
	// like InMemory.
	if _, err := s.Get(ctx, "missing"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("Get missing: %v", err)
	}
}

func TestTaskStoreListAnonymous(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	mustCreateTask(t, db.TaskStore(), &a2a.Task{ID: "anon"})
	mustCreateTask(t, db.TaskStore(WithTaskAuthenticator(namedUser("carol"))), &a2a.Task{ID: "carol's"})

	// Like InMemory: no user name, no listing.
	for _, s := range []*TaskStore{db.TaskStore(), db.TaskStore(WithTaskAuthenticator(namedUser("")))} {
		if _, err := s.List(ctx, &a2a.ListTasksRequest{}); !errors.Is(err, a2a.ErrUnauthenticated) {
			t.Errorf("List without a user: %v, want ErrUnauthenticated", err)
		}
	}
	resp, err := db.TaskStore(WithAnonymousTaskList()).List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := taskIDs(resp.Tasks); !slices.Equal(got, []a2a.TaskID{"anon"}) {
		t.Errorf("anonymous List = %v, want only the anonymous task", got)
	}
}

// Port of TestInMemoryTaskStore_List_Basic and _List_StoredImmutability.
// It runs in a synctest bubble, so the store's default clock (time.Now)
// orders the tasks: each Sleep advances the bubble's fake clock at once.
func TestTaskStoreListBasic(t *testing.T) { synctest.Test(t, testTaskStoreListBasic) }

func testTaskStoreListBasic(t *testing.T) {
	ctx := context.Background()
	_, s := newTaskStore(t, WithTaskAuthenticator(namedUser("testName")))
	empty, err := s.List(ctx, &a2a.ListTasksRequest{})
	if err != nil || empty.Tasks == nil || len(empty.Tasks) != 0 || empty.TotalSize != 0 || empty.NextPageToken != "" || empty.PageSize != 50 {
		t.Fatalf("List of nothing = %+v, %v", empty, err)
	}
	tasks := []*a2a.Task{
		{ID: a2a.NewTaskID(), ContextID: "id1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}, Artifacts: []*a2a.Artifact{{Name: "foo", Parts: a2a.ContentParts{a2a.NewTextPart("1")}}}},
		{ID: a2a.NewTaskID(), ContextID: "id2", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}, Artifacts: []*a2a.Artifact{{Name: "bar", Parts: a2a.ContentParts{a2a.NewTextPart("2")}}}},
		{ID: a2a.NewTaskID(), ContextID: "id3", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}, Artifacts: []*a2a.Artifact{{Name: "baz", Parts: a2a.ContentParts{a2a.NewTextPart("3")}}}},
	}
	for _, task := range tasks {
		mustCreateTask(t, s, task)
		time.Sleep(time.Millisecond) // the default clock orders them
	}
	resp, err := s.List(ctx, &a2a.ListTasksRequest{IncludeArtifacts: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []a2a.TaskID{tasks[2].ID, tasks[1].ID, tasks[0].ID}
	if got := taskIDs(resp.Tasks); !slices.Equal(got, want) {
		t.Fatalf("List = %v, want newest first %v", got, want)
	}
	resp.Tasks[0].ContextID = "modified"
	resp.Tasks[1].Status.State = a2a.TaskStateCompleted
	resp.Tasks[2].Artifacts[0].Name = "modified"
	again, err := s.List(ctx, &a2a.ListTasksRequest{IncludeArtifacts: true})
	if err != nil {
		t.Fatal(err)
	}
	if again.Tasks[0].ContextID != "id3" || again.Tasks[1].Status.State != a2a.TaskStateWorking || again.Tasks[2].Artifacts[0].Name != "foo" {
		t.Fatalf("stored tasks changed with listed ones: %+v", again.Tasks)
	}
}

// Port of TestInMemoryTaskStore_List_WithFilters, plus cases.
func TestTaskStoreListFilters(t *testing.T) {
	id1, id2, id3 := a2a.NewTaskID(), a2a.NewTaskID(), a2a.NewTaskID()
	cutoff := taskStartTime.Add(2 * time.Second)
	ptr := func(n int) *int { return &n }
	tests := []struct {
		name      string
		request   *a2a.ListTasksRequest
		given     []*a2a.Task
		want      []*a2a.Task
		wantTotal int
		wantErr   error
	}{
		{
			name:      "empty request",
			request:   &a2a.ListTasksRequest{},
			given:     []*a2a.Task{{ID: id1}, {ID: id2}, {ID: id3}},
			want:      []*a2a.Task{{ID: id3}, {ID: id2}, {ID: id1}},
			wantTotal: 3,
		},
		{
			name:      "nil request",
			given:     []*a2a.Task{{ID: id1}, {ID: id2}},
			want:      []*a2a.Task{{ID: id2}, {ID: id1}},
			wantTotal: 2,
		},
		{
			name:      "ContextID filter",
			request:   &a2a.ListTasksRequest{ContextID: "id1"},
			given:     []*a2a.Task{{ID: id1, ContextID: "id1"}, {ID: id2, ContextID: "id2"}},
			want:      []*a2a.Task{{ID: id1, ContextID: "id1"}},
			wantTotal: 1,
		},
		{
			name:      "Status filter",
			request:   &a2a.ListTasksRequest{Status: a2a.TaskStateCanceled},
			given:     []*a2a.Task{{ID: id1, Status: a2a.TaskStatus{State: a2a.TaskStateCanceled}}, {ID: id2, Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}},
			want:      []*a2a.Task{{ID: id1, Status: a2a.TaskStatus{State: a2a.TaskStateCanceled}}},
			wantTotal: 1,
		},
		{
			name:    "StatusTimestampAfter filter",
			request: &a2a.ListTasksRequest{StatusTimestampAfter: &cutoff},
			given: []*a2a.Task{
				{ID: id1, Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &taskStartTime}},
				{ID: id2}, // no timestamp: not shown to be after, left out
				{ID: id3, Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &cutoff}}, // not before: kept
			},
			want:      []*a2a.Task{{ID: id3, Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &cutoff}}},
			wantTotal: 1,
		},
		{
			name:      "HistoryLength",
			request:   &a2a.ListTasksRequest{HistoryLength: ptr(2)},
			given:     []*a2a.Task{{ID: id1, History: []*a2a.Message{{ID: "m1"}, {ID: "m2"}, {ID: "m3"}}}, {ID: id2, History: []*a2a.Message{{ID: "m4"}, {ID: "m5"}}}},
			want:      []*a2a.Task{{ID: id2, History: []*a2a.Message{{ID: "m4"}, {ID: "m5"}}}, {ID: id1, History: []*a2a.Message{{ID: "m2"}, {ID: "m3"}}}},
			wantTotal: 2,
		},
		{
			name:      "HistoryLength 0",
			request:   &a2a.ListTasksRequest{HistoryLength: ptr(0)},
			given:     []*a2a.Task{{ID: id1, History: []*a2a.Message{{ID: "m1"}, {ID: "m2"}, {ID: "m3"}}}, {ID: id2, History: []*a2a.Message{{ID: "m4"}, {ID: "m5"}}}},
			want:      []*a2a.Task{{ID: id2, History: []*a2a.Message{}}, {ID: id1, History: []*a2a.Message{}}},
			wantTotal: 2,
		},
		{
			name:      "negative HistoryLength",
			request:   &a2a.ListTasksRequest{HistoryLength: ptr(-1)},
			given:     []*a2a.Task{{ID: id1, History: []*a2a.Message{{ID: "m1"}, {ID: "m2"}, {ID: "m3"}}}, {ID: id2, History: []*a2a.Message{{ID: "m4"}, {ID: "m5"}}}},
			want:      []*a2a.Task{{ID: id2, History: []*a2a.Message{{ID: "m4"}, {ID: "m5"}}}, {ID: id1, History: []*a2a.Message{{ID: "m1"}, {ID: "m2"}, {ID: "m3"}}}},
			wantTotal: 2,
		},
		{
			name:      "PageSize",
			request:   &a2a.ListTasksRequest{PageSize: 2},
			given:     []*a2a.Task{{ID: id1}, {ID: id2}, {ID: id3}},
			want:      []*a2a.Task{{ID: id3}, {ID: id2}},
			wantTotal: 3,
		},
		{
			name:    "PageSize too large",
			request: &a2a.ListTasksRequest{PageSize: 212},
			given:   []*a2a.Task{{ID: id1}},
			wantErr: a2a.ErrInvalidParams,
		},
		{
			name:    "negative PageSize",
			request: &a2a.ListTasksRequest{PageSize: -1},
			given:   []*a2a.Task{{ID: id1}},
			wantErr: a2a.ErrInvalidParams,
		},
		{
			// A token in InMemory's format (taken at id3, updated at
			// start+3s) resumes after it.
			name:      "PageToken",
			request:   &a2a.ListTasksRequest{PageSize: 1, PageToken: pageToken(taskStartTime.Add(3*time.Second), id3)},
			given:     []*a2a.Task{{ID: id1}, {ID: id2}, {ID: id3}},
			want:      []*a2a.Task{{ID: id2}},
			wantTotal: 3,
		},
		{
			name:      "PageToken in another time zone",
			request:   &a2a.ListTasksRequest{PageSize: 1, PageToken: pageToken(taskStartTime.Add(3*time.Second).In(time.FixedZone("y", -7200)), id3)},
			given:     []*a2a.Task{{ID: id1}, {ID: id2}, {ID: id3}},
			want:      []*a2a.Task{{ID: id2}},
			wantTotal: 3,
		},
		{
			name:    "invalid PageToken",
			request: &a2a.ListTasksRequest{PageSize: 1, PageToken: "invalidPageToken"},
			given:   []*a2a.Task{{ID: id1}},
			wantErr: a2a.ErrInvalidParams,
		},
		{
			name:    "PageToken without separator",
			request: &a2a.ListTasksRequest{PageToken: base64.URLEncoding.EncodeToString([]byte("2025-12-04T15:50:00Z"))},
			given:   []*a2a.Task{{ID: id1}},
			wantErr: a2a.ErrInvalidParams,
		},
		{
			name:    "PageToken with a bad time",
			request: &a2a.ListTasksRequest{PageToken: base64.URLEncoding.EncodeToString([]byte("yesterday_" + string(id1)))},
			given:   []*a2a.Task{{ID: id1}},
			wantErr: a2a.ErrInvalidParams,
		},
		{
			name:      "IncludeArtifacts true",
			request:   &a2a.ListTasksRequest{IncludeArtifacts: true},
			given:     []*a2a.Task{{ID: id1, Artifacts: []*a2a.Artifact{{Name: "foo"}}}, {ID: id2, Artifacts: []*a2a.Artifact{{Name: "bar"}}}},
			want:      []*a2a.Task{{ID: id2, Artifacts: []*a2a.Artifact{{Name: "bar"}}}, {ID: id1, Artifacts: []*a2a.Artifact{{Name: "foo"}}}},
			wantTotal: 2,
		},
		{
			name:      "IncludeArtifacts false",
			request:   &a2a.ListTasksRequest{},
			given:     []*a2a.Task{{ID: id1, Artifacts: []*a2a.Artifact{{Name: "foo"}}}, {ID: id2, Artifacts: []*a2a.Artifact{{Name: "bar"}}}},
			want:      []*a2a.Task{{ID: id2}, {ID: id1}},
			wantTotal: 2,
		},
		{
			name: "all filters",
			request: &a2a.ListTasksRequest{
				ContextID: "c", Status: a2a.TaskStateCompleted, StatusTimestampAfter: &cutoff,
				PageSize: 1, HistoryLength: ptr(1), IncludeArtifacts: true, Tenant: "ignored",
			},
			given: []*a2a.Task{
				{ID: id1, ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &cutoff}, History: []*a2a.Message{{ID: "m1"}, {ID: "m2"}}},
				{ID: id2, ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &taskStartTime}},
				{ID: id3, ContextID: "d", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &cutoff}},
			},
			want:      []*a2a.Task{{ID: id1, ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &cutoff}, History: []*a2a.Message{{ID: "m2"}}}},
			wantTotal: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, s := newTaskStore(t, WithTaskAuthenticator(namedUser("testName")), withTaskClock(increasingClock(taskStartTime)))
			mustCreateTask(t, s, tt.given...)
			resp, err := s.List(context.Background(), tt.request)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, resp.Tasks); diff != "" {
				t.Errorf("Tasks mismatch (-want +got):\n%s", diff)
			}
			if resp.TotalSize != tt.wantTotal {
				t.Errorf("TotalSize = %d, want %d", resp.TotalSize, tt.wantTotal)
			}
		})
	}
}

// Port of TestInMemoryTaskStore_List_Pagination.
func TestTaskStoreListPagination(t *testing.T) {
	id1, id2, id3, id4, id5 := a2a.NewTaskID(), a2a.NewTaskID(), a2a.NewTaskID(), a2a.NewTaskID(), a2a.NewTaskID()
	tests := []struct {
		name      string
		pageSize  int
		offsets   []int64
		given     []*a2a.Task
		want      []a2a.TaskID
		wantCalls int
	}{
		{"incomplete last page", 2, nil, []*a2a.Task{{ID: id1}, {ID: id2}, {ID: id3}, {ID: id4}, {ID: id5}}, []a2a.TaskID{id5, id4, id3, id2, id1}, 3},
		{"complete last page", 2, nil, []*a2a.Task{{ID: id1}, {ID: id2}, {ID: id3}, {ID: id4}}, []a2a.TaskID{id4, id3, id2, id1}, 2},
		{"page larger than the list", 10, nil, []*a2a.Task{{ID: id1}, {ID: id2}, {ID: id3}, {ID: id4}, {ID: id5}}, []a2a.TaskID{id5, id4, id3, id2, id1}, 1},
		{"empty list", 3, nil, nil, []a2a.TaskID{}, 1},
		{"same lastUpdated", 2, []int64{0, 0, 0}, []*a2a.Task{{ID: "b"}, {ID: "a"}, {ID: "c"}}, []a2a.TaskID{"c", "b", "a"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := increasingClock(taskStartTime)
			if tt.offsets != nil {
				clock = offsetClock(taskStartTime, tt.offsets...)
			}
			_, s := newTaskStore(t, WithTaskAuthenticator(namedUser("testName")), withTaskClock(clock))
			mustCreateTask(t, s, tt.given...)
			got := []a2a.TaskID{}
			calls := 0
			token := ""
			for {
				resp, err := s.List(context.Background(), &a2a.ListTasksRequest{PageSize: tt.pageSize, PageToken: token})
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, taskIDs(resp.Tasks)...)
				calls++
				if token = resp.NextPageToken; token == "" {
					break
				}
			}
			if !slices.Equal(got, tt.want) || calls != tt.wantCalls {
				t.Fatalf("walk = %v in %d calls, want %v in %d", got, calls, tt.want, tt.wantCalls)
			}
		})
	}
}

// Walks many tasks page by page under several filters and page sizes and
// compares with the order computed independently.
func TestTaskStoreListPagingWalk(t *testing.T) {
	ctx := context.Background()
	// A clock that often repeats itself, so ties on time are ordered by id.
	var mu sync.Mutex
	calls := 0
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		calls++
		return taskStartTime.Add(time.Duration(calls/3) * time.Millisecond)
	}
	db, s := newTaskStore(t, WithTaskAuthenticator(namedUser("u")), withTaskClock(clock))
	states := []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateCompleted, a2a.TaskStateFailed}
	type info struct {
		id      a2a.TaskID
		ctxID   string
		state   a2a.TaskState
		updated time.Time
	}
	var all []info
	const n = 237
	for i := range n {
		// Ids with "_" check that page tokens keep them whole.
		id := a2a.TaskID(fmt.Sprintf("task_%03d_%d", (i*89)%n, i%4))
		task := &a2a.Task{ID: id, ContextID: fmt.Sprintf("ctx-%d", i%5), Status: a2a.TaskStatus{State: states[i%3]}}
		mustCreateTask(t, s, task)
		all = append(all, info{id: id, ctxID: task.ContextID, state: task.Status.State})
	}
	// Update some so that update order differs from creation order.
	for i := 0; i < n; i += 7 {
		task := &a2a.Task{ID: all[i].id, ContextID: all[i].ctxID, Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}
		mustUpdateTask(t, s, task, 1)
		all[i].state = a2a.TaskStateCompleted
	}
	// Read back the stored update times rather than replaying the clock.
	err := db.sessions.bolt.View(func(tx *bbolt.Tx) error {
		for i := range all {
			h, err := decodeTaskHeader([]byte(all[i].id), tx.Bucket(bucketA2ATasks).Get([]byte(all[i].id)))
			if err != nil {
				return err
			}
			all[i].updated = h.UpdatedAt
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(all, func(a, b info) int {
		if c := b.updated.Compare(a.updated); c != 0 {
			return c
		}
		return strings.Compare(string(b.id), string(a.id))
	})

	filters := []struct {
		name  string
		req   a2a.ListTasksRequest
		match func(info) bool
	}{
		{"all", a2a.ListTasksRequest{}, func(info) bool { return true }},
		{"context", a2a.ListTasksRequest{ContextID: "ctx-2"}, func(i info) bool { return i.ctxID == "ctx-2" }},
		{"status", a2a.ListTasksRequest{Status: a2a.TaskStateCompleted}, func(i info) bool { return i.state == a2a.TaskStateCompleted }},
		{"both", a2a.ListTasksRequest{ContextID: "ctx-0", Status: a2a.TaskStateWorking}, func(i info) bool {
			return i.ctxID == "ctx-0" && i.state == a2a.TaskStateWorking
		}},
		{"none", a2a.ListTasksRequest{ContextID: "nope"}, func(info) bool { return false }},
	}
	for _, f := range filters {
		var want []a2a.TaskID
		for _, i := range all {
			if f.match(i) {
				want = append(want, i.id)
			}
		}
		for _, size := range []int{1, 7, 50, 100} {
			t.Run(fmt.Sprintf("%s/%d", f.name, size), func(t *testing.T) {
				var got []a2a.TaskID
				req := f.req
				req.PageSize = size
				for pages := 1; ; pages++ {
					resp, err := s.List(ctx, &req)
					if err != nil {
						t.Fatal(err)
					}
					if resp.TotalSize != len(want) || resp.PageSize != size || len(resp.Tasks) > size {
						t.Fatalf("page %d: total %d, page size %d, %d tasks; want %d, %d, at most %d", pages, resp.TotalSize, resp.PageSize, len(resp.Tasks), len(want), size, size)
					}
					got = append(got, taskIDs(resp.Tasks)...)
					if resp.NextPageToken == "" {
						break
					}
					if len(resp.Tasks) != size {
						t.Fatalf("page %d: short page with a next token", pages)
					}
					if pages > n {
						t.Fatal("paging does not end")
					}
					req.PageToken = resp.NextPageToken
				}
				if !slices.Equal(got, want) {
					t.Fatalf("walk:\n got %v\nwant %v", got, want)
				}
			})
		}
	}
}

// It runs in a synctest bubble, so the store's default clock (time.Now)
// orders the tasks: each Sleep advances the bubble's fake clock at once.
func TestTaskStoreReopen(t *testing.T) { synctest.Test(t, testTaskStoreReopen) }

func testTaskStoreReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "proctor.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	auth := WithTaskAuthenticator(namedUser("dana"))
	s := db.TaskStore(auth)
	ts := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	first := &a2a.Task{ID: "first", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &ts},
		History:   []*a2a.Message{{ID: "m", Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewTextPart("hi")}}},
		Artifacts: []*a2a.Artifact{{ID: "a", Parts: a2a.ContentParts{a2a.NewDataPart(map[string]any{"x": "y"})}}}}
	mustCreateTask(t, s, first)
	time.Sleep(time.Millisecond)
	mustCreateTask(t, s, &a2a.Task{ID: "second", ContextID: "c"})
	time.Sleep(time.Millisecond)
	first.Status.State = a2a.TaskStateCompleted
	if v := mustUpdateTask(t, s, first, 1); v != 2 {
		t.Fatalf("version %d", v)
	}
	before, err := s.List(ctx, &a2a.ListTasksRequest{IncludeArtifacts: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "first"); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Get on a closed database: %v", err)
	}

	for _, opts := range [][]Option{{WithReadOnly()}, nil} {
		db, err := Open(path, opts...)
		if err != nil {
			t.Fatal(err)
		}
		s := db.TaskStore(auth)
		got := mustGetTask(t, s, "first")
		if got.Version != 2 || got.User != "dana" || got.Task.Status.State != a2a.TaskStateCompleted ||
			!got.Task.Status.Timestamp.Equal(ts) || got.Task.History[0].Parts[0].Text() != "hi" ||
			!cmp.Equal(got.Task.Artifacts[0].Parts[0].Data(), map[string]any{"x": "y"}) {
			t.Errorf("after reopen: %+v", got)
		}
		after, err := s.List(ctx, &a2a.ListTasksRequest{IncludeArtifacts: true})
		if err != nil || !cmp.Equal(after, before) {
			t.Errorf("List after reopen = %+v, %v; want %+v", after, err, before)
		}
		if db.readOnly {
			if _, err := s.Create(ctx, &a2a.Task{ID: "x"}); err == nil || !strings.Contains(err.Error(), "read-only") {
				t.Errorf("Create on a read-only database: %v", err)
			}
			if _, err := db.MarkTasksInterrupted(ctx, ""); err == nil || !strings.Contains(err.Error(), "read-only") {
				t.Errorf("MarkTasksInterrupted on a read-only database: %v", err)
			}
		} else {
			// Versions continue where they were.
			if _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: got.Task, PrevVersion: 1}); !errors.Is(err, taskstore.ErrConcurrentModification) {
				t.Errorf("stale update after reopen: %v", err)
			}
			if v := mustUpdateTask(t, s, got.Task, 2); v != 3 {
				t.Errorf("update after reopen: version %d, want 3", v)
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// A database written before a2a_tasks existed: readers see no tasks, and a
// writable Open adds the bucket without changing the schema version.
func TestTaskStoreOnOlderDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "proctor.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	evalID := NewID()
	mustPutEval(t, db, Evaluation{ID: evalID, Status: "completed"})
	db.Close()
	raw, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Update(func(tx *bbolt.Tx) error { return tx.DeleteBucket(bucketA2ATasks) }); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	ro, err := Open(path, WithReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	s := ro.TaskStore(WithAnonymousTaskList())
	if _, err := s.Get(ctx, "t"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("Get: %v", err)
	}
	if resp, err := s.List(ctx, nil); err != nil || len(resp.Tasks) != 0 || resp.TotalSize != 0 {
		t.Errorf("List = %+v, %v", resp, err)
	}
	ro.Close()

	rw, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	mustCreateTask(t, rw.TaskStore(), &a2a.Task{ID: "t"})
	if _, err := rw.GetEvaluation(ctx, evalID); err != nil {
		t.Errorf("evaluation lost: %v", err)
	}
	if v := readSchemaVersionLive(t, rw); v != "1" {
		t.Errorf("schema_version = %q, want 1", v)
	}
}

func readSchemaVersionLive(t *testing.T, db *DB) string {
	t.Helper()
	var v string
	_ = db.sessions.bolt.View(func(tx *bbolt.Tx) error {
		v = string(tx.Bucket(bucketMeta).Get(keySchemaVersion))
		return nil
	})
	return v
}

func TestMarkTasksInterrupted(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	s := db.TaskStore(WithTaskAuthenticator(namedUser("erin")), withTaskClock(func() time.Time { return old }))
	prevMsg := &a2a.Message{ID: "status-msg", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.NewTextPart("thinking")}}
	tests := []struct {
		id          a2a.TaskID
		state       a2a.TaskState
		interrupted bool
	}{
		{"t-submitted", a2a.TaskStateSubmitted, true},
		{"t-working", a2a.TaskStateWorking, true},
		{"t-auth-required", a2a.TaskStateAuthRequired, true},
		{"t-unspecified", a2a.TaskStateUnspecified, true},
		{"t-input-required", a2a.TaskStateInputRequired, false},
		{"t-completed", a2a.TaskStateCompleted, false},
		{"t-failed", a2a.TaskStateFailed, false},
		{"t-canceled", a2a.TaskStateCanceled, false},
		{"t-rejected", a2a.TaskStateRejected, false},
	}
	var want []a2a.TaskID
	for _, tt := range tests {
		task := &a2a.Task{ID: tt.id, ContextID: "ctx-" + string(tt.id), Status: a2a.TaskStatus{State: tt.state, Message: prevMsg},
			History: []*a2a.Message{{ID: "first", Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewTextPart("go")}}}}
		mustCreateTask(t, s, task)
		mustUpdateTask(t, s, task, 1)
		if tt.interrupted {
			want = append(want, tt.id)
		}
	}
	slices.Sort(want)

	start := time.Now().Add(-time.Second)
	got, err := db.MarkTasksInterrupted(ctx, "")
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("MarkTasksInterrupted = %v, %v; want %v", got, err, want)
	}
	for _, tt := range tests {
		st := mustGetTask(t, s, tt.id)
		task := st.Task
		if !tt.interrupted {
			if st.Version != 2 || task.Status.State != tt.state || len(task.History) != 1 {
				t.Errorf("%s changed: version %d, %+v", tt.id, st.Version, task)
			}
			continue
		}
		msg := task.Status.Message
		switch {
		case st.Version != 3 || st.User != "erin":
			t.Errorf("%s: version %d, user %q; want 3, erin", tt.id, st.Version, st.User)
		case task.Status.State != a2a.TaskStateFailed:
			t.Errorf("%s: state %s, want failed", tt.id, task.Status.State)
		case task.Status.Timestamp == nil || task.Status.Timestamp.Before(start):
			t.Errorf("%s: timestamp %v, want now", tt.id, task.Status.Timestamp)
		case msg == nil || msg.Role != a2a.MessageRoleAgent || msg.TaskID != tt.id || msg.ContextID != task.ContextID ||
			len(msg.Parts) != 1 || !strings.Contains(msg.Parts[0].Text(), "proctor restarted"):
			t.Errorf("%s: status message %+v", tt.id, msg)
		case len(task.History) != 2 || task.History[1].ID != "status-msg":
			t.Errorf("%s: the previous status message was not moved to the history: %+v", tt.id, task.History)
		}
	}
	// The failed tasks now come first in List (updated now).
	resp, err := s.List(ctx, &a2a.ListTasksRequest{PageSize: len(want)})
	if err != nil {
		t.Fatal(err)
	}
	if got := taskIDs(resp.Tasks); !slices.Equal(sortedIDs(got), want) {
		t.Errorf("List first page = %v, want the interrupted tasks %v", got, want)
	}
	if got, err := db.MarkTasksInterrupted(ctx, "again"); err != nil || len(got) != 0 {
		t.Errorf("second MarkTasksInterrupted = %v, %v; want none", got, err)
	}

	// A custom reason.
	mustCreateTask(t, s, &a2a.Task{ID: "t-new", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}})
	if got, err := db.MarkTasksInterrupted(ctx, "proctor restarted (upgrade)"); err != nil || !slices.Equal(got, []a2a.TaskID{"t-new"}) {
		t.Fatalf("MarkTasksInterrupted = %v, %v", got, err)
	}
	if msg := mustGetTask(t, s, "t-new").Task.Status.Message; msg.Parts[0].Text() != "proctor restarted (upgrade)" {
		t.Errorf("reason = %q", msg.Parts[0].Text())
	}

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := db.MarkTasksInterrupted(canceled, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: %v", err)
	}
}

func sortedIDs(ids []a2a.TaskID) []a2a.TaskID {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	return ids
}

func TestTaskStoreContextCanceled(t *testing.T) {
	db, s := newTaskStore(t, WithAnonymousTaskList())
	mustCreateTask(t, s, &a2a.Task{ID: "t"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := map[string]func() error{
		"Create": func() error { _, err := s.Create(ctx, &a2a.Task{ID: "u"}); return err },
		"Update": func() error { _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: &a2a.Task{ID: "t"}}); return err },
		"Get":    func() error { _, err := s.Get(ctx, "t"); return err },
		"List":   func() error { _, err := s.List(ctx, nil); return err },
		"MarkTasksInterrupted": func() error {
			_, err := db.MarkTasksInterrupted(ctx, "")
			return err
		},
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", name, err)
		}
	}
	if st := mustGetTask(t, s, "t"); st.Version != 1 {
		t.Errorf("task changed under a canceled context: version %d", st.Version)
	}
}

func TestTaskStoreSizeLimit(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t, withMaxRecordSize(4096))
	s := db.TaskStore()
	big := strings.Repeat("x", 5000)
	if _, err := s.Create(ctx, &a2a.Task{ID: "big", Metadata: map[string]any{"x": big}}); err == nil || !strings.Contains(err.Error(), "larger than the limit") {
		t.Fatalf("Create of a big task: %v", err)
	}
	task := &a2a.Task{ID: "grows"}
	mustCreateTask(t, s, task)
	var err error
	for i := 0; err == nil && i < 100; i++ {
		task.History = append(task.History, &a2a.Message{ID: fmt.Sprint(i), Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewTextPart(strings.Repeat("y", 200))}})
		_, err = s.Update(ctx, &taskstore.UpdateRequest{Task: task})
	}
	if err == nil || !strings.Contains(err.Error(), "larger than the limit") || !strings.Contains(err.Error(), `"grows"`) {
		t.Fatalf("Update past the limit: %v", err)
	}
	st := mustGetTask(t, s, "grows")
	if int(st.Version) != len(task.History) { // created at 1, then len-1 successful updates
		t.Errorf("version %d after %d updates, the last one failing", st.Version, len(task.History))
	}
}

// corruptTaskValues are stored values that must give an error naming the
// key. Most break the envelope or the fields List filters on, which every
// reader decodes; deep ones break only the rest of the task, which is
// decoded only when the task is returned (Get, a List page holding it,
// MarkTasksInterrupted), so a filtered List skipping it and an Update
// replacing it succeed.
var corruptTaskValues = []struct {
	name, value string
	deep        bool
}{
	{"truncated", `{"version":1,"task":{"id":"corrupt-task-1"`, false},
	{"not an object", `[]`, false},
	{"empty", ``, false},
	{"null", `null`, false},
	{"version zero", `{"version":0,"task":{"id":"corrupt-task-1","contextId":"","status":{"state":"TASK_STATE_WORKING"}}}`, false},
	{"negative version", `{"version":-3,"task":{"id":"corrupt-task-1","status":{"state":"TASK_STATE_WORKING"}}}`, false},
	{"no task", `{"version":1}`, false},
	{"null task", `{"version":1,"task":null}`, false},
	{"another task's id", `{"version":1,"task":{"id":"someone-else","status":{"state":"TASK_STATE_WORKING"}}}`, false},
	{"bad time", `{"version":1,"updated_at":"noon","task":{"id":"corrupt-task-1","status":{"state":"TASK_STATE_WORKING"}}}`, false},
	{"bad status timestamp", `{"version":1,"task":{"id":"corrupt-task-1","status":{"state":"TASK_STATE_WORKING","timestamp":7}}}`, false},
	{"wrong types", `{"version":"1","user":2,"task":"x"}`, false},
	{"deeply nested", `{"version":1,"task":{"id":"corrupt-task-1","metadata":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}`, false},
	{"part without content", `{"version":1,"task":{"id":"corrupt-task-1","status":{"state":"TASK_STATE_WORKING"},"history":[{"messageId":"m","role":"ROLE_USER","parts":[{}]}]}}`, true},
	{"artifact is a string", `{"version":1,"task":{"id":"corrupt-task-1","status":{"state":"TASK_STATE_WORKING"},"artifacts":"x"}}`, true},
}

func TestTaskStoreCorruptValues(t *testing.T) {
	ctx := context.Background()
	const key = "corrupt-task-1"
	for _, tc := range corruptTaskValues {
		t.Run(tc.name, func(t *testing.T) {
			db, s := newTaskStore(t, WithAnonymousTaskList())
			mustCreateTask(t, s, &a2a.Task{ID: "good", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}})
			if err := db.sessions.bolt.Update(func(tx *bbolt.Tx) error {
				return tx.Bucket(bucketA2ATasks).Put([]byte(key), []byte(tc.value))
			}); err != nil {
				t.Fatal(err)
			}
			checkTaskReadersFail(t, db, s, key, tc.deep)
			// Create sees the key as taken.
			if _, err := s.Create(ctx, &a2a.Task{ID: key}); !errors.Is(err, taskstore.ErrTaskAlreadyExists) {
				t.Errorf("Create over a corrupt record: %v", err)
			}
			// MarkTasksInterrupted failed as a whole: nothing changed.
			if st := mustGetTask(t, s, "good"); st.Task.Status.State != a2a.TaskStateWorking {
				t.Errorf("good task changed: %+v", st.Task)
			}
		})
	}
	t.Run("nested bucket", func(t *testing.T) {
		db, s := newTaskStore(t, WithAnonymousTaskList())
		if err := db.sessions.bolt.Update(func(tx *bbolt.Tx) error {
			_, err := tx.Bucket(bucketA2ATasks).CreateBucket([]byte(key))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		checkTaskReadersFail(t, db, s, key, false)
		if _, err := s.Create(ctx, &a2a.Task{ID: key}); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("Create over a nested bucket: %v", err)
		}
	})
}

func checkTaskReadersFail(t *testing.T, db *DB, s *TaskStore, key string, deep bool) {
	t.Helper()
	ctx := context.Background()
	calls := map[string]func() error{
		"Get":                  func() error { _, err := s.Get(ctx, a2a.TaskID(key)); return err },
		"List":                 func() error { _, err := s.List(ctx, nil); return err },
		"MarkTasksInterrupted": func() error { _, err := db.MarkTasksInterrupted(ctx, ""); return err },
	}
	if !deep {
		calls["List filtered"] = func() error {
			_, err := s.List(ctx, &a2a.ListTasksRequest{Status: a2a.TaskStateCanceled})
			return err
		}
		calls["Update"] = func() error {
			_, err := s.Update(ctx, &taskstore.UpdateRequest{Task: &a2a.Task{ID: a2a.TaskID(key)}})
			return err
		}
	}
	for name, call := range calls {
		err := call()
		if err == nil || !strings.Contains(err.Error(), "corrupt") || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: err = %v, want a corrupt-record error naming %q", name, err, key)
		}
	}
	if deep {
		if resp, err := s.List(ctx, &a2a.ListTasksRequest{Status: a2a.TaskStateCanceled}); err != nil || len(resp.Tasks) != 0 {
			t.Errorf("List filtered past the corrupt task = %+v, %v", resp, err)
		}
		// An update replaces the broken task.
		if v, err := s.Update(ctx, &taskstore.UpdateRequest{Task: &a2a.Task{ID: a2a.TaskID(key)}}); err != nil || v != 2 {
			t.Errorf("Update over a deeply corrupt task = %d, %v", v, err)
		}
	}
}

func TestTaskStoreMaxVersion(t *testing.T) {
	ctx := context.Background()
	db, s := newTaskStore(t)
	const key = "old-task"
	if err := db.sessions.bolt.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketA2ATasks).Put([]byte(key),
			[]byte(`{"version":9223372036854775807,"task":{"id":"old-task","status":{"state":"TASK_STATE_WORKING"}}}`))
	}); err != nil {
		t.Fatal(err)
	}
	st := mustGetTask(t, s, key)
	if st.Version != math.MaxInt64 {
		t.Fatalf("version %d", st.Version)
	}
	for name, call := range map[string]func() error{
		"Update": func() error {
			_, err := s.Update(ctx, &taskstore.UpdateRequest{Task: st.Task, PrevVersion: st.Version})
			return err
		},
		"MarkTasksInterrupted": func() error { _, err := db.MarkTasksInterrupted(ctx, ""); return err },
	} {
		if err := call(); err == nil || !strings.Contains(err.Error(), "cannot be incremented") || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzStoredTask writes arbitrary bytes as a stored task value with raw
// bbolt, then reads it back through every reader and writer of tasks. They
// must return a value or an error naming the key, and never panic.
func FuzzStoredTask(f *testing.F) {
	const key = "fuzz-task-0123456789"
	seeds := []string{
		`{"version":1,"user":"","updated_at":"2026-01-02T03:04:05.123456789Z","task":{"id":"fuzz-task-0123456789","contextId":"c","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-01-02T03:04:05Z","message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"hi"}]}},"history":[{"messageId":"h","role":"ROLE_USER","parts":[{"raw":"AAE="},{"data":{"k":[1,null]}},{"url":"https://x"}]}],"artifacts":[{"artifactId":"a","parts":[{"text":"x"}]}],"metadata":{"k":1}}}`,
		`{"version":3,"user":"someone","task":{"id":"fuzz-task-0123456789","status":{"state":"TASK_STATE_COMPLETED"}}}`,
		`{"version":1,"task":{"id":"fuzz-task-0123456789","history":[null],"artifacts":[null],"status":{"message":null}}}`,
		`{"version":1,"task":{"id":"fuzz-task-0123456789","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}`,
		`{"version":9223372036854775807,"task":{"id":"fuzz-task-0123456789"}}`,
		`{"version":1,"task":{"id":"other"}}`,
		`{}`, `null`, `[]`, `""`, `0`, ``, `{"task":`, `{"version":"1"}`,
		`{"version":1,"updated_at":"not a time","task":{"id":"fuzz-task-0123456789"}}`,
		`{"version":1,"task":{"id":"fuzz-task-0123456789","history":[{"parts":[{}]}]}}`,
		`{"version":1,"task":{"id":"fuzz-task-0123456789","metadata":{"s":"\ud800"}}}`,
		strings.Repeat("[", 100) + strings.Repeat("]", 100),
		"\x00\xff\xfe garbage",
	}
	for _, s := range seeds {
		f.Add([]byte(s), "TASK_STATE_WORKING", 2)
	}

	db, err := Open(filepath.Join(f.TempDir(), "fuzz.db"), WithNoSync())
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = db.Close() })
	ctx := context.Background()
	s := db.TaskStore(WithAnonymousTaskList())
	// A well-formed neighbour, so listing walks more than the fuzzed record.
	if _, err := s.Create(ctx, &a2a.Task{ID: "fuzz-task-0000", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}); err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, value []byte, state string, historyLength int) {
		if value == nil {
			value = []byte{} // bbolt stores nil as empty anyway
		}
		if err := db.sessions.bolt.Update(func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketA2ATasks).Put([]byte(key), value)
		}); err != nil {
			t.Fatal(err)
		}
		namesKey := func(what string, err error) {
			t.Helper()
			if err != nil && !strings.Contains(err.Error(), key) {
				t.Errorf("%s: error %q does not name key %q", what, err, key)
			}
		}

		st, err := s.Get(ctx, key)
		if err != nil && !errors.Is(err, a2a.ErrTaskNotFound) { // not found: another user's
			namesKey("Get", err)
		}
		if err == nil && (st.Task == nil || st.Task.ID != key || st.Version < 1) {
			t.Errorf("Get returned %+v", st)
		}

		for _, req := range []*a2a.ListTasksRequest{
			nil,
			{Status: a2a.TaskState(state), HistoryLength: &historyLength, IncludeArtifacts: true},
			{ContextID: state, PageSize: 1},
		} {
			resp, err := s.List(ctx, req)
			namesKey("List", err)
			if err == nil {
				for _, task := range resp.Tasks {
					if task == nil || (task.ID != key && task.ID != "fuzz-task-0000") {
						t.Errorf("List returned %+v", task)
					}
				}
			}
		}

		if err == nil {
			_, err = s.Update(ctx, &taskstore.UpdateRequest{Task: st.Task, PrevVersion: st.Version})
			namesKey("Update", err)
		}
		_, err = db.MarkTasksInterrupted(ctx, state)
		namesKey("MarkTasksInterrupted", err)
		if err == nil {
			if st, err := s.Get(ctx, key); err == nil && interruptedByRestart(st.Task.Status.State) {
				t.Errorf("task left in state %s by MarkTasksInterrupted", st.Task.Status.State)
			}
		}
	})
}

// stepsExecutor is a trivial agent: it creates the task, reports working,
// emits an artifact echoing the request, and completes. A request "hang"
// stops after working until release is closed, like an execution in flight
// when the process dies.
type stepsExecutor struct{ release chan struct{} }

func (e *stepsExecutor) Execute(ctx context.Context, execCtx *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if execCtx.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(execCtx, execCtx.Message), nil) {
				return
			}
		}
		if !yield(a2a.NewStatusUpdateEvent(execCtx, a2a.TaskStateWorking, nil), nil) {
			return
		}
		text := execCtx.Message.Parts[0].Text()
		if text == "hang" {
			<-e.release
			return
		}
		if !yield(a2a.NewArtifactEvent(execCtx, a2a.NewTextPart("echo: "+text)), nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(execCtx, a2a.TaskStateCompleted,
			a2a.NewMessageForTask(a2a.MessageRoleAgent, execCtx, a2a.NewTextPart("done"))), nil)
	}
}

func (e *stepsExecutor) Cancel(_ context.Context, execCtx *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(execCtx, a2a.TaskStateCanceled, nil), nil)
	}
}

// serveTasks serves an a2a-go JSON-RPC handler whose tasks live in db, and
// returns a client for it.
func serveTasks(t *testing.T, db *DB, exec a2asrv.AgentExecutor) (*a2aclient.Client, func()) {
	t.Helper()
	store := db.TaskStore(WithTaskAuthenticator(a2asrv.NewTaskStoreAuthenticator()), WithAnonymousTaskList())
	srv := httptest.NewServer(a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(exec, a2asrv.WithTaskStore(store))))
	client, err := a2aclient.NewFromEndpoints(t.Context(), []*a2a.AgentInterface{
		a2a.NewAgentInterface(srv.URL, a2a.TransportProtocolJSONRPC),
	})
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	return client, func() {
		_ = client.Destroy()
		srv.Close()
	}
}

func userMessage(text string) *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}
}

// TestTaskStoreWithA2AServer runs a real a2a-go server over the store, stops
// it, reopens the database in a new server and reads the tasks back.
func TestTaskStoreWithA2AServer(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "proctor.db")
	db, err := Open(path, WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	exec := &stepsExecutor{release: make(chan struct{})}
	defer close(exec.release)
	client, stop := serveTasks(t, db, exec)

	res, err := client.SendMessage(ctx, userMessage("hello"))
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	done, ok := res.(*a2a.Task)
	if !ok || done.Status.State != a2a.TaskStateCompleted || len(done.Artifacts) != 1 {
		t.Fatalf("SendMessage = %+v, want a completed task with one artifact", res)
	}

	// A second task is still working when the server goes away.
	var hung a2a.TaskID
	for ev, err := range client.SendStreamingMessage(ctx, userMessage("hang")) {
		if err != nil {
			t.Fatalf("SendStreamingMessage: %v", err)
		}
		if up, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && up.Status.State == a2a.TaskStateWorking {
			hung = up.TaskID
			break
		}
	}
	if hung == "" {
		t.Fatal("no working event")
	}
	stop()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	// "Restart": reopen, fail what was in flight, serve again.
	db, err = Open(path, WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids, err := db.MarkTasksInterrupted(ctx, "")
	if err != nil || !slices.Equal(ids, []a2a.TaskID{hung}) {
		t.Fatalf("MarkTasksInterrupted = %v, %v; want [%s]", ids, err, hung)
	}
	client, stop = serveTasks(t, db, exec)
	defer stop()

	got, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: done.ID})
	if err != nil {
		t.Fatalf("GetTask after restart: %v", err)
	}
	if got.Status.State != a2a.TaskStateCompleted || got.ContextID != done.ContextID ||
		len(got.Artifacts) != 1 || len(got.Artifacts[0].Parts) != 1 || got.Artifacts[0].Parts[0].Text() != "echo: hello" ||
		got.Status.Message == nil || got.Status.Message.Parts[0].Text() != "done" {
		t.Fatalf("GetTask after restart = %+v", got)
	}
	if len(got.History) == 0 || got.History[0].Parts[0].Text() != "hello" {
		t.Errorf("history after restart = %+v", got.History)
	}

	failed, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: hung})
	if err != nil {
		t.Fatal(err)
	}
	if failed.Status.State != a2a.TaskStateFailed || failed.Status.Message == nil ||
		!strings.Contains(failed.Status.Message.Parts[0].Text(), "proctor restarted") {
		t.Errorf("interrupted task = %+v", failed.Status)
	}
	// A terminal task cannot be continued.
	cont := userMessage("more")
	cont.Message.TaskID = hung
	if _, err := client.SendMessage(ctx, cont); err == nil {
		t.Error("continuing a failed task succeeded")
	}

	list, err := client.ListTasks(ctx, &a2a.ListTasksRequest{IncludeArtifacts: true})
	if err != nil {
		t.Fatalf("ListTasks: %v", err)
	}
	if got := taskIDs(list.Tasks); !slices.Equal(got, []a2a.TaskID{hung, done.ID}) || list.TotalSize != 2 {
		t.Errorf("ListTasks = %v (total %d), want [%s %s]", got, list.TotalSize, hung, done.ID)
	}

	// The store's not-found reaches the client as A2A's TaskNotFound.
	if _, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("GetTask of a missing task: %v, want ErrTaskNotFound", err)
	}

	// The reopened server keeps working: a new task, and versions that
	// continue.
	res, err = client.SendMessage(ctx, userMessage("again"))
	if err != nil {
		t.Fatal(err)
	}
	if task, ok := res.(*a2a.Task); !ok || task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("SendMessage after restart = %+v", res)
	}
}

// TestTaskStoreListByStatusTimestamp: List orders tasks by their status
// timestamp (A2A 1.0 §3.1.4), newest first: a later write that leaves a
// task's status alone (an artifact) does not move it past a task whose
// status changed after its own; and a task whose timestamp goes back
// keeps its place, so a page token never shows it twice.
func TestTaskStoreListByStatusTimestamp(t *testing.T) {
	ctx := context.Background()
	_, s := newTaskStore(t, WithTaskAuthenticator(namedUser("u")))
	t1, t2 := taskStartTime, taskStartTime.Add(time.Second)
	older := &a2a.Task{ID: a2a.NewTaskID(), ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &t1}}
	newer := &a2a.Task{ID: a2a.NewTaskID(), ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &t2}}
	mustCreateTask(t, s, older, newer)
	older.Artifacts = []*a2a.Artifact{{ID: "a", Parts: a2a.ContentParts{a2a.NewTextPart("late")}}}
	mustUpdateTask(t, s, older, 1) // written last, its status unchanged
	list := func(req *a2a.ListTasksRequest) *a2a.ListTasksResponse {
		t.Helper()
		resp, err := s.List(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if got, want := taskIDs(list(&a2a.ListTasksRequest{}).Tasks), []a2a.TaskID{newer.ID, older.ID}; !slices.Equal(got, want) {
		t.Fatalf("List = %v, want by status timestamp, newest first: %v", got, want)
	}
	first := list(&a2a.ListTasksRequest{PageSize: 1})
	earlier := t1.Add(-time.Hour)
	newer.Status.Timestamp = &earlier // an agent's timestamp going back
	mustUpdateTask(t, s, newer, 1)
	rest := list(&a2a.ListTasksRequest{PageSize: 1, PageToken: first.NextPageToken})
	if got := append(taskIDs(first.Tasks), taskIDs(rest.Tasks)...); !slices.Equal(got, []a2a.TaskID{newer.ID, older.ID}) {
		t.Fatalf("pages = %v, want each task once, in order", got)
	}
}
