package ecp_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/result"
)

// TestStderrLogged plays a simulation against an agent that floods its
// stderr and crashes: its lines reach the log labelled with its pid and
// the simulation it served, a line too long is cut, logging stops past
// MaxStderrLogged with a line that says so, and the simulation's
// agent_error quotes the end of its stderr all the same.
func TestStderrLogged(t *testing.T) {
	d := mockDomain(t)
	d.Tasks = d.Tasks[:1]
	tgt, err := ecp.ParseTarget(agentTarget(t, "noisy"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []ecp.StderrLine
	pool := ecp.NewPool(tgt, ecp.Options{RequestTimeout: 10 * time.Second, Stderr: func(l ecp.StderrLine) {
		mu.Lock()
		lines = append(lines, l)
		mu.Unlock()
	}})
	sims := playAll(t, d, ecp.NewAgent(pool, 0))
	pool.Close() // waits for the agent, so every line is in
	s := sims[0]
	if s.TerminationReason != result.TermAgentError || !strings.Contains(s.Error, "noisy: out of patience, giving up") || !strings.Contains(s.Error, "exited with status 3") {
		t.Errorf("%s %q: want agent_error quoting the end of stderr", s.TerminationReason, s.Error)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lines) < 4 {
		t.Fatalf("%d lines logged: %+v", len(lines), lines)
	}
	pid := lines[0].PID
	if pid == 0 {
		t.Error("no pid on the lines")
	}
	// The agent writes its first line while answering initialize, before
	// any simulation; but stderr and stdout are two pipes read apart, so
	// that line may be read after the reply that let the simulation start.
	// Either label is then true to what proctor saw.
	if lines[0].Simulation == s.ID {
		lines[0].Simulation = ""
	}
	first := []ecp.StderrLine{{PID: pid, Text: "noisy: starting"}, {PID: pid, Simulation: s.ID, Text: "noisy: stepping"},
		{PID: pid, Simulation: s.ID, Text: strings.Repeat("y", ecp.MaxStderrLine), Cut: true}}
	for i, want := range first {
		if lines[i] != want {
			t.Errorf("line %d: %+v, want %+v", i, clipLine(lines[i]), clipLine(want))
		}
	}
	logged := 0
	for _, l := range lines {
		logged += len(l.Text) + 1
	}
	last := lines[len(lines)-1]
	if !last.Dropped || logged > ecp.MaxStderrLogged+ecp.MaxStderrLine {
		t.Errorf("%d lines, %d bytes logged, the last %+v: want at most %d bytes, then a line saying the rest is dropped",
			len(lines), logged, clipLine(last), ecp.MaxStderrLogged)
	}
}

func clipLine(l ecp.StderrLine) ecp.StderrLine {
	if len(l.Text) > 40 {
		l.Text = l.Text[:40] + "..."
	}
	return l
}
