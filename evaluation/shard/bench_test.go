//go:build unix

package shard_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/evaluation/shard"
	"github.com/proctor-eval/proctor/internal/cputime"
	"github.com/proctor-eval/proctor/store"
)

// BenchmarkMerge is the figure: merging 4 shards of 10,000
// simulations each (2,500 tasks x 4 trials per shard; a two-message
// transcript and two requests per simulation, about 1 KB of JSON each).
// "decode+score" decodes and validates the four files, checks that they
// make one evaluation and scores it; "stored" also stores it with its
// 40,000 simulations in a results database, which is what proctor merge
// does. Its budget is 2 s an operation. Besides the wall time it reports
// the CPU time the process spent (cpu-s/op), which other processes on a
// busy machine do not inflate.
func BenchmarkMerge(b *testing.B) {
	files := makeShards(4, 10000, 4)
	encoded := make([][]byte, len(files))
	size := 0
	for i, f := range files {
		encoded[i] = encode(b, f)
		size += len(encoded[i])
	}
	for _, stored := range []bool{false, true} {
		name := "decode+score"
		if stored {
			name = "stored"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			var cpu time.Duration
			for b.Loop() {
				var db *store.DB
				if stored {
					b.StopTimer()
					var err error
					if db, err = store.Open(filepath.Join(b.TempDir(), "merge.db")); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				before := cputime.Process(b)
				mergeOnce(b, encoded, db)
				cpu += cputime.Process(b) - before
				if db != nil {
					b.StopTimer()
					db.Close()
					b.StartTimer()
				}
			}
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

func mergeOnce(b *testing.B, encoded [][]byte, db *store.DB) {
	got := make([]*shard.File, len(encoded))
	var err error
	for i, data := range encoded {
		if got[i], err = shard.Decode(bytes.NewReader(data), 0, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	eval, recs, err := shard.Merge(store.NewID(), got)
	if err != nil {
		b.Fatal(err)
	}
	var st evaluation.Store
	if db != nil {
		st = db
	}
	if err := evaluation.Complete(context.Background(), st, eval, recs); err != nil {
		b.Fatal(err)
	}
	if eval.Summary.NumSimulations != 40000 {
		b.Fatalf("%d simulations merged", eval.Summary.NumSimulations)
	}
}
