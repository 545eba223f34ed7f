package ecp_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/result"
)

// TestBrokenAgentsInSimulations plays simulations against agents that
// crash, hang, print garbage, answer too much or refuse: each simulation
// ends agent_error saying what the agent did (a safety refusal ends as
// safety_violation), the broken process is killed
// and replaced for the next one, and nothing is left running.
func TestBrokenAgentsInSimulations(t *testing.T) {
	tests := []struct {
		mode     string
		want     string
		wantTerm result.TerminationReason
	}{
		{"crash", "exited with status 3", result.TermAgentError},
		{"hang", "no answer within", result.TermAgentError},
		{"garbage", "not JSON", result.TermAgentError},
		{"oversized", "larger than the limit", result.TermAgentError},
		{"spawn", "no answer within", result.TermAgentError},
		{"error", "SafetyViolation: guardrail tripped", result.TermSafetyViolation},
		{"refuse", "agent/reset: refused", result.TermAgentError},
	}
	d := mockDomain(t)
	d.Tasks = d.Tasks[:3]
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			tgt, err := ecp.ParseTarget(agentTarget(t, tt.mode))
			if err != nil {
				t.Fatal(err)
			}
			// The timeout is what a hang costs; under the race detector on a
			// loaded machine an agent takes a while to start and to exit.
			pool := ecp.NewPool(tgt, ecp.Options{RequestTimeout: 2 * time.Second, MaxResponseBytes: 1 << 20})
			sims := playAll(t, d, ecp.NewAgent(pool, 0))
			for _, s := range sims {
				if s.TerminationReason != tt.wantTerm || !strings.Contains(s.Error, tt.want) {
					t.Errorf("%s: %s %q, want %s saying %q", s.ID, s.TerminationReason, s.Error, tt.wantTerm, tt.want)
				}
			}
			st := pool.Stats()
			if tt.mode != "error" && st.Replaced != len(sims) {
				t.Errorf("pool stats %+v: want every broken agent replaced", st)
			}
			pool.Close()
			requireNoChildren(t)
		})
	}
}

// requireNoChildren fails the test if a child of the test process is
// left (running or a zombie), after giving killed ones five seconds.
func requireNoChildren(t *testing.T) {
	t.Helper()
	me := strconv.Itoa(os.Getpid())
	deadline := time.Now().Add(5 * time.Second)
	for {
		var left []string
		stats, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, path := range stats {
			b, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			s := string(b)
			fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
			if len(fields) > 1 && fields[1] == me {
				left = append(left, path+" state "+fields[0])
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("children left: %v", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
