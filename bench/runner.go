package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/store"
)

// Store is the persistence the runner needs; *store.DB implements it.
type Store interface {
	PutEvaluation(ctx context.Context, e store.Evaluation) error
	GetEvaluation(ctx context.Context, id string) (store.Evaluation, error)
	PutSimulation(ctx context.Context, evalID string, s store.Simulation) error
	Simulations(ctx context.Context, evalID string) ([]store.Simulation, error)
	Requests(ctx context.Context, evalID, simID string) (json.RawMessage, error)
}

// Progress reports a finished simulation.
type Progress struct {
	Done   int
	Total  int
	Passed int
	Last   *Simulation
}

// Runner runs evaluations: every task x trial, with bounded concurrency,
// each finished simulation stored in its own transaction.
type Runner struct {
	Simulator   *Simulator
	Agent       Agent
	Users       UserFactory
	Store       Store // optional: without it nothing is persisted
	Concurrency int
	OnProgress  func(Progress)
}

// NewEvaluation starts the record of an evaluation.
func NewEvaluation(id string, cfg Config, agent AgentInfo) *Evaluation {
	now := time.Now().UTC()
	return &Evaluation{ID: id, Status: StatusRunning, Domain: cfg.Domain, Agent: agent, Config: cfg, CreatedAt: now, UpdatedAt: now}
}

type job struct {
	task  *domains.Task
	trial int
}

// Run runs every simulation of eval that is not already stored (so a second
// Run of the same evaluation resumes it), then scores the whole evaluation.
// When ctx ends early, finished simulations are kept and the evaluation is
// saved as interrupted.
func (r *Runner) Run(ctx context.Context, eval *Evaluation, tasks []*domains.Task) error {
	if r.Users == nil {
		r.Users = ScriptedUsers
	}
	if eval.Config.Strict != r.Simulator.Strict() {
		// One evaluation, one scoring mode: strict and lenient rewards
		// must not mix, on a first run or on a resume.
		return fmt.Errorf("evaluation %s: config says strict=%v but the simulator's limits say strict=%v",
			eval.ID, eval.Config.Strict, r.Simulator.Strict())
	}
	concurrency := max(r.Concurrency, 1)
	eval.Status, eval.Error, eval.FinishedAt = StatusRunning, "", nil
	if len(eval.Config.TaskIDs) == 0 {
		for _, t := range tasks {
			eval.Config.TaskIDs = append(eval.Config.TaskIDs, t.ID)
		}
	}
	if err := r.save(ctx, eval); err != nil {
		return err
	}
	done, latencies, err := r.loadExisting(ctx, eval.ID)
	if err != nil {
		return err
	}
	finished := map[string]bool{}
	for _, s := range done {
		finished[s.ID] = true
	}
	var jobs []job
	for trial := range max(eval.Config.NumTrials, 1) {
		for _, t := range tasks {
			if !finished[SimulationID(t.ID, trial)] {
				jobs = append(jobs, job{t, trial})
			}
		}
	}
	total := len(jobs) + len(done)
	passed := 0
	for _, s := range done {
		if success(s.Reward) {
			passed++
		}
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		storeErr  error
		storeOnce sync.Once
	)
	jobCh := make(chan job)
	results := make(chan Simulation)
	var wg sync.WaitGroup
	for range min(concurrency, max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobCh {
				sim, aborted := r.runOne(runCtx, j)
				if aborted {
					continue
				}
				// Workers persist concurrently so that the store can share
				// fsyncs between simulations that finish together.
				if err := r.persist(runCtx, eval.ID, &sim); err != nil {
					storeOnce.Do(func() { storeErr = err })
					cancel() // an evaluation that cannot be recorded must stop
					return
				}
				// Always delivered: the loop below reads until every worker
				// is done, and a stored simulation must be in the result.
				results <- sim
			}
		}()
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
		for _, q := range sim.Requests {
			latencies = append(latencies, q.LatencyMS)
		}
		sim.Requests = nil
		done = append(done, sim)
		if success(sim.Reward) {
			passed++
		}
		if r.OnProgress != nil {
			r.OnProgress(Progress{Done: len(done), Total: total, Passed: passed, Last: &done[len(done)-1]})
		}
	}

	order := make([]string, len(tasks))
	for i, t := range tasks {
		order[i] = t.ID
	}
	sortSimulations(done, order)
	eval.Simulations = done
	eval.Summary = summarize(done, order)
	eval.Metrics = mergeMetrics(done, latencies)
	switch {
	case storeErr != nil:
		eval.Status, eval.Error = StatusFailed, storeErr.Error()
	case ctx.Err() != nil:
		eval.Status = StatusInterrupted
	default:
		eval.Status = StatusCompleted
		now := time.Now().UTC()
		eval.FinishedAt = &now
	}
	// Save even when ctx is over: the record must say interrupted.
	if err := r.save(context.WithoutCancel(ctx), eval); err != nil {
		return err
	}
	return storeErr
}

