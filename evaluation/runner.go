package evaluation

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/internal/tracing"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
)

// Store is the persistence the runner needs; *store.DB implements it.
type Store interface {
	PutEvaluation(ctx context.Context, e store.Evaluation) error
	GetEvaluation(ctx context.Context, id string) (store.Evaluation, error)
	// PutSimulations stores finished trials of one evaluation together:
	// all of them, durably, or on an error none.
	PutSimulations(ctx context.Context, evalID string, sims []store.Simulation) error
	// PutEvaluationWith stores an evaluation's record with some of its
	// trials in one transaction: all, or on an error none.
	PutEvaluationWith(ctx context.Context, e store.Evaluation, sims []store.Simulation) error
	Simulations(ctx context.Context, evalID string) ([]store.Simulation, error)
	Requests(ctx context.Context, evalID, simID string) (json.RawMessage, error)
	// AllRequests is Requests for every simulation of an evaluation, in
	// one read.
	AllRequests(ctx context.Context, evalID string) (map[string]json.RawMessage, error)
}

// Observer is told of every simulation a Runner records, as it records
// it: with its requests' metrics (Simulation.Requests), its termination
// and its model calls. It is called from one goroutine per evaluation, but
// from many evaluations at once, so it must be safe for concurrent use; it
// must not keep or change sim. The Prometheus metrics of `proctor serve`
// are gathered this way.
type Observer interface {
	SimulationRecorded(domain string, sim *result.Simulation)
}

// Progress reports a finished trial: a simulation, or a trial of an
// eval-set case.
type Progress struct {
	Done   int
	Total  int
	Passed int
	// Last is the simulation just recorded, in an evaluation of
	// simulations (Run); LastCase the case trial just recorded, in an
	// evaluation of eval sets (RunCases). The other is nil.
	Last     *result.Simulation
	LastCase *result.CaseResult
}

// Runner runs evaluations, of simulations (Run) or of eval-set cases
// (RunCases), the one way: it plans every trial (task x trial, case x
// trial) not already stored, plays them with bounded concurrency, scores
// each as it ends, stores the finished ones as they come (those that finish
// together share a transaction; the last ones share the closing record's),
// and totals the evaluation. A second run of the same evaluation resumes it.
// The two kinds differ only in the player and scorer they plug in.
type Runner struct {
	// Simulator plays simulations of Agent against the users Users makes
	// (default rollout.ScriptedUsers); Scorer scores them (Run).
	Simulator *rollout.Simulator
	Scorer    *scoring.Scorer
	Agent     rollout.Agent
	Users     rollout.UserFactory
	// CaseRecorder plays eval-set cases and CaseScorer scores and totals
	// them (RunCases).
	CaseRecorder CaseRecorder
	CaseScorer   CaseScorer

	Store       Store // optional: without it nothing is persisted
	Concurrency int
	// Slots, when set, is shared with other runners: a trial runs only
	// while it holds one, whatever Concurrency says.
	Slots      *Slots
	OnProgress func(Progress)
	// TracerProvider, when set, gets a span per evaluation and per trial,
	// the parents of the player's, the agent's and the models' spans (see
	// package tracing); nil records none.
	TracerProvider trace.TracerProvider

	// Observer, when set, sees every simulation recorded (not those a
	// resume loads from the store).
	Observer Observer
}

// tracer is TracerProvider's, nil without one.
func (r *Runner) tracer() trace.Tracer {
	if r.TracerProvider == nil {
		return nil
	}
	return tracing.Tracer(r.TracerProvider)
}

