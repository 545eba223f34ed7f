package tau2model

import (
	"encoding/json"
	"strings"
	"testing"
)

// valid is a small results file tau2 loads: one task, one simulation with a
// message of every kind.
const valid = `{
  "timestamp": null,
  "info": {"git_commit": "", "num_trials": 1, "max_steps": 10, "max_errors": 3,
    "user_info": {"implementation": "scripted", "llm": null, "llm_args": null},
    "agent_info": {"implementation": "a2a", "llm": null},
    "environment_info": {"domain_name": "mock", "policy": "p", "tool_defs": null}, "seed": null},
  "tasks": [{"id": "t1", "user_scenario": {"persona": null, "instructions": {"domain": "mock", "reason_for_call": "r", "task_instructions": "do"}},
    "initial_state": {"message_history": [{"role": "system", "content": "s"}]},
    "evaluation_criteria": {"actions": [{"action_id": "a", "name": "f", "arguments": {"n": 2}, "compare_args": null}],
      "env_assertions": [{"env_type": "user", "func_name": "g", "arguments": {}}], "reward_basis": ["DB", "ACTION"]}}],
  "simulations": [{"id": "s", "task_id": "t1", "start_time": "a", "end_time": "b", "duration": 1.5, "termination_reason": "user_stop",
    "reward_info": {"reward": 1, "reward_breakdown": {"DB": 1}, "action_checks": [{"action": {"action_id": "a", "name": "f", "arguments": {}}, "action_match": true, "action_reward": 1, "tool_type": "read"}]},
    "messages": [
      {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "name": "f", "arguments": {"n": 2.0}, "requestor": "assistant"}]},
      {"role": "tool", "id": "c", "content": "ok", "requestor": "assistant", "error": false},
      {"role": "tool", "tool_messages": [{"role": "tool", "id": "d", "content": "x"}]},
      {"role": "user", "content": "bye", "turn_idx": 3}]}]
}`

func TestDecodeValid(t *testing.T) {
	r, err := Decode([]byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	sim := r.Simulations[0]
	if sim.Messages[0].Participant == nil || sim.Messages[1].Tool == nil || sim.Messages[2].MultiTool == nil || sim.Messages[3].Participant == nil {
		t.Errorf("message kinds: %+v", sim.Messages)
	}
	if n := sim.Messages[0].Participant.ToolCalls[0].Arguments["n"]; n != json.Number("2.0") {
		t.Errorf("argument n = %#v, want the literal 2.0", n)
	}
	task := r.Tasks[0]
	if task.UserScenario.Instructions.Structured == nil || task.EvaluationCriteria.Actions[0].CompareArgs != nil || task.EvaluationCriteria.CommunicateInfo != nil {
		t.Errorf("task %+v", task)
	}
	// What Decode read marshals back to the same value.
	again, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(again); err != nil {
		t.Errorf("re-marshalled results do not decode: %v", err)
	}
}

// TestDecodeRefuses: what pydantic refuses, and fields tau2 would drop, are
// errors that say where.
func TestDecodeRefuses(t *testing.T) {
	cases := []struct {
		name, from, to, want string
	}{
		{"unknown field", `"git_commit": ""`, `"git_commit": "", "proctor": 1`, `unknown field "proctor"`},
		{"missing required", `"num_trials": 1, `, ``, `results.info: required field "num_trials" is missing`},
		{"missing required in a list", `"action_id": "a", "name": "f", "arguments": {"n": 2}`, `"name": "f", "arguments": {"n": 2}`, `evaluation_criteria.actions[0]: required field "action_id"`},
		{"null where not Optional", `"duration": 1.5`, `"duration": null`, `simulations[0].duration: null is not allowed`},
		{"null requestor", `"requestor": "assistant", "error"`, `"requestor": null, "error"`, `messages[1].requestor: null is not allowed`},
		{"bad enum", `"user_stop"`, `"user_quit"`, `"user_quit" is not one of tau2's TerminationReason values`},
		{"bad reward type", `["DB", "ACTION"]`, `["DB", "ACTIONS"]`, `"ACTIONS" is not one of tau2's RewardType values`},
		{"bad breakdown key", `{"DB": 1}`, `{"db": 1}`, `"db" is not one of tau2's RewardType values`},
		{"bad env type", `"env_type": "user"`, `"env_type": "agent"`, `"agent" is not one of tau2's Requestor values`},
		{"wrong type", `"max_steps": 10`, `"max_steps": "10"`, `cannot unmarshal string`},
		{"bad role", `"role": "user", "content": "bye"`, `"role": "human", "content": "bye"`, `role "human"`},
		{"unknown message field", `"turn_idx": 3`, `"turn_idx": 3, "name": "x"`, `unknown field "name"`},
		{"unknown instructions field", `"task_instructions": "do"`, `"task_instructions": "do", "extra": 1`, `unknown field "extra"`},
		{"missing instructions", `"instructions": {"domain": "mock", "reason_for_call": "r", "task_instructions": "do"}`, `"x": 1`, `unknown field "x"`},
		{"null list item", `"reward_basis": ["DB", "ACTION"]`, `"reward_basis": ["DB", null]`, `reward_basis[1]: null is not allowed`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(valid, tc.from) {
				t.Fatalf("%q is not in the sample", tc.from)
			}
			_, err := Decode([]byte(strings.Replace(valid, tc.from, tc.to, 1)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// FuzzDecode: any input gives results or an error, never a panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(valid))
	f.Add([]byte(`{"info": null, "tasks": [null]}`))
	f.Add([]byte(`{"tasks": [{"user_scenario": {"instructions": 3}}], "simulations": [{"messages": [{"role": "tool", "tool_messages": null}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if r, err := Decode(data); err == nil && r == nil {
			t.Fatal("no results and no error")
		}
	})
}
