package store

import (
	"fmt"
	"sync"

	"go.etcd.io/bbolt"
)

// maxGroupWrites bounds how many writes share one transaction.
const maxGroupWrites = 1000

// groupCommit runs the writes of many goroutines in shared write
// transactions, one commit (and fsync) for all the writes that queued while
// the previous commit ran. A lone write commits at once; under load a group
// grows with the commit's duration, so the store keeps up with writers
// however slow its fsync is. (bbolt's Batch, used before, closes a group
// after a fixed delay, so a 3 ms fsync against writes every 0.5 ms left them
// queued behind commits of a few writes each.)
type groupCommit struct {
	mu      sync.Mutex
	queue   []*groupWrite
	running bool
}

// groupWrite is a queued write and where its outcome goes.
type groupWrite struct {
	fn   func(*bbolt.Tx) error
	done chan error
}

// write queues fn and returns once the transaction that ran it committed
// (nil) or failed. update runs a write transaction. fn must be idempotent:
// when a shared transaction fails, each of its writes runs again alone, so
// that one write's failure is its own.
func (g *groupCommit) write(update func(func(*bbolt.Tx) error) error, fn func(*bbolt.Tx) error) error {
	w := &groupWrite{fn: fn, done: make(chan error, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, w)
	if !g.running {
		g.running = true
		go g.drain(update)
	}
	g.mu.Unlock()
	return <-w.done
}

// drain commits the queue group by group until it is empty.
func (g *groupCommit) drain(update func(func(*bbolt.Tx) error) error) {
	for {
		g.mu.Lock()
		group := g.queue
		if len(group) > maxGroupWrites {
			group = group[:maxGroupWrites:maxGroupWrites]
		}
		g.queue = g.queue[len(group):]
		if len(g.queue) == 0 {
			g.queue = nil // let the drained array go
		}
		if len(group) == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		commitGroup(update, group)
	}
}

// commitGroup runs group in one transaction; when it fails, each write
// runs alone and gets its own outcome.
func commitGroup(update func(func(*bbolt.Tx) error) error, group []*groupWrite) {
	if len(group) > 1 {
		err := update(func(tx *bbolt.Tx) error {
			for _, w := range group {
				if err := safelyWrite(w.fn, tx); err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil {
			for _, w := range group {
				w.done <- nil
			}
			return
		}
	}
	for _, w := range group {
		w.done <- update(func(tx *bbolt.Tx) error { return safelyWrite(w.fn, tx) })
	}
}

// safelyWrite runs fn, turning a panic into an error: the committing
// goroutine serves every writer and must not take the process down.
func safelyWrite(fn func(*bbolt.Tx) error, tx *bbolt.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("store: write panicked: %v", p)
		}
	}()
	return fn(tx)
}
