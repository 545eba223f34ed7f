package conformance_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

// Example checks an agent (here a real a2a-go agent on loopback that
// declines everything) and prints the report's verdict.
func Example() {
	tb := &exampleTB{}
	defer tb.cleanup()
	srv := agenttest.Start(tb, agenttest.Sorry)

	rep, err := conformance.Run(context.Background(), srv.URL,
		conformance.WithMessages(conformance.Messages{Slow: "Write a long report on tides"}))
	if err != nil {
		fmt.Println(err) // an unusable URL or option; an unreachable agent is a failing report
		return
	}
	// conformance.Write(os.Stdout, conformance.FormatMarkdown, rep) would
	// print the whole report.
	fmt.Println("level:", rep.Level)
	fmt.Println("failed:", rep.FailedIDs())
	// Output:
	// level: non-conformant
	// failed: [error-invalid-request list-tasks version-unsupported]
}

// exampleTB is the part of testing.TB that agenttest uses: Helper and
// Cleanup.
type exampleTB struct {
	testing.TB
	cleanups []func()
}

func (*exampleTB) Helper() {}

func (tb *exampleTB) Cleanup(f func()) { tb.cleanups = append(tb.cleanups, f) }

func (tb *exampleTB) cleanup() {
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]()
	}
}
