package evaluation

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// Completed reads the completed evaluations of a domain and split (""
// and "base" both name the default split), without their simulations:
// each is its own small record. It is what a leaderboard ranks (proctor
// leaderboard and the viewer's leaderboard page).
func Completed(ctx context.Context, db *store.DB, domain, split string) ([]*result.Evaluation, error) {
	recs, err := db.ListEvaluations(ctx, store.ListFilter{Domain: domain, Kind: store.KindSimulations,
		Status: string(result.StatusCompleted), Limit: -1})
	if err != nil {
		return nil, err
	}
	out := make([]*result.Evaluation, 0, len(recs))
	for _, rec := range recs {
		var e result.Evaluation
		if err := json.Unmarshal(rec.Data, &e); err != nil {
			return nil, fmt.Errorf("evaluation %s is unreadable: %w", rec.ID, err)
		}
		if !SameSplit(e.Config.Split, split) {
			continue
		}
		e.Status, e.Simulations, e.SimulationRows = result.Status(rec.Status), nil, nil
		out = append(out, &e)
	}
	return out, nil
}

// SameSplit says whether an evaluation of split got belongs with those of
// split want: "" and "base" both name the default split.
func SameSplit(got, want string) bool {
	norm := func(s string) string {
		if s == "" {
			return "base"
		}
		return s
	}
	return norm(got) == norm(want)
}
