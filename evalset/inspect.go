package evalset

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// MaxInspectPath bounds the path of an inspect assertion.
const MaxInspectPath = 256

// InspectAssertion is a check on an ECP agent's internal state after a
// case's last invocation: proctor calls agent/inspect with Path and
// compares the value the agent returns with exactly one of Equals,
// Contains and Matches. Path is sent as it is: ECP's agent/inspect takes
// the name of an internal variable, a dotted path such as
// "memory.short_term", which the agent resolves.
//
//   - Equals: the value equals this JSON value (numbers compare as
//     numbers: 3 equals 3.0).
//   - Contains: the value's text contains this string. A string value's
//     text is the string; any other value's is its compact JSON.
//   - Matches: the value's text matches this RE2 regular expression
//     (unanchored: use ^...$ to match the whole text).
type InspectAssertion struct {
	Path     string          `json:"path"`
	Equals   json.RawMessage `json:"equals,omitempty"`
	Contains *string         `json:"contains,omitempty"`
	Matches  *string         `json:"matches,omitempty"`
}

// Describe renders the assertion for reports: path equals|contains|matches
// its operand.
func (a *InspectAssertion) Describe() string {
	switch {
	case a.Equals != nil:
		return fmt.Sprintf("%s equals %s", a.Path, a.Equals)
	case a.Contains != nil:
		return fmt.Sprintf("%s contains %q", a.Path, *a.Contains)
	case a.Matches != nil:
		return fmt.Sprintf("%s matches %q", a.Path, *a.Matches)
	}
	return a.Path
}

// Check evaluates the assertion on the value agent/inspect returned (raw
// JSON; nil or empty is JSON null): whether it holds, and the value's
// text, which reports show (truncated).
func (a *InspectAssertion) Check(value json.RawMessage) (bool, string, error) {
	if len(value) == 0 {
		value = json.RawMessage("null")
	}
	var got any
	if err := json.Unmarshal(value, &got); err != nil {
		return false, string(value), fmt.Errorf("agent/inspect returned a value that is not JSON: %w", err)
	}
	text := ValueText(got)
	switch {
	case a.Equals != nil:
		var want any
		if err := json.Unmarshal(a.Equals, &want); err != nil {
			return false, text, fmt.Errorf("equals is not JSON: %w", err)
		}
		return jsonEqual(got, want), text, nil
	case a.Contains != nil:
		return strings.Contains(text, *a.Contains), text, nil
	case a.Matches != nil:
		re, err := regexp.Compile(*a.Matches)
		if err != nil {
			return false, text, fmt.Errorf("matches: invalid regular expression: %w", err)
		}
		return re.MatchString(text), text, nil
	}
	return false, text, fmt.Errorf("inspect %s: give one of equals, contains, matches", a.Path)
}

// ValueText is a JSON value as text: a string as it is, anything else as
// compact JSON. Inspect assertions' contains and matches read values so,
// and a mocked tool result is sent to an agent so.
func ValueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// PlainJSON returns v as encoding/json decodes it into an any (numbers as
// float64), whichever decoder read it from the wire (a tolerantly read
// reply keeps json.Number), so that a value compares the same however it
// arrived.
func PlainJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

// jsonEqual compares two values as encoding/json decodes them.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// validateInspect checks a case's inspect assertions: a path, exactly one
// operand, a regular expression that compiles. path is the assertions'
// path in the file.
func validateInspect(c *Case, path string, name pathNamer, p problems) {
	for k, a := range c.Inspect {
		apath := name(index(path, k))
		if a == nil {
			p.add(apath, "case %q: missing", c.ID)
			continue
		}
		switch {
		case strings.TrimSpace(a.Path) == "":
			p.add(field(apath, "path"), "case %q: missing: name the agent state to read (a dotted path such as memory.short_term)", c.ID)
		case len(a.Path) > MaxInspectPath || !utf8.ValidString(a.Path):
			p.add(field(apath, "path"), "case %q: want valid UTF-8 of at most %d bytes", c.ID, MaxInspectPath)
		}
		given := 0
		for _, set := range []bool{a.Equals != nil, a.Contains != nil, a.Matches != nil} {
			if set {
				given++
			}
		}
		if given != 1 {
			p.add(apath, "case %q: give exactly one of equals, contains, matches (got %d)", c.ID, given)
		}
		if a.Equals != nil && !json.Valid(a.Equals) {
			p.add(field(apath, "equals"), "case %q: not a JSON value", c.ID)
		}
		if a.Matches != nil {
			if _, err := regexp.Compile(*a.Matches); err != nil {
				p.add(field(apath, "matches"), "case %q: invalid regular expression (RE2): %v", c.ID, err)
			}
		}
	}
}

// HasInspect reports whether any case of the sets has inspect assertions,
// and returns the first such case with its set.
func HasInspect(sets []*Set) (*Set, *Case, bool) {
	for _, s := range sets {
		for _, c := range s.Cases {
			if c != nil && len(c.Inspect) > 0 {
				return s, c, true
			}
		}
	}
	return nil, nil, false
}
