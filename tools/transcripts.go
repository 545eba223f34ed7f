package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/proctor-eval/proctor/bench"
)

// loadWithoutTranscripts reads a stored evaluation as bench.Load does, minus
// the simulations' messages, which are most of its bytes: get_results
// without transcripts then does not decode what it would drop. Evaluations
// that did not complete are left to bench.Load, which rescores them.
func (s *Service) loadWithoutTranscripts(ctx context.Context, id string) (*bench.Evaluation, error) {
	rec, err := s.Store.GetEvaluation(ctx, id)
	if err != nil {
		return nil, err
	}
	if rec.Status != bench.StatusCompleted {
		eval, err := bench.Load(ctx, s.Store, rec.ID)
		if err != nil {
			return nil, err
		}
		StripTranscripts(eval)
		return eval, nil
	}
	var eval bench.Evaluation
	if err := json.Unmarshal(rec.Data, &eval); err != nil {
		return nil, fmt.Errorf("evaluation %s is unreadable: %w", rec.ID, err)
	}
	eval.Status = rec.Status
	recs, err := s.Store.Simulations(ctx, rec.ID)
	if err != nil {
		return nil, fmt.Errorf("load simulations of %s: %w", rec.ID, err)
	}
	eval.Simulations = make([]bench.Simulation, 0, len(recs))
	for _, r := range recs {
		var sim withoutMessages
		if err := json.Unmarshal(r.Data, &sim); err != nil {
			return nil, fmt.Errorf("simulation %s of %s is unreadable: %w", r.ID, rec.ID, err)
		}
		eval.Simulations = append(eval.Simulations, sim.Simulation)
	}
	sortLikeLoad(eval.Simulations, eval.Config.TaskIDs)
	return &eval, nil
}

// withoutMessages decodes a bench.Simulation but skips its messages: its
// own "messages" field, shallower than the embedded one, takes the key.
type withoutMessages struct {
	bench.Simulation
	Messages skipped `json:"messages"`
}

// skipped is a JSON value that is read past, not decoded.
type skipped struct{}

// UnmarshalJSON implements json.Unmarshaler.
func (*skipped) UnmarshalJSON([]byte) error { return nil }

// sortLikeLoad orders simulations as bench.Load does: by the position of
// their task in taskOrder (tasks not in it last, by id), then by trial.
func sortLikeLoad(sims []bench.Simulation, taskOrder []string) {
	pos := make(map[string]int, len(taskOrder))
	for i, id := range taskOrder {
		pos[id] = i
	}
	slices.SortStableFunc(sims, func(a, b bench.Simulation) int {
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
