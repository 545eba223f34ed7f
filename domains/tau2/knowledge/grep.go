package knowledge

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dlclark/regexp2"
)

// grepTimeout bounds one match attempt of a grep pattern. Python's re
// would backtrack for as long as a pathological pattern needs; an agent's
// pattern must not hold a simulation forever.
const grepTimeout = 2 * time.Second

// errNotPython marks a pattern Python's re would refuse to compile.
var errNotPython = errors.New("not a Python regular expression")

// Grep ranks the documents for a regular expression as tau2's
// GrepRetriever does: Python re semantics (IGNORECASE unless
// caseSensitive; a pattern re cannot compile is searched as literal
// text), score = number of non-overlapping matches (empty ones counted as
// re.findall counts them), documents without a match left out, the
// first topK by score, ties in the base's order. A blank pattern finds
// nothing. The only error is a pattern that backtracks too long.
func (b *Base) Grep(pattern string, topK int, caseSensitive bool) ([]Hit, error) {
	if strings.TrimFunc(pattern, pyIsSpace) == "" {
		return nil, nil
	}
	re := compilePython(pattern, caseSensitive)
	scores := make([]float64, len(b.docs))
	for i, text := range b.docRunes() {
		n, err := countMatches(re, text)
		if err != nil {
			return nil, fmt.Errorf("grep pattern %q: %w; use a simpler pattern", pattern, err)
		}
		scores[i] = float64(n)
	}
	hits := b.top(scores, len(scores))
	matched := len(hits)
	for matched > 0 && hits[matched-1].Score == 0 {
		matched--
	}
	return hits[:pySliceEnd(matched, topK)], nil
}

// compilePython compiles a Python pattern with regexp2 (the .NET engine's
// syntax, translated), falling back to the pattern as literal text where
// Python would (re.escape after a re.error).
func compilePython(pattern string, caseSensitive bool) *regexp2.Regexp {
	opts := regexp2.RegexOptions(regexp2.None)
	if !caseSensitive {
		opts = regexp2.IgnoreCase
	}
	var re *regexp2.Regexp
	if translated, err := translatePython(pattern); err == nil {
		re, err = regexp2.Compile(translated, opts)
		if err != nil {
			re = nil
		}
	}
	if re == nil {
		re = literal(pattern, opts)
	}
	re.MatchTimeout = grepTimeout
	return re
}

// literal is a regexp matching text as it is, as Python's re.escape makes
// one: its special characters escaped, every other character itself.
// (regexp2.Escape writes some characters as \u escapes of fewer than four
// digits, which regexp2 then refuses: "(\u05c8" did.) Were it refused
// anyway, the pattern matches nothing rather than fail the tool.
func literal(text string, opts regexp2.RegexOptions) *regexp2.Regexp {
	var b strings.Builder
	for _, r := range text {
		if strings.ContainsRune("()[]{}?*+-|^$\\.&~# \t\n\r\v\f", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	if re, err := regexp2.Compile(b.String(), opts); err == nil {
		return re
	}
	return regexp2.MustCompile(`[^\s\S]`, opts)
}

// countMatches counts re's non-overlapping matches in text. After an empty
// match the search resumes one character on; after a non-empty one an
// empty match may follow at once, as in Python 3.7+.
func countMatches(re *regexp2.Regexp, text []rune) (int, error) {
	n := 0
	m, err := re.FindRunesMatch(text)
	for err == nil && m != nil {
		n++
		m, err = re.FindNextMatch(m)
	}
	return n, err
}

// translatePython rewrites the Python-only syntax of a pattern into the
// .NET syntax regexp2 reads, and reports errNotPython for syntax Python
// refuses but .NET accepts:
//
//   - (?P<name>...) and (?P=name) become (?<name>...) and \k<name>;
//     (?<name>...) and (?'name'...) are not Python;
//   - \Z (end of text only) becomes \z; \_ becomes _; an escaped ASCII
//     letter Python does not know (\e, \p, \k, \z, ...) is not Python;
//   - {,n} becomes {0,n};
//   - '[' inside a class is literal (no .NET class subtraction);
//   - global flags (?i) are only allowed at the start, as in Python 3.11.
func translatePython(p string) (string, error) {
	rs := []rune(p)
	var out strings.Builder
	inClass := false
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\':
			if i+1 >= len(rs) {
				return "", errNotPython
			}
			i++
			esc, err := translateEscape(rs[i], inClass)
			if err != nil {
				return "", err
			}
			out.WriteString(esc)
		case inClass:
			inClass = classRune(&out, rs, i)
		case r == '[':
			out.WriteRune(r)
			inClass = true
			i = classStart(&out, rs, i)
		case r == '(' && i+1 < len(rs) && rs[i+1] == '?':
			skip, err := translateGroup(&out, rs, i)
			if err != nil {
				return "", err
			}
			i += skip
		case r == '{' && i+1 < len(rs) && rs[i+1] == ',' && closesQuantifier(rs, i+2):
			out.WriteString("{0")
		default:
			out.WriteRune(r)
		}
	}
	return out.String(), nil
}

