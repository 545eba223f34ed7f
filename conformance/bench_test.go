package conformance_test

import (
	"context"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

// TestRunBounds: a whole run against a local agent that serves every
// binding at both versions (six interfaces, every check applicable) stays
// under 200 requests and 10 seconds, and a run cannot exceed its request
// budget whatever the agent does.
func TestRunBounds(t *testing.T) {
	base := agenttest.StartLifecycle(t, agenttest.LifecycleOptions{})
	rep, err := conformance.Run(context.Background(), base, conformance.WithMessages(lifecycleMessages()))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requests >= 200 || rep.DurationMS >= 10000 {
		t.Errorf("%d requests in %.0f ms, want under 200 and 10 s", rep.Requests, rep.DurationMS)
	}
	t.Logf("6 interfaces: %d checks, %d requests in %.0f ms", rep.Summary.Total, rep.Requests, rep.DurationMS)

	capped, err := conformance.Run(context.Background(), base, conformance.WithMessages(lifecycleMessages()), conformance.WithMaxRequests(20))
	if err != nil {
		t.Fatal(err)
	}
	if capped.Requests != 20 {
		t.Errorf("a budget of 20 requests: %d reported", capped.Requests)
	}
	if capped.Level != conformance.LevelNonConformant {
		t.Errorf("a run cut short by its budget is %s, want non-conformant (its checks could not be made)", capped.Level)
	}

	start := time.Now()
	hang := agenttest.HangingAgent(t)
	slow, err := conformance.Run(context.Background(), hang.URL, conformance.WithTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second || slow.Level != conformance.LevelNonConformant {
		t.Errorf("a hanging agent: %s after %s, want non-conformant within about the 1s limit", slow.Level, took)
	}
}

// BenchmarkRun measures a whole run against a local a2a-go agent serving
// JSON-RPC, HTTP+JSON and gRPC at 1.0 and 0.3; it reports requests per run.
func BenchmarkRun(b *testing.B) {
	base := agenttest.StartLifecycle(b, agenttest.LifecycleOptions{})
	var requests int
	for b.Loop() {
		rep, err := conformance.Run(context.Background(), base, conformance.WithMessages(lifecycleMessages()))
		if err != nil {
			b.Fatal(err)
		}
		requests = rep.Requests
	}
	b.ReportMetric(float64(requests), "requests/op")
}