// trialKind is what a kind of evaluation plugs into the Runner: how its
// record starts, is stored and ends, which trials it has, how one is played
// and scored, and how a finished one is stored, counted and totalled. J is
// a trial to play, T the record of a finished one.
type trialKind[J, T any] interface {
	// evaluationID is the id of the evaluation's record.
	evaluationID() string
	// names are what its record and its trials are called in errors.
	names() kindNames
	// startSpan and endSpan open and close the evaluation's span.
	startSpan(ctx context.Context) (context.Context, trace.Span)
	endSpan(span trace.Span, err error)
	// begin checks the runner's parts and marks the record running.
	begin() error
	// record encodes the evaluation's record, without its trials.
	record() (store.Evaluation, error)
	// trials lists every trial to play, in order; trialID names one as
	// its finished record (id) is named.
	trials() []J
	trialID(j J) string
	// play plays and scores a trial under its span; aborted says ctx
	// ended it, and it must not be recorded.
	play(ctx context.Context, j J) (t T, aborted bool)
	// row encodes a finished trial for the store; decode reads it back.
	row(t T) (store.Simulation, error)
	decode(rec store.Simulation) (T, error)
	id(t T) string
	passed(t T) bool
	// settle is a stored trial with its requests (kept apart in the
	// store) dropped, and their latencies; it leaves t as it was.
	settle(t T) (T, []float64)
	// observe tells whoever watches of a trial just stored, requests
	// included.
	observe(t T)
	// progress names the last of done in p.
	progress(p Progress, done []T) Progress
	// finish orders and totals the finished trials into the record;
	// end marks how the evaluation ended.
	finish(done []T, latencies []float64)
	end(status result.Status, why string)
}

// kindNames are what a kind's record and trials are called in errors:
// "evaluation" and "simulation", "eval-set run" and "case result".
type kindNames struct{ record, trial string }

// tally is what an evaluation has finished so far.
type tally[T any] struct {
	done      []T
	latencies []float64
	total     int
	passed    int
}

// runEngine runs the evaluation k describes: every trial that is not already
// stored, then totals it. When ctx ends early, finished trials are kept
// and the evaluation is saved as interrupted.
func runEngine[J, T any](ctx context.Context, r *Runner, k trialKind[J, T]) error {
	ctx, span := k.startSpan(ctx)
	err := runTraced(ctx, r, k)
	k.endSpan(span, err)
	return err
}

// runTraced is runEngine under the evaluation's span.
func runTraced[J, T any](ctx context.Context, r *Runner, k trialKind[J, T]) error {
	// The record is saved, and what it finished read, even when ctx ends
	// first: cut short this early, the evaluation must still be stored,
	// and end as interrupted below, not missing or left "running" (a drain
	// checkpoints its task for a resume, which refuses both).
	keep := context.WithoutCancel(ctx)
	if err := k.begin(); err != nil {
		return err
	}
	t, jobs, err := plan(keep, r.Store, k)
	if err != nil {
		return err
	}
	begun, err := startRecord(keep, r.Store, k)
	if err != nil {
		return err
	}
	held, storeErr := execute(ctx, r, k, jobs, t, begun)
	return conclude(ctx, r, k, t, held, storeErr)
}

// conclude totals the evaluation, marks how it ended and stores its record,
// even when ctx is over (the record must then say interrupted). The trials
// held back (the last to finish, not stored yet) go in the record's
// transaction; when that fails they are stored one by one, so that one the
// store refuses is named and those before it kept, then the record alone.
func conclude[J, T any](ctx context.Context, r *Runner, k trialKind[J, T], t *tally[T], held []T, storeErr error) error {
	keep := context.WithoutCancel(ctx)
	if len(held) > 0 {
		rows, err := encodeRows(k.row, held)
		if err == nil && closeWith(ctx, r, k, t, held, rows) == nil {
			return nil
		}
		stored, perr := persistRows(keep, r.Store, k.evaluationID(), k.names().trial, rows)
		for _, h := range held[:stored] {
			t.add(r, k, h)
		}
		storeErr = cmp.Or(err, perr)
	}
	k.finish(t.done, t.latencies)
	k.end(ending(ctx, t, storeErr))
	if err := saveRecord(keep, r.Store, k); err != nil {
		return err
	}
	return storeErr
}

// closeWith stores the evaluation's record, totalled with the held
// trials, and their rows in one transaction; once that is done it
// tallies them.
func closeWith[J, T any](ctx context.Context, r *Runner, k trialKind[J, T], t *tally[T], held []T, rows []store.Simulation) error {
	next := t.clone()
	for _, h := range held {
		next.keep(k, h)
	}
	k.finish(next.done, next.latencies)
	k.end(ending(ctx, next, nil))
	rec, err := k.record()
	if err != nil {
		return err
	}
	if err := r.Store.PutEvaluationWith(context.WithoutCancel(ctx), rec, rows); err != nil {
		return err
	}
	for _, h := range held {
		t.add(r, k, h)
	}
	return nil
}

