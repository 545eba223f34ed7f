package skills

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// What the viewer's pages read of the repository besides whole
// evaluations and runs: cheap listings, one simulation or case run, and
// request latencies.

// EvaluationHeads pages through the stored evaluations of simulations,
// newest first, as their records say: without their simulations and not
// scored again, so that a page costs the records it shows, however many
// simulations they ran (the viewer's list; Evaluations scores those that
// did not complete). req's Domain, Status and AgentURL must equal the
// stored ones; Limit 0 is DefaultResultsLimit. A record proctor cannot
// decode is described from its index, its Error beginning
// UnreadableRecord.
func (r *Results) EvaluationHeads(ctx context.Context, req ResultsRequest) (*ResultsPage, error) {
	limit := cmp.Or(req.Limit, DefaultResultsLimit)
	recs, err := r.listSimulationRecords(ctx, store.ListFilter{Domain: req.Domain, AgentURL: req.AgentURL, Status: req.Status, Before: req.Before}, limit+1)
	if err != nil {
		return nil, err
	}
	page := &ResultsPage{Evaluations: []result.Evaluation{}}
	for i, rec := range recs {
		if i == limit {
			page.Next = recs[limit-1].ID
			break
		}
		e := headOf(rec)
		e.ID, e.Domain, e.CreatedAt = rec.ID, rec.Domain, rec.CreatedAt
		page.Evaluations = append(page.Evaluations, e)
	}
	return page, nil
}

// listSimulationRecords reads up to want evaluations of simulations f
// selects. It lists without the store's kind filter, which would make the
// store read every record's header before the record, and drops eval-set
// runs itself, reading on while they leave the page short.
func (r *Results) listSimulationRecords(ctx context.Context, f store.ListFilter, want int) ([]store.Evaluation, error) {
	out := make([]store.Evaluation, 0, want)
	for len(out) < want {
		f.Limit = want - len(out)
		recs, err := r.db.ListEvaluations(ctx, f)
		if err != nil {
			return nil, err
		}
		for _, rec := range recs {
			if rec.Kind != store.KindEvalSets {
				out = append(out, rec)
			}
		}
		if len(recs) < f.Limit {
			break // the oldest has been read
		}
		f.Before = recs[len(recs)-1].ID
	}
	return out, nil
}

// ConformanceHead is a stored conformance run in a listing: its index and
// its report's summary.
type ConformanceHead struct {
	ID, AgentURL, Level string
	CreatedAt           time.Time
	Summary             conformance.Summary
	// Error says why the report could not be read; its summary is then
	// empty.
	Error string
}

// ConformancePage is a page of conformance runs, newest first.
type ConformancePage struct {
	Runs []ConformanceHead
	// Next is the Before value of the next page, "" on the last one.
	Next string
}

// ConformanceRuns pages through the stored conformance runs, newest first
// (req's Before and Limit, 0: DefaultResultsLimit; the other fields are
// not used).
func (r *Results) ConformanceRuns(ctx context.Context, req ResultsRequest) (*ConformancePage, error) {
	limit := cmp.Or(req.Limit, DefaultResultsLimit)
	runs, err := r.db.ListConformance(ctx, store.ConformanceFilter{Before: req.Before, Limit: limit + 1})
	if err != nil {
		return nil, err
	}
	page := &ConformancePage{Runs: []ConformanceHead{}}
	for i, run := range runs {
		if i == limit {
			page.Next = runs[limit-1].ID
			break
		}
		head := ConformanceHead{ID: run.ID, AgentURL: run.AgentURL, Level: run.Level, CreatedAt: run.CreatedAt}
		var rep conformance.Report
		if err := json.Unmarshal(run.Data, &rep); err != nil {
			head.Error = "unreadable report: " + err.Error()
		}
		head.Summary = rep.Summary
		page.Runs = append(page.Runs, head)
	}
	return page, nil
}

// Conformance reads a stored conformance report by id or unique id
// prefix (LoadConformance).
func (r *Results) Conformance(ctx context.Context, id string) (*conformance.Report, error) {
	return LoadConformance(ctx, r.db, id)
}

// RequestLatencies reads the latencies of the requests of eval's
// simulations, which are stored apart from the simulations, in the order
// of eval.Simulations.
func (r *Results) RequestLatencies(ctx context.Context, eval *result.Evaluation) ([]float64, error) {
	all, err := r.db.AllRequests(ctx, eval.ID)
	if err != nil {
		return nil, err
	}
	var out []float64
	for _, s := range eval.Simulations {
		out = append(out, evaluation.Latencies(all[s.ID])...)
	}
	return out, nil
}

// UnreadableError is a stored record proctor cannot decode.
type UnreadableError struct {
	// What names the record: "simulation X of Y".
	What string
	Err  error
}

func (e *UnreadableError) Error() string { return fmt.Sprintf("%s is unreadable: %v", e.What, e.Err) }

func (e *UnreadableError) Unwrap() error { return e.Err }

// StoredSimulation is one simulation of a stored evaluation, with the
// evaluation's own record.
type StoredSimulation struct {
	// Evaluation is the evaluation's record without its simulations, as
	// stored (not scored again); its ID and Domain are the store's.
	// When the record cannot be decoded it holds only those, and
	// EvaluationErr says why.
	Evaluation    *result.Evaluation
	EvaluationErr error
	Simulation    *result.Simulation
}

// Simulation reads simulation simID of the evaluation evalID (an id or
// short id). A simulation that cannot be decoded is an *UnreadableError.
func (r *Results) Simulation(ctx context.Context, evalID, simID string) (*StoredSimulation, error) {
	rec, err := r.db.GetEvaluation(ctx, evalID)
	if err != nil {
		return nil, err
	}
	srec, err := r.db.GetSimulation(ctx, rec.ID, simID)
	if err != nil {
		return nil, err
	}
	out := &StoredSimulation{Evaluation: &result.Evaluation{}, Simulation: &result.Simulation{}}
	if err := json.Unmarshal(srec.Data, out.Simulation); err != nil {
		return nil, &UnreadableError{What: fmt.Sprintf("simulation %s of %s", srec.ID, rec.ID), Err: err}
	}
	if err := json.Unmarshal(rec.Data, out.Evaluation); err != nil {
		out.Evaluation, out.EvaluationErr = &result.Evaluation{}, err
	}
	out.Evaluation.ID, out.Evaluation.Domain = rec.ID, rec.Domain
	return out, nil
}

// CaseRun reads trial n (from 1) of case caseID of set setID in the
// eval-set run runID (its full id). A trial not stored is
// store.ErrNotFound; one that cannot be decoded an *UnreadableError.
func (r *Results) CaseRun(ctx context.Context, runID, setID, caseID string, n int) (*result.CaseResult, error) {
	srec, err := r.db.GetSimulation(ctx, runID, evaluation.CaseResultID(setID, caseID, n))
	if err != nil {
		return nil, err
	}
	var cr result.CaseResult
	if err := json.Unmarshal(srec.Data, &cr); err != nil {
		return nil, &UnreadableError{What: fmt.Sprintf("case run %s of %s", srec.ID, runID), Err: err}
	}
	return &cr, nil
}
