package airline

import (
	"testing"

	"github.com/proctor-eval/proctor/internal/tau2test"
)

// TestBadCalls replays bad_calls.json, tau2's answers to failing and
// unusual tool calls, and compares each call's error flag, content (byte
// for byte) and database hashes with tau2's: every call matches.
func TestBadCalls(t *testing.T) {
	d := testDomain(t)
	f := tau2test.LoadBadCalls(t, needData(t))
	tau2test.ReplayBadCalls(t, d, nil, f, nil)
}
