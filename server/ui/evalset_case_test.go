package ui

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/result"
)

// TestCaseRunWithoutScores shows a case run no metric scored (it failed
// to play) from what was expected and what the agent did, turn by turn.
func TestCaseRunWithoutScores(t *testing.T) {
	ask := func(s string) *evalset.Message { return &evalset.Message{Role: "user", Content: s} }
	cr := &result.CaseResult{RunID: 2, FinalEvalStatus: result.EvalNotEvaluated, ErrorMessage: "agent unreachable",
		Expected: []*evalset.Invocation{{UserContent: ask("first"), FinalResponse: &evalset.Message{Content: "one"}}, {UserContent: ask("second")}},
		Actual:   []*evalset.Invocation{{UserContent: ask("first"), Tools: []*evalset.Tool{{Name: "lookup", Arguments: map[string]any{"q": "x"}}}}},
	}
	want := caseRunView{RunID: 2, Status: "not_evaluated", Error: "agent unreachable", Turns: []turnView{
		{N: 1, User: "first", ExpectedResponse: "one", ActualTools: []toolView{{Name: "lookup", Args: "{\n  \"q\": \"x\"\n}"}}, HasExpected: true, HasActual: true},
		{N: 2, User: "second", HasExpected: true},
	}}
	if diff := cmp.Diff(want, newCaseRunView(cr)); diff != "" {
		t.Errorf("newCaseRunView (-want +got):\n%s", diff)
	}
}
