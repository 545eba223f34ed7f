package ui

import (
	"errors"
	"net/http"
	"slices"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
)

// maxMatrixRuns bounds the eval-set runs one matrix compares.
const maxMatrixRuns = 12

// matrixColumn is one eval-set run of the matrix.
type matrixColumn struct {
	ID, Agent        string
	Passed, NumCases int
}

// matrixCell is one case in one run: its verdict over its runs and its
// metrics' scores.
type matrixCell struct {
	Present        bool
	Status         string
	Passed, Failed bool
	RunsPassed     int
	Runs           int
	Metrics        []metricView
}

// matrixRow is one case across the runs.
type matrixRow struct {
	Key   string
	Cells []matrixCell
	// Differs is set when the runs disagree on the case's verdict.
	Differs bool
}

// matrixView is the body of the case matrix page.
type matrixView struct {
	Columns []matrixColumn
	Rows    []matrixRow
	Differ  int
}

// evalSetMatrix shows several eval-set runs side by side (?id=ID&id=ID...,
// as ticked in the list): a row per case, a column per run, each cell the
// case's verdict with its metrics' scores, linking to the case's page.
func (h *Handler) evalSetMatrix(w http.ResponseWriter, r *http.Request) {
	ids := r.URL.Query()["id"]
	if len(ids) < 2 || len(ids) > maxMatrixRuns {
		h.fail(w, r, http.StatusBadRequest, "tick 2 to %d eval-set runs in the list to see their cases side by side (%d ticked)", maxMatrixRuns, len(ids))
		return
	}
	db := h.dbOf(r)
	if db == nil {
		h.fail(w, r, http.StatusNotFound, "there is no results database yet")
		return
	}
	runs := make([]*result.EvalSetRun, 0, len(ids))
	for _, id := range ids {
		if id == "" || len(id) > maxParam {
			h.fail(w, r, http.StatusBadRequest, "id: want an id of 1 to %d characters", maxParam)
			return
		}
		run, err := h.results(db).EvalSetRunHead(r.Context(), id)
		if errors.Is(err, evaluation.ErrNotEvalSetRun) {
			h.fail(w, r, http.StatusNotFound, "%v: tick eval-set runs only", err)
			return
		}
		if err != nil {
			h.storeFail(w, r, err)
			return
		}
		runs = append(runs, run)
	}
	slices.SortStableFunc(runs, func(a, b *result.EvalSetRun) int { return a.CreatedAt.Compare(b.CreatedAt) })
	h.render(w, r, "evalmatrix", "Eval-set runs side by side", "evalsets", newMatrixView(runs))
}

// newMatrixView lays runs out as columns (oldest first) and their cases
// as rows, in the order each case first appears.
func newMatrixView(runs []*result.EvalSetRun) matrixView {
	var v matrixView
	index := map[string]int{}
	for c, run := range runs {
		v.Columns = append(v.Columns, matrixColumn{ID: run.ID, Agent: report.AgentLabel(run.Agent), Passed: run.Summary.Passed, NumCases: run.Summary.NumCases})
		for _, cs := range run.Summary.Cases {
			key := cs.EvalSetID + "/" + cs.EvalID
			i, ok := index[key]
			if !ok {
				i = len(v.Rows)
				index[key] = i
				v.Rows = append(v.Rows, matrixRow{Key: key, Cells: make([]matrixCell, len(runs))})
			}
			v.Rows[i].Cells[c] = matrixCell{Present: true, Status: string(cs.Status), Passed: cs.Status == result.EvalPassed,
				Failed: cs.Status != result.EvalPassed, RunsPassed: cs.Passed, Runs: cs.Runs, Metrics: metricViews(cs.Metrics)}
		}
	}
	for i := range v.Rows {
		row := &v.Rows[i]
		for _, cell := range row.Cells[1:] {
			if cell.Present != row.Cells[0].Present || cell.Status != row.Cells[0].Status {
				row.Differs = true
			}
		}
		if row.Differs {
			v.Differ++
		}
	}
	return v
}
