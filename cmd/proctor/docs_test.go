package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCLIReferenceIsCurrent fails when docs/cli.md says other than the
// commands do: a flag, default, example or description changed without
// `make docs`.
func TestCLIReferenceIsCurrent(t *testing.T) {
	r := mustCLI(t, exitOK, "docs")
	path := filepath.Join("..", "..", filepath.FromSlash(cliReferencePath))
	committed, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the CLI reference: %v (generate it with `make docs`)", err)
	}
	if diff := cmp.Diff(strings.Split(string(committed), "\n"), strings.Split(r.stdout, "\n")); diff != "" {
		t.Errorf("%s is stale: run `make docs` and commit it (-committed +generated):\n%s", cliReferencePath, diff)
	}
}

// TestCLIReferenceCoversEveryCommand checks the reference's shape: a
// section for every command `--help` lists, subcommands included, a flag
// table wherever a command has flags, and no hidden command.
func TestCLIReferenceCoversEveryCommand(t *testing.T) {
	r := mustCLI(t, exitOK, "docs")
	var headings []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if name, ok := strings.CutPrefix(line, "## "); ok {
			headings = append(headings, name)
		}
	}
	want := []string{"proctor", "proctor audit", "proctor compare", "proctor config", "proctor conformance",
		"proctor domains", "proctor domains install", "proctor evalset", "proctor evalset rescore",
		"proctor evalset run", "proctor healthcheck", "proctor leaderboard", "proctor merge",
		"proctor refagent", "proctor rescore", "proctor results", "proctor run", "proctor serve",
		"proctor show", "proctor view"}
	if diff := cmp.Diff(want, headings); diff != "" {
		t.Errorf("command sections (-want +got):\n%s", diff)
	}
	for _, s := range []string{"| `--num-trials int` | `1` |", "| `--max-simulation-concurrency int` | 64 per CPU, within the open-file limit |", "Usage: `proctor refagent [flags]` (also `agent`)"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("the reference lacks %q", s)
		}
	}
}
