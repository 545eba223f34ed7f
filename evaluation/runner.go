package evaluation

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/internal/tracing"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
)

// Store is the persistence the runner needs; *store.DB implements it.
type Store interface {
	PutEvaluation(ctx context.Context, e store.Evaluation) error
	GetEvaluation(ctx context.Context, id string) (store.Evaluation, error)
	PutSimulation(ctx context.Context, evalID string, s store.Simulation) error
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

// Progress reports a finished simulation.
type Progress struct {
	Done   int
	Total  int
	Passed int
	Last   *result.Simulation
}

// Runner runs evaluations: every task x trial, with bounded concurrency,
// each simulation played by the Simulator, scored by the Scorer as it ends,
// and stored in its own transaction.
type Runner struct {
	Simulator   *rollout.Simulator
	Scorer      *scoring.Scorer
	Agent       rollout.Agent
	Users       rollout.UserFactory
	Store       Store // optional: without it nothing is persisted
	Concurrency int
	// Slots, when set, is shared with other runners: a simulation runs only
	// while it holds one, whatever Concurrency says.
	Slots      *Slots
	OnProgress func(Progress)
	// TracerProvider, when set, gets a span per evaluation and per
	// simulation, the parents of the simulator's, the agent's and the
	// models' spans (see package tracing); nil records none.
	TracerProvider trace.TracerProvider

	// Observer, when set, sees every simulation recorded (not those a
	// resume loads from the store).
	Observer Observer

	// recorded, when set, holds the simulations of an evaluation being
	// scored again (Rescore), by simulation id: they are scored, not
	// played.
	recorded map[string]result.Simulation
	// tracer is TracerProvider's, nil without one.
	tracer trace.Tracer
}

// NewEvaluation starts the record of an evaluation.
func NewEvaluation(id string, cfg result.Config, agent result.AgentInfo) *result.Evaluation {
	now := time.Now().UTC()
	return &result.Evaluation{ID: id, Status: result.StatusRunning, Domain: cfg.Domain, Agent: agent, Config: cfg, CreatedAt: now, UpdatedAt: now}
}

type job struct {
	task  *domains.Task
	trial int
}

// tally is what an evaluation has finished so far, for progress reports.
type tally struct {
	done      []result.Simulation
	latencies []float64
	total     int
	passed    int
	domain    string
}

// Run runs every simulation of eval that is not already stored (so a second
// Run of the same evaluation resumes it), then scores the whole evaluation.
// When ctx ends early, finished simulations are kept and the evaluation is
// saved as interrupted.
func (r *Runner) Run(ctx context.Context, eval *result.Evaluation, tasks []*domains.Task) error {
	if r.TracerProvider != nil {
		r.tracer = tracing.Tracer(r.TracerProvider)
	}
	ctx, span := r.startEvaluationSpan(ctx, eval, tasks)
	err := r.run(ctx, eval, tasks)
	endEvaluationSpan(span, eval, err)
	return err
}

// run is Run under the evaluation's span.
func (r *Runner) run(ctx context.Context, eval *result.Evaluation, tasks []*domains.Task) error {
	// The record is saved, and what it finished read, even when ctx ends
	// first: cut short this early, the evaluation must still be stored,
	// and end as interrupted below, not missing or left "running" (a drain
	// checkpoints its task for a resume, which refuses both).
	record := context.WithoutCancel(ctx)
	if err := r.start(record, eval, tasks); err != nil {
		return err
	}
	t, jobs, err := r.plan(record, eval, tasks)
	if err != nil {
		return err
	}
	storeErr := r.execute(ctx, eval.ID, jobs, t)
	r.finish(eval, t, tasks)
	switch {
	case storeErr != nil:
		eval.Status, eval.Error = result.StatusFailed, storeErr.Error()
	case ctx.Err() != nil || len(t.done) < t.total:
		// Cut short, or drained (see Slots.Drain): what did not run
		// stays to do, and a resume runs it.
		eval.Status = result.StatusInterrupted
	default:
		eval.Status = result.StatusCompleted
		if why := result.NoOutcome(eval.Simulations); why != "" {
			eval.Status, eval.Error = result.StatusFailed, why
		}
		now := time.Now().UTC()
		eval.FinishedAt = &now
	}
	// Save even when ctx is over: the record must say interrupted.
	if err := r.save(context.WithoutCancel(ctx), eval); err != nil {
		return err
	}
	return storeErr
}

// start checks the runner against the evaluation and saves it as running.
func (r *Runner) start(ctx context.Context, eval *result.Evaluation, tasks []*domains.Task) error {
	if r.Users == nil {
		r.Users = rollout.ScriptedUsers
	}
	if r.Scorer == nil {
		return fmt.Errorf("evaluation %s: the runner has no scorer", eval.ID)
	}
	if eval.Config.Strict != r.Scorer.Strict() {
		// One evaluation, one scoring mode: strict and lenient rewards
		// must not mix, on a first run or on a resume.
		return fmt.Errorf("evaluation %s: config says strict=%v but the scorer says strict=%v",
			eval.ID, eval.Config.Strict, r.Scorer.Strict())
	}
	if m := eval.Config.ActionMatch.OrDefault(); m != r.Scorer.ActionMatch() {
		return fmt.Errorf("evaluation %s: config says action_match=%s but the scorer matches %s",
			eval.ID, m, r.Scorer.ActionMatch())
	}
	eval.Config.ActionMatch = r.Scorer.ActionMatch() // recorded, not left to a default
	eval.Status, eval.Error, eval.FinishedAt = result.StatusRunning, "", nil
	if len(eval.Config.TaskIDs) == 0 {
		for _, t := range tasks {
			eval.Config.TaskIDs = append(eval.Config.TaskIDs, t.ID)
		}
	}
	return r.save(ctx, eval)
}

// plan loads the simulations already stored and lists the ones to run.
func (r *Runner) plan(ctx context.Context, eval *result.Evaluation, tasks []*domains.Task) (*tally, []job, error) {
	done, latencies, err := r.loadExisting(ctx, eval.ID)
	if err != nil {
		return nil, nil, err
	}
	finished := map[string]bool{}
	for _, s := range done {
		finished[s.ID] = true
	}
	var jobs []job
	for trial := range max(eval.Config.NumTrials, 1) {
		for _, t := range tasks {
			id := result.SimulationID(t.ID, trial)
			if _, ok := r.recorded[id]; r.recorded != nil && !ok {
				continue // a rescore scores what its source recorded
			}
			if !finished[id] {
				jobs = append(jobs, job{t, trial})
			}
		}
	}
	t := &tally{done: done, latencies: latencies, total: len(jobs) + len(done), domain: eval.Domain}
	for i := range done {
		if done[i].Passed() {
			t.passed++
		}
	}
	return t, jobs, nil
}

// execute runs the jobs on Concurrency workers, each storing what it
// finishes, and tallies them as they arrive. It returns the first store
// error, which stops the evaluation: one that cannot be recorded must not
// go on.
func (r *Runner) execute(ctx context.Context, evalID string, jobs []job, t *tally) error {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		storeErr  error
		storeOnce sync.Once
	)
	jobCh := make(chan job)
	results := make(chan result.Simulation)
	var wg sync.WaitGroup
	for range min(max(r.Concurrency, 1), max(len(jobs), 1)) {
		wg.Go(func() {
			for j := range jobCh {
				if r.Slots.acquire(runCtx) != nil {
					continue // interrupted while waiting: the job stays to do
				}
				sim, aborted := r.runOne(runCtx, j)
				r.Slots.release()
				if aborted {
					continue
				}
				// Workers persist concurrently so that the store can share
				// fsyncs between simulations that finish together.
				if err := r.persist(runCtx, evalID, &sim); err != nil {
					storeOnce.Do(func() { storeErr = err })
					cancel()
					return
				}
				// Always delivered: the loop below reads until every worker
				// is done, and a stored simulation must be in the result.
				results <- sim
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
	go func() { wg.Wait(); close(results) }()
	for sim := range results {
		r.record(t, sim)
	}
	return storeErr
}

// record adds a finished simulation to the tally and reports progress.
func (r *Runner) record(t *tally, sim result.Simulation) {
	if r.Observer != nil {
		r.Observer.SimulationRecorded(t.domain, &sim)
	}
	for _, q := range sim.Requests {
		t.latencies = append(t.latencies, q.LatencyMS)
	}
	sim.Requests = nil
	t.done = append(t.done, sim)
	if sim.Passed() {
		t.passed++
	}
	if r.OnProgress != nil {
		r.OnProgress(Progress{Done: len(t.done), Total: t.total, Passed: t.passed, Last: &t.done[len(t.done)-1]})
	}
}

// finish puts the simulations in task order and scores the evaluation.
func (r *Runner) finish(eval *result.Evaluation, t *tally, tasks []*domains.Task) {
	order := make([]string, len(tasks))
	for i, task := range tasks {
		order[i] = task.ID
	}
	sortSimulations(t.done, order)
	eval.Simulations = t.done
	eval.Summary = scoring.Summarize(t.done, order)
	eval.Metrics = result.MergeMetrics(t.done, t.latencies)
}

// runOne plays one simulation and scores it, or, in a rescore, scores its
// recording again.
func (r *Runner) runOne(ctx context.Context, j job) (result.Simulation, bool) {
	ctx, span := r.startSimulationSpan(ctx, j)
	sim, aborted := r.playOne(ctx, j)
	endSimulationSpan(span, &sim, aborted)
	return sim, aborted
}

// playOne is runOne under the simulation's span.
func (r *Runner) playOne(ctx context.Context, j job) (result.Simulation, bool) {
	if r.recorded != nil {
		return r.rescoreOne(ctx, j), false
	}
	user, err := r.Users(j.task, j.trial)
	if err != nil {
		sim := result.Simulation{
			ID: result.SimulationID(j.task.ID, j.trial), TaskID: j.task.ID, Trial: j.trial, StartedAt: time.Now().UTC(),
			TerminationReason: result.TermUserError, Error: err.Error(), Metrics: result.AggregateRequests(nil),
		}
		r.Scorer.Score(ctx, j.task, &sim, nil) // no reward: sim.Error says why
		return sim, false
	}
	return Simulate(ctx, r.Simulator, r.Scorer, j.task, j.trial, r.Agent, user)
}

// Simulate plays one simulation with sim and scores it with sc: the one
// simulation of an evaluation, outside a Runner. aborted reports whether
// ctx ended it (a result that must not be recorded).
func Simulate(ctx context.Context, sim *rollout.Simulator, sc *scoring.Scorer, task *domains.Task, trial int,
	agent rollout.Agent, user rollout.UserSimulator) (s result.Simulation, aborted bool) {
	rec, aborted := sim.Run(ctx, task, trial, agent, user)
	if aborted {
		return rec.Simulation, true
	}
	s = rec.Simulation
	scoreSimulation(ctx, sc, task, &s, rec.Env)
	return s, false
}

// scoreSimulation scores a simulation, metering the judge's model calls into the
// simulation's own (Simulation.LLMCalls, Metrics.LLMUsage) and keying
// them for cassettes as the rollout keyed the user's.
func scoreSimulation(ctx context.Context, sc *scoring.Scorer, task *domains.Task, sim *result.Simulation, final domains.Env) {
	ledger := &llm.Ledger{}
	sc.Score(rollout.WithSimulation(ctx, ledger, task.ID, sim.Trial), task, sim, final)
	if calls := ledger.Calls(); len(calls) > 0 {
		sim.LLMCalls = append(sim.LLMCalls, calls...)
		sim.Metrics.LLMUsage = llm.UsageByRole(sim.LLMCalls)
	}
}

func (r *Runner) persist(ctx context.Context, evalID string, sim *result.Simulation) error {
	if r.Store == nil {
		return nil
	}
	data, err := json.Marshal(sim)
	if err != nil {
		return fmt.Errorf("encode simulation %s: %w", sim.ID, err)
	}
	reqs, err := json.Marshal(sim.Requests)
	if err != nil {
		return fmt.Errorf("encode requests of %s: %w", sim.ID, err)
	}
	err = r.Store.PutSimulation(context.WithoutCancel(ctx), evalID, store.Simulation{
		ID: sim.ID, TaskID: sim.TaskID, Trial: sim.Trial, Reward: sim.Reward, Data: data, Requests: reqs,
	})
	if err != nil {
		return fmt.Errorf("store simulation %s: %w", sim.ID, err)
	}
	return nil
}

func (r *Runner) save(ctx context.Context, eval *result.Evaluation) error {
	if r.Store == nil {
		return nil
	}
	eval.UpdatedAt = time.Now().UTC()
	head := *eval
	head.Simulations = nil    // simulations live in their own records
	head.SimulationRows = nil // and rows derive from them
	data, err := json.Marshal(head)
	if err != nil {
		return fmt.Errorf("encode evaluation: %w", err)
	}
	err = r.Store.PutEvaluation(ctx, store.Evaluation{
		ID: eval.ID, Domain: eval.Domain, AgentURL: eval.Agent.Address(), Status: string(eval.Status),
		CreatedAt: eval.CreatedAt, UpdatedAt: eval.UpdatedAt, Data: data,
	})
	if err != nil {
		return fmt.Errorf("store evaluation %s: %w", eval.ID, err)
	}
	return nil
}

// loadExisting reads the simulations already stored for an evaluation and
// their request latencies, for resume.
func (r *Runner) loadExisting(ctx context.Context, evalID string) ([]result.Simulation, []float64, error) {
	if r.Store == nil {
		return nil, nil, nil
	}
	return loadWithLatencies(ctx, r.Store, evalID, false)
}

func loadWithLatencies(ctx context.Context, st Store, evalID string, brief bool) ([]result.Simulation, []float64, error) {
	sims, err := loadSimulations(ctx, st, evalID, brief)
	if err != nil {
		return nil, nil, err
	}
	all, err := st.AllRequests(ctx, evalID)
	if err != nil {
		return nil, nil, fmt.Errorf("load request metrics of %s: %w", evalID, err)
	}
	var lat []float64
	for _, s := range sims {
		lat = append(lat, Latencies(all[s.ID])...)
	}
	return sims, lat, nil
}

// Latencies decodes the latencies of stored request metrics (the JSON
// of []a2aclient.RequestMetrics), reading nothing else of them; metrics
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

// loadSimulations reads the simulations of an evaluation; brief leaves
// out their conversations and model calls (briefSimulation), which scoring
// a summary does not read and which are most of a simulation's bytes.
func loadSimulations(ctx context.Context, st Store, evalID string, brief bool) ([]result.Simulation, error) {
	recs, err := st.Simulations(ctx, evalID)
	if err != nil {
		return nil, fmt.Errorf("load simulations of %s: %w", evalID, err)
	}
	sims := make([]result.Simulation, 0, len(recs))
	for _, rec := range recs {
		var s result.Simulation
		if brief {
			var b briefSimulation
			err = json.Unmarshal(rec.Data, &b)
			s = b.Simulation
		} else {
			err = json.Unmarshal(rec.Data, &s)
		}
		if err != nil {
			return nil, fmt.Errorf("simulation %s of %s is unreadable: %w", rec.ID, evalID, err)
		}
		sims = append(sims, s)
	}
	return sims, nil
}

// briefSimulation decodes a stored simulation without its messages and
// model calls: its fields of those names, shallower than the embedded
// Simulation's, take their values and keep nothing.
type briefSimulation struct {
	result.Simulation
	Messages skipJSON `json:"messages"`
	LLMCalls skipJSON `json:"llm_calls"`
}

// skipJSON is a JSON value read past and not kept.
type skipJSON struct{}

// UnmarshalJSON keeps nothing.
func (skipJSON) UnmarshalJSON([]byte) error { return nil }

func sortSimulations(sims []result.Simulation, taskOrder []string) {
	pos := make(map[string]int, len(taskOrder))
	for i, id := range taskOrder {
		pos[id] = i
	}
	slices.SortStableFunc(sims, func(a, b result.Simulation) int {
		pa, oka := pos[a.TaskID]
		pb, okb := pos[b.TaskID]
		switch {
		case oka && okb && pa != pb:
			return pa - pb
		case oka != okb:
			if oka {
				return -1
			}
			return 1
		case a.TaskID != b.TaskID:
			if a.TaskID < b.TaskID {
				return -1
			}
			return 1
		}
		return a.Trial - b.Trial
	})
}

// Load reads a stored evaluation with its simulations. The scores of an
// evaluation that did not complete are recomputed from the simulations it
// kept, since its stored summary predates them.
func Load(ctx context.Context, st Store, id string) (*result.Evaluation, error) {
	return load(ctx, st, id, false)
}

// load is Load; brief reads the simulations without their conversations
// (for LoadBrief, which scores them and drops them).
func load(ctx context.Context, st Store, id string, brief bool) (*result.Evaluation, error) {
	rec, err := st.GetEvaluation(ctx, id)
	if err != nil {
		return nil, err
	}
	if rec.Kind == store.KindEvalSets {
		return nil, fmt.Errorf("%s: %w", rec.ID, ErrEvalSetRun)
	}
	var eval result.Evaluation
	if err := json.Unmarshal(rec.Data, &eval); err != nil {
		return nil, fmt.Errorf("evaluation %s is unreadable: %w", rec.ID, err)
	}
	eval.Status = result.Status(rec.Status)
	eval.SimulationRows = nil // the simulations themselves follow
	order := eval.Config.TaskIDs
	if eval.Status == result.StatusCompleted {
		sims, err := loadSimulations(ctx, st, rec.ID, brief)
		if err != nil {
			return nil, err
		}
		sortSimulations(sims, order)
		eval.Simulations = sims
		return &eval, nil
	}
	sims, lat, err := loadWithLatencies(ctx, st, rec.ID, brief)
	if err != nil {
		return nil, err
	}
	sortSimulations(sims, order)
	eval.Simulations = sims
	eval.Summary = scoring.Summarize(sims, order)
	if brief {
		eval.Summary.Process = nil // it needs the conversations
	}
	eval.Metrics = result.MergeMetrics(sims, lat)
	return &eval, nil
}

// LoadBrief reads a stored evaluation without its simulations: its
// summary, metrics and per-task scores. A completed evaluation's own record
// holds all of them, so this reads that one small record however many
// simulations there are; an evaluation that did not complete (whose stored
// scores predate its simulations) is loaded and scored as Load does, and
// its simulations then dropped, and without process figures (which need
// the conversations). id resolves as in Load.
func LoadBrief(ctx context.Context, st Store, id string) (*result.Evaluation, error) {
	rec, err := st.GetEvaluation(ctx, id)
	if err != nil {
		return nil, err
	}
	if rec.Kind == store.KindEvalSets {
		return nil, fmt.Errorf("%s: %w", rec.ID, ErrEvalSetRun)
	}
	if result.Status(rec.Status) != result.StatusCompleted {
		eval, err := load(ctx, st, rec.ID, true)
		if err != nil {
			return nil, err
		}
		eval.Simulations = nil
		return eval, nil
	}
	var head result.Evaluation
	if err := json.Unmarshal(rec.Data, &head); err != nil {
		return nil, fmt.Errorf("evaluation %s is unreadable: %w", rec.ID, err)
	}
	head.Status, head.Simulations, head.SimulationRows = result.Status(rec.Status), nil, nil
	return &head, nil
}
