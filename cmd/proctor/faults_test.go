package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/result"
)

// TestToolFaults: --tool-faults corrupts the share of tool results it
// names, the same ones again for the same --seed, records each in the
// transcript and scores the agent's robustness beside its reward; proctor
// show marks the corrupted results.
func TestToolFaults(t *testing.T) {
	db := tempDB(t)
	run := func(seed string) result.Evaluation {
		r := mustCLI(t, exitOK, "run", "--domain", "mock", "--agent", "builtin", "--tool-faults", "0.5", "--seed", seed,
			"--db", db, "--format", "json", "--progress", "none", "--fail-under", "0")
		var e result.Evaluation
		if err := json.Unmarshal([]byte(r.stdout), &e); err != nil {
			t.Fatal(err)
		}
		return e
	}
	faults := func(e result.Evaluation) (map[string][]result.FaultKind, int, int) {
		out, n, calls := map[string][]result.FaultKind{}, 0, 0
		for _, s := range e.Simulations {
			for _, m := range s.Messages {
				if m.Role == result.RoleTool && m.Requestor == "" {
					calls++
					out[s.ID] = append(out[s.ID], m.Fault)
					if m.Fault != "" {
						n++
					}
				}
			}
		}
		return out, n, calls
	}
	a := run("7")
	fa, n, calls := faults(a)
	if n == 0 || n == calls || a.Config.ToolFaults != 0.5 {
		t.Fatalf("%d of %d tool results corrupted, config %v: want some, not all", n, calls, a.Config.ToolFaults)
	}
	rb := a.Summary.Robustness
	if rb == nil || rb.Faults != n || rb.Handled > n || rb.HandledShare != float64(int(1e6*float64(rb.Handled)/float64(n)+0.5))/1e6 {
		t.Errorf("robustness %+v; want %d faults", rb, n)
	}
	fb, _, _ := faults(run("7"))
	if diff := cmp.Diff(fa, fb); diff != "" {
		t.Errorf("the same seed corrupted other results (-first +second):\n%s", diff)
	}
	var id string
	for _, s := range a.Simulations {
		for _, m := range s.Messages {
			if m.Fault != "" && id == "" {
				id = s.ID
			}
		}
	}
	show := mustCLI(t, exitOK, "show", a.ID+"/"+id, "--db", db)
	if !strings.Contains(show.stdout, "[corrupted by proctor: ") {
		t.Errorf("proctor show does not mark the corrupted result:\n%s", clip(show.stdout))
	}
	table := mustCLI(t, exitOK, "show", a.ID, "--db", db)
	if !strings.Contains(table.stdout, "corrupted tool result") {
		t.Errorf("the summary has no robustness row:\n%s", clip(table.stdout))
	}
	if r := cli(t, "run", "--domain", "mock", "--agent", "builtin", "--tool-faults", "1.5", "--db", db); r.code != exitUsage || !strings.Contains(r.stderr, "--tool-faults 1.5: want a share in 0..1") {
		t.Errorf("--tool-faults 1.5: exit %d, stderr %q", r.code, r.stderr)
	}
}
