package metric

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/evalset"
)

func call(name string, args map[string]any) *evalset.Tool {
	return &evalset.Tool{Name: name, Arguments: args, Result: map[string]any{"ok": true}}
}

func calls(names ...string) []*evalset.Tool {
	out := make([]*evalset.Tool, len(names))
	for i, n := range names {
		out[i] = call(n, map[string]any{"q": n})
	}
	return out
}

// TestTrajectoryGuideTable is the matching-examples table of
// tRPC-Agent-Go's evaluation guide.
func TestTrajectoryGuideTable(t *testing.T) {
	tests := []struct {
		subset, ordered  bool
		expected, actual []string
		want             bool
	}{
		{false, false, []string{"A"}, []string{"A", "B"}, false},
		{true, false, []string{"A"}, []string{"A", "B"}, true},
		{true, false, []string{"C", "A"}, []string{"A", "B", "C"}, true},
		{true, true, []string{"A", "C"}, []string{"A", "B", "C"}, true},
		{true, true, []string{"C", "A"}, []string{"A", "B", "C"}, false},
		{true, false, []string{"C", "D"}, []string{"A", "B", "C"}, false},
		{false, false, []string{"A", "A"}, []string{"A"}, false},
		{false, true, []string{"A", "A"}, []string{"A"}, false},
		{true, false, []string{"A", "A"}, []string{"A"}, false},
		{true, true, []string{"A", "A"}, []string{"A"}, false},
		// Ordered matching still requires equal counts.
		{false, true, []string{"A", "C"}, []string{"A", "B", "C"}, false},
		{false, true, []string{"A", "B"}, []string{"B", "A"}, false},
		{false, false, []string{"A", "B"}, []string{"B", "A"}, true},
		{false, false, nil, nil, true},
	}
	for _, tt := range tests {
		tr := trajectory{crit: &evalset.ToolTrajectoryCriterion{SubsetMatching: tt.subset, OrderSensitive: tt.ordered}, re: &regexpCache{}}
		got, why := tr.match(calls(tt.actual...), calls(tt.expected...))
		if got != tt.want {
			t.Errorf("subset=%v ordered=%v expected %v actual %v: match %v (%s), want %v", tt.subset, tt.ordered, tt.expected, tt.actual, got, why, tt.want)
		}
		if !got && why == "" {
			t.Errorf("expected %v actual %v: a mismatch without a reason", tt.expected, tt.actual)
		}
	}
}

// TestTrajectoryUnorderedNeedsAugmentingPath: a greedy matching fails
// where the maximum matching succeeds.
func TestTrajectoryUnorderedNeedsAugmentingPath(t *testing.T) {
	contains := &evalset.ToolStrategy{Name: &evalset.TextCriterion{MatchStrategy: evalset.TextContains}}
	tr := trajectory{crit: &evalset.ToolTrajectoryCriterion{DefaultStrategy: contains}, re: &regexpCache{}}
	// Expected "get" matches both actual calls; "get_b" only the second.
	ok, why := tr.match(calls("get_a", "get_b"), calls("get", "get_b"))
	if !ok {
		t.Fatalf("no match: %s", why)
	}
}

