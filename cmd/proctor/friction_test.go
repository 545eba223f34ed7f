package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/internal/tau2test"
)

// TestRefusalsNameTheFix: a command line that cannot work is refused
// before anything starts, with the flags that would make it work.
func TestRefusalsNameTheFix(t *testing.T) {
	data := filepath.Dir(tau2test.Dir(t, "airline"))
	agent := "http://127.0.0.1:1" // never dialled: the refusals come first
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{
			name: "builtin agent on airline",
			args: []string{"--domain", "airline"},
			want: []string{"reference agent plays only the mock domain, not airline", "give --agent your agent's URL", "--domain mock"},
		},
		{
			name: "scripted user on airline",
			args: []string{"--domain", "airline", "--agent", agent},
			want: []string{"--user llm with --user-model PROVIDER:MODEL"},
		},
		{
			name: "scripted user on one airline task",
			args: []string{"--domain", "airline", "--agent", agent, "--task-ids", "0"},
			want: []string{"--user llm with --user-model PROVIDER:MODEL"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := tempDB(t)
			r := mustCLI(t, exitUsage, append([]string{"run", "--db", db, "--tau2-data", data}, tc.args...)...)
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "cannot connect") || strings.Contains(r.stderr, "user_model") {
				t.Errorf("stderr names internals or the wrong cause:\n%s", r.stderr)
			}
			if _, err := os.Stat(db); err == nil {
				t.Errorf("a refused command line created the database %s", db)
			}
		})
	}
}
