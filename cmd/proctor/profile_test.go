package main

import "testing"

// TestEveryProfileEndToEnd runs the built-in agent under each profile: the
// reference agent answers in the profile's own format, so each must score 1.
func TestEveryProfileEndToEnd(t *testing.T) {
	for _, profile := range []string{"agentbeats", "tau2-a2a", "structured"} {
		t.Run(profile, func(t *testing.T) {
			res := mustCLI(t, exitOK, "run", "--agent", "builtin", "--profile", profile, "--db", tempDB(t),
				"--task-ids", "mock-03,mock-05,mock-09", "--format", "json")
			eval := decodeObject(t, res.stdout)
			if got := num(t, eval, "summary.avg_reward"); got != 1 {
				t.Errorf("avg reward %v under %s", got, profile)
			}
			if got := str(t, eval, "config.profile"); got != profile {
				t.Errorf("config.profile = %q", got)
			}
		})
	}
}