func TestTrajectoryStrategies(t *testing.T) {
	tol := 0.5
	tests := []struct {
		name     string
		crit     evalset.ToolTrajectoryCriterion
		actual   *evalset.Tool
		expected *evalset.Tool
		want     string // "" for a match, else a part of the reason
	}{
		{"default compares everything", evalset.ToolTrajectoryCriterion{},
			&evalset.Tool{Name: "f", Arguments: map[string]any{"a": 1.0}, Result: "x"},
			&evalset.Tool{Name: "f", Arguments: map[string]any{"a": 1.0}, Result: "y"}, "result"},
		{"default ignores the id", evalset.ToolTrajectoryCriterion{},
			&evalset.Tool{ID: "1", Name: "f", Arguments: map[string]any{"a": 1.0}},
			&evalset.Tool{ID: "2", Name: "f", Arguments: map[string]any{"a": 1.0000001}}, ""},
		{"per-tool strategy replaces the default whole",
			evalset.ToolTrajectoryCriterion{DefaultStrategy: &defaultToolStrategy,
				ToolStrategy: map[string]*evalset.ToolStrategy{"f": {Name: &evalset.TextCriterion{}}}},
			&evalset.Tool{Name: "f", Arguments: map[string]any{"a": 1.0}, Result: "x"},
			&evalset.Tool{Name: "f", Arguments: map[string]any{"a": 2.0}, Result: "y"}, ""},
		{"per-tool strategy by the expected name",
			evalset.ToolTrajectoryCriterion{ToolStrategy: map[string]*evalset.ToolStrategy{"f.*": {Name: &evalset.TextCriterion{MatchStrategy: evalset.TextRegex}}}},
			&evalset.Tool{Name: "find"}, &evalset.Tool{Name: "f.*"}, ""},
		{"name regex mismatch",
			evalset.ToolTrajectoryCriterion{DefaultStrategy: &evalset.ToolStrategy{Name: &evalset.TextCriterion{MatchStrategy: evalset.TextRegex}}},
			&evalset.Tool{Name: "lookup"}, &evalset.Tool{Name: "^find"}, "does not match regex"},
		{"case-insensitive name", evalset.ToolTrajectoryCriterion{DefaultStrategy: &evalset.ToolStrategy{Name: &evalset.TextCriterion{CaseInsensitive: true}}},
			&evalset.Tool{Name: "GetOrder"}, &evalset.Tool{Name: "getorder"}, ""},
		{"ignore tree", evalset.ToolTrajectoryCriterion{DefaultStrategy: &evalset.ToolStrategy{
			Arguments: &evalset.JSONCriterion{IgnoreTree: map[string]any{"trace_id": true, "meta": map[string]any{"ts": true}}}}},
			&evalset.Tool{Name: "f", Arguments: map[string]any{"a": "x", "trace_id": "1", "meta": map[string]any{"ts": 1.0, "k": "v"}}},
			&evalset.Tool{Name: "f", Arguments: map[string]any{"a": "x", "meta": map[string]any{"ts": 2.0, "k": "v"}}}, ""},
		{"ignore tree still compares the rest", evalset.ToolTrajectoryCriterion{DefaultStrategy: &evalset.ToolStrategy{
			Arguments: &evalset.JSONCriterion{IgnoreTree: map[string]any{"meta": map[string]any{"ts": true}}}}},
			&evalset.Tool{Name: "f", Arguments: map[string]any{"meta": map[string]any{"ts": 1.0, "k": "v"}}},
			&evalset.Tool{Name: "f", Arguments: map[string]any{"meta": map[string]any{"ts": 2.0, "k": "w"}}}, "meta: k"},
		{"only tree", evalset.ToolTrajectoryCriterion{DefaultStrategy: &evalset.ToolStrategy{
			Arguments: &evalset.JSONCriterion{OnlyTree: map[string]any{"id": true}}}},
			&evalset.Tool{Name: "f", Arguments: map[string]any{"id": "A1", "note": "x"}},
			&evalset.Tool{Name: "f", Arguments: map[string]any{"id": "A1", "note": "y", "extra": 1.0}}, ""},
		{"only tree missing key", evalset.ToolTrajectoryCriterion{DefaultStrategy: &evalset.ToolStrategy{
			Arguments: &evalset.JSONCriterion{OnlyTree: map[string]any{"id": true}}}},
			&evalset.Tool{Name: "f", Arguments: map[string]any{"note": "x"}},
			&evalset.Tool{Name: "f", Arguments: map[string]any{"id": "A1"}}, "missing from the actual"},
		{"number tolerance", evalset.ToolTrajectoryCriterion{DefaultStrategy: &evalset.ToolStrategy{
			Result: &evalset.JSONCriterion{NumberTolerance: &tol}}},
			&evalset.Tool{Name: "f", Result: []any{1.0, 2.4}}, &evalset.Tool{Name: "f", Result: []any{1.0, 2.0}}, ""},
		{"number beyond tolerance", evalset.ToolTrajectoryCriterion{DefaultStrategy: &evalset.ToolStrategy{
			Result: &evalset.JSONCriterion{NumberTolerance: &tol}}},
			&evalset.Tool{Name: "f", Result: []any{1.0, 2.6}}, &evalset.Tool{Name: "f", Result: []any{1.0, 2.0}}, "[1]"},
		{"array order matters", evalset.ToolTrajectoryCriterion{},
			&evalset.Tool{Name: "f", Arguments: []any{"a", "b"}}, &evalset.Tool{Name: "f", Arguments: []any{"b", "a"}}, "arguments"},
		{"extra key", evalset.ToolTrajectoryCriterion{},
			&evalset.Tool{Name: "f", Arguments: map[string]any{"a": 1.0, "b": 2.0}}, &evalset.Tool{Name: "f", Arguments: map[string]any{"a": 1.0}}, `key "b" is not expected`},
		{"skip arguments", evalset.ToolTrajectoryCriterion{DefaultStrategy: &evalset.ToolStrategy{
			Name: &evalset.TextCriterion{}, Arguments: &evalset.JSONCriterion{MatchStrategy: evalset.JSONSkip}}},
			&evalset.Tool{Name: "f", Arguments: map[string]any{"a": 1.0}}, &evalset.Tool{Name: "f", Arguments: map[string]any{"a": 2.0}}, ""},
		{"args contain replaces the arguments comparison", evalset.ToolTrajectoryCriterion{DefaultStrategy: &evalset.ToolStrategy{
			Name: &evalset.TextCriterion{}, Arguments: &evalset.JSONCriterion{}}},
			&evalset.Tool{Name: "book", Arguments: map[string]any{"city": "Paris", "date": "2025-05-01", "note": "<vip>"}},
			&evalset.Tool{Name: "book", ArgsContain: []string{`"city":"Paris"`, "2025-05", "<vip>"}}, ""},
		{"args contain missing", evalset.ToolTrajectoryCriterion{},
			&evalset.Tool{Name: "book", Arguments: map[string]any{"city": "Lyon"}},
			&evalset.Tool{Name: "book", ArgsContain: []string{"Paris"}}, `does not contain "Paris"`},
		{"text length", evalset.ToolTrajectoryCriterion{DefaultStrategy: &evalset.ToolStrategy{
			Name: &evalset.TextCriterion{MatchStrategy: evalset.TextSkip, Length: &evalset.LengthCriterion{Max: intp(3)}}}},
			&evalset.Tool{Name: "long_name"}, &evalset.Tool{Name: "x"}, "length"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := trajectory{crit: &tt.crit, re: &regexpCache{}}
			ok, why := tr.match([]*evalset.Tool{tt.actual}, []*evalset.Tool{tt.expected})
			if tt.want == "" && !ok {
				t.Fatalf("no match: %s", why)
			}
			if tt.want != "" && (ok || !strings.Contains(why, tt.want)) {
				t.Fatalf("match %v, reason %q: want a mismatch mentioning %q", ok, why, tt.want)
			}
		})
	}
}

