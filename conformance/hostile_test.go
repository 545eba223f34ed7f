package conformance_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

// TestHostileAgents: agents that answer with 100 MiB, stream forever,
// reset connections or send cut-off JSON get a report, in bounded time and
// memory, without a panic.
func TestHostileAgents(t *testing.T) {
	cases := []struct {
		name  string
		start func(t *testing.T) string
	}{
		{"huge reply", func(t *testing.T) string { return agenttest.HugeReplyAgent(t, 100<<20).URL }},
		{"huge event", func(t *testing.T) string { return agenttest.HugeEventAgent(t, 100<<20).URL }},
		{"endless stream", func(t *testing.T) string { return agenttest.EndlessStreamAgent(t, 10*time.Millisecond).URL }},
		{"connection reset", func(t *testing.T) string { return agenttest.ResetAgent(t, true).URL }},
		{"truncated body", func(t *testing.T) string { return agenttest.TruncatedAgent(t, agenttest.TruncateBody).URL }},
		{"truncated content length", func(t *testing.T) string { return agenttest.TruncatedAgent(t, agenttest.TruncateContentLength).URL }},
		{"truncated event", func(t *testing.T) string { return agenttest.TruncatedAgent(t, agenttest.TruncateEvent).URL }},
		{"not an agent", func(t *testing.T) string { return agenttest.RawAgent(t, "text/html", "<html>hello</html>").URL }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			rep, err := conformance.Run(context.Background(), tc.start(t), conformance.WithTimeout(5*time.Second),
				conformance.WithTaskTimeout(time.Second))
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if rep.Level != conformance.LevelNonConformant || took > 8*time.Second || rep.Requests > 60 {
				t.Errorf("level %s after %s and %d requests", rep.Level, took, rep.Requests)
			}
			if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 64<<20 {
				t.Errorf("the heap grew by %d MiB", grown>>20)
			}
			t.Logf("%s in %s, %d requests; failed %v", rep.Level, took.Round(time.Millisecond), rep.Requests, rep.FailedIDs())
		})
	}
}
