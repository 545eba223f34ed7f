package skills

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// loadBrief reads a stored evaluation without its simulations: its summary,
// metrics and per-task scores, plus a row per simulation when withRows. A
// completed evaluation's own record holds everything but the rows, so a
// brief read without rows is that one small record, however many
// simulations there are. Rows, and evaluations that did not complete (whose
// stored scores predate their simulations), need the simulations: they are
// loaded and scored as evaluation.Load does.
func (s *Service) loadBrief(ctx context.Context, id string, withRows bool) (*result.Evaluation, error) {
	rec, err := s.Store.GetEvaluation(ctx, id)
	if err != nil {
		return nil, err
	}
	if rec.Kind == store.KindEvalSets {
		return nil, fmt.Errorf("%s: %w", rec.ID, evaluation.ErrEvalSetRun)
	}
	if result.Status(rec.Status) == result.StatusCompleted && !withRows {
		var head result.Evaluation
		if err := json.Unmarshal(rec.Data, &head); err != nil {
			return nil, fmt.Errorf("evaluation %s is unreadable: %w", rec.ID, err)
		}
		head.Status, head.Simulations, head.SimulationRows = result.Status(rec.Status), nil, nil
		return &head, nil
	}
	eval, err := evaluation.Load(ctx, s.Store, rec.ID)
	if err != nil {
		return nil, err
	}
	eval.SimulationRows = nil
	if withRows {
		eval.SimulationRows = result.Rows(eval.Simulations)
	}
	eval.Simulations = nil
	return eval, nil
}
