package evalset

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeMatchesLoad: a set, its metrics and YAML cases decoded from
// memory are what Load reads from their files, but for where they came
// from.
func TestDecodeMatchesLoad(t *testing.T) {
	cases := []struct {
		name, file, metrics string
	}{
		{"trpc", "testdata/trpc/math-eval-app/math-basic.evalset.json", "testdata/trpc/math-eval-app/math-basic.metrics.json"},
		{"adk", "testdata/adk/weather/weather.evalset.json", ""},
		{"adk camel", "testdata/adkcamel/camel.evalset.json", ""},
		{"adk old", "testdata/adkold/simple.test.json", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			loaded, err := Load(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			want := loaded[0]
			got, err := Decode(filepath.Base(tc.file), readTestFile(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if tc.metrics != "" {
				if got.Metrics, err = DecodeMetrics("metrics", readTestFile(t, tc.metrics)); err != nil {
					t.Fatal(err)
				}
			}
			if want.Format == FormatTRPC {
				want.AppName = want.ID // no directory in the name
			}
			if want.Format == FormatADK && tc.name != "adk old" {
				want.Metrics = adkDefaultMetrics() // Load read test_config.json beside it
			}
			if diff := cmp.Diff(want, got, ignoreLoadInfo()); diff != "" {
				t.Errorf("Decode (-Load +Decode):\n%s", diff)
			}
			if tc.metrics != "" {
				if diff := cmp.Diff(want.Metrics, got.Metrics); diff != "" {
					t.Errorf("DecodeMetrics (-LoadMetrics +DecodeMetrics):\n%s", diff)
				}
			}
		})
	}

	dir := "testdata/cases"
	loaded, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	var texts []string
	for _, f := range files {
		texts = append(texts, string(readTestFile(t, f)))
	}
	got, err := DecodeYAMLCases(context.Background(), "cases", texts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(loaded[0], got, ignoreLoadInfo()); diff != "" {
		t.Errorf("DecodeYAMLCases (-Load +Decode):\n%s", diff)
	}
}

// TestDecodeReportsEveryViolation: every problem, by its path, named after
// the name given.
func TestDecodeReportsEveryViolation(t *testing.T) {
	cases := []struct {
		name string
		run  func() error
		want []Violation
	}{
		{"set", func() error {
			_, err := Decode("eval_set", []byte(`{"evalSetId": "s", "evalCases": [{"conversation": [{"userContent": {"role": "user", "content": "hi"}}]}, {"evalId": "b"}]}`))
			return err
		}, []Violation{
			{File: "eval_set", Path: "evalCases[0].evalId", Message: "missing"},
			{File: "eval_set", Path: "evalCases[1]", Message: `case "b" has neither a conversation nor a conversationScenario`},
		}},
		{"not a set", func() error { _, err := Decode("eval_set", []byte(`{"hello": 1}`)); return err }, []Violation{
			{File: "eval_set", Message: "not an eval set: expected a tRPC-Agent-Go set {evalSetId, evalCases}, an ADK set {eval_set_id, eval_cases} or an ADK test list [{query, expected_tool_use, reference}]"},
		}},
		{"metrics", func() error {
			_, err := DecodeMetrics("metrics", []byte(`[{"metricName": "no_such_metric", "threshold": 1}]`))
			return err
		}, nil},
		{"yaml", func() error {
			_, err := DecodeYAMLCases(context.Background(), "yaml_cases", []string{"case: a\ninput: hi\n", "case: b\n", "- 1"})
			return err
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := violations(t, tc.run())
			if tc.want == nil {
				for _, v := range got {
					if v.File == "" || v.Message == "" {
						t.Errorf("violation %+v names no file or says nothing", v)
					}
				}
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeYAMLCasesEndsWithContext: cases are read no further once the
// context ends, and the error is the context's.
func TestDecodeYAMLCasesEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	set, err := DecodeYAMLCases(ctx, "yaml_cases", []string{"case: a\ninput: hi\n"})
	if !errors.Is(err, context.Canceled) || set != nil {
		t.Errorf("DecodeYAMLCases after its context ended: %v, %v; want no set and context.Canceled", set, err)
	}
}

func FuzzDecode(f *testing.F) {
	addSeeds(f, "testdata/trpc/math-eval-app/math-basic.evalset.json", "testdata/adk/weather/weather.evalset.json",
		"testdata/trpc/math-eval-app/math-basic.metrics.json", "testdata/adk/weather/test_config.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Decode("eval_set", data)
		_, _ = DecodeMetrics("metrics", data)
		_, _ = DecodeYAMLCases(context.Background(), "yaml_cases", []string{string(data)})
	})
}
