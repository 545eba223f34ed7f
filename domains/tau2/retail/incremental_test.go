package retail

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/internal/tau2test"
)

// TestIncrementalHash checks that after any sequence of tool calls (drawn
// from every task's expected actions: cancellations, returns, exchanges,
// address changes) an environment's incremental hash is the hash of its
// whole model dump.
func TestIncrementalHash(t *testing.T) {
	dir := dataDir(t)
	d := testDomain(t)
	tools := Tools()
	tools.RegisterEnvFunc("full_hash", func(db *DB, _ domains.Args) (any, error) { return db.FullHash() })
	raw, err := os.ReadFile(filepath.Join(dir, "db.json"))
	if err != nil {
		t.Fatal(err)
	}
	probe, err := domains.NewDomain(domains.Spec[DB]{Name: "retail", Policy: "-", DB: raw, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	rounds := 15
	if testing.Short() {
		rounds = 4
	}
	tau2test.CheckIncrementalHash(t, probe, d.Tasks, 5, rounds)
}