// TestTrajectoryParallel: calls marked parallel match in any order within
// an ordered trajectory; the calls around them keep their order.
func TestTrajectoryParallel(t *testing.T) {
	par := func(names ...string) []*evalset.Tool {
		out := calls(names...)
		for _, c := range out {
			if strings.HasPrefix(c.Name, "p") {
				c.Parallel = true
			}
		}
		return out
	}
	tests := []struct {
		expected, actual []string
		subset           bool
		want             bool
	}{
		{[]string{"A", "p1", "p2", "B"}, []string{"A", "p2", "p1", "B"}, false, true},
		{[]string{"A", "p1", "p2", "B"}, []string{"A", "p1", "p2", "B"}, false, true},
		{[]string{"A", "p1", "p2", "B"}, []string{"p1", "A", "p2", "B"}, false, false},
		{[]string{"A", "p1", "p2", "B"}, []string{"A", "p2", "B", "p1"}, false, false},
		{[]string{"A", "p1", "p2"}, []string{"A", "p2", "X", "p1"}, true, true},
		{[]string{"p1", "p1"}, []string{"p1"}, true, false},
	}
	for _, tt := range tests {
		tr := trajectory{crit: &evalset.ToolTrajectoryCriterion{OrderSensitive: true, SubsetMatching: tt.subset}, re: &regexpCache{}}
		got, why := tr.match(calls(tt.actual...), par(tt.expected...))
		if got != tt.want {
			t.Errorf("expected %v actual %v: match %v (%s), want %v", tt.expected, tt.actual, got, why, tt.want)
		}
	}
}

