package retail

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
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

// BenchmarkHash is the cost of hashing an environment's database, side by
// side: "full" encodes the whole model dump (the path before incremental
// hashing), "seen" is the incremental hash of a database hashed before,
// "unique" that of a database never seen (a user's address changed).
func BenchmarkHash(b *testing.B) {
	dir := dataDir(b)
	tools := Tools()
	tools.RegisterEnvFunc("full_hash", func(db *DB, _ domains.Args) (any, error) { return db.FullHash() })
	raw, err := os.ReadFile(filepath.Join(dir, "db.json"))
	if err != nil {
		b.Fatal(err)
	}
	d, err := domains.NewDomain(domains.Spec[DB]{Name: "retail", Policy: "-", DB: raw, Tools: tools})
	if err != nil {
		b.Fatal(err)
	}
	env, _ := d.NewEnv(nil)
	env.Call(domains.ToolCall{Name: "cancel_pending_order", Arguments: map[string]any{"order_id": "#W5199551", "reason": "no longer needed"}})
	if _, err := env.Hash(); err != nil { // encodes the template once
		b.Fatal(err)
	}
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			if _, err := domains.CallFunc(env, "", "full_hash", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("seen", func(b *testing.B) {
		for b.Loop() {
			if _, err := env.Hash(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unique", func(b *testing.B) {
		i := rand.IntN(1 << 40) // unique across runs of this closure (-count)
		for b.Loop() {
			e, _ := d.NewEnv(nil)
			res := e.Call(domains.ToolCall{Name: "modify_user_address", Arguments: map[string]any{
				"user_id": "mia_garcia_4516", "address1": "1 Main St", "address2": "", "city": "Austin",
				"state": "TX", "country": "USA", "zip": strconv.Itoa(i)}})
			if res.Error {
				b.Fatal(res.Content)
			}
			i++
			if _, err := e.Hash(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