// ending is how an evaluation with tally t ended.
func ending[T any](ctx context.Context, t *tally[T], storeErr error) (result.Status, string) {
	switch {
	case storeErr != nil:
		return result.StatusFailed, storeErr.Error()
	case ctx.Err() != nil || len(t.done) < t.total:
		// Cut short, or drained (see Slots.Drain): what did not run
		// stays to do, and a resume runs it.
		return result.StatusInterrupted, ""
	default:
		return result.StatusCompleted, ""
	}
}

// plan loads the trials already stored and lists the ones to play.
func plan[J, T any](ctx context.Context, st Store, k trialKind[J, T]) (*tally[T], []J, error) {
	done, latencies, err := loadDone(ctx, st, k)
	if err != nil {
		return nil, nil, err
	}
	finished := make(map[string]bool, len(done))
	t := &tally[T]{done: done, latencies: latencies}
	for _, d := range done {
		finished[k.id(d)] = true
		if k.passed(d) {
			t.passed++
		}
	}
	var jobs []J
	for _, j := range k.trials() {
		if !finished[k.trialID(j)] {
			jobs = append(jobs, j)
		}
	}
	t.total = len(jobs) + len(done)
	return t, jobs, nil
}

// loadDone reads the trials already stored for an evaluation and their
// request latencies, for a resume.
func loadDone[J, T any](ctx context.Context, st Store, k trialKind[J, T]) ([]T, []float64, error) {
	if st == nil {
		return nil, nil, nil
	}
	done, latencies, err := loadTrialsTimed(ctx, st, k.evaluationID(), k.names().trial, k.decode, k.id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, nil // a new evaluation: its record is not stored yet
	}
	return done, latencies, err
}

// loadTrialsTimed is loadTrials with the trials' request latencies (id
// names a trial as the store does).
func loadTrialsTimed[T any](ctx context.Context, st Store, evalID, noun string, decode func(store.Simulation) (T, error),
	id func(T) string) ([]T, []float64, error) {
	done, err := loadTrials(ctx, st, evalID, noun, decode)
	if err != nil {
		return nil, nil, err
	}
	all, err := st.AllRequests(ctx, evalID)
	if err != nil {
		return nil, nil, fmt.Errorf("load request metrics of %s: %w", evalID, err)
	}
	var lat []float64
	for _, d := range done {
		lat = append(lat, Latencies(all[id(d)])...)
	}
	return done, lat, nil
}

