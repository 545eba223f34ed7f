package ui

import (
	"errors"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
)

// evalSetRow is one eval-set run in the list.
type evalSetRow struct {
	Run   result.EvalSetRun
	Agent string
	Sets  string
}

// evalSetsView is the body of the eval-set runs page.
type evalSetsView struct {
	Rows       []evalSetRow
	Next       template.URL
	FirstPage  bool
	NoDatabase bool
}

// metricAvg is one metric's average over a run.
type metricAvg struct {
	Name  string
	Score float64
}

// evalSetView is the body of one eval-set run's page.
type evalSetView struct {
	Run     *result.EvalSetRun
	Agent   string
	Metrics []metricAvg
	// Failed lists the case results (case x run) that did not pass.
	Failed []*result.CaseResult
}

func (h *Handler) evalSetRuns(w http.ResponseWriter, r *http.Request) {
	before, limit, err := pageParams(r)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "%v", err)
		return
	}
	v := evalSetsView{FirstPage: before == "", Rows: []evalSetRow{}}
	db := h.dbOf(r)
	if db == nil {
		v.NoDatabase = true
		h.render(w, r, "evalsets", "Eval-set runs", "evalsets", v)
		return
	}
	runs, err := h.results(db).EvalSetRuns(r.Context(), skills.ResultsRequest{Before: before, Limit: limit})
	if err != nil {
		h.storeFail(w, r, err)
		return
	}
	if runs.Next != "" {
		v.Next = nextQuery(h.opts.Base+"evalsets", runs.Next, limit)
	}
	for _, run := range runs.Runs {
		if unreadable, ok := strings.CutPrefix(run.Error, skills.UnreadableRecord+": "); ok {
			run = result.EvalSetRun{ID: run.ID, CreatedAt: run.CreatedAt, Status: run.Status, Error: "unreadable record: " + unreadable}
		}
		run.Status = result.Status(h.shownStatus(string(run.Status)))
		ids := make([]string, len(run.Sets))
		for i, s := range run.Sets {
			ids[i] = s.ID
		}
		v.Rows = append(v.Rows, evalSetRow{Run: run, Agent: report.AgentLabel(run.Agent), Sets: strings.Join(ids, ", ")})
	}
	h.render(w, r, "evalsets", "Eval-set runs", "evalsets", v)
}

// nextQuery is the link to the page of path after the one ending at id.
func nextQuery(path, id string, limit int) template.URL {
	q := url.Values{"before": {id}}
	if limit != DefaultPageSize {
		q.Set("limit", strconv.Itoa(limit))
	}
	return template.URL(path + "?" + q.Encode()) // #nosec: built from encoded values
}

func (h *Handler) evalSetRun(w http.ResponseWriter, r *http.Request) {
	id, db, ok := h.recordOf(w, r, "eval-set run")
	if !ok {
		return
	}
	run, err := h.results(db).EvalSetRun(r.Context(), id)
	if errors.Is(err, evaluation.ErrNotEvalSetRun) {
		http.Redirect(w, r, h.opts.Base+"eval/"+urlPath(id), http.StatusFound)
		return
	}
	if err != nil {
		h.storeFail(w, r, err)
		return
	}
	run.Status = result.Status(h.shownStatus(string(run.Status)))
	h.render(w, r, "evalset", "Eval-set run "+run.ID, "evalsets", newEvalSetView(run))
}

// newEvalSetView builds one eval-set run's page.
func newEvalSetView(run *result.EvalSetRun) evalSetView {
	v := evalSetView{Run: run, Agent: report.AgentLabel(run.Agent)}
	for _, name := range slices.Sorted(maps.Keys(run.Summary.MetricAverages)) {
		v.Metrics = append(v.Metrics, metricAvg{name, run.Summary.MetricAverages[name]})
	}
	for _, c := range run.Cases {
		if c != nil && c.FinalEvalStatus != result.EvalPassed {
			v.Failed = append(v.Failed, c)
		}
	}
	return v
}
