package ui

import (
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
)

// knownDomains are offered as suggestions in the domain filter; any other
// name may be typed.
func knownDomains() []string { return []string{"mock", "airline", "retail", "telecom"} }

// statuses are the evaluation statuses the list can filter on.
func statuses() []string {
	return []string{string(result.StatusCompleted), string(result.StatusRunning), string(result.StatusInterrupted), string(result.StatusFailed)}
}

// listFilter is what the evaluations list was asked for.
type listFilter struct {
	Domain, Agent, Status, Before string
	Limit                         int
}

// query is the filter as a query string, without the cursor.
func (f listFilter) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"domain": f.Domain, "agent": f.Agent, "status": f.Status} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.Limit != DefaultPageSize {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	return q
}

// evalRow is one evaluation in the list.
type evalRow struct {
	ID, Domain, Status, Agent, AgentURL string
	Created                             time.Time
	Sims                                int
	PassHat1, AvgReward                 float64
	Baseline                            *result.Baseline
	RescoredFrom, Error                 string
}

// listView is the body of the evaluations page.
type listView struct {
	Filter   listFilter
	Statuses []string
	Domains  []string
	Rows     []evalRow
	// Next links the next (older) page; empty on the last.
	Next template.URL
	// FirstPage is false when the page is reached through a cursor.
	FirstPage bool
	// NoDatabase is set when there is no results database yet.
	NoDatabase bool
}

func (h *Handler) evaluations(w http.ResponseWriter, r *http.Request) {
	f, err := readListFilter(r)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "%v", err)
		return
	}
	v := listView{Filter: f, Statuses: statuses(), Domains: knownDomains(), FirstPage: f.Before == "", Rows: []evalRow{}}
	db := h.dbOf(r)
	if db == nil {
		v.NoDatabase = true
		h.render(w, r, "evaluations", "Evaluations", "evaluations", v)
		return
	}
	heads, err := h.results(db).EvaluationHeads(r.Context(), skills.ResultsRequest{Domain: f.Domain, AgentURL: f.Agent, Status: f.Status, Before: f.Before, Limit: f.Limit})
	if err != nil {
		h.storeFail(w, r, err)
		return
	}
	if heads.Next != "" {
		q := f.query()
		q.Set("before", heads.Next)
		v.Next = template.URL(h.opts.Base + "?" + q.Encode()) // #nosec: built from encoded values
	}
	for _, e := range heads.Evaluations {
		v.Rows = append(v.Rows, h.evalRow(e))
	}
	h.render(w, r, "evaluations", "Evaluations", "evaluations", v)
}

// shownStatus is the status to show for a stored one (see
// Options.StaleRunning).
func (h *Handler) shownStatus(status string) string {
	if status == string(result.StatusRunning) && h.opts.StaleRunning != nil && h.opts.StaleRunning() {
		return string(result.StatusInterrupted)
	}
	return status
}

func (h *Handler) evalRow(e result.Evaluation) evalRow {
	addr := e.Agent.Address()
	row := evalRow{ID: e.ID, Domain: e.Domain, Status: h.shownStatus(string(e.Status)), AgentURL: addr, Created: e.CreatedAt, Agent: addr}
	if unreadable, ok := strings.CutPrefix(e.Error, skills.UnreadableRecord+": "); ok {
		row.Error = "unreadable record: " + unreadable
		return row
	}
	row.Agent = report.AgentLabel(e.Agent)
	row.Sims = e.Summary.NumSimulations
	row.PassHat1 = e.Summary.PassHatK["1"]
	row.AvgReward = e.Summary.AvgReward
	row.Baseline = e.Summary.DoNothingBaseline
	row.RescoredFrom = e.RescoredFrom
	row.Error = e.Error
	return row
}

// readListFilter reads the evaluations list's query.
func readListFilter(r *http.Request) (listFilter, error) {
	var f listFilter
	for name, dst := range map[string]*string{"domain": &f.Domain, "agent": &f.Agent, "status": &f.Status, "before": &f.Before} {
		v, err := param(r, name)
		if err != nil {
			return f, err
		}
		*dst = v
	}
	var err error
	f.Limit, err = pageSize(r)
	return f, err
}
