package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// simPayload returns a simulation result of about n bytes, shaped like a
// transcript.
func simPayload(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"termination":"user_stop","reward_breakdown":{"DB":1,"ACTION":1},"messages":[`)
	for i := 0; b.Len() < n-100; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"assistant","turn":%d,"content":"I have updated reservation ABC%03d; anything else? <ok> & done"}`, i, i)
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String())
}

func BenchmarkPutSimulation(b *testing.B) {
	data := simPayload(20 << 10)
	reqs := json.RawMessage(`[{"latency_ms":812,"status":200,"bytes_in":5123,"bytes_out":901,"input_tokens":1200,"output_tokens":80},{"latency_ms":640,"status":200,"bytes_in":6120,"bytes_out":450,"input_tokens":1400,"output_tokens":60}]`)
	for _, bc := range []struct {
		name string
		opts []Option
	}{
		{"sync", nil},
		{"nosync", []Option{WithNoSync()}},
		// The file opened and closed (its lock taken and released) around
		// every write, as `proctor run` does so that others may read.
		{"sync-shortlocks", []Option{WithShortLocks()}},
		{"nosync-shortlocks", []Option{WithNoSync(), WithShortLocks()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			db, err := Open(filepath.Join(b.TempDir(), "bench.db"), bc.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			evalID := NewID()
			if err := db.PutEvaluation(ctx, Evaluation{ID: evalID, Status: "running"}); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data) + len(reqs)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				s := Simulation{ID: fmt.Sprintf("task-%d#0", i), TaskID: fmt.Sprintf("task-%d", i), Reward: 1, Data: data, Requests: reqs}
				if err := db.PutSimulation(ctx, evalID, s); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkList measures the newest-first listings: a first page, a page
// from a paging cursor, and a filtered page that skips most records.
func BenchmarkList(b *testing.B) {
	ctx := context.Background()
	db, err := Open(filepath.Join(b.TempDir(), "bench.db"), WithNoSync())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const n = 2000
	ids := make([]string, n)
	for i := range n {
		ids[i] = NewID()
		domain := "airline"
		if i%10 == 0 {
			domain = "retail"
		}
		e := Evaluation{ID: ids[i], Domain: domain, AgentURL: "http://localhost:9999", Status: "completed", Data: json.RawMessage(`{"trials":4,"summary":{"pass":0.5}}`)}
		if err := db.PutEvaluation(ctx, e); err != nil {
			b.Fatal(err)
		}
		level := "full"
		if i%10 == 0 {
			level = "partial"
		}
		r := ConformanceRun{ID: ids[i], AgentURL: "http://localhost:9999", Level: level, Data: json.RawMessage(`{"checks":[{"name":"card","ok":true}]}`)}
		if err := db.PutConformance(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("evaluations/first", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.ListEvaluations(ctx, ListFilter{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("evaluations/before", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.ListEvaluations(ctx, ListFilter{Before: ids[n/2]}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("evaluations/filtered", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.ListEvaluations(ctx, ListFilter{Domain: "retail"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("conformance/first", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.ListConformance(ctx, ConformanceFilter{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("conformance/filtered", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.ListConformance(ctx, ConformanceFilter{Level: "partial"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
