package ui

import (
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/result"
)

func TestComparePickedRedirects(t *testing.T) {
	s := seed(t)
	h, err := New(s.db, Options{Base: "/ui/"})
	if err != nil {
		t.Fatal(err)
	}
	// The list shows the newest first, so the first ticked is B.
	code, _, hdr := get(t, h, "/ui/compare?id="+s.evalID+"&id="+s.betterID)
	want := "/ui/compare?" + url.Values{"a": {s.betterID}, "b": {s.evalID}}.Encode()
	if code != 303 || hdr.Get("Location") != want {
		t.Errorf("GET /ui/compare?id=B&id=A: status %d, Location %q; want 303 to %q", code, hdr.Get("Location"), want)
	}
}

func TestMatrixView(t *testing.T) {
	sum := func(set, id string, st result.EvalStatus, passed int) result.CaseSummary {
		return result.CaseSummary{EvalSetID: set, EvalID: id, Status: st, Runs: 1, Passed: passed}
	}
	older := &result.EvalSetRun{ID: "r1", CreatedAt: time.Unix(1, 0), Summary: result.EvalSetSummary{NumCases: 2, Passed: 1,
		Cases: []result.CaseSummary{sum("s", "a", result.EvalPassed, 1), sum("s", "b", result.EvalFailed, 0)}}}
	newer := &result.EvalSetRun{ID: "r2", CreatedAt: time.Unix(2, 0), Summary: result.EvalSetSummary{NumCases: 2, Passed: 1,
		Cases: []result.CaseSummary{sum("s", "a", result.EvalPassed, 1), sum("s", "c", result.EvalPassed, 1)}}}
	pass := matrixCell{Present: true, Status: "passed", Passed: true, RunsPassed: 1, Runs: 1}
	fail := matrixCell{Present: true, Status: "failed", Failed: true, Runs: 1}
	want := matrixView{
		Columns: []matrixColumn{{ID: "r1", Agent: "(unknown agent)", Passed: 1, NumCases: 2}, {ID: "r2", Agent: "(unknown agent)", Passed: 1, NumCases: 2}},
		Rows: []matrixRow{
			{Key: "s/a", Cells: []matrixCell{pass, pass}},
			{Key: "s/b", Cells: []matrixCell{fail, {}}, Differs: true},
			{Key: "s/c", Cells: []matrixCell{{}, pass}, Differs: true},
		},
		Differ: 2,
	}
	got := newMatrixView([]*result.EvalSetRun{older, newer})
	for i := range got.Columns {
		got.Columns[i].Agent = want.Columns[i].Agent // the label's wording is report.AgentLabel's
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("newMatrixView (-want +got):\n%s", diff)
	}
}
