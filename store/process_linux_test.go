package store

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProcessGone: a writer is gone only when it certainly exited on this
// machine (its PID is free, or names a later process); what cannot be
// told is not gone.
func TestProcessGone(t *testing.T) {
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	here := thisProcess()
	with := func(change func(*Process)) *Process { p := *here; change(&p); return &p }
	for _, tc := range []struct {
		name string
		p    *Process
		want bool
	}{
		{"this process", here, false},
		{"a process that exited", with(func(p *Process) { p.PID = exited.Process.Pid }), true},
		{"a reused PID", with(func(p *Process) { p.Start += "0" }), true},
		{"another host", with(func(p *Process) { p.Host += ".elsewhere"; p.PID = exited.Process.Pid }), false},
		{"another boot", with(func(p *Process) { p.Boot = "x"; p.PID = exited.Process.Pid }), false},
		{"another pid namespace", with(func(p *Process) { p.PIDNamespace = "pid:[1]"; p.PID = exited.Process.Pid }), false},
		{"no start time", with(func(p *Process) { p.Start = ""; p.PID = exited.Process.Pid }), false},
		{"no writer", nil, false},
	} {
		if got := tc.p.Gone(); got != tc.want {
			t.Errorf("%s: Gone() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPutEvaluationRecordsItsWriter: a record names the process that put
// it, unless it names one already.
func TestPutEvaluationRecordsItsWriter(t *testing.T) {
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), "p.db"), WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other := &Process{Host: "elsewhere", PID: 1}
	for _, tc := range []struct {
		name   string
		writer *Process
		want   *Process
	}{
		{"none given", nil, db.Writer()},
		{"one given", other, other},
	} {
		id := NewID()
		if err := db.PutEvaluation(ctx, Evaluation{ID: id, Status: "running", Writer: tc.writer}); err != nil {
			t.Fatal(err)
		}
		got, err := db.GetEvaluation(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got.Writer); diff != "" {
			t.Errorf("%s: writer (-want +got):\n%s", tc.name, diff)
		}
	}
}
