package knowledge

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/proctor-eval/proctor/internal/tau2test"
)

// BenchmarkKBSearch is one KB_search call (bm25 configuration) over the
// real 698 documents: ranking and the tool message.
func BenchmarkKBSearch(b *testing.B) {
	base := testBase(b)
	cfg, err := Resolve("bm25", Options{})
	if err != nil {
		b.Fatal(err)
	}
	tools := base.Toolset(cfg)
	args := map[string]any{"query": "How do I dispute a transaction on my credit card?"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tools.Call(KBSearchTool, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGrep is one grep call over the real documents.
func BenchmarkGrep(b *testing.B) {
	base := testBase(b)
	base.docRunes()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := base.Grep("credit.*card", 10, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadHeap loads and indexes the real documents and reports the
// live heap the shared Base holds (heap-MB), grep's code points included,
// which every simulation of a process shares.
func BenchmarkLoadHeap(b *testing.B) {
	dir := filepath.Join(tau2test.Dir(b, "banking_knowledge"), "documents")
	var before, after runtime.MemStats
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&before)
		base, err := Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		base.docRunes()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(base)
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MB")
}
