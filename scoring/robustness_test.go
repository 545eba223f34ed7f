package scoring

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

func TestRobustnessOf(t *testing.T) {
	call := func(name string) result.Message {
		return result.Message{Role: result.RoleAssistant, ToolCalls: []domains.ToolCall{{ID: name, Name: name}}}
	}
	faulted := func(name string, kind result.FaultKind) result.Message {
		return result.Message{Role: result.RoleTool, Name: name, ToolCallID: name, Fault: kind}
	}
	say := func(text string) result.Message { return result.Message{Role: result.RoleAssistant, Content: text} }
	sims := []result.Simulation{
		{Messages: []result.Message{call("get_user"), faulted("get_user", result.FaultStale), call("get_user"), say("Your balance is 250.")}},
		{Messages: []result.Message{call("get_order"), faulted("get_order", result.FaultTruncated), say("Sorry, I could not read the whole order.")}},
		{Messages: []result.Message{call("book"), faulted("book", result.FaultWrongRecord), say("Booked!"), call("book")}},
		{Messages: []result.Message{call("cancel"), faulted("cancel", result.FaultError), say("Done, cancelled."), say("There was an error earlier.")}},
	}
	want := &result.Robustness{Faults: 4, ByKind: map[string]int{"stale": 1, "truncated": 1, "wrong_record": 1, "error": 1},
		Rechecked: 2, ToldUser: 1, Handled: 3, HandledShare: 0.75}
	if diff := cmp.Diff(want, RobustnessOf(sims)); diff != "" {
		t.Errorf("RobustnessOf (-want +got):\n%s", diff)
	}
	if got := RobustnessOf(sims[:0]); got != nil {
		t.Errorf("no faults: %+v, want nil", got)
	}
}
