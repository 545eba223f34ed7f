package knowledge

import "testing"

// FuzzGrepPattern feeds the grep tool's translation of Python patterns what
// an agent may send as a pattern: any string. Compiling it (or its escaped
// form, as Python retries) and counting its matches must never panic.
func FuzzGrepPattern(f *testing.F) {
	for _, p := range []string{`overdraft`, `(?i)fee\s+\d+`, `(?P<n>a)(?P=n)`, `[`, `a{2,1}`, `\N{DASH}`, `(?<=x)y`, `a++`, `(?x) a # c`, `\Z`} {
		f.Add(p, false)
	}
	text := []rune("Overdraft fee: 35 USD. A second fee of 35 USD applies after 5 days.\nSee ## Fees.")
	f.Fuzz(func(t *testing.T, pattern string, caseSensitive bool) {
		if len(pattern) > 200 {
			return
		}
		re := compilePython(pattern, caseSensitive)
		if _, err := countMatches(re, text); err != nil {
			t.Logf("%q: %v", pattern, err) // a timeout is reported to the agent, not a failure
		}
	})
}
