package ui

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

func TestInstructionsOf(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want []labeledText
	}{
		{"none", nil, nil},
		{"proctor's text", "  Ask for a refund.  ", []labeledText{{"Instructions", "Ask for a refund."}}},
		{"blank text", "  ", nil},
		{"tau2's object in tau2's order, others after", map[string]any{
			"task_instructions": "Be firm.", "unknown_info": "Your booking code.", "known_info": "You are Mia Li.",
			"reason_for_call": "Cancel flight HAT001.", "domain": "airline", "extra_hint": []any{"a", 1.0}, "empty": "",
		}, []labeledText{{"Domain", "airline"}, {"Reason for call", "Cancel flight HAT001."}, {"Known info", "You are Mia Li."},
			{"Unknown info", "Your booking code."}, {"Task instructions", "Be firm."}, {"extra hint", "[\n  \"a\",\n  1\n]"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, instructionsOf(tt.in)); diff != "" {
				t.Errorf("instructionsOf (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTaskViewMarksActions(t *testing.T) {
	book := domains.Action{ActionID: "a1", Name: "book_flight", Arguments: map[string]any{"flight": expectedFlight}}
	look := domains.Action{Name: "get_user", Arguments: map[string]any{"user_id": "u1"}}
	unchecked := domains.Action{Name: "send_email", Arguments: map[string]any{}, CompareArgs: []string{}}
	task := &domains.Task{ID: "t", UserScenario: domains.UserScenario{Persona: " Mia "},
		EvaluationCriteria: &domains.EvaluationCriteria{Actions: []domains.Action{book, look, unchecked}}}
	sim := &result.Simulation{RewardInfo: result.RewardInfo{ActionChecks: []result.ActionCheck{{Action: book}, {Action: look, ActionMatch: true}}}}
	var got []expectedAction
	for _, a := range newTaskView(task, sim).Actions {
		a.Args = strings.Join(strings.Fields(a.Args), "")
		got = append(got, a)
	}
	want := []expectedAction{
		{Name: "book_flight", Args: `{"flight":"HAT001"}`, Checked: true},
		{Name: "get_user", Args: `{"user_id":"u1"}`, Checked: true, Performed: true},
		{Name: "send_email", Args: `{}`, CompareArgs: ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("expected actions (-want +got):\n%s", diff)
	}
}

// TestPrivateThoughtFold checks that the private-thought fold shows on
// the turns that have a thought and on no other, blank thoughts included.
func TestPrivateThoughtFold(t *testing.T) {
	msgs := []result.Message{
		{Role: result.RoleUser, Content: "hi"},
		{Role: result.RoleAssistant, Content: "thinking", PrivateThought: "the user seems unsure"},
		{Role: result.RoleAssistant, Content: "blank", PrivateThought: " \n\t "},
		{Role: result.RoleAssistant, Content: "none"},
	}
	tpl, err := parseTemplates()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	sim := &result.Simulation{ID: "t#0", TaskID: "t", Messages: msgs}
	if err := tpl.execute(&b, "simulation", page{Body: newSimView("e", "mock", sim)}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), `class="private"`); n != 1 {
		t.Errorf("%d private-thought folds, want 1 (the one turn with a thought)", n)
	}
}
