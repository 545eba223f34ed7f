package skills

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// Results is the repository of stored evaluations: every front end (the
// command line, the server's skills, the viewer) loads, lists and scores
// stored evaluations of simulations and eval-set runs through it, so a
// record reads the same everywhere. An evaluation or run that did not
// complete is scored from what it kept, since its stored summary predates
// its last trials. The zero value is not usable: see NewResults.
type Results struct {
	db *store.DB
	// summarize totals an eval-set run's case trials: the summarizer
	// proctor's own eval-set runs are scored with (caseScorer's).
	summarize evaluation.CaseSummarizer
}

// NewResults returns the repository of the evaluations stored in db.
func NewResults(db *store.DB) *Results {
	return &Results{db: db, summarize: caseScorer{}.Summarize}
}

// Evaluation reads a stored evaluation of simulations by id or short id
// (a unique prefix or suffix), with its simulations. An eval-set run's id
// is an error wrapping evaluation.ErrEvalSetRun.
func (r *Results) Evaluation(ctx context.Context, id string) (*result.Evaluation, error) {
	return evaluation.Load(ctx, r.db, id)
}

// EvaluationBrief reads a stored evaluation without its simulations: its
// summary, metrics and per-task scores, plus a row per simulation when
// withRows. A completed evaluation's own record holds everything but the
// rows, so a brief read without rows is that one small record, however
// many simulations there are. Rows, and evaluations that did not complete,
// need the simulations: they are loaded and scored as Evaluation does.
func (r *Results) EvaluationBrief(ctx context.Context, id string, withRows bool) (*result.Evaluation, error) {
	if !withRows {
		return evaluation.LoadBrief(ctx, r.db, id)
	}
	eval, err := r.Evaluation(ctx, id)
	if err != nil {
		return nil, err
	}
	eval.SimulationRows = result.Rows(eval.Simulations)
	eval.Simulations = nil
	return eval, nil
}

// Recorded reads the simulations of a loaded evaluation with their
// request metrics, in the evaluation's order (evaluation.LoadRecorded).
func (r *Results) Recorded(ctx context.Context, eval *result.Evaluation) ([]evaluation.Recorded, error) {
	return evaluation.LoadRecorded(ctx, r.db, eval)
}

// EvalSetRun reads a stored eval-set run by id or short id, with its case
// results; the totals of one that did not complete are recomputed with
// the repository's summarizer. An evaluation of simulations' id is an
// error wrapping evaluation.ErrNotEvalSetRun.
func (r *Results) EvalSetRun(ctx context.Context, id string) (*result.EvalSetRun, error) {
	return evaluation.LoadEvalSetRunSummarized(ctx, r.db, id, r.summarize)
}

// Completed reads the completed evaluations of a domain and split without
// their simulations: what a leaderboard ranks (evaluation.Completed).
func (r *Results) Completed(ctx context.Context, domain, split string) ([]*result.Evaluation, error) {
	return evaluation.Completed(ctx, r.db, domain, split)
}

// Evaluations pages through the stored evaluations of simulations, newest
// first, without their simulations, as req filters them (req.ID is not
// used; the caller has validated req). The stored summary of an
// evaluation that did not complete predates its last simulations (or,
// after a crash, all of them): it is scored from what it kept, as
// Evaluation does.
func (r *Results) Evaluations(ctx context.Context, req ResultsRequest) (*ResultsPage, error) {
	limit := req.Limit
	if limit == 0 {
		limit = DefaultResultsLimit
	}
	filter := store.ListFilter{Kind: store.KindSimulations, Domain: req.Domain, Status: req.Status, Limit: limit + 1, Before: req.Before}
	if req.AgentURL != "" {
		filter.Limit = -1 // agent URLs are matched loosely, below
	}
	recs, err := r.db.ListEvaluations(ctx, filter)
	if err != nil {
		return nil, err
	}
	page := &ResultsPage{Evaluations: []result.Evaluation{}}
	for _, rec := range recs {
		e := headOf(rec)
		if req.AgentURL != "" && !SameAgent(req.AgentURL, rec.AgentURL, e) {
			continue
		}
		if len(page.Evaluations) == limit {
			page.Next = page.Evaluations[limit-1].ID
			break
		}
		if e.Status != result.StatusCompleted && !strings.HasPrefix(e.Error, UnreadableRecord) {
			if full, err := r.Evaluation(ctx, rec.ID); err == nil {
				e.Summary, e.Metrics = full.Summary, full.Metrics
			}
		}
		page.Evaluations = append(page.Evaluations, e)
	}
	return page, nil
}

