package tau2test

import (
	"math/rand/v2"
	"testing"

	"github.com/proctor-eval/proctor/domains"
)

// CheckIncrementalHash is the property incremental hashing rests on: after
// any sequence of tool calls, drawn at random (seed) from every task's
// expected actions, an environment of probe hashes as its whole model
// dump does. probe's environments answer the env function "full_hash"
// with the hash of the whole dump; rounds sequences of 1 to 6 calls are
// tried.
func CheckIncrementalHash(t *testing.T, probe *domains.Domain, tasks []domains.Task, seed uint64, rounds int) {
	t.Helper()
	var pool []domains.ToolCall
	for _, task := range tasks {
		if task.EvaluationCriteria != nil {
			for _, a := range task.EvaluationCriteria.Actions {
				pool = append(pool, domains.ToolCall{Name: a.Name, Arguments: a.Arguments})
			}
		}
	}
	r := rand.New(rand.NewPCG(seed, seed+1))
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
