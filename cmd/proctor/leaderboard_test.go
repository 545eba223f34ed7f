package main

import (
	"strings"
	"testing"
)

// TestLeaderboard ranks real mock-domain runs: the reference agent above
// an agent that declines everything, with the do-nothing baseline beside.
func TestLeaderboard(t *testing.T) {
	db := tempDB(t)
	good, sorry := storedPair(t, db)
	r := mustCLI(t, exitOK, "leaderboard", "--db", db, "--domain", "mock")
	lines := strings.Split(r.stdout, "\n")
	var rows []string
	for _, l := range lines {
		if strings.Contains(l, good) || strings.Contains(l, sorry) || strings.Contains(l, "do-nothing baseline") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 3 || !strings.HasPrefix(rows[0], "1 ") || !strings.Contains(rows[0], good) ||
		!strings.HasPrefix(rows[1], "2 ") || !strings.Contains(rows[1], sorry) || !strings.HasPrefix(rows[2], "- ") {
		t.Errorf("want the reference agent ranked 1, the declining one 2, then the baseline:\n%s", r.stdout)
	}
	j := decodeObject(t, mustCLI(t, exitOK, "leaderboard", "--db", db, "--domain", "mock", "--format", "json").stdout)
	if n := len(arr(t, j, "entries")); n != 2 {
		t.Errorf("%d entries, want 2", n)
	}
	none := mustCLI(t, exitOK, "leaderboard", "--db", db, "--domain", "mock", "--split", "test")
	if !strings.Contains(none.stdout, "No completed evaluation") {
		t.Errorf("another split:\n%s", none.stdout)
	}
	if noDomain := mustCLI(t, exitUsage, "leaderboard", "--db", db); !strings.Contains(noDomain.stderr, "mock (2 evaluations)") {
		t.Errorf("without --domain, the error does not list the domains to rank:\n%s", noDomain.stderr)
	}
	mustCLI(t, exitUsage, "leaderboard", "--db", db, "--domain", "mock", "--format", "htm")
	page := mustCLI(t, exitOK, "leaderboard", "--db", db, "--domain", "mock", "--format", "html").stdout
	checkSelfContained(t, page)
	g, s, b := strings.Index(page, good), strings.Index(page, sorry), strings.LastIndex(page, "do-nothing baseline")
	if g < 0 || s < 0 || b < 0 || g > s || s > b {
		t.Errorf("--format html: want %s, then %s, then the baseline row:\n%s", good, sorry, clip(page))
	}
}
