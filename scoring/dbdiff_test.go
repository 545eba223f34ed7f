package scoring

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/result"
)

// TestDBDiffNamesTheDifferingRecords: a conversation that did not make the
// expected change gets the missing record and the counters it should have
// moved; one that made it exactly has no difference.
func TestDBDiffNamesTheDifferingRecords(t *testing.T) {
	d, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	task, ok := d.Task("mock-02")
	if !ok {
		t.Fatal("mock domain has no task mock-02")
	}
	var gold []result.Message
	for i, a := range task.EvaluationCriteria.Actions {
		id := string(rune('a' + i))
		gold = append(gold, result.Message{Role: result.RoleAssistant, ToolCalls: []domains.ToolCall{{ID: id, Name: a.Name, Arguments: a.Arguments}}})
	}
	tests := []struct {
		name     string
		messages []result.Message
		want     []domains.RecordDiff
	}{
		{name: "did nothing", messages: nil, want: []domains.RecordDiff{
			{Path: "next_task_number", Kind: domains.DiffChanged, Expected: 1023.0, Actual: 1022.0},
			{Path: "tasks/T-1022", Kind: domains.DiffMissing, Expected: map[string]any{
				"task_id": "T-1022", "user_id": "u-1001", "title": "Order catering", "priority": "medium",
				"status": "open", "created_at": "2025-06-02T09:00:00Z", "updated_at": "2025-06-02T09:00:00Z",
			}},
		}},
		{name: "did it", messages: gold, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, truncated, err := DBDiff(d, task, tt.messages, 10)
			if err != nil {
				t.Fatal(err)
			}
			if truncated {
				t.Error("truncated with 10 allowed")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DBDiff (-want +got):\n%s", diff)
			}
		})
	}
	if _, truncated, _ := DBDiff(d, task, nil, 1); !truncated {
		t.Error("two differences with a limit of 1: not marked truncated")
	}
}
