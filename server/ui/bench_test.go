package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/proctor-eval/proctor/store"
)

// benchEvaluations is the size of the generated store the list is timed
// on; the budget is 100 ms per page.
const benchEvaluations = 10000

// fillStore stores n evaluations as the runner leaves them (a summary
// of 50 tasks over 4 trials, no simulations: the list reads only
// evaluation records), one in every 100 on the retail domain, in one
// write transaction per 500.
func fillStore(b *testing.B, db *store.DB, n int) (oldest string) {
	b.Helper()
	eval := fixtureEval("", 4, 1)
	for i := range 50 {
		eval.Summary.Tasks = append(eval.Summary.Tasks, eval.Summary.Tasks[0])
		eval.Summary.Tasks[len(eval.Summary.Tasks)-1].TaskID = fmt.Sprintf("task-%d", i)
	}
	head := *eval
	head.Simulations = nil
	data, err := json.Marshal(head)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for i := range n {
		rec := store.Evaluation{ID: store.NewID(), Domain: "airline", AgentURL: eval.Agent.URL, Status: "completed", Data: data}
		if i%100 == 0 {
			rec.Domain = "retail"
		}
		if i == 0 {
			oldest = rec.ID
		}
		if err := db.PutEvaluation(ctx, rec); err != nil {
			b.Fatal(err)
		}
	}
	return oldest
}

// serve times GETs of path.
func serve(b *testing.B, h http.Handler, path string) {
	b.Helper()
	req := httptest.NewRequest(http.MethodGet, "http://proctor.test"+path, nil)
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: status %d", path, rec.Code)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/page")
}

// BenchmarkEvaluationsList times the evaluations list over 10,000 stored
// evaluations: the first page, a page deep in the listing, and a filter
// that one evaluation in 100 matches (the list then reads 5,000 records
// to fill a page of 50).
func BenchmarkEvaluationsList(b *testing.B) {
	db := openStore(b)
	oldest := fillStore(b, db, benchEvaluations)
	recs, err := db.ListEvaluations(context.Background(), store.ListFilter{Limit: benchEvaluations / 2})
	if err != nil {
		b.Fatal(err)
	}
	middle := recs[len(recs)-1].ID
	h, err := New(db, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("first page", func(b *testing.B) { serve(b, h, "/") })
	b.Run("middle page", func(b *testing.B) { serve(b, h, "/?before="+url.QueryEscape(middle)) })
	b.Run("sparse filter", func(b *testing.B) { serve(b, h, "/?domain=retail") })
	b.Run("past the oldest", func(b *testing.B) { serve(b, h, "/?before="+url.QueryEscape(oldest)) })
}

// BenchmarkSimulationPage times the page of a 100-turn simulation (501
// messages, 200 tool calls) in an evaluation of 200 simulations.
func BenchmarkSimulationPage(b *testing.B) {
	db := openStore(b)
	eval := fixtureEval(store.NewID(), 100, 1)
	for i := range eval.Simulations {
		if eval.Simulations[i].ID == failingSim {
			long := failingSimulation(1, 100)
			eval.Simulations[i] = long
		}
	}
	putEval(b, db, eval)
	h, err := New(db, Options{})
	if err != nil {
		b.Fatal(err)
	}
	serve(b, h, "/eval/"+eval.ID+"/sim?id="+url.QueryEscape(failingSim))
}

// BenchmarkEvaluationPage times the page of an evaluation of 200
// simulations with their request metrics.
func BenchmarkEvaluationPage(b *testing.B) {
	db := openStore(b)
	eval := fixtureEval(store.NewID(), 100, 4)
	putEval(b, db, eval)
	h, err := New(db, Options{})
	if err != nil {
		b.Fatal(err)
	}
	serve(b, h, "/eval/"+eval.ID)
}
