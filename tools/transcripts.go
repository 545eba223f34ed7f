package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/proctor-eval/proctor/bench"
)

// loadRows reads a stored evaluation in brief: its summary, metrics and
// per-task scores, and a row per simulation instead of the simulations. A
// completed evaluation's record holds its rows, so the read is that one
// record; others (and records from before rows were kept) are loaded whole
// and rescored, as bench.Load does.
func (s *Service) loadRows(ctx context.Context, id string) (*bench.Evaluation, error) {
	rec, err := s.Store.GetEvaluation(ctx, id)
	if err != nil {
		return nil, err
	}
	if rec.Status == bench.StatusCompleted {
		var head bench.Evaluation
		if err := json.Unmarshal(rec.Data, &head); err != nil {
			return nil, fmt.Errorf("evaluation %s is unreadable: %w", rec.ID, err)
		}
		if len(head.SimulationRows) == head.Summary.NumSimulations {
			head.Status, head.Simulations = rec.Status, nil
			return &head, nil
		}
	}
	eval, err := bench.Load(ctx, s.Store, rec.ID)
	if err != nil {
		return nil, err
	}
	eval.SimulationRows, eval.Simulations = bench.Rows(eval.Simulations), nil
	return eval, nil
}
