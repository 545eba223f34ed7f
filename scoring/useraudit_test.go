package scoring

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

// TestScenarioTextRepeats: a scenario is written out in one order, so the
// LLM auditor's prompt (and a cassette's key for it) is the same each time.
func TestScenarioTextRepeats(t *testing.T) {
	s := domains.UserScenario{Instructions: map[string]any{"a": "one", "b": "two", "c": "three", "d": "four", "e": "five", "known_info": "six"}}
	first, _ := scenarioText(s)
	for range 20 {
		if again, _ := scenarioText(s); again != first {
			t.Fatalf("scenario text changed between calls:\n%q\n%q", first, again)
		}
	}
}

func TestFacts(t *testing.T) {
	got := facts("I am Emma (emma_kim_9957, emma.kim@example.com), reservation EHGLP3, 3 bags, $1200, flight HAT017 on the 2nd.")
	want := []string{"emma_kim_9957", "emma.kim@example.com", "EHGLP3", "1200", "HAT017"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("facts (-want +got):\n%s", diff)
	}
}

// TestCheckUser: each check flags what it names and nothing on a user
// that keeps to its scenario.
func TestCheckUser(t *testing.T) {
	task := &domains.Task{ID: "0", UserScenario: domains.UserScenario{Instructions: map[string]any{
		"reason_for_call": "You want to cancel reservation EHGLP3.",
		"known_info":      "You are Emma Kim.\nYour user id is emma_kim_9957.",
	}}}
	msg := func(role result.Role, turn int, text string) result.Message {
		return result.Message{Role: role, Turn: turn, Content: text}
	}
	tests := []struct {
		name string
		sim  result.Simulation
		want []result.UserFlag
	}{
		{"keeps to its scenario", result.Simulation{TerminationReason: result.TermUserStop, Messages: []result.Message{
			msg(result.RoleAssistant, 0, "Hi! How can I help?"),
			msg(result.RoleUser, 1, "Cancel EHGLP3 please, I am emma_kim_9957."),
			msg(result.RoleAssistant, 1, "Done: EHGLP3 is cancelled, refund 1200 USD."),
			msg(result.RoleUser, 2, "Thanks, and the 1200 goes to my card. ###STOP###"),
		}}, nil},
		{"invents, withholds and ends on a question", result.Simulation{TerminationReason: result.TermUserStop, Messages: []result.Message{
			msg(result.RoleAssistant, 0, "Hi! How can I help?"),
			msg(result.RoleUser, 1, "Cancel EHGLP3, and flight HAT999 too."),
			msg(result.RoleAssistant, 1, "Which one first?"),
			msg(result.RoleUser, 2, "EHGLP3."),
			msg(result.RoleAssistant, 2, "I can help. Could you give me your user id?"),
			msg(result.RoleUser, 3, "###STOP###"),
		}}, []result.UserFlag{
			{Check: result.UserInventedFact, Turn: 1, Detail: `said "HAT999", which neither its scenario nor the agent gave it`},
			{Check: result.UserEndedUnanswered, Turn: 3, Detail: `ended the conversation on the agent's question "Could you give me your user id?"`},
			{Check: result.UserWithheldInfo, Detail: `never gave "emma_kim_9957", which its scenario told it (known_info), although it answered the agent's questions`},
		}},
		{"the agent ended it", result.Simulation{TerminationReason: result.TermAgentStop, Messages: []result.Message{
			msg(result.RoleAssistant, 0, "Anything else?"),
		}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, CheckUser(task, &tt.sim)); diff != "" {
				t.Errorf("CheckUser (-want +got):\n%s", diff)
			}
		})
	}
}
