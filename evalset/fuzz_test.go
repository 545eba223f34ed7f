package evalset

import (
	"os"
	"testing"

	"gopkg.in/yaml.v3"
)

// addSeeds adds the files given as fuzz seeds.
func addSeeds(f *testing.F, paths ...string) {
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// checkSet validates what a parser returned: neither may panic.
func checkSet(s *Set, p problems) {
	if s != nil {
		validateSet(s, s.Metrics, true, p)
	}
}

func FuzzTRPCSet(f *testing.F) {
	addSeeds(f, "testdata/trpc/math-eval-app/math-basic.evalset.json")
	f.Add([]byte(`{"evalSetId":"x","evalCases":[{"evalId":"a","conversation":[{"userContent":{"role":"user","content":"hi"}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := newProblems("f")
		checkSet(parseSetJSON("app/f.evalset.json", data, p), p)
	})
}

func FuzzADKSet(f *testing.F) {
	addSeeds(f, "testdata/adk/weather/weather.evalset.json", "testdata/adkcamel/camel.evalset.json", "testdata/adkold/simple.test.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		p := newProblems("f")
		if checkJSONShape(data) != nil {
			return
		}
		checkSet(parseADK("f.evalset.json", data, p), p)
		checkSet(parseADKOld("f.test.json", data, p), p)
	})
}

func FuzzYAMLCase(f *testing.F) {
	addSeeds(f, "testdata/cases/grounded-qa.yaml", "testdata/cases/parallel.yaml", "testdata/multiturn/booking.yaml")
	f.Add([]byte("case: i\ninput: {content: hi}\nexpected:\n  tool_calls: [{name: t, result: {a: [1]}}]\ninspect:\n  - {path: a.b, equals: {x: 1}}\n  - {path: c, matches: '^x'}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := newProblems("f")
		if c := parseYAMLCase(data, newYAMLBudget(), p); c != nil {
			checkSet(&Set{ID: "s", Format: FormatYAML, Cases: []*Case{c}}, p)
		}
	})
}

func FuzzMetrics(f *testing.F) {
	addSeeds(f, "testdata/trpc/math-eval-app/math-basic.metrics.json", "testdata/adk/weather/test_config.json", "testdata/metrics.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, isYAML := range []bool{false, true} {
			p := newProblems("f")
			if metrics := parseMetrics(data, isYAML, p); metrics != nil {
				validateMetrics(metrics, "", p)
			}
		}
	})
}

// FuzzYAMLMarks checks the bound parseYAML relies on before it parses: a
// YAML document has at most twice as many nodes as yamlMarks counts.
func FuzzYAMLMarks(f *testing.F) {
	for _, seed := range []string{"{{{a}}}", "{{a,b},{c,d}}", "[a: b, c: d]", "[?,?]", "- - - -", "a:\n b:\n  c:\n   d: e", "? \n? \n", "&a [*a]", "a: &x [1]\nb: *x\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		marks, _ := yamlMarks(data, len(data)+1)
		var root yaml.Node
		if yaml.Unmarshal(data, &root) != nil {
			return
		}
		if n := countNodes(&root); n > 2*marks {
			t.Errorf("%q: %d nodes, %d marks", data, n, marks)
		}
	})
}

// countNodes counts the nodes of a tree as parsed, aliases unexpanded.
func countNodes(n *yaml.Node) int {
	total := 1
	for _, c := range n.Content {
		total += countNodes(c)
	}
	return total
}
