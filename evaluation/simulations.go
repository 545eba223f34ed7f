package evaluation

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
)

// NewEvaluation starts the record of an evaluation.
func NewEvaluation(id string, cfg result.Config, agent result.AgentInfo) *result.Evaluation {
	t := now()
	return &result.Evaluation{ID: id, Status: result.StatusRunning, Domain: cfg.Domain, Agent: agent, Config: cfg, CreatedAt: t, UpdatedAt: t}
}

// Run runs every simulation of eval (every task x trial) that is not
// already stored (so a second Run of the same evaluation resumes it), each
// played by the Simulator and scored by the Scorer, then scores the whole
// evaluation. When ctx ends early, finished simulations are kept and the
// evaluation is saved as interrupted.
func (r *Runner) Run(ctx context.Context, eval *result.Evaluation, tasks []*domains.Task) error {
	return runEngine[simulationTrial, result.Simulation](ctx, r, newSimulations(r, eval, tasks, nil))
}

// simulationTrial is one trial of a task, to simulate.
type simulationTrial struct {
	task  *domains.Task
	trial int
}

// simulations is the kind of an evaluation of simulations.
type simulations struct {
	r      *Runner
	eval   *result.Evaluation
	tasks  []*domains.Task
	order  []string // task ids, the order of the result
	users  rollout.UserFactory
	tracer trace.Tracer
	// recorded, when set, holds the simulations of an evaluation being
	// scored again (Rescore), by simulation id: they are scored, not
	// played.
	recorded map[string]result.Simulation
}

// newSimulations is the kind of eval, an evaluation of tasks, played (or,
// with recorded, scored again) by r.
func newSimulations(r *Runner, eval *result.Evaluation, tasks []*domains.Task, recorded map[string]result.Simulation) *simulations {
	order := make([]string, len(tasks))
	for i, t := range tasks {
		order[i] = t.ID
	}
	k := &simulations{r: r, eval: eval, tasks: tasks, order: order, users: r.Users, tracer: r.tracer(), recorded: recorded}
	if k.users == nil {
		k.users = rollout.ScriptedUsers
	}
	return k
}

func (k *simulations) evaluationID() string { return k.eval.ID }

func (k *simulations) names() kindNames { return kindNames{record: "evaluation", trial: "simulation"} }

// begin checks the scorer against the evaluation and marks it running.
func (k *simulations) begin() error {
	eval, sc := k.eval, k.r.Scorer
	if sc == nil {
		return fmt.Errorf("evaluation %s: the runner has no scorer", eval.ID)
	}
	if eval.Config.Strict != sc.Strict() {
		// One evaluation, one scoring mode: strict and lenient rewards
		// must not mix, on a first run or on a resume.
		return fmt.Errorf("evaluation %s: config says strict=%v but the scorer says strict=%v",
			eval.ID, eval.Config.Strict, sc.Strict())
	}
	if m := eval.Config.ActionMatch.OrDefault(); m != sc.ActionMatch() {
		return fmt.Errorf("evaluation %s: config says action_match=%s but the scorer matches %s",
			eval.ID, m, sc.ActionMatch())
	}
	eval.Config.ActionMatch = sc.ActionMatch() // recorded, not left to a default
	eval.Status, eval.Error, eval.FinishedAt = result.StatusRunning, "", nil
	if len(eval.Config.TaskIDs) == 0 {
		eval.Config.TaskIDs = append(eval.Config.TaskIDs, k.order...)
	}
	return nil
}

// record is the evaluation's record without its simulations, which live
// in their own records (and rows derive from them).
func (k *simulations) record() (store.Evaluation, error) {
	eval := k.eval
	eval.UpdatedAt = now()
	head := *eval
	head.Simulations, head.SimulationRows = nil, nil
	data, err := json.Marshal(head)
	if err != nil {
		return store.Evaluation{}, fmt.Errorf("encode evaluation: %w", err)
	}
	return store.Evaluation{
		ID: eval.ID, Domain: eval.Domain, AgentURL: eval.Agent.Address(), Status: string(eval.Status),
		CreatedAt: eval.CreatedAt, UpdatedAt: eval.UpdatedAt, Data: data,
	}, nil
}

// trials are trial by trial, task by task; a rescore's only those its
// source recorded.
func (k *simulations) trials() []simulationTrial {
	var out []simulationTrial
	for trial := range max(k.eval.Config.NumTrials, 1) {
		for _, t := range k.tasks {
			if _, ok := k.recorded[result.SimulationID(t.ID, trial)]; k.recorded != nil && !ok {
				continue // a rescore scores what its source recorded
			}
			out = append(out, simulationTrial{t, trial})
		}
	}
	return out
}

func (k *simulations) trialID(j simulationTrial) string {
	return result.SimulationID(j.task.ID, j.trial)
}

func (k *simulations) id(s result.Simulation) string { return s.ID }

func (k *simulations) passed(s result.Simulation) bool { return s.Passed() }