func (r *Runner) runOne(ctx context.Context, j job) (Simulation, bool) {
	user, err := r.Users(j.task, j.trial)
	if err != nil {
		now := time.Now().UTC()
		bases, added := strictBases(j.task, r.Simulator.limits.Strict)
		vacuous, _ := r.Simulator.DoNothingPasses(j.task)
		return Simulation{
			ID: SimulationID(j.task.ID, j.trial), TaskID: j.task.ID, Trial: j.trial, StartedAt: now,
			TerminationReason: TermUserError, Error: err.Error(),
			RewardInfo: RewardInfo{RewardBasis: bases, AddedByStrict: added, DoNothingPasses: vacuous,
				Note: "no user simulator for this task"},
			Metrics: aggregate(nil),
		}, false
	}
	return r.Simulator.Run(ctx, j.task, j.trial, r.Agent, user)
}

func (r *Runner) persist(ctx context.Context, evalID string, sim *Simulation) error {
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

func (r *Runner) save(ctx context.Context, eval *Evaluation) error {
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
		ID: eval.ID, Domain: eval.Domain, AgentURL: eval.Agent.URL, Status: eval.Status,
		CreatedAt: eval.CreatedAt, UpdatedAt: eval.UpdatedAt, Data: data,
	})
	if err != nil {
		return fmt.Errorf("store evaluation %s: %w", eval.ID, err)
	}
	return nil
}

// loadExisting reads the simulations already stored for an evaluation and
// their request latencies, for resume.
func (r *Runner) loadExisting(ctx context.Context, evalID string) ([]Simulation, []float64, error) {
	if r.Store == nil {
		return nil, nil, nil
	}
	return loadWithLatencies(ctx, r.Store, evalID)
}

func loadWithLatencies(ctx context.Context, st Store, evalID string) ([]Simulation, []float64, error) {
	sims, err := loadSimulations(ctx, st, evalID)
	if err != nil {
		return nil, nil, err
	}
	var lat []float64
	for _, s := range sims {
		raw, err := st.Requests(ctx, evalID, s.ID)
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
	return sims, lat, nil
}

func loadSimulations(ctx context.Context, st Store, evalID string) ([]Simulation, error) {
	recs, err := st.Simulations(ctx, evalID)
	if err != nil {
		return nil, fmt.Errorf("load simulations of %s: %w", evalID, err)
	}
	sims := make([]Simulation, 0, len(recs))
	for _, rec := range recs {
		var s Simulation
		if err := json.Unmarshal(rec.Data, &s); err != nil {
			return nil, fmt.Errorf("simulation %s of %s is unreadable: %w", rec.ID, evalID, err)
		}
		sims = append(sims, s)
	}
	return sims, nil
}

func sortSimulations(sims []Simulation, taskOrder []string) {
	pos := make(map[string]int, len(taskOrder))
	for i, id := range taskOrder {
		pos[id] = i
	}
	slices.SortStableFunc(sims, func(a, b Simulation) int {
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
func Load(ctx context.Context, st Store, id string) (*Evaluation, error) {
	rec, err := st.GetEvaluation(ctx, id)
	if err != nil {
		return nil, err
	}
	var eval Evaluation
	if err := json.Unmarshal(rec.Data, &eval); err != nil {
		return nil, fmt.Errorf("evaluation %s is unreadable: %w", rec.ID, err)
	}
	eval.Status = rec.Status
	eval.SimulationRows = nil // the simulations themselves follow
	order := eval.Config.TaskIDs
	if eval.Status == StatusCompleted {
		sims, err := loadSimulations(ctx, st, rec.ID)
		if err != nil {
			return nil, err
		}
		sortSimulations(sims, order)
		eval.Simulations = sims
		return &eval, nil
	}
	sims, lat, err := loadWithLatencies(ctx, st, rec.ID)
	if err != nil {
		return nil, err
	}
	sortSimulations(sims, order)
	eval.Simulations = sims
	eval.Summary = summarize(sims, order)
	eval.Metrics = mergeMetrics(sims, lat)
	return &eval, nil
}
