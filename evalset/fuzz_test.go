package evalset

import (
	"os"
	"testing"
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
