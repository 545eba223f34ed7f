package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/domains/tau2/install"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/internal/agenttest"
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

// TestResumeHintPastes interrupts a run whose database is given by a
// relative path with a space in it, then runs the printed resume command
// as a shell would split it, from another directory: it finishes the
// evaluation.
func TestResumeHintPastes(t *testing.T) {
	t.Setenv("PROCTOR_DB", "")
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // a command that drops --db finds nothing
	t.Chdir(t.TempDir())
	if err := os.Mkdir("my results", 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var interrupted atomic.Bool
	srv := agenttest.Start(t, func(ctx context.Context, contextID, text string) string {
		if !interrupted.Swap(true) {
			cancel() // Ctrl-C as the first conversation starts
		}
		return agenttest.Sorry(ctx, contextID, text)
	})
	r := cliCtx(ctx, t, "run", "--agent", srv.URL, "--db", "my results/p.db", "--task-ids", "mock-01,mock-02", "--progress", "none")
	if r.code != exitInterrupt {
		t.Fatalf("exit %d, want %d\n%s", r.code, exitInterrupt, r.stderr)
	}
	_, line, ok := strings.Cut(r.stderr, "Finish with: ")
	if !ok {
		t.Fatalf("no resume command on stderr:\n%s", r.stderr)
	}
	line, _, _ = strings.Cut(line, "\n")
	args, err := ecp.SplitCommand(line)
	if err != nil || len(args) < 2 || args[0] != "proctor" {
		t.Fatalf("resume command %q does not split as a shell would: %v", line, err)
	}
	t.Chdir(t.TempDir())
	resumed := mustCLI(t, exitOK, append(args[1:], "--format", "json")...)
	if s := str(t, decodeObject(t, resumed.stdout), "status"); s != "completed" {
		t.Errorf("the pasted command %q left the evaluation %s", line, s)
	}
}

// TestShortIDsOnTheCommandLine: evaluations made one after the other share
// their first 8 characters; their last 8 name each of them in every command
// that takes an id, and an ambiguous short id lists the candidates.
func TestShortIDsOnTheCommandLine(t *testing.T) {
	db := tempDB(t)
	var ids []string
	for range 3 {
		ids = append(ids, evalID(t, "--db", db, "--task-ids", "mock-01"))
	}
	for _, id := range ids {
		short := id[len(id)-8:]
		if got := str(t, decodeObject(t, mustCLI(t, exitOK, "results", short, "--db", db, "--format", "json").stdout), "id"); got != id {
			t.Errorf("results %s shows %s, want %s", short, got, id)
		}
		if r := mustCLI(t, exitUsage, "run", "--resume", short, "--db", db); !strings.Contains(r.stderr, id+" is already completed") {
			t.Errorf("run --resume %s:\n%s", short, r.stderr)
		}
		rescored := decodeObject(t, mustCLI(t, exitOK, "rescore", short, "--db", db, "--format", "json").stdout)
		if got := str(t, rescored, "rescored_from"); got != id {
			t.Errorf("rescore %s scored %s, want %s", short, got, id)
		}
	}
	if ids[0][:8] != ids[2][:8] {
		return // made across a 65-second boundary of the id's clock
	}
	r := mustCLI(t, exitUsage, "results", ids[0][:8], "--db", db)
	for _, id := range ids {
		if !strings.Contains(r.stderr, id) {
			t.Errorf("an ambiguous short id does not list %s:\n%s", id, r.stderr)
		}
	}
}

// TestTau2InstallOffline: without access to the data's server, install
// says what to do instead and leaves no empty data directory that the
// commands would then take for an installation.
func TestTau2InstallOffline(t *testing.T) {
	noTau2Data(t)
	def, err := install.DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	offline := "http://" + ln.Addr().String() + "/data/tau2/domains"
	ln.Close() // nothing listens there now: connections are refused
	r := mustCLI(t, exitFailure, "domains", "install", "tau2", "--base-url", offline)
	for _, w := range []string{"nothing was changed", "--base-url URL", "--tau2-data DIR", catalog.EnvTau2Data + "=DIR"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
		}
	}
	if _, err := os.Stat(def); err == nil {
		t.Errorf("a failed install left %s behind", def)
	}
	if _, err := os.Stat(filepath.Dir(def)); err == nil {
		t.Errorf("a failed install left %s behind", filepath.Dir(def))
	}

	// An empty data directory (as older proctors left) is no installation.
	if err := os.MkdirAll(def, 0o755); err != nil {
		t.Fatal(err)
	}
	d := mustCLI(t, exitOK, "domains")
	if strings.Contains(d.stdout, "airline") || !strings.Contains(d.stderr, "proctor domains install tau2") {
		t.Errorf("domains with an empty data directory:\nstdout:\n%s\nstderr:\n%s", d.stdout, d.stderr)
	}
}

// TestCommandLineManners: --version, suggestions for mistyped flags, help
// that shows no sentinel defaults and lists every format, and commands
// that write saying where.
func TestCommandLineManners(t *testing.T) {
	if r := mustCLI(t, exitOK, "--version"); !strings.HasPrefix(r.stdout, "proctor ") || !strings.Contains(r.stdout, "go1.") {
		t.Errorf("--version: %q", r.stdout)
	}
	typos := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--domian", "mock"}, "did you mean --domain?"},
		{[]string{"run", "--trials", "3"}, "did you mean --num-trials?"},
		{[]string{"run", "--concurency=2"}, "did you mean --concurrency?"},
		{[]string{"results", "--limt", "3"}, "did you mean --limit?"},
		{[]string{"rescore", "x", "--stirct"}, "did you mean --strict?"},
	}
	for _, tc := range typos {
		r := mustCLI(t, exitUsage, tc.args...)
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: stderr does not say %q:\n%s", tc.args, tc.want, r.stderr)
		}
	}
	if r := mustCLI(t, exitUsage, "run", "--zzzzzzzz"); strings.Contains(r.stderr, "did you mean") {
		t.Errorf("a flag far from every other got a suggestion:\n%s", r.stderr)
	}

	help := mustCLI(t, exitOK, "run", "--help").stdout
	for _, line := range strings.Split(help, "\n") {
		if strings.Contains(line, "--fail-under") && strings.Contains(line, "(default -1)") {
			t.Errorf("--fail-under help shows its sentinel: %s", line)
		}
	}
	if r := mustCLI(t, exitUsage, "run", "--fail-under", "x"); !strings.Contains(r.stderr, "--fail-under") {
		t.Errorf("--fail-under x: %s", r.stderr)
	}
	for _, line := range strings.Split(mustCLI(t, exitOK, "results", "--help").stdout, "\n") {
		if strings.Contains(line, "--format string") && !strings.Contains(line, "junit") {
			t.Errorf("results --format help does not list junit: %s", line)
		}
	}

	db := tempDB(t)
	r := mustCLI(t, exitOK, "run", "--db", db, "--task-ids", "mock-01")
	if !strings.Contains(r.stderr, "results database "+db) {
		t.Errorf("run does not say where it stores the result:\n%s", r.stderr)
	}
}
