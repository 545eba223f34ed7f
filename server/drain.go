package server

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// DrainingText is what a request for new work (run_evaluation,
// run_eval_set, check_conformance) gets while the server drains.
const DrainingText = drainingReason + "."

// drainingReason is DrainingText as an error says it (the chat's tools).
const drainingReason = "proctor is draining (it was told to stop or restart) and takes no new work: retry on another instance, or here once it is back"

// abortWait bounds how long a drain cut short (the timeout, or Abort)
// waits for the evaluations it stops to save what they finished.
const abortWait = 10 * time.Second

// drainState is the executor's side of a drain: whether one started, and
// the long tasks still running their steps (neither ended nor
// checkpointed). The zero drainState is ready to use.
type drainState struct {
	mu       sync.Mutex
	draining bool
	started  chan struct{} // closed when the drain starts
	live     int
	changed  chan struct{} // closed, and replaced, whenever live drops
	// parked never closes: a checkpointed task waits on it for the
	// process to exit, so that a2a-go records no end for it.
	parked chan struct{}
}

// initLocked makes the channels of a zero drainState; d.mu is held.
func (d *drainState) initLocked() {
	if d.started == nil {
		d.started, d.changed, d.parked = make(chan struct{}), make(chan struct{}), make(chan struct{})
	}
}

// startedChan is closed when the drain starts.
func (d *drainState) startedChan() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.initLocked()
	return d.started
}

// park waits for the process to exit.
func (d *drainState) park() {
	d.mu.Lock()
	d.initLocked()
	parked := d.parked
	d.mu.Unlock()
	<-parked
}

// isDraining reports whether the drain started.
func (d *drainState) isDraining() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.draining
}

// start starts the drain; it reports false if it had started already.
func (d *drainState) start() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.draining {
		return false
	}
	d.initLocked()
	d.draining = true
	close(d.started)
	return true
}

// enter counts a long task that starts its work, unless the drain started.
func (d *drainState) enter() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.draining {
		return false
	}
	d.live++
	return true
}

// leave counts a long task that ended or was checkpointed.
func (d *drainState) leave() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.initLocked()
	d.live--
	close(d.changed)
	d.changed = make(chan struct{})
}

// settled returns a channel closed once no long task is live.
func (d *drainState) settled() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		for {
			d.mu.Lock()
			d.initLocked()
			live, changed := d.live, d.changed
			d.mu.Unlock()
			if live <= 0 {
				close(done)
				return
			}
			<-changed
		}
	}()
	return done
}

// drain stops the server taking new work and lets the long tasks running
// finish their simulations until timeout (or abort), then stops the rest;
// every task that did not end is checkpointed: it stays working, its
// evaluation interrupted with what it finished, for the next process to
// resume (see RecoverResumableTasks). It returns once no task runs.
func (s *Server) drain(timeout time.Duration) {
	e := s.executor
	if !e.drain.start() {
		return
	}
	e.svc.Drain()
	settled := e.drain.settled()
	timer := time.NewTimer(max(timeout, 0))
	defer timer.Stop()
	select {
	case <-settled:
		return
	case <-timer.C:
	case <-s.abort:
	}
	e.stopAll()
	select {
	case <-settled:
	case <-time.After(abortWait):
	}
}

// Abort cuts a drain short: the simulations still running stop at once
// (they are not recorded), their evaluations keep what finished, and Serve
// returns. A second signal calls it.
func (s *Server) Abort() { s.abortOnce.Do(func() { close(s.abort) }) }

// stopAll stops every long task's steps, as a checkpoint (not a cancel).
func (e *executor) stopAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range e.running {
		r.markDrained()
	}
}

// markDrained records that the drain stopped the run, and stops it.
func (r *activeRun) markDrained() {
	r.mu.Lock()
	r.drained = true
	r.mu.Unlock()
	r.cancel()
}

// wasDrained reports whether the drain stopped the run.
func (r *activeRun) wasDrained() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.drained
}

// checkpoint leaves t working, its status saying why and what it keeps,
// and waits for the process to exit: the task's execution ends with the
// process, and the next one resumes it.
func (e *executor) checkpoint(t *longTask, data map[string]any) {
	text := "proctor is restarting: this task is checkpointed and carries on when proctor is back (a client polling GetTask sees it go on)."
	if id, _ := data["evaluation_id"].(string); id != "" {
		text = "proctor is restarting: evaluation " + id + " is checkpointed with the simulations it finished and resumes when proctor is back (a client polling GetTask sees it go on)."
	}
	out := map[string]any{"checkpointed": true}
	for k, v := range data {
		out[k] = v
	}
	e.stored.sendStored(t, working(t.ec, text, out))
	e.drain.leave()
	e.drain.park()
}

// refuseWhileDraining answers a request for new work during a drain.
func refuseWhileDraining(ec *a2asrv.ExecutorContext) *a2a.Task {
	return endedTask(ec, a2a.TaskStateRejected, statusMessage(ec, DrainingText, map[string]any{"draining": true}))
}

// ready answers PathReady: 200 while the server takes work, 503 once it
// drains, so that a load balancer (a Kubernetes Service) stops sending it
// any.
func (s *Server) ready(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if s.executor.drain.isDraining() {
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(map[string]any{"status": "draining"})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"status": "ready"})
}

// storedWait bounds how long a long task's last event may take to be
// stored before the task counts as settled for the drain.
const storedWait = 5 * time.Second

// storeWatch is a task store that tells who waits for it when a status
// message is stored: a drain settles only once the last event of every
// task it waits for (its end, or its checkpoint) is in the store, since
// a2a-go stores events after the executor yields them.
type storeWatch struct {
	taskstore.Store

	mu    sync.Mutex
	waits map[string]chan struct{} // by status message id
}

func newStoreWatch(s taskstore.Store) *storeWatch {
	return &storeWatch{Store: s, waits: map[string]chan struct{}{}}
}

// Update implements taskstore.Store.
func (w *storeWatch) Update(ctx context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	v, err := w.Store.Update(ctx, req)
	// Stored or not (a full disk), the write is over: nobody waits longer.
	if req != nil && req.Task != nil && req.Task.Status.Message != nil {
		w.mu.Lock()
		if ch, ok := w.waits[req.Task.Status.Message.ID]; ok {
			close(ch)
			delete(w.waits, req.Task.Status.Message.ID)
		}
		w.mu.Unlock()
	}
	return v, err
}

// sendStored sends a status event for t and waits (at most storedWait)
// until it is stored; it reports whether the task goes on. Without a
// watch it only sends.
func (w *storeWatch) sendStored(t *longTask, ev *a2a.TaskStatusUpdateEvent) bool {
	if w == nil || ev.Status.Message == nil {
		return t.send(ev)
	}
	id := ev.Status.Message.ID
	ch := make(chan struct{})
	w.mu.Lock()
	w.waits[id] = ch
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.waits, id)
		w.mu.Unlock()
	}()
	if !t.send(ev) {
		return false
	}
	select {
	case <-ch:
	case <-time.After(storedWait):
	}
	return true
}