func intp(i int) *int { return &i }

func TestMatchText(t *testing.T) {
	tests := []struct {
		crit           evalset.TextCriterion
		source, target string
		want           bool
	}{
		{evalset.TextCriterion{}, "abc", "abc", true},
		{evalset.TextCriterion{}, "abc", "ABC", false},
		{evalset.TextCriterion{CaseInsensitive: true}, "abc", "ABC", true},
		{evalset.TextCriterion{MatchStrategy: evalset.TextContains}, "the order shipped", "shipped", true},
		{evalset.TextCriterion{MatchStrategy: evalset.TextContains}, "the order shipped", "a.*d", false},
		{evalset.TextCriterion{MatchStrategy: evalset.TextRegex}, "order A12 shipped", `A\d+`, true},
		{evalset.TextCriterion{MatchStrategy: evalset.TextRegex, CaseInsensitive: true}, "ORDER a12", `order A\d+`, true},
		{evalset.TextCriterion{MatchStrategy: evalset.TextRegex}, "x", `(`, false},
		{evalset.TextCriterion{MatchStrategy: evalset.TextSkip}, "x", "y", true},
		{evalset.TextCriterion{MatchStrategy: evalset.TextSkip, Length: &evalset.LengthCriterion{Min: intp(2)}}, "é", "", false},
		{evalset.TextCriterion{MatchStrategy: evalset.TextSkip, Length: &evalset.LengthCriterion{Min: intp(2), Max: intp(2)}}, "éé", "", true},
		{evalset.TextCriterion{Ignore: true}, "x", "y", true},
	}
	re := &regexpCache{}
	for _, tt := range tests {
		why := re.matchText(&tt.crit, tt.source, tt.target, true)
		if got := why == ""; got != tt.want {
			t.Errorf("%+v %q vs %q: match %v (%s), want %v", tt.crit, tt.source, tt.target, got, why, tt.want)
		}
	}
}

func TestMatchJSONFinalResponse(t *testing.T) {
	tests := []struct {
		crit             evalset.JSONCriterion
		actual, expected string
		want             bool
	}{
		{evalset.JSONCriterion{}, `{"a": 1, "b": [1, 2]}`, `{"b": [1, 2.0000001], "a": 1}`, true},
		{evalset.JSONCriterion{}, `{"a": 1}`, `{"a": 1, "b": null}`, false},
		{evalset.JSONCriterion{}, `{"a": 1} {"b": 2}`, `{"a": 1}`, false},
		{evalset.JSONCriterion{}, `not json`, `{}`, false},
		{evalset.JSONCriterion{Valid: true, MatchStrategy: evalset.JSONSkip}, `{"x": 1}`, ``, true},
		{evalset.JSONCriterion{Valid: true, MatchStrategy: evalset.JSONSkip}, `{"x": `, ``, false},
		{evalset.JSONCriterion{OnlyTree: map[string]any{"a": true}, IgnoreTree: map[string]any{"b": true}}, `{}`, `{}`, false},
	}
	for _, tt := range tests {
		ok, why := matchJSON(&tt.crit, rawJSON(tt.actual), rawJSON(tt.expected), true)
		if ok != tt.want {
			t.Errorf("%+v %s vs %s: match %v (%s), want %v", tt.crit, tt.actual, tt.expected, ok, why, tt.want)
		}
	}
}

func TestMatchingIncremental(t *testing.T) {
	m := newMatching(2, 2)
	m.addEdge(0, 0)
	m.addEdge(1, 0)
	if got := m.augmentAll(); got != 1 {
		t.Fatalf("matched %d, want 1", got)
	}
	m.addEdge(0, 1)
	if got := m.augmentAll(); got != 2 {
		t.Fatalf("matched %d after a new edge, want 2", got)
	}
	if d := cmp.Diff([]int{1, 0}, m.matchLeft); d != "" {
		t.Errorf("matching (-want +got):\n%s", d)
	}
}
