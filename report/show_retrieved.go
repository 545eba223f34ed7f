package report

import (
	"fmt"
	"strings"

	"github.com/proctor-eval/proctor/domains/tau2/knowledge/kbresult"
)

// foldedContentChars bounds a retrieved document's content in text and
// Markdown: its first words, on one line.
const foldedContentChars = 120

// retrieved reads a tool result that lists knowledge-base documents
// (KB_search, grep) back into them; nil for an error or any other text.
func retrieved(content string, isError bool) []kbresult.Hit {
	if isError {
		return nil
	}
	hits, ok := kbresult.Parse(content)
	if !ok {
		return nil
	}
	return hits
}

// retrievedHead is the line before a retrieval result's documents.
func retrievedHead(c ToolCallView) string {
	head := Plural(len(c.Retrieved), "document")
	if c.Fault != "" {
		head = "[corrupted by proctor: " + string(c.Fault) + "] " + head
	}
	return head
}

// hitLine is a retrieved document's line: "id · title · score".
func hitLine(h kbresult.Hit) string {
	parts := []string{h.ID, h.Title}
	if h.Score != "" {
		parts = append(parts, h.Score)
	}
	return strings.Join(parts, " · ")
}

// retrievedText writes a retrieval result as a list of its documents,
// each with its content folded to its first words.
func retrievedText(b *strings.Builder, c ToolCallView) {
	fmt.Fprintf(b, "     = %s (content folded; --format json has it whole):\n", retrievedHead(c))
	for i, h := range c.Retrieved {
		fmt.Fprintf(b, "       %d. %s\n", i+1, clip(hitLine(h), 1000))
		if folded := kbresult.Fold(h.Content, foldedContentChars); folded != "" {
			fmt.Fprintf(b, "          %s\n", clip(folded, foldedContentChars))
		}
	}
}

// retrievedMarkdown writes a retrieval result as a numbered list nested
// in its call's item.
func retrievedMarkdown(b *strings.Builder, c ToolCallView) {
	fmt.Fprintf(b, "  %s:\n\n", retrievedHead(c))
	for i, h := range c.Retrieved {
		line := "`" + mdCode(h.ID) + "` · " + mdEscape(h.Title)
		if h.Score != "" {
			line += " · " + h.Score
		}
		if folded := kbresult.Fold(h.Content, foldedContentChars); folded != "" {
			line += " — `" + mdCode(folded) + "`"
		}
		fmt.Fprintf(b, "  %d. %s\n", i+1, line)
	}
}
