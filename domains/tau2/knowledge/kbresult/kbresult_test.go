package kbresult_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains/tau2/knowledge"
	"github.com/proctor-eval/proctor/domains/tau2/knowledge/kbresult"
	"github.com/proctor-eval/proctor/internal/tau2test"
)

const timing = "\n\n[Timing: retrieval=0ms, total=0ms]"

func TestParse(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		want   []kbresult.Hit
		wantOK bool
	}{
		{name: "one hit with timing", text: "1. Fees\n   ID: doc_a\n   Score: 2.0000\n   Content: overdraft fee\n" + timing,
			want: []kbresult.Hit{{ID: "doc_a", Title: "Fees", Score: "2.0000", Content: "overdraft fee"}}, wantOK: true},
		{name: "grep's, no timing, content of several lines",
			text: "1. Fees\n   ID: doc_a\n   Score: 2.0000\n   Content: ## Fees\n\n1. A fee\n2. Another\n\n" +
				"2. Untitled\n   ID: doc_b\n   Score: 1.0000\n   Content: card fee\n",
			want: []kbresult.Hit{{ID: "doc_a", Title: "Fees", Score: "2.0000", Content: "## Fees\n\n1. A fee\n2. Another"},
				{ID: "doc_b", Title: "Untitled", Score: "1.0000", Content: "card fee"}}, wantOK: true},
		{name: "content that looks like the next hit's number but not its head",
			text: "1. A\n   ID: a\n   Score: 1.0000\n   Content: steps:\n\n2. call us\n\n2. B\n   ID: b\n   Score: 0.5000\n   Content: b\n",
			want: []kbresult.Hit{{ID: "a", Title: "A", Score: "1.0000", Content: "steps:\n\n2. call us"},
				{ID: "b", Title: "B", Score: "0.5000", Content: "b"}}, wantOK: true},
		{name: "content ending in newlines", text: "1. A\n   ID: a\n   Score: 1.0000\n   Content: a\n\n\n\n2. B\n   ID: b\n   Score: 0.0000\n   Content: \n",
			want: []kbresult.Hit{{ID: "a", Title: "A", Score: "1.0000", Content: "a\n\n"}, {ID: "b", Title: "B", Score: "0.0000"}}, wantOK: true},
		{name: "no score line", text: "1. A\n   ID: a\n   Content: a\n",
			want: []kbresult.Hit{{ID: "a", Title: "A", Content: "a"}}, wantOK: true},
		{name: "nan score", text: "1. A\n   ID: a\n   Score: nan\n   Content: a\n",
			want: []kbresult.Hit{{ID: "a", Title: "A", Score: "nan", Content: "a"}}, wantOK: true},
		{name: "no documents", text: "No relevant documents found." + timing},
		{name: "no grep match", text: "No matches found for pattern: fee"},
		{name: "error", text: "'float' object has no attribute 'strip'"},
		{name: "empty", text: ""},
		{name: "cut short", text: "1. Fees\n   ID: doc_a\n   Score: 2.0000\n   Content: overdr"},
		{name: "cut in the head", text: "1. Fees\n   ID: doc_a\n   Sco"},
		{name: "numbered from 2", text: "2. A\n   ID: a\n   Score: 1.0000\n   Content: a\n"},
		{name: "no id", text: "1. A\n   ID: \n   Score: 1.0000\n   Content: a\n"},
		{name: "score not a number", text: "1. A\n   ID: a\n   Score: high\n   Content: a\n"},
		{name: "a numbered list", text: "1. first\n2. second\n"},
		{name: "timing alone", text: timing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := kbresult.Parse(tt.text)
			if diff := cmp.Diff(tt.want, got); diff != "" || ok != tt.wantOK {
				t.Errorf("Parse(%q) ok %v, want %v; hits (-want +got):\n%s", tt.text, ok, tt.wantOK, diff)
			}
		})
	}
}

// TestParseToolOutput reads back what the knowledge package's tools
// write, for BM25 and grep over a small in-memory base.
func TestParseToolOutput(t *testing.T) {
	docs := []knowledge.Document{
		{ID: "doc_fees", Title: "Overdraft Fees", Content: "## Fees\n\nAn overdraft fee of 35 USD applies.\n\n2. Waivers\n   ID: not a hit"},
		{ID: "doc_cards", Title: "", Content: "Card fee schedule."},
		{ID: "doc_wire", Title: "Wires", Content: "Wire transfers cost 25 USD."},
	}
	base, err := knowledge.New(docs)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := knowledge.Resolve("bm25_grep", knowledge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tools := base.Toolset(cfg)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{knowledge.KBSearchTool, map[string]any{"query": "overdraft fee"}},
		{knowledge.GrepTool, map[string]any{"pattern": "fee"}},
	} {
		text, err := tools.Call(call.tool, call.args)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := kbresult.Parse(text)
		if !ok {
			t.Fatalf("%s(%v) not read back:\n%s", call.tool, call.args, text)
		}
		var want []kbresult.Hit
		for _, h := range rank(t, base, call.tool, call.args, 10) {
			d, _ := base.Document(h.ID)
			title := d.Title
			if title == "" {
				title = "Untitled"
			}
			want = append(want, kbresult.Hit{ID: d.ID, Title: title, Score: knowledge.FormatScore(h.Score), Content: d.Content})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s(%v) read back (-want +got):\n%s", call.tool, call.args, diff)
		}
	}
}

