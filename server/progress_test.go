package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/server"
)

// TestProgressKeepsUpWithTheWork: an eval-set run of many quick cases
// reports its progress no faster than the task store takes it, newest
// figures first, so that GetTask follows the work: before, every case
// queued a status update, each writing the whole task (its large request
// and a history growing by one), and GetTask showed 57 of 3,000 cases done
// when all were. The run's updates number far fewer than its cases.
func TestProgressKeepsUpWithTheWork(t *testing.T) {
	f := startTenants(t, server.TenantLimits{})
	agent := agenttest.Start(t, agenttest.Sorry)
	const cases = 400
	var list []any
	for i := range cases {
		list = append(list, map[string]any{"evalId": fmt.Sprint("c", i),
			"conversation": []any{map[string]any{"userContent": map[string]any{"role": "user", "content": "hello"}}}})
	}
	answer := f.skill(t, aliceToken, "run_evalset", map[string]any{"agent_url": agent.URL, "concurrency": 16,
		"eval_set": map[string]any{"evalSetId": "many", "evalCases": list}})
	if !strings.Contains(answer, "TASK_STATE_COMPLETED") {
		t.Fatalf("the run did not complete: %s", clipText(answer))
	}
	task := firstMatch(t, taskIDRE, answer)
	var got struct {
		Result struct {
			History []json.RawMessage `json:"history"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(f.rpc(t, aliceToken, "GetTask", map[string]any{"id": task})), &got); err != nil {
		t.Fatal(err)
	}
	if n := len(got.Result.History); n > cases/2 {
		t.Errorf("%d messages in the task's history for %d cases: progress updates queued behind the store", n, cases)
	}
	t.Logf("%d cases, %d history messages", cases, len(got.Result.History))
}
