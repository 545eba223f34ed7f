package ecp_test

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/ecp"
)

// TestExampleAgents evaluates the example agents of examples/ecp (Python,
// standard library only; Node.js, no dependencies) on the mock domain:
// each solves every task, and leaves no process behind.
func TestExampleAgents(t *testing.T) {
	tests := []struct{ interpreter, file string }{
		{"python3", "taskly_agent.py"},
		{"node", "taskly_agent.js"},
	}
	d := mockDomain(t)
	for _, tt := range tests {
		t.Run(tt.interpreter, func(t *testing.T) {
			path, err := exec.LookPath(tt.interpreter)
			if err != nil {
				t.Skipf("%s is not installed: the %s example is not run", tt.interpreter, tt.file)
			}
			script, err := filepath.Abs(filepath.Join("..", "examples", "ecp", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			tgt, err := ecp.ParseTarget(ecp.SchemeStdio + strconv.Quote(path) + " " + strconv.Quote(script))
			if err != nil {
				t.Fatal(err)
			}
			pool := ecp.NewPool(tgt, ecp.Options{RequestTimeout: 30 * time.Second})
			sims := playAll(t, d, ecp.NewAgent(pool, 0))
			pool.Close()
			for _, s := range sims {
				if s.Reward != 1 {
					t.Errorf("%s: reward %v (%s %s; %+v)", s.ID, s.Reward, s.TerminationReason, s.Error, s.RewardInfo)
				}
			}
			requireNoChildren(t)
		})
	}
}
