package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func skipWithoutShortLocks(t testing.TB) {
	t.Helper()
	if !shortLocksSupported {
		t.Skipf("short locks need flock, which %s lacks", runtime.GOOS)
	}
}

// TestShortLocksReadWhileWriting keeps a writer open (as a running
// evaluation does) and reads through a second, read-only handle between
// its writes: each read sees every write committed before it.
func TestShortLocksReadWhileWriting(t *testing.T) {
	skipWithoutShortLocks(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "proctor.db")
	w, err := Open(path, WithShortLocks(), WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	evalID := NewID()
	mustPutEval(t, w, Evaluation{ID: evalID, Status: "running"})

	r, err := Open(path, WithShortLocks(), WithReadOnly(), WithLockTimeout(time.Second))
	if err != nil {
		t.Fatalf("reader while a writer is open: %v", err)
	}
	defer r.Close()
	for i := range 20 {
		if err := w.PutSimulation(ctx, evalID, Simulation{ID: fmt.Sprintf("t#%d", i), TaskID: "t", Reward: 1}); err != nil {
			t.Fatal(err)
		}
		ids, err := r.SimulationIDs(ctx, evalID)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != i+1 {
			t.Fatalf("after %d writes the reader sees %d simulations", i+1, len(ids))
		}
	}
	if active, err := r.WritersActive(); err != nil || !active {
		t.Errorf("WritersActive with a writer open = %v, %v; want true", active, err)
	}
	if err := r.PutEvaluation(ctx, Evaluation{ID: "x"}); err == nil {
		t.Error("a read-only handle with short locks wrote")
	}
	w.Close()
	if active, err := r.WritersActive(); err != nil || active {
		t.Errorf("WritersActive after the writer closed = %v, %v; want false", active, err)
	}
}

// TestShortLocksTwoWriters writes from two handles at once: every write of
// both lands, and only the first handle ran its WithWhenSole function.
func TestShortLocksTwoWriters(t *testing.T) {
	skipWithoutShortLocks(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "proctor.db")
	var soleRuns []string
	open := func(name string) *DB {
		db, err := Open(path, WithShortLocks(), WithNoSync(), WithWhenSole(func(*DB) error {
			soleRuns = append(soleRuns, name)
			return nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	a, b := open("a"), open("b")
	if len(soleRuns) != 1 || soleRuns[0] != "a" {
		t.Errorf("WithWhenSole ran for %v, want only a", soleRuns)
	}
	evalID := NewID()
	mustPutEval(t, a, Evaluation{ID: evalID, Status: "running"})
	const each = 25
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for name, db := range map[string]*DB{"a": a, "b": b} {
		for i := range each {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- db.PutSimulation(ctx, evalID, Simulation{ID: fmt.Sprintf("%s#%d", name, i), TaskID: name, Reward: 1})
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ids, err := b.SimulationIDs(ctx, evalID)
	if err != nil || len(ids) != 2*each {
		t.Fatalf("%d simulations stored (%v), want %d", len(ids), err, 2*each)
	}
	a.Close()
	b.Close()
	// Both closed: the next writer is sole again.
	soleRuns = nil
	open("c")
	if len(soleRuns) != 1 {
		t.Errorf("WithWhenSole after the others closed ran for %v, want c", soleRuns)
	}
}

// TestShortLocksHeldForGood: a handle without short locks holds the file;
// a short-lock reader gives up with ErrLocked naming the holder.
func TestShortLocksHeldForGood(t *testing.T) {
	skipWithoutShortLocks(t)
	path := filepath.Join(t.TempDir(), "proctor.db")
	held, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	_, err = Open(path, WithShortLocks(), WithReadOnly(), WithLockTimeout(-1))
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("Open: %v, want ErrLocked", err)
	}
	want := path
	if runtime.GOOS == "linux" {
		want = fmt.Sprintf("pid %d (", os.Getpid())
	}
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %q should name the path and the holder %q", err, want)
	}
}

// TestWhenSoleError: an error of the WithWhenSole function fails Open and
// leaves nothing locked.
func TestWhenSoleError(t *testing.T) {
	skipWithoutShortLocks(t)
	path := filepath.Join(t.TempDir(), "proctor.db")
	boom := errors.New("boom")
	if _, err := Open(path, WithShortLocks(), WithWhenSole(func(*DB) error { return boom })); !errors.Is(err, boom) {
		t.Fatalf("Open: %v, want boom", err)
	}
	db, err := Open(path, WithLockTimeout(-1))
	if err != nil {
		t.Fatalf("Open after a failed one: %v", err)
	}
	db.Close()
}
