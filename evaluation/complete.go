package evaluation

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/proctor-eval/proctor/measure"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// storeChunk is the number of simulations Complete stores per transaction.
const storeChunk = 10000

// Recorded is a simulation played and scored elsewhere (by a shard of a
// sharded evaluation) with its per-request metrics.
type Recorded struct {
	Simulation result.Simulation
	Requests   []measure.Request
}

// Complete makes eval the evaluation of simulations played elsewhere: it
// orders them by eval.Config.TaskIDs and trial, scores and totals them as
// Runner.Run does when it finishes, marks eval completed (or failed when
// every simulation failed, as Run does), and, with a store, stores eval and
// its simulations with their request metrics. The simulations are stored
// before the evaluation's record, which appears last, completed.
func Complete(ctx context.Context, st Store, eval *result.Evaluation, recs []Recorded) error {
	sims := make([]result.Simulation, len(recs))
	var latencies []float64
	for i, r := range recs {
		sims[i] = r.Simulation
		sims[i].Requests = nil
		for _, q := range r.Requests {
			latencies = append(latencies, q.LatencyMS)
		}
	}
	k := &simulations{eval: eval, order: eval.Config.TaskIDs}
	k.finish(sims, latencies)
	k.end(result.StatusCompleted, "")
	if st == nil {
		return nil
	}
	return storeComplete(ctx, st, eval, recs)
}

// storeComplete writes a completed evaluation: its record as running
// first (simulations need it), then the simulations in one transaction,
// then the record as it ends. A failure leaves the evaluation running,
// and so interrupted once the database is opened again.
func storeComplete(ctx context.Context, st Store, eval *result.Evaluation, recs []Recorded) error {
	final := eval.Status
	eval.Status = result.StatusRunning
	k := &simulations{eval: eval}
	if err := saveRecord(ctx, st, k); err != nil {
		return err
	}
	eval.Status = final
	rows := make([]store.Simulation, len(recs))
	for i, rec := range recs {
		sim := rec.Simulation
		row, err := encodeRow("simulation", store.Simulation{ID: sim.ID, TaskID: sim.TaskID, Trial: sim.Trial, Reward: sim.Reward}, &sim, rec.Requests)
		if err != nil {
			return err
		}
		rows[i] = row
	}
	// In transactions of storeChunk: bbolt copies a transaction's pending
	// pages each time the file grows under it, which a single transaction
	// of tens of thousands of simulations pays many times over.
	for chunk := range slices.Chunk(rows, storeChunk) {
		if err := st.PutSimulations(ctx, eval.ID, chunk); err != nil {
			return fmt.Errorf("store the simulations of %s: %w", eval.ID, err)
		}
	}
	return saveRecord(ctx, st, k)
}

// LoadRecorded reads a stored evaluation's simulations with their request
// metrics, in the evaluation's order: what a shard of it hands on.
func LoadRecorded(ctx context.Context, st Store, eval *result.Evaluation) ([]Recorded, error) {
	recs := make([]Recorded, len(eval.Simulations))
	for i, s := range eval.Simulations {
		recs[i].Simulation = s
		raw, err := st.Requests(ctx, eval.ID, s.ID)
		if err != nil {
			return nil, fmt.Errorf("request metrics of %s: %w", s.ID, err)
		}
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &recs[i].Requests); err != nil {
				return nil, fmt.Errorf("request metrics of %s are unreadable: %w", s.ID, err)
			}
		}
	}
	return recs, nil
}
