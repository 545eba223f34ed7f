package metric

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/proctor-eval/proctor/evalset"
)

// maxCachedRegexps bounds the regexp cache: patterns beyond it are compiled
// each time they are used.
const maxCachedRegexps = 4096

// mismatch is the reason given when no explanation was asked for.
const mismatch = "mismatch"

// regexpCache compiles each RE2 pattern once. It is safe for concurrent use.
type regexpCache struct {
	mu sync.Mutex
	re map[string]compiled
}

type compiled struct {
	re  *regexp.Regexp
	err error
}

// compile returns the pattern compiled, from the cache when it is there.
func (c *regexpCache) compile(pattern string) (*regexp.Regexp, error) {
	c.mu.Lock()
	r, ok := c.re[pattern]
	c.mu.Unlock()
	if ok {
		return r.re, r.err
	}
	re, err := regexp.Compile(pattern)
	c.mu.Lock()
	if c.re == nil {
		c.re = map[string]compiled{}
	}
	if len(c.re) < maxCachedRegexps {
		c.re[pattern] = compiled{re: re, err: err}
	}
	c.mu.Unlock()
	return re, err
}

// matchText compares an actual text (source) with an expected one (target)
// as tRPC-Agent-Go's TextCriterion does: ignore, then the length bounds,
// then skip, then case folding, then exact (the default), contains or regex
// (target is the pattern). It returns "" on a match, else why not (just
// "mismatch" unless explain is set: matching builds no reasons).
func (c *regexpCache) matchText(t *evalset.TextCriterion, source, target string, explain bool) string {
	if t.Ignore {
		return ""
	}
	if t.Length != nil {
		if why := matchLength(t.Length, source); why != "" {
			return "length mismatch: " + why
		}
	}
	if t.MatchStrategy == evalset.TextSkip {
		return ""
	}
	if t.CaseInsensitive {
		source, target = strings.ToLower(source), strings.ToLower(target)
	}
	switch t.MatchStrategy {
	case evalset.TextExact, "":
		if source == target {
			return ""
		}
		if !explain {
			return mismatch
		}
		return fmt.Sprintf("%q is not %q", source, target)
	case evalset.TextContains:
		if strings.Contains(source, target) {
			return ""
		}
		if !explain {
			return mismatch
		}
		return fmt.Sprintf("%q does not contain %q", source, target)
	case evalset.TextRegex:
		re, err := c.compile(target)
		if err != nil {
			return fmt.Sprintf("invalid regex %q: %v", target, err)
		}
		if re.MatchString(source) {
			return ""
		}
		if !explain {
			return mismatch
		}
		return fmt.Sprintf("%q does not match regex %q", source, target)
	}
	return fmt.Sprintf("unknown match strategy %q", t.MatchStrategy)
}

// matchLength checks a text's length in code points against the bounds.
func matchLength(l *evalset.LengthCriterion, s string) string {
	if l == nil || l.Ignore {
		return ""
	}
	if err := checkLength(l); err != nil {
		return err.Error()
	}
	n := utf8.RuneCountInString(s)
	if l.Min != nil && n < *l.Min {
		return fmt.Sprintf("length %d is below the minimum %d", n, *l.Min)
	}
	if l.Max != nil && n > *l.Max {
		return fmt.Sprintf("length %d is above the maximum %d", n, *l.Max)
	}
	return ""
}

// checkLength validates length bounds as tRPC-Agent-Go does.
func checkLength(l *evalset.LengthCriterion) error {
	switch {
	case l.Min == nil && l.Max == nil:
		return fmt.Errorf("length: set min or max")
	case l.Min != nil && *l.Min < 0, l.Max != nil && *l.Max < 0:
		return fmt.Errorf("length: min and max must not be negative")
	case l.Min != nil && l.Max != nil && *l.Min > *l.Max:
		return fmt.Errorf("length: min %d is above max %d", *l.Min, *l.Max)
	}
	return nil
}

// checkText validates a text criterion (without its regex, which comes from
// the expected side).
func checkText(t *evalset.TextCriterion) error {
	if t == nil || t.Ignore {
		return nil
	}
	if t.CompareName != "" {
		return fmt.Errorf("compareName %q names a Go function registered in tRPC-Agent-Go code; proctor cannot run it: remove it", t.CompareName)
	}
	switch t.MatchStrategy {
	case "", evalset.TextExact, evalset.TextContains, evalset.TextRegex, evalset.TextSkip:
	default:
		return fmt.Errorf("matchStrategy %q is not one of exact, contains, regex, skip", t.MatchStrategy)
	}
	if t.Length != nil && !t.Length.Ignore {
		return checkLength(t.Length)
	}
	return nil
}

// regexTarget returns the pattern a regex text criterion compiles from an
// expected text, "" when the criterion uses none.
func regexTarget(t *evalset.TextCriterion, target string) (string, bool) {
	if t == nil || t.Ignore || t.MatchStrategy != evalset.TextRegex {
		return "", false
	}
	if t.CaseInsensitive {
		target = strings.ToLower(target)
	}
	return target, true
}
