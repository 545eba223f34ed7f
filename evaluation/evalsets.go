package evaluation

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// CasePlayer plays one run of a case and records what the agent did,
// unscored: the actual invocations, what was seen of each turn, request
// metrics, and ErrorMessage when the case could not be played.
type CasePlayer interface {
	PlayCase(ctx context.Context, set *evalset.Set, c *evalset.Case, run int) *result.CaseResult
}

// CaseScorer scores a recorded case run in place: its verdict per metric
// and per invocation, and its final status.
type CaseScorer interface {
	ScoreCase(ctx context.Context, set *evalset.Set, c *evalset.Case, r *result.CaseResult)
}

// CaseProgress reports a finished case run.
type CaseProgress struct {
	Done   int
	Total  int
	Passed int
	Last   *result.CaseResult
}

// EvalSetRunner runs eval sets: every case x run, with bounded concurrency,
// each played by the Player, scored by the Scorer as it ends, and stored in
// its own transaction, so that a second Run of the same run resumes it.
type EvalSetRunner struct {
	Player CasePlayer
	Scorer CaseScorer
	// Summarize totals the case results of numRuns runs.
	Summarize func(results []*result.CaseResult, numRuns int) result.EvalSetSummary
	// Store is optional: without it nothing is persisted.
	Store       Store
	Concurrency int
	// Slots, when set, is shared with other runners (see Runner.Slots).
	Slots      *Slots
	OnProgress func(CaseProgress)
	// TracerProvider, when set, gets a span per run and per case run,
	// the parents of the player's spans; nil records none.
	TracerProvider trace.TracerProvider

	// recorded, when set, holds the case results of a run being scored
	// again, by id: they are scored, not played.
	recorded map[string]*result.CaseResult
}

// NewEvalSetRun starts the record of a run of sets.
func NewEvalSetRun(id string, cfg result.EvalSetConfig, agent result.AgentInfo, sets []*evalset.Set) *result.EvalSetRun {
	now := time.Now().UTC()
	run := &result.EvalSetRun{ID: id, Status: result.StatusRunning, Agent: agent, Config: cfg, CreatedAt: now, UpdatedAt: now}
	for _, s := range sets {
		run.Sets = append(run.Sets, result.EvalSetInfo{
			ID: s.ID, AppName: s.AppName, Name: s.Name, Format: s.Format, Path: s.Path, NumCases: len(s.Cases),
			Metrics: s.Metrics, Cases: s.Cases,
		})
	}
	return run
}

// CaseResultID is the stored id of a case's run: "<evalSetId>/<evalId>#<run>".
func CaseResultID(setID, caseID string, run int) string {
	return fmt.Sprintf("%s/%s#%d", setID, caseID, run)
}

// caseTally is what a run has finished so far.
type caseTally struct {
	done      []*result.CaseResult
	latencies []float64
	total     int
}

type caseJob struct {
	set *evalset.Set
	c   *evalset.Case
	run int
}

// Run plays every case run of sets that is not already stored, then totals
// the run. When ctx ends early, finished case runs are kept and the run is
// saved as interrupted.
func (r *EvalSetRunner) Run(ctx context.Context, run *result.EvalSetRun, sets []*evalset.Set) error {
	ctx, span := r.startRunSpan(ctx, run, sets)
	err := r.runTraced(ctx, run, sets)
	endRunSpan(span, run, err)
	return err
}

// runTraced is Run under the run's span.
func (r *EvalSetRunner) runTraced(ctx context.Context, run *result.EvalSetRun, sets []*evalset.Set) error {
	if err := r.check(sets); err != nil {
		return err
	}
	run.Status, run.Error, run.FinishedAt = result.StatusRunning, "", nil
	if err := r.save(ctx, run); err != nil {
		return err
	}
	t, err := r.loadDone(ctx, run.ID)
	if err != nil {
		return err
	}
	jobs := r.plan(sets, max(run.Config.NumRuns, 1), t.done)
	t.total = len(jobs) + len(t.done)
	storeErr := r.execute(ctx, run.ID, jobs, t)
	r.finish(run, sets, t)
	switch {
	case storeErr != nil:
		run.Status, run.Error = result.StatusFailed, storeErr.Error()
	case ctx.Err() != nil || len(t.done) < t.total:
		run.Status = result.StatusInterrupted // cut short or drained
	default:
		run.Status = result.StatusCompleted
		now := time.Now().UTC()
		run.FinishedAt = &now
	}
	if err := r.save(context.WithoutCancel(ctx), run); err != nil {
		return err
	}
	return storeErr
}

// check refuses a runner without its parts and sets whose ids collide.
func (r *EvalSetRunner) check(sets []*evalset.Set) error {
	if r.Player == nil || r.Scorer == nil || r.Summarize == nil {
		return fmt.Errorf("eval-set runner: player, scorer and summarize are all required")
	}
	seen := map[string]string{}
	for _, s := range sets {
		if prev, ok := seen[s.ID]; ok {
			return fmt.Errorf("eval sets %s and %s both have the id %q: give one of them another evalSetId", prev, s.Path, s.ID)
		}
		seen[s.ID] = s.Path
	}
	return nil
}

