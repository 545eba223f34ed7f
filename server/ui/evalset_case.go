package ui

import (
	"errors"
	"net/http"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// metricView is one metric's verdict, with why it scored as it did.
type metricView struct {
	Name, Status, Reason string
	Score, Threshold     float64
	Passed, Failed       bool
}

// toolView is one tool call of an invocation.
type toolView struct {
	Name, Args string
}

// turnView is one invocation of a case run: what the user said, and
// what was expected beside what the agent did.
type turnView struct {
	N                                int
	User                             string
	ExpectedTools, ActualTools       []toolView
	ExpectedResponse, ActualResponse string
	HasExpected, HasActual           bool
	Metrics                          []metricView
	// Mismatch is set when a metric failed on this invocation.
	Mismatch bool
}

// caseRunView is one run of a case.
type caseRunView struct {
	RunID   int
	Status  string
	Passed  bool
	Error   string
	Metrics []metricView
	Turns   []turnView
	// Thoughts are what the agent kept private, per turn.
	Thoughts [][]string
}

// caseView is the body of an eval-set case's page.
type caseView struct {
	RunID, Agent string
	Summary      result.CaseSummary
	Metrics      []metricView
	Runs         []caseRunView
	// Missing counts runs the summary counts whose record is not stored.
	Missing int
}

// evalSetCase shows one case of an eval-set run (?id=<set>/<case>): each
// of its runs invocation by invocation, expected beside actual, with each
// metric's score, threshold and reason, as proctor results prints for a
// failing case.
func (h *Handler) evalSetCase(w http.ResponseWriter, r *http.Request) {
	id, db, ok := h.recordOf(w, r, "eval-set run")
	if !ok {
		return
	}
	key, err := param(r, "id")
	if err == nil && key == "" {
		err = badRequest("give the case as ?id=<eval set id>/<case id>, as the eval-set run's page links it")
	}
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "%v", err)
		return
	}
	run, err := h.results(db).EvalSetRunHead(r.Context(), id)
	if errors.Is(err, evaluation.ErrNotEvalSetRun) {
		h.fail(w, r, http.StatusNotFound, "%v", err)
		return
	}
	if err != nil {
		h.storeFail(w, r, err)
		return
	}
	sum, ok := findCase(run.Summary.Cases, key)
	if !ok {
		h.fail(w, r, http.StatusNotFound, "eval-set run %s has no case %q: its cases are listed on its page", run.ID, key)
		return
	}
	v := caseView{RunID: run.ID, Agent: report.AgentLabel(run.Agent), Summary: sum, Metrics: metricViews(sum.Metrics)}
	for n := 1; n <= max(sum.Runs, run.Config.NumRuns, 1); n++ {
		cr, err := h.results(db).CaseRun(r.Context(), run.ID, sum.EvalSetID, sum.EvalID, n)
		if unreadable := (*skills.UnreadableError)(nil); errors.As(err, &unreadable) {
			h.fail(w, r, http.StatusInternalServerError, "%v", err)
			return
		}
		switch {
		case errors.Is(err, store.ErrNotFound):
			v.Missing++
			continue
		case err != nil:
			h.storeFail(w, r, err)
			return
		}
		v.Runs = append(v.Runs, newCaseRunView(cr))
	}
	h.render(w, r, "evalcase", "Case "+key, "evalsets", v)
}

// findCase is the summary of case key ("<set>/<case>").
func findCase(cases []result.CaseSummary, key string) (result.CaseSummary, bool) {
	for _, c := range cases {
		if c.EvalSetID+"/"+c.EvalID == key {
			return c, true
		}
	}
	return result.CaseSummary{}, false
}

// metricViews shows metric results, nil ones left out.
func metricViews(ms []*result.MetricResult) []metricView {
	var out []metricView
	for _, m := range ms {
		if m == nil {
			continue
		}
		out = append(out, metricView{Name: m.MetricName, Status: string(m.EvalStatus), Reason: report.MetricReason(m), Score: m.Score, Threshold: m.Threshold,
			Passed: m.EvalStatus == result.EvalPassed, Failed: m.EvalStatus == result.EvalFailed})
	}
	return out
}

// newCaseRunView shows one case run: its invocations as the metrics saw
// them, or, when none was scored (a run that failed to play), what was
// expected and what the agent did, turn by turn.
func newCaseRunView(cr *result.CaseResult) caseRunView {
	v := caseRunView{RunID: cr.RunID, Status: string(cr.FinalEvalStatus), Passed: cr.FinalEvalStatus == result.EvalPassed, Error: cr.ErrorMessage,
		Metrics: metricViews(cr.OverallEvalMetricResults)}
	for i, ir := range cr.EvalMetricResultPerInvocation {
		if ir == nil {
			continue
		}
		t := newTurnView(i+1, ir.ExpectedInvocation, ir.ActualInvocation)
		t.Metrics = metricViews(ir.EvalMetricResults)
		for _, m := range t.Metrics {
			t.Mismatch = t.Mismatch || m.Failed
		}
		v.Turns = append(v.Turns, t)
	}
	if len(v.Turns) == 0 {
		for i := range max(len(cr.Expected), len(cr.Actual)) {
			v.Turns = append(v.Turns, newTurnView(i+1, at(cr.Expected, i), at(cr.Actual, i)))
		}
	}
	for _, t := range cr.Turns {
		v.Thoughts = append(v.Thoughts, t.Thoughts)
	}
	return v
}

// at is invs[i], or nil past its end.
func at(invs []*evalset.Invocation, i int) *evalset.Invocation {
	if i < len(invs) {
		return invs[i]
	}
	return nil
}

// newTurnView shows invocation n, expected beside actual.
func newTurnView(n int, want, got *evalset.Invocation) turnView {
	t := turnView{N: n, HasExpected: want != nil, HasActual: got != nil}
	for _, inv := range []*evalset.Invocation{want, got} {
		if t.User == "" && inv != nil && inv.UserContent != nil {
			t.User = inv.UserContent.Text()
		}
	}
	t.ExpectedTools, t.ExpectedResponse = invocationParts(want)
	t.ActualTools, t.ActualResponse = invocationParts(got)
	return t
}

// invocationParts are an invocation's tool calls and final response.
func invocationParts(inv *evalset.Invocation) ([]toolView, string) {
	if inv == nil {
		return nil, ""
	}
	var tools []toolView
	for _, tc := range inv.Tools {
		if tc != nil {
			tools = append(tools, toolView{Name: tc.Name, Args: prettyJSON(tc.Arguments)})
		}
	}
	return tools, inv.FinalResponse.Text()
}
