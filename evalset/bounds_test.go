//go:build unix

package evalset

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/internal/cputime"
)

// bombSize is the size of the hostile inputs: run_evalset's bound on an
// inline set.
const bombSize = 4 << 20

// Bounds on reading any input, hostile or not, in this package.
const (
	// maxAlloc bounds the bytes allocated reading one input, and so the
	// heap it can hold at its peak. The worst inputs within the bounds
	// allocate about 60 MiB (65 MiB with the race detector).
	maxAlloc = 96 << 20
	// maxCPU bounds the CPU time of reading one input, generously: the
	// machine may be shared and the race detector on.
	maxCPU = 10 * time.Second
)

// fill repeats unit after head until the text is size bytes long, then
// adds tail.
func fill(head, unit, tail string, size int) string {
	var b strings.Builder
	b.WriteString(head)
	for i := 0; b.Len()+len(unit)+len(tail) <= size; i++ {
		b.WriteString(strings.ReplaceAll(unit, "%d", fmt.Sprint(i)))
	}
	b.WriteString(tail)
	return b.String()
}

// aliasLaughs is a small YAML case whose aliases expand to 10^levels
// values.
func aliasLaughs(levels int) string {
	var b strings.Builder
	b.WriteString("case: c\ninput: {content: hi}\nexpected:\n  tool_calls:\n  - name: t\n    result:\n      l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "      l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	return b.String()
}

// keys is a YAML flow mapping's n keys, k0 to k<n-1>.
func keys(n int) string {
	list := make([]string, n)
	for i := range list {
		list[i] = fmt.Sprintf("k%d: 1", i)
	}
	return strings.Join(list, ", ")
}

const caseHead = "case: c\ninput: {content: hi}\n"

// TestHostileInputsAreBounded reads hostile inputs of run_evalset's
// largest size, and the largest a set may be, and holds each to the
// bounds on allocation and CPU time, whether it is refused or read.
func TestHostileInputsAreBounded(t *testing.T) {
	yamlCase := func(text string) func() error {
		return func() error {
			_, err := DecodeYAMLCases(context.Background(), "yaml_cases", []string{text})
			return err
		}
	}
	jsonSet := func(text string) func() error {
		return func() error { _, err := Decode("eval_set", []byte(text)); return err }
	}
	cases := []struct {
		name string
		read func() error
		// wantErr is part of the error expected; empty: any outcome.
		wantErr string
	}{
		{"YAML mapping of many keys", yamlCase(fill(caseHead+"inspect:\n- path: a\n  equals:\n", "    k%d: 1\n", "", bombSize)),
			"any of which may begin a value; at most 100000"},
		{"YAML flow sequence", yamlCase(fill(caseHead+"expected:\n  tool_calls: [{name: t, result: [", "a,", "a]}]\n", bombSize)),
			"any of which may begin a value; at most 100000"},
		{"YAML aliases", yamlCase(fill(caseHead+"expected:\n  tool_calls: [{name: t, result: {a: &a [1, 2, 3, 4, 5, 6, 7, 8], b: [", "*a, ", "*a]}}]\n", bombSize)),
			"any of which may begin a value; at most 100000"},
		{"YAML aliases within the marks", yamlCase(fill(caseHead+"expected:\n  tool_calls: [{name: t, result: {a: &a [1, 2, 3, 4, 5, 6, 7, 8], b: [", "*a, ", "*a]}}]\n", 300_000)),
			"YAML holds more than 100000 values, aliases expanded"},
		{"YAML laughs", yamlCase(aliasLaughs(9)), "YAML holds more than 100000 values, aliases expanded"},
		{"YAML keys of a mapping", yamlCase(fill(caseHead+"inspect:\n- path: a\n  equals: {", "k%d: 1, ", "}\n", 20_000)),
			"keys; at most 1000"},
		{"YAML mappings of most keys", yamlCase(fill(caseHead+"inspect:\n", "- path: a\n  equals: {"+keys(1000)+"}\n", "", 400_000)),
			""},
		{"JSON small objects", jsonSet(fill(`{"evalSetId":"x","evalCases":[{}`, `,{}`, "]}", bombSize)),
			"JSON holds more than 100000 values"},
		{"JSON most values", jsonSet(fill(`{"evalSetId":"x","evalCases":[{}`, `,{}`, "]}", 140_000)), ""},
		{"JSON most invocations", jsonSet(fill(`{"evalSetId":"x","evalCases":[{"evalId":"a","conversation":[{}`, `,{}`, "]}]}", 140_000)), ""},
		{"ADK most invocations", jsonSet(fill(`{"eval_set_id":"x","eval_cases":[{"eval_id":"a","conversation":[{}`, `,{}`, "]}]}", 140_000)), ""},
		{"ADK most cases", jsonSet(fill(`{"eval_set_id":"x","eval_cases":[{}`, `,{}`, "]}", 140_000)), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			cpu := cputime.Process(t)
			err := tc.read()
			cpu = cputime.Process(t) - cpu
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%.1f MiB allocated, %v CPU; %.200v", float64(alloc)/(1<<20), cpu.Round(time.Millisecond), err)
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("error %v, want one with %q", err, tc.wantErr)
			}
			if alloc > maxAlloc {
				t.Errorf("%d MiB allocated; at most %d", alloc>>20, maxAlloc>>20)
			}
			if cpu > maxCPU {
				t.Errorf("%v CPU; at most %v", cpu, maxCPU)
			}
		})
	}
}
