package retail

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/proctor-eval/proctor/domains"
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
	var pool []domains.ToolCall
	for _, task := range d.Tasks {
		if task.EvaluationCriteria != nil {
			for _, a := range task.EvaluationCriteria.Actions {
				pool = append(pool, domains.ToolCall{Name: a.Name, Arguments: a.Arguments})
			}
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	rounds := 15
	if testing.Short() {
		rounds = 4
	}
	for round := range rounds {
		env, err := probe.NewEnv(nil)
		if err != nil {
			t.Fatal(err)
		}
		for step := range 1 + r.IntN(6) {
			call := pool[r.IntN(len(pool))]
			env.Call(call)
			got, err := env.Hash()
			if err != nil {
				t.Fatal(err)
			}
			full, err := domains.CallFunc(env, "", "full_hash", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != full {
				t.Fatalf("round %d, step %d (%s): incremental hash %s, full hash %s", round, step, call.Name, got, full)
			}
		}
	}
}
