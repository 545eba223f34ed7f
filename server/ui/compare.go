package ui

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/report"
)

// compareView is the body of the comparison page: the form, and once both
// ids are given, their comparison (report.CompareEvaluations, the model
// `proctor compare` renders too).
type compareView struct {
	A, B string
	Cmp  *report.EvaluationComparison
}

// compare compares two evaluations of one domain (?a=ID&b=ID, A the
// base): per task pass rate A vs B with regressions and improvements
// highlighted, pass^k with intervals, and the paired test of the
// difference. With an id missing it shows the form only.
func (h *Handler) compare(w http.ResponseWriter, r *http.Request) {
	if picked, ok := r.URL.Query()["id"]; ok {
		h.comparePicked(w, r, picked)
		return
	}
	var v compareView
	for name, dst := range map[string]*string{"a": &v.A, "b": &v.B} {
		val, err := param(r, name)
		if err != nil {
			h.fail(w, r, http.StatusBadRequest, "%v", err)
			return
		}
		*dst = val
	}
	if v.A != "" && v.B != "" {
		cmp, status, err := h.comparison(r, v.A, v.B)
		if err != nil {
			if status == 0 {
				h.storeFail(w, r, err)
			} else {
				h.fail(w, r, status, "%v", err)
			}
			return
		}
		v.Cmp = cmp
	}
	h.render(w, r, "compare", "Compare evaluations", "compare", v)
}

// comparison loads evaluations a and b and compares them. An error comes
// with the status to answer, or 0 for a store error (storeFail).
func (h *Handler) comparison(r *http.Request, a, b string) (*report.EvaluationComparison, int, error) {
	db := h.dbOf(r)
	if db == nil {
		return nil, http.StatusNotFound, errors.New("there is no results database yet")
	}
	results := h.results(db)
	base, err := results.EvaluationBrief(r.Context(), a, false)
	if err != nil {
		return nil, compareStatus(err), err
	}
	cur, err := results.EvaluationBrief(r.Context(), b, false)
	if err != nil {
		return nil, compareStatus(err), err
	}
	cmp, err := report.CompareEvaluations(base, cur, report.CompareOptions{})
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	return &cmp, 0, nil
}

// compareStatus is the status for an evaluation that cannot be compared:
// 400 for an eval-set run (compare those with proctor compare), 0 for the
// store's own errors.
func compareStatus(err error) int {
	if errors.Is(err, evaluation.ErrEvalSetRun) {
		return http.StatusBadRequest
	}
	return 0
}

// comparePicked answers the evaluations list's form: the two evaluations
// ticked there (?id=ID&id=ID, newest first as the list shows them) are
// compared, the older as the base, at the comparison's own address.
func (h *Handler) comparePicked(w http.ResponseWriter, r *http.Request, ids []string) {
	if len(ids) != 2 {
		h.fail(w, r, http.StatusBadRequest, "tick two evaluations in the list to compare them (%d ticked)", len(ids))
		return
	}
	for _, id := range ids {
		if id == "" || len(id) > maxParam {
			h.fail(w, r, http.StatusBadRequest, "id: want an id of 1 to %d characters", maxParam)
			return
		}
	}
	q := url.Values{"a": {ids[1]}, "b": {ids[0]}}
	http.Redirect(w, r, h.opts.Base+"compare?"+q.Encode(), http.StatusSeeOther)
}
