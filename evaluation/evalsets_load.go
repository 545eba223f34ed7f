package evaluation

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/measure"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring/metric"
	"github.com/proctor-eval/proctor/store"
)

// ErrEvalSetRun is returned by Load for a stored record that is an
// eval-set run.
var ErrEvalSetRun = fmt.Errorf("an eval-set run, not an evaluation of simulations")

// ErrNotEvalSetRun is returned by LoadEvalSetRun for a stored record that
// is an evaluation of simulations.
var ErrNotEvalSetRun = fmt.Errorf("not an eval-set run")

// CaseSummarizer totals the scored case trials of an eval-set run,
// numTrials of each case (CaseScorer.Summarize, metric.Summarize).
type CaseSummarizer func(results []*result.CaseResult, numTrials int) result.EvalSetSummary

// LoadEvalSetRun reads a stored eval-set run with its case results. The
// totals of a run that did not complete are recomputed (metric.Summarize)
// from the case trials it kept.
func LoadEvalSetRun(ctx context.Context, st Store, id string) (*result.EvalSetRun, error) {
	return LoadEvalSetRunSummarized(ctx, st, id, metric.Summarize)
}

// LoadEvalSetRunSummarized is LoadEvalSetRun with the summarizer that
// recomputes the totals of a run that did not complete.
func LoadEvalSetRunSummarized(ctx context.Context, st Store, id string, summarize CaseSummarizer) (*result.EvalSetRun, error) {
	rec, err := st.GetEvaluation(ctx, id)
	if err != nil {
		return nil, err
	}
	if rec.Kind != store.KindEvalSets {
		return nil, fmt.Errorf("%s: %w (it is an evaluation of simulations: see proctor results %s)", rec.ID, ErrNotEvalSetRun, rec.ID)
	}
	var run result.EvalSetRun
	if err := json.Unmarshal(rec.Data, &run); err != nil {
		return nil, fmt.Errorf("eval-set run %s is unreadable: %w", rec.ID, err)
	}
	run.Status = result.Status(rec.Status)
	k := &cases{run: &run, sets: SetsOf(run.Sets), summarize: summarize}
	if run.Status == result.StatusCompleted {
		done, err := loadCaseResults(ctx, st, rec.ID)
		if err != nil {
			return nil, err
		}
		run.Cases = sortedCases(done, k.sets)
		return &run, nil
	}
	done, lat, err := loadDone[caseTrial, *result.CaseResult](ctx, st, k)
	if err != nil {
		return nil, err
	}
	k.finish(done, lat)
	return &run, nil
}

// loadCaseResults reads the stored case trials of a run.
func loadCaseResults(ctx context.Context, st Store, runID string) ([]*result.CaseResult, error) {
	return loadTrials(ctx, st, runID, "case result", decodeCase)
}

// SetsOf rebuilds the sets a run played from its record.
func SetsOf(infos []result.EvalSetInfo) []*evalset.Set {
	sets := make([]*evalset.Set, len(infos))
	for i, in := range infos {
		sets[i] = &evalset.Set{ID: in.ID, AppName: in.AppName, Name: in.Name, Format: in.Format, Path: in.Path, Metrics: in.Metrics, Cases: in.Cases}
	}
	return sets
}

// RescoreEvalSets scores the case trials that the stored run src recorded
// again into dst (NewEvalSetRun), with r's CaseScorer: nothing is played
// (r needs no CaseRecorder). metrics, when not nil, replace every set's metrics. dst names its
// source and is stored like any run, so an interrupted rescore resumes with
// RescoreEvalSets on the same dst.
func RescoreEvalSets(ctx context.Context, r *Runner, src, dst *result.EvalSetRun, metrics []*evalset.Metric) error {
	if r.Store == nil {
		return fmt.Errorf("rescore %s: a store is required", src.ID)
	}
	recorded, err := loadRecordedCases(ctx, r.Store, src)
	if err != nil {
		return err
	}
	sets := SetsOf(src.Sets)
	for _, s := range sets {
		if metrics != nil {
			s.Metrics = metrics
		}
	}
	dst.Sets = setInfos(sets)
	dst.RescoredFrom = src.ID
	return runCases(ctx, r, dst, sets, recorded)
}

// loadRecordedCases reads a run's case trials (those src holds, else the
// stored ones) with their request metrics, by id.
func loadRecordedCases(ctx context.Context, st Store, src *result.EvalSetRun) (map[string]*result.CaseResult, error) {
	runID := src.ID
	done := src.Cases
	if len(done) == 0 {
		var err error
		if done, err = loadCaseResults(ctx, st, runID); err != nil {
			return nil, err
		}
	}
	out := make(map[string]*result.CaseResult, len(done))
	for _, rec := range done {
		cr := *rec // the caller's stays as it was
		raw, err := st.Requests(ctx, runID, cr.ID)
		if err != nil {
			return nil, fmt.Errorf("requests of case run %s of %s: %w", cr.ID, runID, err)
		}
		if len(raw) > 0 {
			var reqs []measure.Request
			if err := json.Unmarshal(raw, &reqs); err != nil {
				return nil, fmt.Errorf("requests of case run %s of %s are unreadable: %w", cr.ID, runID, err)
			}
			cr.Requests = reqs
		}
		cr.Metrics.LLMUsage = llm.UsageByRole(cr.LLMCalls)
		out[cr.ID] = &cr
	}
	return out, nil
}
