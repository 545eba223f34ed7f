package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/store"
)

// evaluationLine is the line `proctor run` prints once its evaluation is
// recorded.
var evaluationLine = regexp.MustCompile(`(?m)^proctor: evaluation (\S+): `)

// TestRunOnAFullDisk runs `proctor run` on a database that cannot grow
// (a file size limit on the process stands in for a full disk: the
// writes fail with EFBIG as they would with ENOSPC): it exits 1 saying
// what failed and how to finish; the database still opens, the evaluation
// it held before is intact, the new one keeps the simulations stored
// before the error, and --resume finishes it once there is room.
func TestRunOnAFullDisk(t *testing.T) {
	bin := buildProctor(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to set the file size limit with")
	}
	db := tempDB(t)
	before := mustCLI(t, exitOK, "run", "--domain", "mock", "--agent", "builtin", "--format", "json", "--db", db)
	firstID := str(t, decodeObject(t, before.stdout), "id")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// 600 blocks of 512 or 1024 bytes, depending on the shell: past the
	// first evaluation's 256 KiB, short of what 136 simulations need.
	full := exec.CommandContext(ctx, sh, "-c", `ulimit -f 600 && exec "$0" "$@"`, bin,
		"run", "--domain", "mock", "--agent", "builtin", "--num-trials", "8", "--db", db)
	full.Env = append(os.Environ(), "PROCTOR_DB="+t.TempDir()+"/not-this.db")
	out, err := full.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitFailure {
		t.Fatalf("proctor run on a full disk: %v, want exit %d\n%s", err, exitFailure, out)
	}
	m := evaluationLine.FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("no evaluation line in\n%s", out)
	}
	id := m[1]
	for _, want := range []string{"file too large", "the simulations stored before the error are kept. Finish with: proctor run --resume " + id} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output does not say %q:\n%s", want, out)
		}
	}

	ro, err := store.Open(db, store.WithReadOnly())
	if err != nil {
		t.Fatalf("the database after the failed writes: %v", err)
	}
	first, err := ro.Simulations(ctx, firstID)
	if err != nil || len(first) != mockTasks {
		t.Errorf("the earlier evaluation has %d simulations (%v), want %d", len(first), err, mockTasks)
	}
	kept, err := ro.Simulations(ctx, id)
	if err != nil || len(kept) == 0 || len(kept) >= 8*mockTasks {
		t.Errorf("the stopped evaluation kept %d simulations (%v), want some of %d", len(kept), err, 8*mockTasks)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}

	resumed := mustCLI(t, exitOK, "run", "--resume", id, "--format", "json", "--db", db)
	if !strings.Contains(resumed.stderr, "simulations already done") {
		t.Errorf("the resume does not say what it kept:\n%s", resumed.stderr)
	}
	if n := num(t, decodeObject(t, resumed.stdout), "summary.num_simulations"); n != 8*mockTasks {
		t.Errorf("the resumed evaluation has %v simulations, want %d", n, 8*mockTasks)
	}
}