// headOf decodes a listed evaluation's record; one proctor cannot decode
// is described from its index, its Error beginning UnreadableRecord.
func headOf(rec store.Evaluation) result.Evaluation {
	var e result.Evaluation
	if err := json.Unmarshal(rec.Data, &e); err != nil {
		e = result.Evaluation{ID: rec.ID, Domain: rec.Domain, Agent: result.AgentInfo{URL: rec.AgentURL},
			Error: fmt.Sprintf("%s: %v", UnreadableRecord, err)}
	}
	e.Status = result.Status(rec.Status)
	return e
}

// EvalSetRuns pages through the stored eval-set runs, newest first,
// without their case results or the sets' cases, as req filters them
// (AgentURL, matched loosely, Before and Limit, 0: DefaultResultsLimit;
// the other fields are not used). Next is the Before of the next page.
func (r *Results) EvalSetRuns(ctx context.Context, req ResultsRequest) (*EvalSetRunsPage, error) {
	limit := cmp.Or(req.Limit, DefaultResultsLimit)
	filter := store.ListFilter{Kind: store.KindEvalSets, Limit: limit + 1, Before: req.Before}
	if req.AgentURL != "" {
		filter.Limit = -1 // agent URLs are matched loosely, below
	}
	recs, err := r.db.ListEvaluations(ctx, filter)
	if err != nil {
		return nil, err
	}
	page := &EvalSetRunsPage{Runs: []result.EvalSetRun{}}
	for _, rec := range recs {
		run := evalSetHeadOf(rec)
		if req.AgentURL != "" && !SameAgent(req.AgentURL, rec.AgentURL, result.Evaluation{Agent: run.Agent, Config: result.Config{Agent: run.Config.Agent}}) {
			continue
		}
		if len(page.Runs) == limit {
			page.Next = page.Runs[limit-1].ID
			break
		}
		page.Runs = append(page.Runs, run)
	}
	return page, nil
}

// EvalSetRunsPage is a page of eval-set runs, newest first, without their
// case results or the sets' cases.
type EvalSetRunsPage struct {
	Runs []result.EvalSetRun
	// Next is the Before value of the next page, "" on the last one.
	Next string
}

// evalSetHeadOf decodes a listed eval-set run's record without the sets'
// cases (the listing's size must not grow with the sets); one proctor
// cannot decode is described from its index, its Error beginning
// UnreadableRecord.
func evalSetHeadOf(rec store.Evaluation) result.EvalSetRun {
	var run result.EvalSetRun
	if err := json.Unmarshal(rec.Data, &run); err != nil {
		run = result.EvalSetRun{Agent: result.AgentInfo{URL: rec.AgentURL}, Error: fmt.Sprintf("%s: %v", UnreadableRecord, err)}
	}
	run.ID, run.Status, run.CreatedAt = rec.ID, result.Status(rec.Status), rec.CreatedAt
	for i := range run.Sets {
		run.Sets[i].Cases = nil
	}
	return run
}

// EvalSetRunHead reads an eval-set run's own record, without its case
// results: its summary, config and sets, however many cases it ran. Its
// Status is what the record's data says, not the store's index. An
// evaluation of simulations' id is an error
// wrapping evaluation.ErrNotEvalSetRun.
func (r *Results) EvalSetRunHead(ctx context.Context, id string) (*result.EvalSetRun, error) {
	rec, err := r.db.GetEvaluation(ctx, id)
	if err != nil {
		return nil, err
	}
	if rec.Kind != store.KindEvalSets {
		return nil, fmt.Errorf("%s: %w (it is an evaluation of simulations)", rec.ID, evaluation.ErrNotEvalSetRun)
	}
	var run result.EvalSetRun
	if err := json.Unmarshal(rec.Data, &run); err != nil {
		return nil, fmt.Errorf("eval-set run %s is unreadable: %w", rec.ID, err)
	}
	run.ID, run.CreatedAt = rec.ID, rec.CreatedAt
	return &run, nil
}
