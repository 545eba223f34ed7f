package adksession

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/adk/model"
	"google.golang.org/adk/session"
	"google.golang.org/genai"
)

// op is one call on a service: create, append (an event), get or delete
// the session app/user/id.
type op struct{ do, app, user, id string }

func create(id string) op   { return op{do: "create", app: "a", user: "u", id: id} }
func appendTo(id string) op { return op{do: "append", app: "a", user: "u", id: id} }
func get(id string) op      { return op{do: "get", app: "a", user: "u", id: id} }
func remove(id string) op   { return op{do: "delete", app: "a", user: "u", id: id} }

// name is the session's app/user/id.
func (o op) name() string { return o.app + "/" + o.user + "/" + o.id }

// run applies ops to svc and returns the errors of the ops that failed:
// "not found" for session.ErrNotFound, else the error's text.
func run(t *testing.T, svc session.Service, ops []op) map[int]string {
	t.Helper()
	ctx := t.Context()
	created := make(map[string]session.Session) // as the runner holds them
	errs := make(map[int]string)
	for i, o := range ops {
		var err error
		switch o.do {
		case "create":
			var resp *session.CreateResponse
			if resp, err = svc.Create(ctx, &session.CreateRequest{AppName: o.app, UserID: o.user, SessionID: o.id}); err == nil {
				created[o.name()] = resp.Session
			}
		case "append":
			err = svc.AppendEvent(ctx, created[o.name()], textEvent(ctx, fmt.Sprintf("turn %d", i)))
		case "get":
			_, err = svc.Get(ctx, &session.GetRequest{AppName: o.app, UserID: o.user, SessionID: o.id})
		case "delete":
			err = svc.Delete(ctx, &session.DeleteRequest{AppName: o.app, UserID: o.user, SessionID: o.id})
		default:
			t.Fatalf("op %d: unknown op %q", i, o.do)
		}
		if errors.Is(err, session.ErrNotFound) {
			errs[i] = "not found"
		} else if err != nil {
			errs[i] = err.Error()
		}
	}
	return errs
}

// textEvent is a model's reply of text.
func textEvent(ctx context.Context, text string) *session.Event {
	ev := session.NewEventWithContext(ctx, "invocation")
	ev.Author = "agent"
	ev.LLMResponse = model.LLMResponse{Content: genai.NewContentFromText(text, genai.RoleModel)}
	return ev
}

// kept returns the sessions of ops that svc lists (listing each app's
// sessions of every user) and those its Get finds, as app/user/id,
// sorted.
func kept(t *testing.T, svc session.Service, ops []op) (listed, found []string) {
	t.Helper()
	ctx := t.Context()
	apps := make(map[string]bool)
	seen := make(map[string]bool)
	for _, o := range ops {
		if o.do != "create" || seen[o.name()] {
			continue
		}
		seen[o.name()] = true
		if !apps[o.app] {
			apps[o.app] = true
			resp, err := svc.List(ctx, &session.ListRequest{AppName: o.app})
			if err != nil {
				t.Fatalf("List %s: %v", o.app, err)
			}
			for _, s := range resp.Sessions {
				listed = append(listed, s.AppName()+"/"+s.UserID()+"/"+s.ID())
			}
		}
		_, err := svc.Get(ctx, &session.GetRequest{AppName: o.app, UserID: o.user, SessionID: o.id})
		switch {
		case err == nil:
			found = append(found, o.name())
		case !errors.Is(err, session.ErrNotFound):
			t.Fatalf("Get %s: %v, want nil or session.ErrNotFound", o.name(), err)
		}
	}
	slices.Sort(listed)
	slices.Sort(found)
	return listed, found
}

func TestLeastRecentlyUsedForgotten(t *testing.T) {
	cases := []struct {
		name     string
		bound    int
		ops      []op
		want     []string       // the sessions kept, listed and found
		wantErrs map[int]string // by op
	}{{
		name:  "bound plus 2: the first 2 forgotten",
		bound: 3,
		ops:   []op{create("s1"), create("s2"), create("s3"), create("s4"), create("s5")},
		want:  []string{"a/u/s3", "a/u/s4", "a/u/s5"},
	}, {
		name:  "within the bound nothing is forgotten",
		bound: 3,
		ops:   []op{create("s1"), create("s2"), create("s3")},
		want:  []string{"a/u/s1", "a/u/s2", "a/u/s3"},
	}, {
		name:  "an appended event keeps a session",
		bound: 3,
		ops:   []op{create("s1"), create("s2"), create("s3"), appendTo("s1"), create("s4"), create("s5")},
		want:  []string{"a/u/s1", "a/u/s4", "a/u/s5"},
	}, {
		name:  "a get does not keep a session",
		bound: 3,
		ops:   []op{create("s1"), create("s2"), create("s3"), get("s1"), create("s4")},
		want:  []string{"a/u/s2", "a/u/s3", "a/u/s4"},
	}, {
		name:  "a deleted session frees its place",
		bound: 3,
		ops:   []op{create("s1"), create("s2"), create("s3"), remove("s2"), create("s4")},
		want:  []string{"a/u/s1", "a/u/s3", "a/u/s4"},
	}, {
		name:  "deleting an unknown or forgotten session is no error",
		bound: 2,
		ops:   []op{create("s1"), create("s2"), create("s3"), remove("s1"), remove("never"), create("s4")},
		want:  []string{"a/u/s3", "a/u/s4"},
	}, {
		name:     "a forgotten session answers not found",
		bound:    2,
		ops:      []op{create("s1"), create("s2"), create("s3"), get("s1"), appendTo("s1"), get("s3")},
		want:     []string{"a/u/s2", "a/u/s3"},
		wantErrs: map[int]string{3: "not found", 4: "not found"},
	}, {
		name:  "a forgotten session can be created again, as a new one",
		bound: 2,
		ops:   []op{create("s1"), create("s2"), create("s3"), create("s1")},
		want:  []string{"a/u/s1", "a/u/s3"},
	}, {
		name:  "the same id in another app or of another user is another session",
		bound: 3,
		ops: []op{
			create("s1"), {do: "create", app: "b", user: "u", id: "s1"}, {do: "create", app: "a", user: "v", id: "s1"},
			{do: "append", app: "a", user: "v", id: "s1"}, create("s2"), {do: "create", app: "b", user: "v", id: "s2"},
		},
		want: []string{"a/u/s2", "a/v/s1", "b/v/s2"},
	}, {
		name:     "a second create of a kept session fails and keeps the bound",
		bound:    2,
		ops:      []op{create("s1"), create("s2"), create("s1"), create("s3")},
		want:     []string{"a/u/s2", "a/u/s3"},
		wantErrs: map[int]string{2: `session s1 already exists`},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			svc := NewBounded(tc.bound)
			errs := run(t, svc, tc.ops)
			if diff := cmp.Diff(tc.wantErrs, errs, cmpEmptyMap); diff != "" {
				t.Errorf("errors by op (-want +got):\n%s", diff)
			}
			listed, found := kept(t, svc, tc.ops)
			if diff := cmp.Diff(tc.want, listed); diff != "" {
				t.Errorf("List (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, found); diff != "" {
				t.Errorf("Get (-want +got):\n%s", diff)
			}
			if got := svc.Len(); got != len(tc.want) {
				t.Errorf("Len %d, want %d", got, len(tc.want))
			}
		})
	}
}

