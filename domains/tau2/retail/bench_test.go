package retail

import (
	"testing"

	"github.com/proctor-eval/proctor/domains"
)

func BenchmarkNew(b *testing.B) {
	dir := dataDir(b)
	for b.Loop() {
		if _, err := New(dir, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewEnv is the cost of a simulation's database: a clone.
func BenchmarkNewEnv(b *testing.B) {
	d := testDomain(b)
	for b.Loop() {
		if _, err := d.NewEnv(nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHash(b *testing.B) {
	d := testDomain(b)
	env, _ := d.NewEnv(nil)
	env.Call(domains.ToolCall{Name: "cancel_pending_order", Arguments: map[string]any{"order_id": "#W5199551", "reason": "no longer needed"}})
	for b.Loop() {
		if _, err := env.Hash(); err != nil {
			b.Fatal(err)
		}
	}
}
