package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/knowledge"
	"github.com/proctor-eval/proctor/domains/tau2/knowledge/kbresult"
	"github.com/proctor-eval/proctor/result"
)

// retrievalSimulation is a conversation whose agent called the knowledge
// tools: a KB_search and a grep answered by the knowledge package's real
// output over a small base, a search that found nothing, a failed call,
// and a search result proctor cut short (--tool-faults).
func retrievalSimulation(t *testing.T) *result.Simulation {
	t.Helper()
	base, err := knowledge.New([]knowledge.Document{
		{ID: "doc_fees", Title: "Overdraft Fees", Content: "## Fees\n\nAn overdraft fee of 35 USD applies to every overdrawn day, up to three days a month, unless the account holds a waiver."},
		{ID: "doc_cards", Title: "", Content: "Card fee schedule."},
		{ID: "doc_wire", Title: "Wires", Content: "Wire transfers cost 25 USD."},
	})
	if err != nil {
		t.Fatal(err)
	}
	two := 2
	cfg, err := knowledge.Resolve("bm25_grep", knowledge.Options{TopK: &two})
	if err != nil {
		t.Fatal(err)
	}
	tools := base.Toolset(cfg)
	call := func(id, name string, args map[string]any) (domains.ToolCall, result.Message) {
		out, err := tools.Call(name, args)
		if err != nil {
			t.Fatal(err)
		}
		return domains.ToolCall{ID: id, Name: name, Arguments: args}, result.Message{Role: result.RoleTool, ToolCallID: id, Name: name, Content: out}
	}
	search, searched := call("c1", "KB_search", map[string]any{"query": "overdraft fee"})
	grep, grepped := call("c2", "grep", map[string]any{"pattern": "wire"})
	empty, nothing := call("c3", "grep", map[string]any{"pattern": "mortgage"})
	failed := domains.ToolCall{ID: "c4", Name: "KB_search", Arguments: map[string]any{"query": 2}}
	cut := searched
	cut.ToolCallID, cut.Content, cut.Fault = "c5", searched.Content[:len(searched.Content)/2], result.FaultTruncated
	return &result.Simulation{ID: "bk-1#0", TaskID: "bk-1", TerminationReason: result.TermUserStop, Messages: []result.Message{
		{Role: result.RoleAssistant, ToolCalls: []domains.ToolCall{search, grep, empty, failed, {ID: "c5", Name: "KB_search", Arguments: search.Arguments}}},
		searched, grepped, nothing,
		{Role: result.RoleTool, ToolCallID: "c4", Name: "KB_search", Content: "'int' object has no attribute 'strip'", Error: true},
		cut,
	}}
}

func TestRetrievedReport(t *testing.T) {
	sim := retrievalSimulation(t)
	r := NewSimulationReport(&result.Evaluation{ID: "e1", Domain: "banking_knowledge"}, sim, nil)
	var got [][]kbresult.Hit
	for _, c := range r.Turns[0].ToolCalls {
		got = append(got, c.Retrieved)
	}
	fees := kbresult.Hit{ID: "doc_fees", Title: "Overdraft Fees", Score: "0.4006"}
	fees.Content = "## Fees\n\nAn overdraft fee of 35 USD applies to every overdrawn day, up to three days a month, unless the account holds a waiver."
	want := [][]kbresult.Hit{
		{fees, {ID: "doc_cards", Title: "Untitled", Score: "0.1772", Content: "Card fee schedule."}},
		{{ID: "doc_wire", Title: "Wires", Score: "1.0000", Content: "Wire transfers cost 25 USD."}},
		nil, nil, nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("retrieved documents (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		format Format
		want   string
	}{
		{Text, "" +
			"  -> KB_search(query=\"overdraft fee\")\n" +
			"     = 2 documents (content folded; --format json has it whole):\n" +
			"       1. doc_fees · Overdraft Fees · 0.4006\n" +
			"          ## Fees An overdraft fee of 35 USD applies to every overdrawn day, up to three days a month, unless the account holds a…\n" +
			"       2. doc_cards · Untitled · 0.1772\n" +
			"          Card fee schedule.\n" +
			"  -> grep(pattern=\"wire\")\n" +
			"     = 1 document (content folded; --format json has it whole):\n" +
			"       1. doc_wire · Wires · 1.0000\n" +
			"          Wire transfers cost 25 USD.\n" +
			"  -> grep(pattern=\"mortgage\")\n" +
			"     = No matches found for pattern: mortgage\n" +
			"  -> KB_search(query=2)\n" +
			"     = error: 'int' object has no attribute 'strip'\n" +
			"  -> KB_search(query=\"overdraft fee\")\n" +
			"     = [corrupted by proctor: truncated] 1. Overdraft Fees ID: doc_fees Score: 0.4006 Content: ## Fees An overdraft fee of 35 USD applies to every overdrawn day, up to three days a mon\n"},
		{Markdown, "" +
			"- `KB_search(query=\"overdraft fee\")`\n" +
			"  2 documents:\n\n" +
			"  1. `doc_fees` · Overdraft Fees · 0.4006 — `## Fees An overdraft fee of 35 USD applies to every overdrawn day, up to three days a month, unless the account holds a…`\n" +
			"  2. `doc_cards` · Untitled · 0.1772 — `Card fee schedule.`\n" +
			"- `grep(pattern=\"wire\")`\n" +
			"  1 document:\n\n" +
			"  1. `doc_wire` · Wires · 1.0000 — `Wire transfers cost 25 USD.`\n" +
			"- `grep(pattern=\"mortgage\")`\n" +
			"  = No matches found for pattern: mortgage\n" +
			"- `KB_search(query=2)`\n" +
			"  = error: 'int' object has no attribute 'strip'\n" +
			"- `KB_search(query=\"overdraft fee\")`\n" +
			"  = [corrupted by proctor: truncated] 1. Overdraft Fees ID: doc_fees Score: 0.4006 Content: ## Fees An overdraft fee of 35 USD applies to every overdrawn day, up to three days a mon\n"},
	} {
		var b strings.Builder
		if err := WriteSimulationReports(&b, tt.format, []SimulationReport{r}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, calls(b.String())); diff != "" {
			t.Errorf("%s tool calls (-want +got):\n%s", tt.format, diff)
		}
	}
}

// calls is the lines of a rendered simulation from its first tool call
// to the line before its checks.
func calls(out string) string {
	for _, start := range []string{"  -> ", "- `"} {
		if i := strings.Index(out, start); i >= 0 {
			out = out[i:]
			break
		}
	}
	for _, end := range []string{"\nchecks\n", "\n### Checks"} {
		if i := strings.Index(out, end); i >= 0 {
			out = out[:i+1]
		}
	}
	return strings.TrimRight(out, "\n") + "\n"
}