// classStart writes what opens a character class after its '[': a '^'
// and a leading ']' (literal in both dialects). It returns the index of
// the last rune consumed.
func classStart(out *strings.Builder, rs []rune, i int) int {
	if i+1 < len(rs) && rs[i+1] == '^' {
		i++
		out.WriteRune('^')
	}
	if i+1 < len(rs) && rs[i+1] == ']' {
		i++
		out.WriteString(`\]`)
	}
	return i
}

// classRune writes one rune inside a character class and reports whether
// the class is still open.
func classRune(out *strings.Builder, rs []rune, i int) bool {
	switch rs[i] {
	case ']':
		out.WriteRune(']')
		return false
	case '[':
		out.WriteString(`\[`)
	default:
		out.WriteRune(rs[i])
	}
	return true
}

// closesQuantifier reports whether rs[from:] is digits then '}'.
func closesQuantifier(rs []rune, from int) bool {
	j := from
	for j < len(rs) && rs[j] >= '0' && rs[j] <= '9' {
		j++
	}
	return j > from && j < len(rs) && rs[j] == '}'
}

// pythonEscapes are the escaped ASCII letters Python's re knows, outside
// and inside a character class.
const (
	pythonEscapes      = "abBdDfnrsStvwWxuUNAZ"
	pythonClassEscapes = "abdDfnrsStvwWxuUN"
)

// translateEscape translates the character after a backslash.
func translateEscape(c rune, inClass bool) (string, error) {
	isLetter := (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
	known := pythonEscapes
	if inClass {
		known = pythonClassEscapes
	}
	switch {
	case c == 'Z' && !inClass:
		return `\z`, nil
	case c == 'U' || c == 'N':
		return "", errNotPython // valid Python, but no .NET equivalent here
	case isLetter && !strings.ContainsRune(known, c):
		return "", errNotPython
	case c == '_':
		return "_", nil
	}
	return `\` + string(c), nil
}

// translateGroup translates the "(?" construct at rs[i] and returns how
// many runes past rs[i] it consumed.
func translateGroup(out *strings.Builder, rs []rune, i int) (int, error) {
	rest := string(rs[i+2:])
	switch {
	case strings.HasPrefix(rest, "P<"):
		out.WriteString("(?<")
		return 3, nil
	case strings.HasPrefix(rest, "P="):
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return 0, errNotPython
		}
		out.WriteString(`\k<` + rest[2:end] + ">")
		return 2 + len([]rune(rest[:end])), nil
	case strings.HasPrefix(rest, "<") && !strings.HasPrefix(rest, "<=") && !strings.HasPrefix(rest, "<!"),
		strings.HasPrefix(rest, "'"), strings.HasPrefix(rest, "P"):
		return 0, errNotPython
	}
	if isGlobalFlags(rest) && i != 0 {
		return 0, errNotPython
	}
	out.WriteString("(?")
	return 1, nil
}

// isGlobalFlags reports whether rest (after "(?") is a global flags group
// such as "i)" or "im)".
func isGlobalFlags(rest string) bool {
	end := strings.IndexByte(rest, ')')
	if end <= 0 {
		return false
	}
	return strings.Trim(rest[:end], "aiLmsux") == ""
}
