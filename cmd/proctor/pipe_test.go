//go:build unix

package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClosedStdout: proctor run | head -1. The reader closes the pipe
// after one line; proctor finishes, stores the evaluation, says where it
// is, and exits 0 rather than dying of SIGPIPE.
func TestClosedStdout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := filepath.Join(t.TempDir(), "p.db")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, buildProctor(t), "run", "--domain", "mock", "--agent", "builtin", "--db", db, "--format", "json",
		"--num-trials", "4") // about 320 KB of JSON: more than a pipe holds
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	line, err := bufio.NewReader(r).ReadString('\n')
	_ = r.Close()
	if err != nil || line == "" {
		t.Fatalf("no first line: %v", err)
	}
	err = cmd.Wait()
	if err != nil {
		t.Fatalf("proctor with a closed stdout: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "stdout was closed before the whole result was written") {
		t.Errorf("stderr does not say the result was cut short:\n%s", stderr.String())
	}
	out, err := exec.CommandContext(ctx, buildProctor(t), "results", "--db", db).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "completed") {
		t.Errorf("the evaluation is not stored completed: %v\n%s", err, out)
	}
}
