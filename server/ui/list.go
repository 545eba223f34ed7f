package ui

import (
	"context"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
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

// evalHead is the part of a stored evaluation the list shows; decoding it
// skips the rest of the record.
type evalHead struct {
	Agent   result.AgentInfo `json:"agent"`
	Summary struct {
		NumSimulations    int                `json:"num_simulations"`
		AvgReward         float64            `json:"avg_reward"`
		PassHatK          map[string]float64 `json:"pass_hat_k"`
		DoNothingBaseline *result.Baseline   `json:"do_nothing_baseline"`
	} `json:"summary"`
	Error        string `json:"error"`
	RescoredFrom string `json:"rescored_from"`
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
	recs, err := listEvaluations(r.Context(), db, f)
	if err != nil {
		h.storeFail(w, r, err)
		return
	}
	if len(recs) > f.Limit {
		recs = recs[:f.Limit]
		q := f.query()
		q.Set("before", recs[len(recs)-1].ID)
		v.Next = template.URL(h.opts.Base + "?" + q.Encode()) // #nosec: built from encoded values
	}
	for _, rec := range recs {
		v.Rows = append(v.Rows, h.evalRow(rec))
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

func (h *Handler) evalRow(rec store.Evaluation) evalRow {
	row := evalRow{ID: rec.ID, Domain: rec.Domain, Status: h.shownStatus(rec.Status), AgentURL: rec.AgentURL, Created: rec.CreatedAt, Agent: rec.AgentURL}
	var head evalHead
	if err := json.Unmarshal(rec.Data, &head); err != nil {
		row.Error = "unreadable record: " + err.Error()
		return row
	}
	row.Agent = report.AgentLabel(head.Agent)
	row.Sims = head.Summary.NumSimulations
	row.PassHat1 = head.Summary.PassHatK["1"]
	row.AvgReward = head.Summary.AvgReward
	row.Baseline = head.Summary.DoNothingBaseline
	row.RescoredFrom = head.RescoredFrom
	row.Error = head.Error
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

// listEvaluations reads the evaluations of simulations f selects, up to
// f.Limit+1 (one more says there is a next page). It lists without the
// store's kind filter, which would make the store read every record's
// header before the record, and drops eval-set runs itself, reading on
// while they leave the page short.
func listEvaluations(ctx context.Context, db *store.DB, f listFilter) ([]store.Evaluation, error) {
	want := f.Limit + 1
	out := make([]store.Evaluation, 0, want)
	before := f.Before
	for len(out) < want {
		ask := want - len(out)
		recs, err := db.ListEvaluations(ctx, store.ListFilter{Domain: f.Domain, AgentURL: f.Agent, Status: f.Status, Before: before, Limit: ask})
		if err != nil {
			return nil, err
		}
		for _, rec := range recs {
			if rec.Kind != store.KindEvalSets {
				out = append(out, rec)
			}
		}
		if len(recs) < ask {
			break // the oldest has been read
		}
		before = recs[len(recs)-1].ID
	}
	return out, nil
}
