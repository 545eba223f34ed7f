package conformance_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/conformance"
)

// TestConformanceSkipsExplained: the table and Markdown of a conformance
// report say which checks were skipped and why, not only how many.
func TestConformanceSkipsExplained(t *testing.T) {
	rep := &conformance.Report{AgentURL: "http://127.0.0.1:9/", Results: []conformance.Result{{
		Requirement: conformance.Requirement{ID: "multi-turn", Title: "input-required"}, Transports: []string{"JSONRPC 1.0"},
		Status: conformance.Skip, Message: "no task asked for input (input-required)"}}}
	for _, format := range []string{conformance.FormatText, conformance.FormatMarkdown} {
		var b bytes.Buffer
		if err := conformance.Write(&b, format, rep); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "multi-turn") || !strings.Contains(b.String(), "no task asked for input") {
			t.Errorf("%s does not say what was skipped and why:\n%s", format, b.String())
		}
	}
}
