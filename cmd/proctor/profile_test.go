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

// TestStrict: --strict adds ACTION to tasks that expect actions, says so,
// and records the mode; the reference agent makes the expected calls.
func TestStrict(t *testing.T) {
	res := mustCLI(t, exitOK, "run", "--agent", "builtin", "--strict", "--db", tempDB(t), "--task-ids", "mock-01", "--format", "json")
	eval := decodeObject(t, res.stdout)
	sim := simulations(t, eval)[0]
	added, _ := field(t, sim, "reward_info.added_by_strict").([]any)
	if len(added) != 1 || added[0] != "ACTION" || num(t, sim, "reward") != 1 || field(t, eval, "config.strict") != true {
		t.Errorf("strict run: added %v, reward %v, config.strict %v", added, num(t, sim, "reward"), field(t, eval, "config.strict"))
	}
}
