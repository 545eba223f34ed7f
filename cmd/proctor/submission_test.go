package main

import (
	"strings"
	"testing"
)

// TestResultsTau2SubmissionErrors: `results --format tau2-submission` says
// which metadata flags are missing, and refuses an evaluation of a domain
// tau2's leaderboard does not rank.
func TestResultsTau2SubmissionErrors(t *testing.T) {
	db := tempDB(t)
	r := mustCLI(t, 0, "run", "--db", db, "--domain", "mock", "--agent", "builtin", "--num-tasks", "1", "--progress", "none", "--format", "json")
	id := str(t, decodeObject(t, r.stdout), "id")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{id}, "--format tau2-submission needs --out DIR, --model-name, --model-organization, --contact-email (the leaderboard asks for them)"},
		{[]string{id, "--out", t.TempDir(), "--model-name", "m", "--model-organization", "o", "--contact-email", "e@x.example"},
			"is of domain mock; the leaderboard ranks retail, airline, telecom, banking_knowledge"},
		{[]string{"--out", t.TempDir()}, "give the IDs of the evaluations to submit, one per domain"},
	} {
		args := append([]string{"results", "--db", db, "--format", "tau2-submission"}, c.args...)
		r := mustCLI(t, exitUsage, args...)
		if !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, r.stderr, c.want)
		}
	}
}
