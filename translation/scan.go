package translation

import (
	"strings"

	"github.com/proctor-eval/proctor/agent"
)

// parseText finds a tool-call shape in an agent's (trimmed) text. The
// candidates, in order: the whole text; fenced code blocks; <json> tags;
// balanced {...} objects embedded in prose. The first candidate that
// decodes to a recognised shape wins; otherwise the text is plain text.
func parseText(text string) agent.Reply {
	if text == "" {
		return agent.Reply{Format: agent.ReplyFormatText}
	}
	if len(text) <= maxJSONText {
		sc := scanner{text: text, work: 4*len(text) + 1<<16}
		if r, ok := sc.find(); ok {
			return r
		}
	}
	return agent.Reply{Text: text, Format: agent.ReplyFormatText}
}

// scanner examines the JSON candidates of one text within fixed limits.
type scanner struct {
	text     string
	examined int // candidates decoded so far
	// tried are the spans already decoded, the first examined of them:
	// at most maxCandidates, so a list (on the stack) rather than a map.
	tried [maxCandidates][2]int
	work  int // bytes the matcher and decoder may still examine
}

// seen reports whether span was decoded already.
func (sc *scanner) seen(span [2]int) bool {
	for _, t := range sc.tried[:sc.examined] {
		if t == span {
			return true
		}
	}
	return false
}

func (sc *scanner) find() (agent.Reply, bool) {
	if r, ok := sc.try(agent.ReplyFormatJSON, 0, len(sc.text)); ok {
		return r, true
	}
	if r, ok := sc.fenced(); ok {
		return r, true
	}
	if r, ok := sc.tagged(); ok {
		return r, true
	}
	return sc.embedded()
}

// done reports whether the candidate budget is spent.
func (sc *scanner) done() bool { return sc.examined >= maxCandidates || sc.work <= 0 }

// try decodes text[start:end] (trimmed) and checks its shape.
func (sc *scanner) try(format agent.ReplyFormat, start, end int) (agent.Reply, bool) {
	for start < end && isSpace(sc.text[start]) {
		start++
	}
	for end > start && isSpace(sc.text[end-1]) {
		end--
	}
	if start >= end || (sc.text[start] != '{' && sc.text[start] != '[') || sc.done() {
		return agent.Reply{}, false
	}
	span := [2]int{start, end}
	if sc.seen(span) {
		return agent.Reply{}, false
	}
	sc.tried[sc.examined] = span
	sc.examined++
	sc.work -= end - start
	if sc.work < 0 {
		return agent.Reply{}, false
	}
	s := sc.text[start:end]
	if !depthWithin(s, maxJSONDepth) {
		return agent.Reply{}, false
	}
	var v any
	if err := decodeLiterals(s, &v); err != nil {
		return agent.Reply{}, false
	}
	p, ok := recognise(v, true)
	if !ok {
		return agent.Reply{}, false
	}
	return p.reply(format), true
}

// fenced tries the bodies of ``` code blocks (any info string, e.g. json).
// An unclosed block runs to the end of the text.
func (sc *scanner) fenced() (agent.Reply, bool) {
	const fence = "```"
	t := sc.text
	for i := 0; i < len(t) && !sc.done(); {
		j := strings.Index(t[i:], fence)
		if j < 0 {
			break
		}
		body := i + j + len(fence)
		for body < len(t) && isInfoChar(t[body]) {
			body++
		}
		end := len(t)
		next := len(t)
		if k := strings.Index(t[body:], fence); k >= 0 {
			end = body + k
			next = end + len(fence)
		}
		if r, ok := sc.try(agent.ReplyFormatFencedJSON, body, end); ok {
			return r, true
		}
		i = next
	}
	return agent.Reply{}, false
}

// tagged tries the bodies of <json>...</json> tags (ASCII case-insensitive).
// An unclosed tag runs to the end of the text.
func (sc *scanner) tagged() (agent.Reply, bool) {
	const open, closing = "<json>", "</json>"
	t := sc.text
	for i := 0; i < len(t) && !sc.done(); {
		j := indexFold(t[i:], open)
		if j < 0 {
			break
		}
		body := i + j + len(open)
		end := len(t)
		next := len(t)
		if k := indexFold(t[body:], closing); k >= 0 {
			end = body + k
			next = end + len(closing)
		}
		if r, ok := sc.try(agent.ReplyFormatJSONTag, body, end); ok {
			return r, true
		}
		i = next
	}
	return agent.Reply{}, false
}

// embedded tries balanced {...} objects in the text, left to right. When
// an object is not a call, the search goes on inside it, so that a call
// nested in other JSON (e.g. {"thought": ..., "action": {call}}) is found.
func (sc *scanner) embedded() (agent.Reply, bool) {
	t := sc.text
	for i := 0; i < len(t) && !sc.done(); {
		j := strings.IndexByte(t[i:], '{')
		if j < 0 {
			break
		}
		start := i + j
		if end, ok := sc.matchObject(start); ok {
			if r, ok := sc.try(agent.ReplyFormatJSON, start, end); ok {
				return r, true
			}
		}
		i = start + 1
	}
	return agent.Reply{}, false
}

// stringState follows a byte-by-byte scan of JSON text in and out of
// strings, so that brackets inside strings are not taken for structure.
type stringState struct{ in, escaped bool }

// skip consumes c and reports whether it is part of a string (its quotes
// included), which has no structural meaning.
func (s *stringState) skip(c byte) bool {
	switch {
	case !s.in:
		s.in = c == '"'
		return s.in
	case s.escaped:
		s.escaped = false
	case c == '\\':
		s.escaped = true
	case c == '"':
		s.in = false
	}
	return true
}

// matchObject returns the end (exclusive) of the JSON object that starts
// at text[start] == '{', honouring strings and escapes and checking that
// brackets pair up. It gives up beyond maxJSONDepth or when the work
// budget runs out.
func (sc *scanner) matchObject(start int) (int, bool) {
	var stack [maxJSONDepth]byte
	depth := 0
	var str stringState
	t := sc.text
	for k := start; k < len(t); k++ {
		sc.work--
		if sc.work < 0 {
			return 0, false
		}
		c := t[k]
		if str.skip(c) {
			continue
		}
		switch c {
		case '{', '[':
			if depth == maxJSONDepth {
				return 0, false
			}
			stack[depth] = c
			depth++
		case '}', ']':
			if depth == 0 || (c == '}') != (stack[depth-1] == '{') {
				return 0, false
			}
			depth--
			if depth == 0 {
				return k + 1, true
			}
		}
	}
	return 0, false
}

// depthWithin reports whether JSON text nests objects and arrays no deeper
// than max (strings are skipped; the text need not be valid).
func depthWithin(s string, max int) bool {
	depth := 0
	var str stringState
	for i := 0; i < len(s); i++ {
		c := s[i]
		if str.skip(c) {
			continue
		}
		switch c {
		case '{', '[':
			depth++
			if depth > max {
				return false
			}
		case '}', ']':
			depth--
		}
	}
	return true
}

// indexFold is strings.Index for a lower-case ASCII needle whose first
// byte is not a letter, ignoring ASCII case in s. Byte offsets are those of s.
func indexFold(s, needle string) int {
	n := len(needle)
	for i := 0; i+n <= len(s); i++ {
		j := strings.IndexByte(s[i:len(s)-n+1], needle[0])
		if j < 0 {
			return -1
		}
		i += j
		match := true
		for k := 1; k < n; k++ {
			c := s[i+k]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[k] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isInfoChar reports whether c can be part of a code fence's info string
// ("json", "JSON", "tool_code", ...).
func isInfoChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '+' || c == '.'
}
