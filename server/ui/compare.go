package ui

import "net/http"

// compareView is the body of the comparison page.
type compareView struct {
	A, B string
}

// compare is the place of the comparison of two evaluations (?a=ID&b=ID).
// The per-task comparison (pass rates A vs B, regressions and
// improvements, the significance of the difference) is computed by
// report's comparison model, which `proctor compare` also renders; until
// it lands this page says so and links both evaluations. Its template,
// compare.html, is where the comparison's tables and plots go.
func (h *Handler) compare(w http.ResponseWriter, r *http.Request) {
	var v compareView
	for name, dst := range map[string]*string{"a": &v.A, "b": &v.B} {
		val, err := param(r, name)
		if err != nil {
			h.fail(w, r, http.StatusBadRequest, "%v", err)
			return
		}
		*dst = val
	}
	h.render(w, r, "compare", "Compare evaluations", "compare", v)
}