// loadTrials reads the stored trials (nouns) of an evaluation with decode.
func loadTrials[T any](ctx context.Context, st Store, evalID, noun string, decode func(store.Simulation) (T, error)) ([]T, error) {
	recs, err := st.Simulations(ctx, evalID)
	if err != nil {
		return nil, fmt.Errorf("load %ss of %s: %w", noun, evalID, err)
	}
	out := make([]T, 0, len(recs))
	for _, rec := range recs {
		t, err := decode(rec)
		if err != nil {
			return nil, fmt.Errorf("%s %s of %s is unreadable: %w", noun, rec.ID, evalID, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// execute plays the jobs on Concurrency workers and tallies what they
// finish. A finished trial is stored apart from the worker that played it,
// which goes on to its next trial: a trial is often a single request, and
// waiting for its write would make the store's commit the pace of the
// evaluation, where concurrent writes share one. It returns the first
// store error, which stops the evaluation: one that cannot be recorded
// must not go on. The trials that finish last are held back, not stored:
// they go in the transaction of the evaluation's closing record.
func execute[J, T any](ctx context.Context, r *Runner, k trialKind[J, T], jobs []J, t *tally[T], begun <-chan error) ([]T, error) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &writer[T]{st: r.Store, evalID: k.evaluationID(), noun: k.names().trial, row: k.row, cancel: cancel, planned: len(jobs),
		finished: make(chan T, max(4*r.Concurrency, maxPendingWrites)), results: make(chan []T, 1)}
	jobCh := make(chan J)
	var workers sync.WaitGroup
	for range min(max(r.Concurrency, 1), max(len(jobs), 1)) {
		workers.Go(func() {
			for j := range jobCh {
				if r.Slots.acquire(runCtx) != nil {
					continue // interrupted while waiting: the trial stays to do
				}
				done, aborted := k.play(runCtx, j)
				r.Slots.release()
				if aborted {
					continue
				}
				w.finished <- done
			}
		})
	}
	go func() {
		defer close(jobCh)
		for _, j := range jobs {
			select {
			case jobCh <- j:
			case <-runCtx.Done():
				return
			}
		}
	}()
	go func() { workers.Wait(); close(w.finished) }()
	go w.run(runCtx, begun)
	for stored := range w.results {
		for _, done := range stored {
			t.add(r, k, done)
		}
	}
	return w.held, w.err
}

// add tallies a stored trial, telling whoever watches, and reports
// progress.
func (t *tally[T]) add(r *Runner, k interface {
	settle(T) (T, []float64)
	observe(T)
	passed(T) bool
	progress(Progress, []T) Progress
}, done T) {
	k.observe(done)
	t.keep(k, done)
	if r.OnProgress != nil {
		r.OnProgress(k.progress(Progress{Done: len(t.done), Total: t.total, Passed: t.passed}, t.done))
	}
}

// keep counts a finished trial in the tally.
func (t *tally[T]) keep(k interface {
	settle(T) (T, []float64)
	passed(T) bool
}, done T) {
	done, lat := k.settle(done)
	t.latencies = append(t.latencies, lat...)
	t.done = append(t.done, done)
	if k.passed(done) {
		t.passed++
	}
}

// clone is a copy of t that can be added to without changing t.
func (t *tally[T]) clone() *tally[T] {
	return &tally[T]{done: slices.Clone(t.done), latencies: slices.Clone(t.latencies), total: t.total, passed: t.passed}
}

// maxPendingWrites is how many finished trials may wait for the store at
// least: enough for one commit to take a whole batch of short trials.
const maxPendingWrites = 256

// commitInterval is the least time between two commits of one
// evaluation's trials while they finish faster than that: the trials that
// finish in between wait (at most this long) and share the next commit. A
// trial that finishes after a quiet spell, and the last ones of a run, are
// stored at once.
const commitInterval = 10 * time.Millisecond

// writer stores finished trials, in batches, and hands each stored one to
// results.
type writer[T any] struct {
	st       Store
	evalID   string
	noun     string
	row      func(T) (store.Simulation, error)
	cancel   context.CancelFunc
	finished chan T   // from the workers; closed when they are done
	results  chan []T // to the tally, batch by batch; closed when every trial is stored
	err      error    // the first failed write; read after results closes
	held     []T      // the last trials, not stored; read after results closes
	planned  int      // the trials to play
	taken    int      // the finished trials taken from the workers so far
}

// run stores what the workers finish until they are done, once the
// evaluation's record is stored (begun): each batch is what finished since
// the previous commit, gathered for at most commitInterval after it. The
// batch gathered as the workers finish is held back for the closing
// record's transaction.
func (w *writer[T]) run(ctx context.Context, begun <-chan error) {
	defer close(w.results)
	if err := <-begun; err != nil {
		w.err = err
		w.cancel()
	}
	var last time.Time
	for {
		batch, more := w.gather(last)
		w.taken += len(batch)
		if !more && w.st != nil && w.err == nil {
			w.held = batch
			return
		}
		if len(batch) > 0 {
			w.store(ctx, batch)
			last = time.Now()
		}
		if !more {
			return
		}
	}
}

// gather waits for a finished trial, then takes every other one that
// finishes before commitInterval has passed since the last commit (or
// until the workers are done, or maxPendingWrites are taken). more is
// false once the workers are done.
func (w *writer[T]) gather(last time.Time) (batch []T, more bool) {
	first, ok := <-w.finished
	if !ok {
		return nil, false
	}
	batch = append(batch, first)
	wait := commitInterval - time.Since(last)
	if wait <= 0 {
		return w.take(batch, nil)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	return w.take(batch, timer.C)
}

// take adds to batch the finished trials that come before until fires
// and then those already waiting (with until nil, only those), up to
// maxPendingWrites. more is false once the workers are done, or batch
// holds the last of the trials to play.
func (w *writer[T]) take(batch []T, until <-chan time.Time) (_ []T, more bool) {
	for len(batch) < maxPendingWrites {
		if w.taken+len(batch) == w.planned {
			return batch, false
		}
		var t T
		var ok bool
		if until == nil {
			select {
			case t, ok = <-w.finished:
			default:
				return batch, true
			}
		} else {
			select {
			case t, ok = <-w.finished:
			case <-until:
				return w.take(batch, nil)
			}
		}
		if !ok {
			return batch, false
		}
		batch = append(batch, t)
	}
	return batch, true
}

// store writes batch and hands its stored trials to the tally. After a
// failed write it stores nothing more and cancels the run: the trials not
// stored are dropped (the tally counts only what is stored, and a resume
// plays them again).
func (w *writer[T]) store(ctx context.Context, batch []T) {
	if w.err != nil {
		return
	}
	stored, err := w.persist(ctx, batch)
	if stored > 0 {
		w.results <- batch[:stored]
	}
	if err != nil {
		w.err = err
		w.cancel()
	}
}

// persist stores finished trials, if there is a store, and says how many
// of the first ones it stored (see persistRows).
func (w *writer[T]) persist(ctx context.Context, batch []T) (int, error) {
	if w.st == nil {
		return len(batch), nil
	}
	rows, encodeErr := encodeRows(w.row, batch)
	stored, err := persistRows(context.WithoutCancel(ctx), w.st, w.evalID, w.noun, rows)
	return stored, cmp.Or(err, encodeErr)
}

// encodeRows encodes finished trials for the store, up to the first that
// does not encode (with its error).
func encodeRows[T any](encode func(T) (store.Simulation, error), trials []T) ([]store.Simulation, error) {
	rows := make([]store.Simulation, 0, len(trials))
	for _, t := range trials {
		row, err := encode(t)
		if err != nil {
			return rows, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// persistRows stores rows of an evaluation and says how many of the first
// ones it stored: all together, or when that fails one by one, so that the
// trial (a noun) the store refuses is named and those before it are kept.
func persistRows(ctx context.Context, st Store, evalID, noun string, rows []store.Simulation) (int, error) {
	if len(rows) > 1 && st.PutSimulations(ctx, evalID, rows) == nil {
		return len(rows), nil
	}
	for i, row := range rows {
		if err := st.PutSimulations(ctx, evalID, []store.Simulation{row}); err != nil {
			return i, fmt.Errorf("store %s %s: %w", noun, row.ID, err)
		}
	}
	return len(rows), nil
}

// recordKind is what an evaluation's kind gives for its record.
type recordKind interface {
	names() kindNames
	record() (store.Evaluation, error)
}

// startRecord encodes the evaluation's record and starts storing it, if
// there is a store: the trials are played meanwhile, and stored once the
// record is (their rows need it). The channel gives the outcome.
func startRecord(ctx context.Context, st Store, k recordKind) (<-chan error, error) {
	begun := make(chan error, 1)
	if st == nil {
		begun <- nil
		return begun, nil
	}
	rec, err := k.record()
	if err != nil {
		return nil, err
	}
	go func() { begun <- putRecord(ctx, st, k.names(), rec) }()
	return begun, nil
}

// putRecord stores an evaluation's record.
func putRecord(ctx context.Context, st Store, names kindNames, rec store.Evaluation) error {
	if err := st.PutEvaluation(ctx, rec); err != nil {
		return fmt.Errorf("store %s %s: %w", names.record, rec.ID, err)
	}
	return nil
}

// saveRecord stores the evaluation's record, if there is a store.
func saveRecord(ctx context.Context, st Store, k recordKind) error {
	if st == nil {
		return nil
	}
	rec, err := k.record()
	if err != nil {
		return err
	}
	return putRecord(ctx, st, k.names(), rec)
}

// encodeRow is the stored row of a finished trial (a noun): its record
// and, apart, its requests' metrics.
func encodeRow(noun string, row store.Simulation, trial, requests any) (store.Simulation, error) {
	data, err := json.Marshal(trial)
	if err != nil {
		return row, fmt.Errorf("encode %s %s: %w", noun, row.ID, err)
	}
	reqs, err := json.Marshal(requests)
	if err != nil {
		return row, fmt.Errorf("encode requests of %s: %w", row.ID, err)
	}
	row.Data, row.Requests = data, reqs
	return row, nil
}

// now is the time records are stamped with.
func now() time.Time { return time.Now().UTC() }

// Latencies decodes the latencies of stored request metrics (the JSON
// of []measure.Request), reading nothing else of them; metrics
// that do not decode give none.
func Latencies(raw json.RawMessage) []float64 {
	if len(raw) == 0 {
		return nil
	}
	var reqs []struct {
		LatencyMS float64 `json:"latency_ms"`
	}
	if json.Unmarshal(raw, &reqs) != nil {
		return nil
	}
	out := make([]float64, len(reqs))
	for i, q := range reqs {
		out[i] = q.LatencyMS
	}
	return out
}
