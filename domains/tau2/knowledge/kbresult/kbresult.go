// Package kbresult reads the text of a knowledge-base retrieval tool's
// result back into the documents it lists: tau2's KB_search and grep
// messages, as package knowledge writes them. proctor show, the viewer
// and reports use it to show retrieved documents as a list rather than
// as one block of text. It depends on nothing but the standard library,
// so that readers of stored results need not load a knowledge base.
//
// A result lists its hits, numbered from 1, each written as
//
//	fmt.Sprintf("%d. %s\n   ID: %s\n   Score: %s\n   Content: %s\n", n, title, id, score, content)
//
// separated by blank lines, each hit ending in a newline; KB_search adds
// a "[Timing: ...]" footer after a blank line.
package kbresult

import (
	"strconv"
	"strings"
	"unicode"
)

// Hit is one document of a retrieval result.
type Hit struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Score is the score as the tool printed it ("12.3456"); empty when
	// the result gives none.
	Score   string `json:"score,omitempty"`
	Content string `json:"content"`
}

// Line prefixes of a hit, after its "N. <title>" line.
const (
	idPrefix      = "   ID: "
	scorePrefix   = "   Score: "
	contentPrefix = "   Content: "
)

// Parse reads a retrieval tool's result text into its hits, best first.
// ok is false when text is not such a result: an error, "No relevant
// documents found.", "No matches found for pattern: ...", a result cut
// short, or any other text. Parse accepts any string and never panics.
func Parse(text string) (hits []Hit, ok bool) {
	rest := stripTiming(text)
	for n := 1; ; n++ {
		h, after, ok := parseHead(rest, n)
		if !ok {
			return nil, false
		}
		content, next, more := splitContent(after, n+1)
		if !more && !strings.HasSuffix(after, "\n") {
			return nil, false
		}
		h.Content = content
		hits = append(hits, h)
		if !more {
			return hits, true
		}
		rest = next
	}
}

// stripTiming removes KB_search's "\n\n[Timing: ...]" footer, if any.
func stripTiming(text string) string {
	i := strings.LastIndex(text, "\n\n[Timing: ")
	if i < 0 || !strings.HasSuffix(text, "]") || strings.ContainsAny(text[i+2:], "\n") {
		return text
	}
	return text[:i]
}

// parseHead reads the head of hit n at the start of s, up to and with
// "   Content: ", and returns the hit and what follows the head.
func parseHead(s string, n int) (Hit, string, bool) {
	var h Hit
	s, ok := strings.CutPrefix(s, strconv.Itoa(n)+". ")
	if !ok {
		return h, "", false
	}
	if h.Title, s, ok = line(s, ""); !ok {
		return h, "", false
	}
	if h.ID, s, ok = line(s, idPrefix); !ok || h.ID == "" {
		return h, "", false
	}
	if strings.HasPrefix(s, scorePrefix) {
		if h.Score, s, _ = line(s, scorePrefix); !isNumber(h.Score) {
			return h, "", false
		}
	}
	s, ok = strings.CutPrefix(s, contentPrefix)
	return h, s, ok
}

// line reads one line of s that starts with prefix, and returns the rest
// of the line and what follows its newline.
func line(s, prefix string) (string, string, bool) {
	s, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return "", "", false
	}
	l, rest, ok := strings.Cut(s, "\n")
	return l, rest, ok
}

// isNumber reports whether s is a score as Python's f"{x:.4f}" prints
// one (nan and inf included).
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// splitContent finds where the content of a hit ends in s: before the
// blank line and head of hit next (more true, with the text from that
// head on), else at s's final newline.
func splitContent(s string, next int) (content, rest string, more bool) {
	sep := "\n\n" + strconv.Itoa(next) + ". "
	for from := 0; ; {
		i := strings.Index(s[from:], sep)
		if i < 0 {
			return strings.TrimSuffix(s, "\n"), "", false
		}
		at := from + i
		if _, _, ok := parseHead(s[at+2:], next); ok {
			return s[:at], s[at+2:], true
		}
		from = at + 1
	}
}

// Fold returns a hit's content on one line for a glance: runs of white
// space (line breaks included) and control characters become one space,
// invalid UTF-8 is replaced, and a text longer than
// limit runes (at least 2) is cut to limit with "…".
func Fold(content string, limit int) string {
	limit = max(limit, 2)
	s := strings.Join(strings.FieldsFunc(strings.ToValidUTF8(content, "\uFFFD"), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
	if r := []rune(s); len(r) > limit {
		return strings.TrimRight(string(r[:limit-1]), " ") + "…"
	}
	return s
}
