package scoring

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

func TestProcessOf(t *testing.T) {
	call := func(id, name string, args map[string]any) domains.ToolCall {
		return domains.ToolCall{ID: id, Name: name, Arguments: args}
	}
	agent := func(turn int, calls ...domains.ToolCall) result.Message {
		return result.Message{Role: result.RoleAssistant, Turn: turn, ToolCalls: calls}
	}
	tool := func(turn int, id string, failed bool) result.Message {
		return result.Message{Role: result.RoleTool, Turn: turn, ToolCallID: id, Error: failed}
	}
	passed := result.Simulation{Reward: 1, Metrics: result.Metrics{Requests: 4, InputTokens: 900, OutputTokens: 100}, Messages: []result.Message{
		{Role: result.RoleAssistant, History: true, ToolCalls: []domains.ToolCall{call("h", "cancel_reservation", nil)}},
		agent(1, call("1", "get_user_details", map[string]any{"user_id": "u"})), tool(1, "1", false),
		agent(2, call("2", "get_user_details", map[string]any{"user_id": "u"})), tool(2, "2", false),
		agent(3, call("3", "cancel_reservation", map[string]any{"id": "R"})), tool(3, "3", false),
		agent(3, call("4", "get_reservation_details", map[string]any{"id": "R"})), tool(3, "4", false),
		{Role: result.RoleUser, Turn: 4, Content: "thanks"},
	}}
	failed := result.Simulation{Reward: 0, Metrics: result.Metrics{Requests: 2, InputTokens: 500, OutputTokens: 500}, Messages: []result.Message{
		agent(1, call("1", "book_reservation", map[string]any{"x": 1})), tool(1, "1", true),
		agent(1, call("2", "book_reservation", map[string]any{"x": 1})), tool(1, "2", false),
		{Role: result.RoleAssistant, Requestor: "user", Turn: 2, ToolCalls: []domains.ToolCall{call("u", "toggle_airplane_mode", nil)}},
	}}
	tests := []struct {
		name string
		sims []result.Simulation
		want result.Process
	}{
		{"a success and a failure", []result.Simulation{passed, failed}, result.Process{TurnsToSuccess: 4, RequestsToSuccess: 4,
			ToolCalls: 6, RepeatedCalls: 2, UnverifiedWrites: 2, ToolErrors: 1, ToolErrorRate: 0.166667, TokensPerSuccess: 2000}},
		{"no success", []result.Simulation{failed}, result.Process{ToolCalls: 2, RepeatedCalls: 1, UnverifiedWrites: 2, ToolErrors: 1, ToolErrorRate: 0.5}},
		{"nothing", nil, result.Process{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ProcessOf(tt.sims)); diff != "" {
				t.Errorf("ProcessOf (-want +got):\n%s", diff)
			}
		})
	}
}