// plan lists the case runs still to do: run by run, set by set, case by
// case, as tRPC-Agent-Go orders them.
func (r *EvalSetRunner) plan(sets []*evalset.Set, numRuns int, done []*result.CaseResult) []caseJob {
	finished := make(map[string]bool, len(done))
	for _, d := range done {
		finished[d.ID] = true
	}
	var jobs []caseJob
	for run := 1; run <= numRuns; run++ {
		for _, s := range sets {
			for _, c := range s.Cases {
				id := CaseResultID(s.ID, c.ID, run)
				if _, ok := r.recorded[id]; r.recorded != nil && !ok {
					continue // a rescore scores what its source recorded
				}
				if !finished[id] {
					jobs = append(jobs, caseJob{s, c, run})
				}
			}
		}
	}
	return jobs
}

// execute runs the jobs on Concurrency workers and tallies what they
// finish. A finished case run is stored apart from the worker that played
// it, which goes on to its next case: a case is often a single request, and
// waiting for its write would make the store's commit the pace of the run,
// where concurrent writes share one. It returns the first store error,
// which stops the run.
func (r *EvalSetRunner) execute(ctx context.Context, runID string, jobs []caseJob, t *caseTally) error {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &caseWriter{r: r, runID: runID, cancel: cancel, results: make(chan *result.CaseResult),
		pending: make(chan struct{}, max(4*r.Concurrency, maxPendingWrites))}
	jobCh := make(chan caseJob)
	var workers sync.WaitGroup
	for range min(max(r.Concurrency, 1), max(len(jobs), 1)) {
		workers.Go(func() {
			for j := range jobCh {
				if r.Slots.acquire(runCtx) != nil {
					continue
				}
				cr := r.runOne(runCtx, j)
				r.Slots.release()
				if runCtx.Err() != nil {
					continue // cut short: the case run stays to do
				}
				w.store(runCtx, cr)
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
	go func() { workers.Wait(); w.writes.Wait(); close(w.results) }()
	r.tally(t, w.results)
	return w.err
}

// maxPendingWrites is how many finished case runs may wait for the store
// at least: enough for one commit to take a whole batch of short cases.
const maxPendingWrites = 256

// caseWriter stores finished case runs concurrently, at most cap(pending)
// at once, and hands each stored one to results.
type caseWriter struct {
	r       *EvalSetRunner
	runID   string
	cancel  context.CancelFunc
	results chan *result.CaseResult
	pending chan struct{}
	writes  sync.WaitGroup
	once    sync.Once
	err     error
}

// store starts writing cr; it waits only while too many writes are pending.
func (w *caseWriter) store(ctx context.Context, cr *result.CaseResult) {
	w.pending <- struct{}{}
	w.writes.Go(func() {
		defer func() { <-w.pending }()
		if err := w.r.persist(ctx, w.runID, cr); err != nil {
			w.once.Do(func() { w.err = err })
			w.cancel()
			return
		}
		// Always delivered: tally reads until every write is done, and a
		// stored case run must be in the result.
		w.results <- cr
	})
}

// tally adds the stored case runs to t as they arrive, reporting progress.
func (r *EvalSetRunner) tally(t *caseTally, results <-chan *result.CaseResult) {
	passed := countPassed(t.done)
	for cr := range results {
		for _, q := range cr.Requests {
			t.latencies = append(t.latencies, q.LatencyMS)
		}
		cr.Requests = nil
		t.done = append(t.done, cr)
		if cr.FinalEvalStatus == result.EvalPassed {
			passed++
		}
		if r.OnProgress != nil {
			r.OnProgress(CaseProgress{Done: len(t.done), Total: t.total, Passed: passed, Last: cr})
		}
	}
}

func countPassed(rs []*result.CaseResult) int {
	n := 0
	for _, cr := range rs {
		if cr.FinalEvalStatus == result.EvalPassed {
			n++
		}
	}
	return n
}

// runOne plays a case run (or, in a rescore, takes its recording) and
// scores it.
func (r *EvalSetRunner) runOne(ctx context.Context, j caseJob) *result.CaseResult {
	ctx, span := r.startCaseSpan(ctx, j)
	cr := r.playCase(ctx, j)
	endCaseSpan(span, cr)
	return cr
}

// playCase is runOne under the case run's span.
func (r *EvalSetRunner) playCase(ctx context.Context, j caseJob) *result.CaseResult {
	id := CaseResultID(j.set.ID, j.c.ID, j.run)
	var cr *result.CaseResult
	if r.recorded != nil {
		cr = recordedCopy(r.recorded[id])
	} else {
		cr = r.Player.PlayCase(ctx, j.set, j.c, j.run)
	}
	cr.ID, cr.EvalSetID, cr.EvalID, cr.RunID = id, j.set.ID, j.c.ID, j.run
	r.Scorer.ScoreCase(ctx, j.set, j.c, cr)
	return cr
}

// recordedCopy is a stored case run with its scores cleared, to be scored
// again.
func recordedCopy(src *result.CaseResult) *result.CaseResult {
	cr := *src
	cr.FinalEvalStatus, cr.OverallEvalMetricResults, cr.EvalMetricResultPerInvocation = "", nil, nil
	// LLM calls of the source's judges are not this scoring's.
	cr.LLMCalls = slices.DeleteFunc(slices.Clone(cr.LLMCalls), func(c llm.Call) bool { return c.Role == llm.RoleJudge })
	return &cr
}

// finish orders the case runs as planned and totals them.
func (r *EvalSetRunner) finish(run *result.EvalSetRun, sets []*evalset.Set, t *caseTally) {
	done := sortedCases(t.done, sets)
	run.Cases = done
	run.Summary = r.Summarize(done, max(run.Config.NumRuns, 1))
	run.Summary.NumSets = len(sets)
	ms := make([]result.Metrics, len(done))
	for i, cr := range done {
		ms[i] = cr.Metrics
	}
	run.Metrics = result.Merge(ms, t.latencies)
}

// sortedCases orders case runs run by run, in the sets' case order.
func sortedCases(done []*result.CaseResult, sets []*evalset.Set) []*result.CaseResult {
	order := map[string]int{}
	for _, s := range sets {
		for _, c := range s.Cases {
			order[s.ID+"/"+c.ID] = len(order)
		}
	}
	slices.SortStableFunc(done, func(a, b *result.CaseResult) int {
		if a.RunID != b.RunID {
			return a.RunID - b.RunID
		}
		return order[a.EvalSetID+"/"+a.EvalID] - order[b.EvalSetID+"/"+b.EvalID]
	})
	return done
}

func (r *EvalSetRunner) persist(ctx context.Context, runID string, cr *result.CaseResult) error {
	if r.Store == nil {
		return nil
	}
	data, err := json.Marshal(cr)
	if err != nil {
		return fmt.Errorf("encode case result %s: %w", cr.ID, err)
	}
	reqs, err := json.Marshal(cr.Requests)
	if err != nil {
		return fmt.Errorf("encode requests of %s: %w", cr.ID, err)
	}
	reward := 0.0
	if cr.FinalEvalStatus == result.EvalPassed {
		reward = 1
	}
	err = r.Store.PutSimulation(context.WithoutCancel(ctx), runID, store.Simulation{
		ID: cr.ID, TaskID: cr.EvalSetID + "/" + cr.EvalID, Trial: cr.RunID, Reward: reward, Data: data, Requests: reqs,
	})
	if err != nil {
		return fmt.Errorf("store case result %s: %w", cr.ID, err)
	}
	return nil
}

func (r *EvalSetRunner) save(ctx context.Context, run *result.EvalSetRun) error {
	if r.Store == nil {
		return nil
	}
	run.UpdatedAt = time.Now().UTC()
	head := *run
	head.Cases = nil // case runs live in their own records
	data, err := json.Marshal(head)
	if err != nil {
		return fmt.Errorf("encode eval-set run: %w", err)
	}
	err = r.Store.PutEvaluation(ctx, store.Evaluation{
		ID: run.ID, Kind: store.KindEvalSets, AgentURL: run.Agent.Address(), Status: string(run.Status),
		CreatedAt: run.CreatedAt, UpdatedAt: run.UpdatedAt, Data: data,
	})
	if err != nil {
		return fmt.Errorf("store eval-set run %s: %w", run.ID, err)
	}
	return nil
}

// loadDone reads the case runs already stored, and their request
// latencies, for resume.
func (r *EvalSetRunner) loadDone(ctx context.Context, runID string) (*caseTally, error) {
	t := &caseTally{}
	if r.Store == nil {
		return t, nil
	}
	done, err := loadCaseResults(ctx, r.Store, runID)
	if err != nil {
		return nil, err
	}
	t.done = done
	t.latencies = caseLatencies(ctx, r.Store, runID, done)
	return t, nil
}

// caseLatencies reads the stored request latencies of case runs.
func caseLatencies(ctx context.Context, st Store, runID string, done []*result.CaseResult) []float64 {
	var lat []float64
	for _, cr := range done {
		raw, err := st.Requests(ctx, runID, cr.ID)
		if err != nil || len(raw) == 0 {
			continue
		}
		var reqs []a2aclient.RequestMetrics
		if json.Unmarshal(raw, &reqs) == nil {
			for _, q := range reqs {
				lat = append(lat, q.LatencyMS)
			}
		}
	}
	return lat
}

func loadCaseResults(ctx context.Context, st Store, runID string) ([]*result.CaseResult, error) {
	recs, err := st.Simulations(ctx, runID)
	if err != nil {
		return nil, fmt.Errorf("load case results of %s: %w", runID, err)
	}
	out := make([]*result.CaseResult, 0, len(recs))
	for _, rec := range recs {
		var cr result.CaseResult
		if err := json.Unmarshal(rec.Data, &cr); err != nil {
			return nil, fmt.Errorf("case result %s of %s is unreadable: %w", rec.ID, runID, err)
		}
		out = append(out, &cr)
	}
	return out, nil
}
