package evaluation

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/measure"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
)

// Rescore scores the simulations that the stored evaluation src recorded
// again, with sc, into dst: a new evaluation (NewEvaluation) whose Config
// says how it is scored (Strict must equal sc.Strict() and ActionMatch
// sc.ActionMatch(); JudgeModel and
// JudgeSamples name the judge). Nothing is played: the agent and the user
// simulator are not contacted, and the transcripts, tool calls, request
// metrics and the user simulator's model calls are those of src. The
// judge's model calls are made again (and metered in dst).
//
// dst names its source (RescoredFrom) and is stored like any evaluation,
// simulation by simulation, so an interrupted rescore resumes with
// Rescore on the same dst. tasks are the tasks of src, from its domain and
// split; a recorded simulation whose task is missing is an error.
func Rescore(ctx context.Context, st Store, sc *scoring.Scorer, src, dst *result.Evaluation, tasks []*domains.Task, concurrency int, onProgress func(Progress)) error {
	recorded, err := loadRecorded(ctx, st, src.ID)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, t := range tasks {
		known[t.ID] = true
	}
	for _, s := range recorded {
		if !known[s.TaskID] {
			return fmt.Errorf("evaluation %s recorded task %s, which domain %s no longer has", src.ID, s.TaskID, src.Domain)
		}
	}
	dst.RescoredFrom = src.ID
	r := &Runner{Scorer: sc, Store: st, Concurrency: concurrency, OnProgress: onProgress}
	return runEngine[simulationTrial, result.Simulation](ctx, r, newSimulations(r, dst, tasks, recorded))
}

// loadRecorded reads an evaluation's simulations with their request
// metrics, by simulation id.
func loadRecorded(ctx context.Context, st Store, evalID string) (map[string]result.Simulation, error) {
	sims, err := loadSimulations(ctx, st, evalID, false)
	if err != nil {
		return nil, err
	}
	all, err := st.AllRequests(ctx, evalID)
	if err != nil {
		return nil, fmt.Errorf("requests of the simulations of %s: %w", evalID, err)
	}
	out := make(map[string]result.Simulation, len(sims))
	for _, s := range sims {
		if raw := all[s.ID]; len(raw) > 0 {
			var reqs []measure.Request
			if err := json.Unmarshal(raw, &reqs); err != nil {
				return nil, fmt.Errorf("requests of simulation %s of %s are unreadable: %w", s.ID, evalID, err)
			}
			s.Requests = reqs
		}
		out[s.ID] = s
	}
	return out, nil
}

// rescoreOne scores a recorded simulation again: its reward and the
// judge's calls are dropped and recomputed; everything the rollout
// recorded stays.
func (k *simulations) rescoreOne(ctx context.Context, j simulationTrial) result.Simulation {
	src := k.recorded[result.SimulationID(j.task.ID, j.trial)]
	sim := src
	sim.Reward, sim.RewardInfo = 0, result.RewardInfo{}
	sim.LLMCalls = nil
	for _, c := range src.LLMCalls {
		if c.Role != llm.RoleJudge {
			sim.LLMCalls = append(sim.LLMCalls, c)
		}
	}
	sim.Metrics.LLMUsage = llm.UsageByRole(sim.LLMCalls)
	scoreSimulation(ctx, k.r.Scorer, j.task, &sim, nil)
	return sim
}
