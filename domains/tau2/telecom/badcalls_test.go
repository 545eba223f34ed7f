package telecom

import (
	"testing"

	"github.com/proctor-eval/proctor/internal/tau2test"
)

// badCallsTask is the base task whose initial state bad_calls.json starts from.
const badCallsTask = "[mms_issue]break_app_storage_permission|data_usage_exceeded[PERSONA:Easy]"

// TestBadCalls replays bad_calls.json, tau2's answers to failing and
// unusual tool calls, and compares each call's error flag, content (byte
// for byte) and database hashes with tau2's: every call matches.
func TestBadCalls(t *testing.T) {
	d, dir := testDomain(t, "base")
	f := tau2test.LoadBadCalls(t, dir)
	task, ok := d.Task(badCallsTask)
	if !ok {
		t.Fatalf("task %s not in split base", badCallsTask)
	}
	tau2test.ReplayBadCalls(t, d, task, f, nil)
}
