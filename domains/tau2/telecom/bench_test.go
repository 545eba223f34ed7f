package telecom

import (
	"testing"

	"github.com/proctor-eval/proctor/domains"
)

// BenchmarkNew is the cost of loading the domain, dominated by parsing the
// 14 MB task file (every split reads all of it).
func BenchmarkNew(b *testing.B) {
	_, dir := testDomain(b, "")
	for b.Loop() {
		if _, err := New(dir, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewEnv is the cost of a simulation's environment: two deep
// copies, the task's initialization actions, each followed by a sync.
func BenchmarkNewEnv(b *testing.B) {
	d, _ := testDomain(b, "")
	task := &d.Tasks[0]
	for b.Loop() {
		if _, err := d.NewEnv(task); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUserToolCall is a user tool call with its sync.
func BenchmarkUserToolCall(b *testing.B) {
	d, _ := testDomain(b, "")
	env, err := d.NewEnv(&d.Tasks[0])
	if err != nil {
		b.Fatal(err)
	}
	call := domains.ToolCall{Name: "toggle_data", Requestor: domains.RequestorUser}
	for b.Loop() {
		if res := env.Call(call); res.Error {
			b.Fatal(res.Content)
		}
	}
}

func BenchmarkHash(b *testing.B) {
	d, _ := testDomain(b, "")
	env, err := d.NewEnv(&d.Tasks[0])
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := env.Hash(); err != nil {
			b.Fatal(err)
		}
	}
}
