package metric

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/proctor-eval/proctor/evalset"
)

// defaultToolStrategy compares a call's name exactly and its arguments and
// result as exact JSON: what tRPC-Agent-Go applies when a trajectory
// criterion has no defaultStrategy.
var defaultToolStrategy = evalset.ToolStrategy{
	Name:      &evalset.TextCriterion{MatchStrategy: evalset.TextExact},
	Arguments: &evalset.JSONCriterion{},
	Result:    &evalset.JSONCriterion{},
}

// trajectory matches one invocation's tool calls against the expected ones.
type trajectory struct {
	crit *evalset.ToolTrajectoryCriterion
	re   *regexpCache
}

// match reports whether the actual calls match the expected ones, and why
// not: tRPC-Agent-Go's ToolTrajectoryCriterion.Match. Call counts must be
// equal (subsetMatching: at least the expected count); then the expected
// calls are an in-order subsequence of the actual ones (orderSensitive) or
// every expected call is matched to a distinct actual call (maximum
// bipartite matching).
func (t trajectory) match(actual, expected []*evalset.Tool) (bool, string) {
	if len(actual) == 0 && len(expected) == 0 {
		return true, ""
	}
	switch {
	case t.crit.SubsetMatching && len(actual) < len(expected):
		return false, fmt.Sprintf("%d tool calls, expected at least %d", len(actual), len(expected))
	case !t.crit.SubsetMatching && len(actual) != len(expected):
		return false, fmt.Sprintf("%d tool calls, expected %d", len(actual), len(expected))
	}
	var missing int
	if t.crit.OrderSensitive {
		missing = t.orderedMatch(actual, expected)
	} else {
		missing = t.unorderedMatch(actual, expected)
	}
	if missing < 0 {
		return true, ""
	}
	return false, t.explainMissing(actual, expected[missing], missing)
}

// orderedMatch matches the expected calls in order, each to the first
// matching actual call after the previous match; adjacent expected calls
// marked Parallel form a group matched in any order within the shortest
// run of actual calls that holds them all. It returns the index of the
// first expected call left unmatched, or -1.
func (t trajectory) orderedMatch(actual, expected []*evalset.Tool) int {
	next := 0 // the first actual call not yet consumed
	for i := 0; i < len(expected); {
		end := i + 1
		if expected[i] != nil && expected[i].Parallel {
			for end < len(expected) && expected[end] != nil && expected[end].Parallel {
				end++
			}
		}
		var ok bool
		if next, ok = t.matchGroup(actual, next, expected[i:end]); !ok {
			return i
		}
		i = end
	}
	return -1
}

// matchGroup finds the shortest run of actual calls from start in which
// every call of the group matches a distinct actual call, and returns the
// index after it.
func (t trajectory) matchGroup(actual []*evalset.Tool, start int, group []*evalset.Tool) (int, bool) {
	if len(group) == 1 {
		for j := start; j < len(actual); j++ {
			if t.matchTool(actual[j], group[0]) {
				return j + 1, true
			}
		}
		return start, false
	}
	m := newMatching(len(group), len(actual))
	for j := start; j < len(actual); j++ {
		for i, e := range group {
			if t.matchTool(actual[j], e) {
				m.addEdge(i, j)
			}
		}
		if m.augmentAll() == len(group) {
			return j + 1, true
		}
	}
	return start, false
}

// unorderedMatch matches expected calls to distinct actual calls by maximum
// bipartite matching; it returns the first expected call left unmatched,
// or -1.
func (t trajectory) unorderedMatch(actual, expected []*evalset.Tool) int {
	m := newMatching(len(expected), len(actual))
	for i, e := range expected {
		for j, a := range actual {
			if t.matchTool(a, e) {
				m.addEdge(i, j)
			}
		}
	}
	m.augmentAll()
	return m.firstUnmatched()
}

// strategy picks the strategy for a pair of calls: the actual tool's, else
// the expected tool's, else the default. A per-tool strategy replaces the
// default whole: parts it leaves unset are not compared.
func (t trajectory) strategy(actual, expected *evalset.Tool) *evalset.ToolStrategy {
	if len(t.crit.ToolStrategy) > 0 {
		if s, ok := t.crit.ToolStrategy[actual.Name]; ok && s != nil {
			return s
		}
		if s, ok := t.crit.ToolStrategy[expected.Name]; ok && s != nil {
			return s
		}
	}
	if t.crit.DefaultStrategy != nil {
		return t.crit.DefaultStrategy
	}
	return &defaultToolStrategy
}

// matchTool reports whether one actual call matches one expected call.
func (t trajectory) matchTool(actual, expected *evalset.Tool) bool {
	return t.compareTool(actual, expected, false) == ""
}

// compareTool compares one call with the strategy for it: "" on a match,
// else why not ("mismatch" when not explaining).
func (t trajectory) compareTool(actual, expected *evalset.Tool, explain bool) string {
	if actual == nil || expected == nil {
		return "no call"
	}
	s := t.strategy(actual, expected)
	if s.Name != nil {
		if why := t.re.matchText(s.Name, actual.Name, expected.Name, explain); why != "" {
			return explained(explain, "name: ", why)
		}
	}
	switch {
	case len(expected.ArgsContain) > 0:
		if why := argsContain(actual.Arguments, expected.ArgsContain); why != "" {
			return explained(explain, "arguments: ", why)
		}
	case s.Arguments != nil:
		if ok, why := matchJSON(s.Arguments, actual.Arguments, expected.Arguments, explain); !ok {
			return explained(explain, "arguments: ", orMismatch(why))
		}
	}
	if s.Result != nil {
		if ok, why := matchJSON(s.Result, actual.Result, expected.Result, explain); !ok {
			return explained(explain, "result: ", orMismatch(why))
		}
	}
	return ""
}

// explained prefixes a reason with the part it concerns, only when
// explaining (matching builds no strings).
func explained(explain bool, part, why string) string {
	if !explain {
		return mismatch
	}
	return part + why
}

func orMismatch(why string) string {
	if why == "" {
		return mismatch
	}
	return why
}

// argsContain requires each text to appear in the arguments written as
// JSON (a string argument is taken as it is).
func argsContain(args any, texts []string) string {
	var s string
	switch a := args.(type) {
	case string:
		s = a
	case json.RawMessage:
		s = string(a)
	default:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(args); err != nil {
			return fmt.Sprintf("cannot be written as JSON: %v", err)
		}
		s = strings.TrimSuffix(b.String(), "\n")
	}
	for _, text := range texts {
		if !strings.Contains(s, text) {
			return fmt.Sprintf("%s does not contain %q", truncate(s, 200), text)
		}
	}
	return ""
}

// explainMissing says why an expected call found no match: the mismatch
// with the same-named actual call, else with the call at its position.
func (t trajectory) explainMissing(actual []*evalset.Tool, expected *evalset.Tool, index int) string {
	name := "<nil>"
	if expected != nil {
		name = expected.Name
	}
	head := fmt.Sprintf("expected call %d (%s) has no match", index+1, name)
	if expected == nil {
		return head
	}
	for _, a := range actual {
		if a != nil && a.Name == expected.Name {
			if why := t.compareTool(a, expected, true); why != "" {
				return head + ": " + why
			}
			return head + " in the required order"
		}
	}
	if index < len(actual) && actual[index] != nil {
		if why := t.compareTool(actual[index], expected, true); why != "" {
			return fmt.Sprintf("%s: actual call %d (%s): %s", head, index+1, actual[index].Name, why)
		}
	}
	return head + ": no call of " + name
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
