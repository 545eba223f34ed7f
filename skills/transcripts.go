package skills

import (
	"context"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/result"
)

// loadBrief reads a stored evaluation without its simulations: its summary,
// metrics and per-task scores, plus a row per simulation when withRows. A
// completed evaluation's own record holds everything but the rows, so a
// brief read without rows is that one small record, however many
// simulations there are. Rows, and evaluations that did not complete (whose
// stored scores predate their simulations), need the simulations: they are
// loaded and scored as evaluation.Load does.
func (s *Service) loadBrief(ctx context.Context, id string, withRows bool) (*result.Evaluation, error) {
	if !withRows {
		return evaluation.LoadBrief(ctx, s.Store, id)
	}
	eval, err := evaluation.Load(ctx, s.Store, id)
	if err != nil {
		return nil, err
	}
	eval.SimulationRows = result.Rows(eval.Simulations)
	eval.Simulations = nil
	return eval, nil
}