// cmpEmptyMap equates a nil map of errors with an empty one.
var cmpEmptyMap = cmp.FilterValues(func(a, b map[int]string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Ignore())

func TestDefaultBound(t *testing.T) {
	for _, bound := range []int{0, -1} {
		if got := NewBounded(bound).max; got != MaxSessions {
			t.Errorf("NewBounded(%d) keeps %d sessions, want MaxSessions (%d)", bound, got, MaxSessions)
		}
	}
}

// TestConcurrentUse: sessions created and used from many goroutines at
// once are bounded all the same, and the service's order stays the
// in-memory service's sessions.
func TestConcurrentUse(t *testing.T) {
	const bound, workers, each = 5, 8, 20
	svc := NewBounded(bound)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				resp, err := svc.Create(t.Context(), &session.CreateRequest{AppName: "a", UserID: "u", SessionID: fmt.Sprintf("w%d-%d", w, i)})
				if err != nil {
					t.Errorf("Create: %v", err)
					return
				}
				if err := svc.AppendEvent(t.Context(), resp.Session, textEvent(t.Context(), "hello")); err != nil && !errors.Is(err, session.ErrNotFound) {
					t.Errorf("AppendEvent: %v", err)
				}
			}
		})
	}
	wg.Wait()
	resp, err := svc.List(t.Context(), &session.ListRequest{AppName: "a"})
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, s := range resp.Sessions {
		listed = append(listed, s.ID())
	}
	var ordered []string
	for el := svc.order.Front(); el != nil; el = el.Next() {
		ordered = append(ordered, el.Value.(key).id)
	}
	slices.Sort(listed)
	slices.Sort(ordered)
	if diff := cmp.Diff(ordered, listed); diff != "" || len(listed) != bound {
		t.Errorf("%d sessions listed, want %d, as the service orders them (-ordered +listed):\n%s", len(listed), bound, diff)
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

// TestMemoryBounded: the heap a service of bound sessions holds after
// 3*bound conversations (a first message of about 2.5 KB and its reply)
// is about what it held after bound: forgotten sessions are freed.
func TestMemoryBounded(t *testing.T) {
	const bound = 1000
	svc := NewBounded(bound)
	text := strings.Repeat("policy and tools of the first message. ", 64) // 2.5 KB
	add := func(from, n int) {
		for i := from; i < from+n; i++ {
			resp, err := svc.Create(t.Context(), &session.CreateRequest{AppName: "a", UserID: "u", SessionID: fmt.Sprint("s", i)})
			if err != nil {
				t.Fatalf("Create %d: %v", i, err)
			}
			first := textEvent(t.Context(), fmt.Sprint(i, text))
			first.Author = "user"
			for _, ev := range []*session.Event{first, textEvent(t.Context(), `{"name": "respond", "arguments": {"content": "Could you tell me your email?"}}`)} {
				if err := svc.AppendEvent(t.Context(), resp.Session, ev); err != nil {
					t.Fatalf("AppendEvent %d: %v", i, err)
				}
			}
		}
	}
	before := heapAfterGC()
	add(0, bound)
	atBound := heapAfterGC()
	add(bound, 2*bound)
	after := heapAfterGC()
	runtime.KeepAlive(svc)
	firstBound := int64(atBound) - int64(before)
	growth := int64(after) - int64(atBound)
	t.Logf("%d sessions: %d bytes each; %d more sessions grew the heap by %d bytes", bound, firstBound/bound, 2*bound, growth)
	if growth > firstBound/2 {
		t.Errorf("the heap grew by %d bytes over %d more sessions, beyond half the first %d's %d bytes: forgotten sessions are kept",
			growth, 2*bound, bound, firstBound)
	}
}
