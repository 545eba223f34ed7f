package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.etcd.io/bbolt"
)

// recordingUpdate is an update function for groupCommit that counts its
// transactions and holds the first one until released, so that other
// writes queue behind it.
type recordingUpdate struct {
	mu      sync.Mutex
	txs     int
	started chan struct{} // closed when the first transaction starts
	release chan struct{} // the first transaction waits for it
}

func newRecordingUpdate() *recordingUpdate {
	return &recordingUpdate{started: make(chan struct{}), release: make(chan struct{})}
}

func (u *recordingUpdate) update(fn func(*bbolt.Tx) error) error {
	u.mu.Lock()
	u.txs++
	first := u.txs == 1
	u.mu.Unlock()
	if first {
		close(u.started)
		<-u.release
	}
	return fn(nil)
}

// TestGroupCommitSharesTransactions checks that the writes queued while a
// commit runs share the next transaction, and that a failing or panicking
// write fails alone.
func TestGroupCommitSharesTransactions(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name     string
		fail     map[int]error // write index -> its error
		panics   map[int]bool
		wantErrs []string
		wantTxs  int
	}{
		{name: "all succeed", wantErrs: []string{"", "", "", "", ""}, wantTxs: 2},
		{name: "one fails", fail: map[int]error{2: boom}, wantErrs: []string{"", "", "boom", "", ""}, wantTxs: 6},
		{name: "one panics", panics: map[int]bool{3: true}, wantErrs: []string{"", "", "", "store: write panicked: bad write", ""}, wantTxs: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g groupCommit
			u := newRecordingUpdate()
			write := func(i int) func(*bbolt.Tx) error {
				return func(*bbolt.Tx) error {
					if tt.panics[i] {
						panic("bad write")
					}
					return tt.fail[i]
				}
			}
			errs := make([]string, 5)
			var wg sync.WaitGroup
			wg.Go(func() { errs[0] = errString(g.write(u.update, write(0))) })
			<-u.started // write 0 commits alone; the others queue behind it
			for i := 1; i < 5; i++ {
				wg.Go(func() { errs[i] = errString(g.write(u.update, write(i))) })
			}
			waitQueued(t, &g, 4)
			close(u.release)
			wg.Wait()
			if diff := cmp.Diff(tt.wantErrs, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if u.txs != tt.wantTxs {
				t.Errorf("%d transactions, want %d", u.txs, tt.wantTxs)
			}
		})
	}
}

// waitQueued waits until n writes are queued behind the running commit.
func waitQueued(t *testing.T, g *groupCommit, n int) {
	t.Helper()
	for {
		g.mu.Lock()
		queued := len(g.queue)
		g.mu.Unlock()
		if queued == n {
			return
		}
		if queued > n {
			t.Fatalf("%d writes queued, want %d", queued, n)
		}
		runtime.Gosched()
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestPutSimulationConcurrentAllDurable checks that simulations written by
// many goroutines at once, in shared transactions, are all stored with
// their request metrics.
func TestPutSimulationConcurrentAllDurable(t *testing.T) {
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	evalID := NewID()
	if err := db.PutEvaluation(ctx, Evaluation{ID: evalID, Kind: KindEvalSets, Status: "running"}); err != nil {
		t.Fatal(err)
	}
	const n = 64
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			errs[i] = db.PutSimulation(ctx, evalID, Simulation{ID: fmt.Sprintf("s%02d", i), Data: []byte(`{"i":1}`), Requests: []byte(`[{"latency_ms":1}]`)})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	sims, err := db.Simulations(ctx, evalID)
	if err != nil {
		t.Fatal(err)
	}
	all, err := db.AllRequests(ctx, evalID)
	if err != nil {
		t.Fatal(err)
	}
	if len(sims) != n || len(all) != n {
		t.Errorf("%d simulations and %d request metrics stored, want %d of each", len(sims), len(all), n)
	}
}