// TestParseRealKnowledgeBase reads back a grep result that lists every
// document of tau2's banking knowledge base (their content has numbered
// lists and blank lines that could pass for a next hit), and KB_search
// results for a few queries.
func TestParseRealKnowledgeBase(t *testing.T) {
	base, err := knowledge.Load(filepath.Join(tau2test.Dir(t, "banking_knowledge"), "documents"))
	if err != nil {
		t.Fatal(err)
	}
	all := base.Len()
	cfg, err := knowledge.Resolve("bm25_grep", knowledge.Options{GrepTopK: &all})
	if err != nil {
		t.Fatal(err)
	}
	tools := base.Toolset(cfg)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{knowledge.GrepTool, map[string]any{"pattern": "^"}},
		{knowledge.KBSearchTool, map[string]any{"query": "overdraft fee waiver"}},
		{knowledge.KBSearchTool, map[string]any{"query": "1. The customer is verified."}},
	} {
		text, err := tools.Call(call.tool, call.args)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := kbresult.Parse(text)
		if !ok {
			t.Fatalf("%s(%v) not read back", call.tool, call.args)
		}
		var ids []string
		for _, h := range got {
			d, _ := base.Document(h.ID)
			if h.Content != d.Content {
				t.Errorf("%s(%v): %s read back with other content", call.tool, call.args, h.ID)
			}
			ids = append(ids, h.ID)
		}
		var want []string
		for _, h := range rank(t, base, call.tool, call.args, all) {
			want = append(want, h.ID)
		}
		if diff := cmp.Diff(want, ids); diff != "" {
			t.Errorf("%s(%v) documents (-want +got):\n%s", call.tool, call.args, diff)
		}
	}
}

// rank is the ranking behind a tool's message.
func rank(t *testing.T, base *knowledge.Base, tool string, args map[string]any, grepTopK int) []knowledge.Hit {
	if tool == knowledge.GrepTool {
		hits, err := base.Grep(args["pattern"].(string), grepTopK, false)
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	return base.BM25(args["query"].(string), 10)
}

func TestFold(t *testing.T) {
	tests := []struct {
		content string
		limit   int
		want    string
	}{
		{"## Fees\n\nAn overdraft\tfee.", 120, "## Fees An overdraft fee."},
		{"abcdef", 4, "abc…"},
		{"ab  cd", 4, "ab…"},
		{"é\xffé", 10, "é\uFFFDé"},
		{"abc", 0, "a…"},
		{"", 10, ""},
		{"red \x1b[31mtext\x07", 20, "red [31mtext"},
	}
	for _, tt := range tests {
		if got := kbresult.Fold(tt.content, tt.limit); got != tt.want {
			t.Errorf("Fold(%q, %d) = %q, want %q", tt.content, tt.limit, got, tt.want)
		}
	}
}

// FuzzParse feeds Parse any text a tool result may hold. It must never
// panic, and what it reads must be the whole text: written back in the
// tools' format, the hits give the text again (timing footer aside).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"1. Fees\n   ID: doc_a\n   Score: 2.0000\n   Content: overdraft fee\n" + timing,
		"1. A\n   ID: a\n   Score: 1.0000\n   Content: steps:\n\n2. call us\n\n2. B\n   ID: b\n   Score: 0.5000\n   Content: b\n",
		"1. A\n   ID: a\n   Content: a\n", "No relevant documents found." + timing, "1. A\n   ID: a\n   Score: 1e9",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		hits, ok := kbresult.Parse(text)
		if !ok {
			if hits != nil {
				t.Fatalf("Parse(%q) not ok but gave hits", text)
			}
			return
		}
		if got, want := format(hits), strings.TrimSuffix(text, timingOf(text)); got != want {
			t.Fatalf("Parse(%q) = %#v, which writes back as %q", text, hits, got)
		}
	})
}

// format writes hits as the knowledge package's tools do.
func format(hits []kbresult.Hit) string {
	var b strings.Builder
	for i, h := range hits {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Join([]string{strconv.Itoa(i + 1), ". ", h.Title, "\n   ID: ", h.ID, "\n"}, ""))
		if h.Score != "" {
			b.WriteString("   Score: " + h.Score + "\n")
		}
		b.WriteString("   Content: " + h.Content + "\n")
	}
	return b.String()
}

// timingOf is text's "[Timing: ...]" footer with its blank line, if any.
func timingOf(text string) string {
	i := strings.LastIndex(text, "\n\n[Timing: ")
	if i < 0 || !strings.HasSuffix(text, "]") || strings.Contains(text[i+2:], "\n") {
		return ""
	}
	return text[i:]
}
