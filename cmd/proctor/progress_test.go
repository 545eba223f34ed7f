package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestProgressModes runs a small evaluation with each --progress mode, with
// stderr a buffer and with stderr a file (an *os.File that is no terminal).
func TestProgressModes(t *testing.T) {
	const tasks, trials = 3, 2
	tests := []struct {
		mode      []string
		lines     bool // one line per finished simulation
		bar       bool // a redrawn bar ending in a newline
		stderrIsF bool
	}{
		{mode: []string{"--progress", "lines"}, lines: true},
		{mode: []string{"--progress", "bar"}, bar: true},
		{mode: []string{"--progress", "none"}},
		{mode: []string{"--progress", "auto"}},
		{mode: nil}, // the default is auto
		{mode: nil, stderrIsF: true},
		{mode: []string{"--progress", "lines"}, lines: true, stderrIsF: true},
		{mode: []string{"--progress", "bar"}, bar: true, stderrIsF: true},
	}
	for _, tc := range tests {
		name := strings.Join(tc.mode, "=")
		if name == "" {
			name = "default"
		}
		if tc.stderrIsF {
			name += " to a file"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"run", "--db", filepath.Join(dir, "p.db"), "--task-ids", "mock-01,mock-02,mock-03",
				"--num-trials", strconv.Itoa(trials), "--format", "json"}, tc.mode...)
			var stdout lockedBuffer
			var stderr string
			var code int
			if tc.stderrIsF {
				f, err := os.Create(filepath.Join(dir, "stderr"))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
				defer cancel()
				code = run(ctx, args, &stdout, f)
				if _, err := f.Seek(0, io.SeekStart); err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(f)
				if err != nil {
					t.Fatal(err)
				}
				stderr = string(b)
			} else {
				r := cli(t, args...)
				code, stderr = r.code, r.stderr
				stdout.Write([]byte(r.stdout))
			}
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			// Progress goes to stderr only: stdout stays valid JSON.
			decodeObject(t, stdout.String())

			got := progressLine.FindAllStringSubmatch(stderr, -1)
			if tc.lines {
				if len(got) != tasks*trials {
					t.Fatalf("%d progress lines, want %d:\n%s", len(got), tasks*trials, stderr)
				}
				sims := map[string]bool{}
				for i, m := range got {
					if m[1] != strconv.Itoa(i+1) || m[2] != strconv.Itoa(tasks*trials) {
						t.Errorf("line %d says %s/%s, want %d/%d", i, m[1], m[2], i+1, tasks*trials)
					}
					if m[4] != "user_stop" {
						t.Errorf("line %d: termination %s", i, m[4])
					}
					sims[m[3]] = true
				}
				if len(sims) != tasks*trials {
					t.Errorf("progress lines name %d distinct simulations, want %d", len(sims), tasks*trials)
				}
			} else if len(got) > 0 {
				t.Errorf("progress lines without --progress lines:\n%s", stderr)
			}
			if tc.bar {
				final := "] " + strconv.Itoa(tasks*trials) + "/" + strconv.Itoa(tasks*trials) + " "
				if strings.Count(stderr, "\r") != tasks*trials || !strings.Contains(stderr, final) || !strings.HasSuffix(stderr, "\n") {
					t.Errorf("want a bar redrawn %d times up to %q and a final newline:\n%q", tasks*trials, final, stderr)
				}
			} else if strings.Contains(stderr, "\r") {
				t.Errorf("a bar was drawn on a stderr that is not a terminal:\n%q", stderr)
			}
			if !tc.lines && !tc.bar {
				// Only where it is stored and the one-line announcement
				// of the evaluation.
				if n := strings.Count(stderr, "\n"); n != 2 || !strings.HasPrefix(stderr, "proctor: results database ") {
					t.Errorf("stderr has %d lines, want the database's and the announcement:\n%s", n, stderr)
				}
			}
		})
	}
}
