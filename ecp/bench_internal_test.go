package ecp

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"
)

// BenchmarkStepRoundTrip compares one agent/step through the Client
// (framing, JSON-RPC envelope, result decoding, the timeout and kill
// guard) with a bare JSON-RPC echo over the same pipe to the same agent
// process: the encoded request written, the answer read as a line,
// nothing decoded. The agent is this test binary in its "echo" mode (see
// helpers_test.go), which answers every line with a fixed step result.
// Compare the two ns/op: the Client should cost within 1.3x of the echo.
// On a shared machine the two runs meet different loads; see
// BenchmarkStepOverhead for a ratio measured side by side.
func BenchmarkStepRoundTrip(b *testing.B) {
	b.Setenv("PROCTOR_ECP_TEST_AGENT", "echo")
	c, err := Dial(context.Background(), SchemeStdio+strconv.Quote(os.Args[0]), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	params := StepParams{Input: "Hi, I'm jane.park@example.com. List my tasks.", Context: StepContext{Time: "2024-05-15T15:00:00Z", UserID: "mock-01#0", Kind: KindUser}}
	ctx := context.Background()
	b.Run("client-step", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Step(ctx, params); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bare-echo", func(b *testing.B) {
		echo := bareEcho(b, c, params)
		b.ReportAllocs()
		for b.Loop() {
			echo()
		}
	})
}

// bareEcho returns a function that makes one bare round trip on c's pipe:
// the encoded request written, a line read, nothing decoded.
func bareEcho(b *testing.B, c *Client, params StepParams) func() {
	t := c.t.(*stdioTransport)
	req, err := json.Marshal(request{JSONRPC: "2.0", ID: json.RawMessage("1"), Method: MethodStep, Params: params})
	if err != nil {
		b.Fatal(err)
	}
	req = append(req, '\n')
	return func() {
		if _, err := t.stdin.Write(req); err != nil {
			b.Fatal(err)
		}
		if _, err := t.frames.r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStepOverhead measures client steps and bare echoes on the same
// pipe in alternating batches of 200, and reports the ratio of their
// fastest batches ("client/bare"): both kinds meet the same load, and the
// fastest batch is the one least disturbed by the machine's other work.
func BenchmarkStepOverhead(b *testing.B) {
	b.Setenv("PROCTOR_ECP_TEST_AGENT", "echo")
	c, err := Dial(context.Background(), SchemeStdio+strconv.Quote(os.Args[0]), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	params := StepParams{Input: "Hi, I'm jane.park@example.com. List my tasks.", Context: StepContext{Time: "2024-05-15T15:00:00Z", UserID: "mock-01#0", Kind: KindUser}}
	ctx := context.Background()
	echo := bareEcho(b, c, params)
	step := func() {
		if _, err := c.Step(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
	const batch = 200
	bestStep, bestEcho := time.Duration(1<<62), time.Duration(1<<62)
	timed := func(f func()) time.Duration {
		start := time.Now()
		for range batch {
			f()
		}
		return time.Since(start)
	}
	for b.Loop() {
		bestStep = min(bestStep, timed(step))
		bestEcho = min(bestEcho, timed(echo))
	}
	b.ReportMetric(float64(bestStep.Nanoseconds())/batch, "step-ns")
	b.ReportMetric(float64(bestEcho.Nanoseconds())/batch, "echo-ns")
	b.ReportMetric(float64(bestStep)/float64(bestEcho), "client/bare")
}
