package ui

import (
	"html/template"
	"net/http"
	"time"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/skills"
)

// conformanceRow is one conformance run in the list.
type conformanceRow struct {
	ID, AgentURL, Level string
	Created             time.Time
	Summary             conformance.Summary
	Error               string
}

// conformanceListView is the body of the conformance runs page.
type conformanceListView struct {
	Rows       []conformanceRow
	Next       template.URL
	FirstPage  bool
	NoDatabase bool
}

// requirementGroup is the results of one category of requirements.
type requirementGroup struct {
	Category string
	Summary  conformance.CategorySummary
	Results  []conformance.Result
}

// conformanceView is the body of one conformance report's page.
type conformanceView struct {
	Report *conformance.Report
	Groups []requirementGroup
	Failed []conformance.Result
}

func (h *Handler) conformanceRuns(w http.ResponseWriter, r *http.Request) {
	before, limit, err := pageParams(r)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "%v", err)
		return
	}
	v := conformanceListView{FirstPage: before == "", Rows: []conformanceRow{}}
	db := h.dbOf(r)
	if db == nil {
		v.NoDatabase = true
		h.render(w, r, "conformances", "Conformance reports", "conformance", v)
		return
	}
	runs, err := h.results(db).ConformanceRuns(r.Context(), skills.ResultsRequest{Before: before, Limit: limit})
	if err != nil {
		h.storeFail(w, r, err)
		return
	}
	if runs.Next != "" {
		v.Next = nextQuery(h.opts.Base+"conformance", runs.Next, limit)
	}
	for _, run := range runs.Runs {
		v.Rows = append(v.Rows, conformanceRow{ID: run.ID, AgentURL: run.AgentURL, Level: run.Level, Created: run.CreatedAt, Summary: run.Summary, Error: run.Error})
	}
	h.render(w, r, "conformances", "Conformance reports", "conformance", v)
}

func (h *Handler) conformanceRun(w http.ResponseWriter, r *http.Request) {
	id, db, ok := h.recordOf(w, r, "conformance report")
	if !ok {
		return
	}
	rep, err := h.results(db).Conformance(r.Context(), id)
	if err != nil {
		h.storeFail(w, r, err)
		return
	}
	h.render(w, r, "conformance", "Conformance report "+rep.ID, "conformance", newConformanceView(rep))
}

// newConformanceView groups a report's results by category, in report
// order; categories the report does not know follow.
func newConformanceView(rep *conformance.Report) conformanceView {
	v := conformanceView{Report: rep, Failed: rep.Failed()}
	byCat := map[conformance.Category][]conformance.Result{}
	for _, res := range rep.Results {
		byCat[res.Category] = append(byCat[res.Category], res)
	}
	seen := map[conformance.Category]bool{}
	add := func(c conformance.Category) {
		if seen[c] || len(byCat[c]) == 0 {
			return
		}
		seen[c] = true
		v.Groups = append(v.Groups, requirementGroup{Category: string(c), Summary: rep.Categories[c], Results: byCat[c]})
	}
	for _, c := range conformance.Categories() {
		add(c)
	}
	for _, res := range rep.Results {
		add(res.Category)
	}
	return v
}
