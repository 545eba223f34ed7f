package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
)

// TestMarkdownEscapesTheAgentsCard: the Markdown summaries of an
// evaluation and of a conformance report (which run_evaluation and
// check_conformance return) show an agent card's name as text, not as
// HTML, as the eval-set summary does.
func TestMarkdownEscapesTheAgentsCard(t *testing.T) {
	const name = `<img src=x onerror="alert(1)"> & co`
	var eval, conf bytes.Buffer
	if err := report.Write(&eval, report.Markdown, &result.Evaluation{ID: "e1", Domain: "mock", Status: result.StatusCompleted,
		Agent: result.AgentInfo{Name: name, URL: "http://127.0.0.1:9/"}}); err != nil {
		t.Fatal(err)
	}
	if err := conformance.Write(&conf, conformance.FormatMarkdown, &conformance.Report{AgentURL: "http://127.0.0.1:9/", AgentName: name}); err != nil {
		t.Fatal(err)
	}
	for what, md := range map[string]string{"evaluation": eval.String(), "conformance": conf.String()} {
		if strings.Contains(md, "<img") || !strings.Contains(md, "&lt;img src=x onerror=") || !strings.Contains(md, "&amp; co") {
			t.Errorf("%s summary does not escape the card's name:\n%s", what, md)
		}
	}
}