// play plays one simulation and scores it, or, in a rescore, scores its
// recording again.
func (k *simulations) play(ctx context.Context, j simulationTrial) (result.Simulation, bool) {
	ctx, span := k.startTrialSpan(ctx, j)
	sim, aborted := k.playTraced(ctx, j)
	endSimulationSpan(span, &sim, aborted)
	return sim, aborted
}

// playTraced is play under the simulation's span.
func (k *simulations) playTraced(ctx context.Context, j simulationTrial) (result.Simulation, bool) {
	if k.recorded != nil {
		return k.rescoreOne(ctx, j), false
	}
	user, err := k.users(j.task, j.trial)
	if err != nil {
		sim := result.Simulation{
			ID: result.SimulationID(j.task.ID, j.trial), TaskID: j.task.ID, Trial: j.trial, StartedAt: now(),
			TerminationReason: result.TermUserError, Error: err.Error(), Metrics: result.AggregateRequests(nil),
		}
		k.r.Scorer.Score(ctx, j.task, &sim, nil) // no reward: sim.Error says why
		return sim, false
	}
	return Simulate(ctx, k.r.Simulator, k.r.Scorer, j.task, j.trial, k.r.Agent, user)
}

func (k *simulations) row(s result.Simulation) (store.Simulation, error) {
	return encodeRow("simulation", store.Simulation{ID: s.ID, TaskID: s.TaskID, Trial: s.Trial, Reward: s.Reward}, &s, s.Requests)
}

func (k *simulations) decode(rec store.Simulation) (result.Simulation, error) {
	return decodeSimulation(false)(rec)
}

// observe shows the simulation to the Observer, with its requests.
func (k *simulations) observe(s result.Simulation) {
	if k.r.Observer != nil {
		k.r.Observer.SimulationRecorded(k.eval.Domain, &s)
	}
}

// settle keeps only the latencies of the simulation's requests.
func (k *simulations) settle(s result.Simulation) (result.Simulation, []float64) {
	lat := make([]float64, len(s.Requests))
	for i, q := range s.Requests {
		lat[i] = q.LatencyMS
	}
	s.Requests = nil
	return s, lat
}

func (k *simulations) progress(p Progress, done []result.Simulation) Progress {
	p.Last = &done[len(done)-1]
	return p
}

// finish puts the simulations in task order and scores the evaluation.
func (k *simulations) finish(done []result.Simulation, latencies []float64) {
	sortSimulations(done, k.order)
	k.eval.Simulations = done
	k.eval.Summary = scoring.Summarize(done, k.order)
	k.eval.Metrics = result.MergeMetrics(done, latencies)
}

// end marks how the evaluation ended; a completed one in which no
// simulation had an outcome failed.
func (k *simulations) end(status result.Status, why string) {
	eval := k.eval
	eval.Status, eval.Error, eval.FinishedAt = status, why, nil
	if status != result.StatusCompleted {
		return
	}
	if why := result.NoOutcome(eval.Simulations); why != "" {
		eval.Status, eval.Error = result.StatusFailed, why
	}
	t := now()
	eval.FinishedAt = &t
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

// loadSimulations reads the simulations of an evaluation; brief leaves
// out their conversations and model calls (briefSimulation), which scoring
// a summary does not read and which are most of a simulation's bytes.
func loadSimulations(ctx context.Context, st Store, evalID string, brief bool) ([]result.Simulation, error) {
	return loadTrials(ctx, st, evalID, "simulation", decodeSimulation(brief))
}

// loadWithLatencies is loadSimulations with the simulations' request
// latencies.
func loadWithLatencies(ctx context.Context, st Store, evalID string, brief bool) ([]result.Simulation, []float64, error) {
	return loadTrialsTimed(ctx, st, evalID, "simulation", decodeSimulation(brief), func(s result.Simulation) string { return s.ID })
}

// decodeSimulation reads a stored simulation, brief or whole.
func decodeSimulation(brief bool) func(store.Simulation) (result.Simulation, error) {
	return func(rec store.Simulation) (result.Simulation, error) {
		if brief {
			var b briefSimulation
			err := json.Unmarshal(rec.Data, &b)
			return b.Simulation, err
		}
		var s result.Simulation
		err := json.Unmarshal(rec.Data, &s)
		return s, err
	}
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
	k := &simulations{eval: &eval, order: eval.Config.TaskIDs}
	if eval.Status == result.StatusCompleted {
		sims, err := loadSimulations(ctx, st, rec.ID, brief)
		if err != nil {
			return nil, err
		}
		sortSimulations(sims, k.order)
		eval.Simulations = sims
		return &eval, nil
	}
	sims, lat, err := loadWithLatencies(ctx, st, rec.ID, brief)
	if err != nil {
		return nil, err
	}
	k.finish(sims, lat)
	if brief {
		eval.Summary.Process = nil // it needs the conversations
	}
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
