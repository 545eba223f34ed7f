package knowledge

import (
	"regexp"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// dialectText is grepped by TestGrepDialect.
const dialectText = "Fee fee FEE. The the card fee (x)\nannual fee waiver_\nends with s\n"

// TestGrepDialect checks grep's match counts against Python 3.11's
// len(re.compile(p, flags).findall(dialectText)) (re.escape(p) after a
// re.error), computed with /usr/bin/python3, where Go's RE2 would count
// otherwise (re2Differs) and where the dialects agree.
func TestGrepDialect(t *testing.T) {
	b, err := New([]Document{{ID: "d", Title: "T", Content: dialectText}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pattern               string
		ignoreCase, sensitive int
		re2Differs            bool
		why                   string
	}{
		{`fee`, 5, 3, false, "IGNORECASE"},
		{`(\w+) \1`, 2, 0, true, "backreference"},
		{`card(?= fee)`, 1, 1, true, "lookahead"},
		{`(?<=annual )fee`, 1, 1, true, "lookbehind"},
		{`(?<!annual )fee`, 4, 2, true, "negative lookbehind"},
		{`x*`, 66, 66, true, "empty match right after a match counts"},
		{`s\Z`, 0, 0, false, `\Z is the very end (no final newline)`},
		{`s$`, 1, 1, true, "$ before a final newline"},
		{`\n\Z`, 1, 1, true, `\Z: RE2 has no such escape`},
		{`(?P<w>e)(?P=w)`, 5, 4, true, "named backreference"},
		{`(`, 1, 1, false, "invalid: searched as literal text"},
		{`[a-z-[aeiou]]`, 0, 0, false, "no .NET class subtraction"},
		{`e{,2}`, 61, 62, true, "{,n} is {0,n}"},
		{`\p{L}`, 0, 0, true, `\p is a bad escape: literal text`},
		{`fee(?i)`, 0, 0, true, "global flags not at the start: literal text"},
		{`(?i)FEE`, 5, 5, false, ""},
		{`\_`, 1, 1, false, "escaped underscore"},
		{`[[:alpha:]]`, 0, 0, true, "no POSIX classes"},
		{`\bfee\b`, 5, 3, false, ""},
		{`(?<n>fee)`, 0, 0, true, ".NET named group is not Python: literal text"},
		{`[]x]`, 1, 1, false, "] first in a class"},
		{`(?x) f e e`, 5, 3, true, "verbose"},
		{`[\w]+`, 14, 14, false, ""},
	}
	for _, tt := range tests {
		var got [2]int
		for i, sensitive := range []bool{false, true} {
			hits, err := b.Grep(tt.pattern, 10, sensitive)
			if err != nil {
				t.Fatalf("Grep(%q): %v", tt.pattern, err)
			}
			if len(hits) == 1 {
				got[i] = int(hits[0].Score)
			}
		}
		if diff := gocmp.Diff([2]int{tt.ignoreCase, tt.sensitive}, got); diff != "" {
			t.Errorf("Grep(%q) [%s] counts (ignore case, case sensitive) (-python +proctor):\n%s", tt.pattern, tt.why, diff)
		}
		if re2 := re2Count(tt.pattern); tt.re2Differs == (re2 == tt.ignoreCase) {
			t.Errorf("%q: RE2 counts %d, Python %d; re2Differs says %v", tt.pattern, re2, tt.ignoreCase, tt.re2Differs)
		}
	}
}

// re2Count is what Go's regexp would count, case-insensitively, with the
// same literal fallback.
func re2Count(p string) int {
	re, err := regexp.Compile("(?i)" + p)
	if err != nil {
		re = regexp.MustCompile("(?i)" + regexp.QuoteMeta(p))
	}
	return len(re.FindAllStringIndex(dialectText, -1))
}

func TestGrepTopKAndTies(t *testing.T) {
	b, err := New([]Document{
		{ID: "a", Title: "A", Content: "fee"},
		{ID: "b", Title: "B", Content: "fee fee"},
		{ID: "c", Title: "C", Content: "none"},
		{ID: "d", Title: "D", Content: "fee"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		topK int
		want []Hit
	}{
		{10, []Hit{{"b", 2}, {"a", 1}, {"d", 1}}},
		{2, []Hit{{"b", 2}, {"a", 1}}},
		{0, []Hit{}},
		{-1, []Hit{{"b", 2}, {"a", 1}}}, // Python's results[:-1]
	} {
		got, err := b.Grep("fee", tt.topK, false)
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(tt.want, got); diff != "" {
			t.Errorf("top_k %d (-want +got):\n%s", tt.topK, diff)
		}
	}
}

func TestGrepCatastrophicPatternTimesOut(t *testing.T) {
	if testing.Short() {
		t.Skip("takes the grep timeout")
	}
	b, err := New([]Document{{ID: "a", Title: "A", Content: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Grep(`^(a+)+$`, 10, false); err == nil {
		t.Fatal("a catastrophic pattern matched: want a timeout error")
	}
}

func TestPyLowerAndFields(t *testing.T) {
	tests := []struct{ in, lower string }{
		{"Credit CARD", "credit card"},
		{"İnterest", "i\u0307nterest"},
		{"ΟΔΟΣ ΣΑ", "οδος σα"},
	}
	for _, tt := range tests {
		if got := pyLower(tt.in); got != tt.lower {
			t.Errorf("pyLower(%q) = %q, Python %q", tt.in, got, tt.lower)
		}
	}
	if diff := gocmp.Diff([]string{"a", "b", "c", "d"}, pyFields(" a\x1cb\u00a0c\u3000d\n")); diff != "" {
		t.Errorf("pyFields (-python +proctor):\n%s", diff)
	}
}
