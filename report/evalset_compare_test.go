package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/result"
)

// caseRun is a run of one case with one summary per given case: outcome
// and averaged scores by metric.
type caseSpec struct {
	id      string
	status  result.EvalStatus
	errors  int
	metrics map[string]float64
}

func comparedRun(id string, specs ...caseSpec) *result.EvalSetRun {
	run := &result.EvalSetRun{ID: id, Config: result.EvalSetConfig{NumRuns: 1}}
	for _, s := range specs {
		cs := result.CaseSummary{EvalSetID: "set", EvalID: s.id, Status: s.status, Runs: 1, Errors: s.errors}
		if s.status == result.EvalPassed {
			cs.Passed = 1
		}
		for _, name := range sortedKeys(s.metrics) {
			cs.Metrics = append(cs.Metrics, summaryMetric(name, s.metrics[name], 0.5))
		}
		run.Summary.Cases = append(run.Summary.Cases, cs)
	}
	return run
}

func TestCompareEvalSets(t *testing.T) {
	const traj, resp = "tool_trajectory_avg_score", "final_response_avg_score"
	pass, fail := result.EvalPassed, result.EvalFailed
	cases := []struct {
		name      string
		base, cur []caseSpec
		tolerance float64
		want      Comparison
	}{
		{
			name: "unchanged within tolerance",
			base: []caseSpec{{"a", pass, 0, map[string]float64{traj: 0.9}}},
			cur:  []caseSpec{{"a", pass, 0, map[string]float64{traj: 0.85}}}, tolerance: 0.1,
			want: Comparison{Unchanged: 1},
		},
		{
			name: "a drop of exactly the tolerance is not a regression",
			base: []caseSpec{{"a", pass, 0, map[string]float64{traj: 0.9}}},
			cur:  []caseSpec{{"a", pass, 0, map[string]float64{traj: 0.8}}}, tolerance: 0.1,
			want: Comparison{Unchanged: 1},
		},
		{
			name: "a score drop beyond tolerance regresses a passing case",
			base: []caseSpec{{"a", pass, 0, map[string]float64{traj: 1, resp: 1}}},
			cur:  []caseSpec{{"a", pass, 0, map[string]float64{traj: 0.7, resp: 1}}}, tolerance: 0.1,
			want: Comparison{Regressions: []CaseChange{{Case: "set/a", BaseOutcome: OutcomePassed, Outcome: OutcomePassed,
				Metrics: []MetricChange{{Metric: traj, Base: 1, Current: 0.7, Delta: -0.3, Threshold: 0.5}}}}},
		},
		{
			name: "passed to failed is a regression at any tolerance",
			base: []caseSpec{{"a", pass, 0, map[string]float64{traj: 0.6}}},
			cur:  []caseSpec{{"a", fail, 0, map[string]float64{traj: 0.4}}}, tolerance: 1,
			want: Comparison{Regressions: []CaseChange{{Case: "set/a", BaseOutcome: OutcomePassed, Outcome: OutcomeFailed}}},
		},
		{
			name: "passed to error",
			base: []caseSpec{{"a", pass, 0, nil}},
			cur:  []caseSpec{{"a", fail, 1, nil}},
			want: Comparison{Regressions: []CaseChange{{Case: "set/a", BaseOutcome: OutcomePassed, Outcome: OutcomeError}}},
		},
		{
			name: "failed to passed is an improvement; failed staying failed with a drop regresses",
			base: []caseSpec{{"a", fail, 0, map[string]float64{traj: 0.2}}, {"b", fail, 0, map[string]float64{traj: 0.4}}},
			cur:  []caseSpec{{"a", pass, 0, map[string]float64{traj: 0.9}}, {"b", fail, 0, map[string]float64{traj: 0.1}}},
			want: Comparison{
				Regressions: []CaseChange{{Case: "set/b", BaseOutcome: OutcomeFailed, Outcome: OutcomeFailed,
					Metrics: []MetricChange{{Metric: traj, Base: 0.4, Current: 0.1, Delta: -0.3, Threshold: 0.5}}}},
				Improvements: []CaseChange{{Case: "set/a", BaseOutcome: OutcomeFailed, Outcome: OutcomePassed,
					Metrics: []MetricChange{{Metric: traj, Base: 0.2, Current: 0.9, Delta: 0.7, Threshold: 0.5}}}},
			},
		},
		{
			name: "one metric down, another up: listed in both",
			base: []caseSpec{{"a", pass, 0, map[string]float64{traj: 1, resp: 0.5}}},
			cur:  []caseSpec{{"a", pass, 0, map[string]float64{traj: 0.6, resp: 0.9}}},
			want: Comparison{
				Regressions:  []CaseChange{{Case: "set/a", BaseOutcome: OutcomePassed, Outcome: OutcomePassed, Metrics: []MetricChange{{Metric: traj, Base: 1, Current: 0.6, Delta: -0.4, Threshold: 0.5}}}},
				Improvements: []CaseChange{{Case: "set/a", BaseOutcome: OutcomePassed, Outcome: OutcomePassed, Metrics: []MetricChange{{Metric: resp, Base: 0.5, Current: 0.9, Delta: 0.4, Threshold: 0.5}}}},
			},
		},
		{
			name: "metrics only one run scored are not compared; cases added and removed",
			base: []caseSpec{{"a", pass, 0, map[string]float64{traj: 1}}, {"gone", pass, 0, nil}},
			cur:  []caseSpec{{"a", pass, 0, map[string]float64{resp: 0.1}}, {"new", fail, 0, nil}},
			want: Comparison{Unchanged: 1, Added: []string{"set/new"}, Removed: []string{"set/gone"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := CompareEvalSets(comparedRun("base", tc.base...), comparedRun("cur", tc.cur...), tc.tolerance)
			want := tc.want
			want.Base, want.Current, want.Tolerance = "base", "cur", tc.tolerance
			for _, l := range []*[]CaseChange{&want.Regressions, &want.Improvements} {
				if *l == nil {
					*l = []CaseChange{}
				}
			}
			for _, l := range []*[]string{&want.Added, &want.Removed} {
				if *l == nil {
					*l = []string{}
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("comparison (-want +got):\n%s", diff)
			}
			if got.HasRegressions() != (len(want.Regressions) > 0) {
				t.Errorf("HasRegressions = %v", got.HasRegressions())
			}
		})
	}
}

// A run compared with itself read back from its JSON has nothing to say;
// compared with the framework's result of another agent it has.
func TestCompareWithBaselineFiles(t *testing.T) {
	run := fixtureRun()
	var b bytes.Buffer
	if err := WriteEvalSetRun(&b, JSON, run); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "baseline.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := ReadEvalSetBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if c := CompareEvalSets(base, run, 0); c.HasRegressions() || len(c.Improvements) > 0 || c.Unchanged != 5 {
		t.Errorf("run against itself: %+v", c)
	}

	framework, err := ReadEvalSetBaseline(frameworkResult)
	if err != nil {
		t.Fatal(err)
	}
	vsFramework := CompareEvalSets(framework, run, 0.05)
	if diff := cmp.Diff([]string{"smoke/judge_rubric", "smoke/unreachable", "yaml-cases/東京-weather"}, vsFramework.Added); diff != "" {
		t.Errorf("added against the framework's result (-want +got):\n%s", diff)
	}
	if vsFramework.Unchanged != 2 || len(vsFramework.Removed) != 2 {
		t.Errorf("against the framework's result: %+v", vsFramework)
	}

	c := CompareEvalSets(base, regressedRun(), 0.05)
	for _, format := range []struct {
		f    Format
		file string
	}{{Table, "evalset_compare.table.golden"}, {Markdown, "evalset_compare.md.golden"}, {JSON, "evalset_compare.json.golden"}} {
		var out bytes.Buffer
		if err := WriteComparison(&out, format.f, c); err != nil {
			t.Fatal(err)
		}
		golden(t, format.file, out.Bytes())
	}
	var back Comparison
	var out bytes.Buffer
	_ = WriteComparison(&out, JSON, c)
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("comparison JSON does not round-trip (-want +got):\n%s", diff)
	}
	if err := WriteComparison(&out, JUnit, c); err == nil {
		t.Errorf("JUnit comparison: no error")
	}
}

// regressedRun is the fixture run after a change: weather_ok fails, its
// trajectory dropping; judge_rubric now passes; the YAML case is gone and
// another came.
func regressedRun() *result.EvalSetRun {
	run := fixtureRun()
	run.ID = "es-20261125-1000"
	cases := run.Summary.Cases
	ok := &cases[0]
	ok.Status, ok.Passed = result.EvalFailed, 1
	ok.Metrics = []*result.MetricResult{summaryMetric("tool_trajectory_avg_score", 1.0/3, 1), summaryMetric("final_response_avg_score", 1, 1)}
	judge := &cases[2]
	judge.Status, judge.Passed = result.EvalPassed, 3
	judge.Metrics = []*result.MetricResult{summaryMetric("llm_rubric_response", 1, 1)}
	cases[4] = result.CaseSummary{EvalSetID: "yaml-cases", EvalID: "new | case", Status: result.EvalPassed, Runs: 3, Passed: 3}
	run.Cases = nil
	return run
}

func TestReadEvalSetRun(t *testing.T) {
	run := fixtureRun()
	var b bytes.Buffer
	if err := WriteEvalSetRun(&b, JSON, run); err != nil {
		t.Fatal(err)
	}
	got, err := ReadEvalSetRun(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	// Requests are stored apart and never in the JSON.
	if diff := cmp.Diff(run, got); diff != "" {
		t.Errorf("proctor JSON does not read back (-want +got):\n%s", diff)
	}

	framework, err := os.ReadFile(frameworkResult)
	if err != nil {
		t.Fatal(err)
	}
	legacy, _ := json.Marshal(string(framework))
	fromLegacy, err := ReadEvalSetRun(bytes.NewReader(legacy))
	if err != nil {
		t.Fatalf("legacy string-wrapped result: %v", err)
	}
	fromFile, _ := ReadEvalSetRun(bytes.NewReader(framework))
	if diff := cmp.Diff(fromFile, fromLegacy); diff != "" {
		t.Errorf("legacy layout reads otherwise (-file +legacy):\n%s", diff)
	}

	bad := []struct{ in, want string }{
		{"", "not a JSON object"},
		{"[1,2]", "not a JSON object"},
		{`{"hello":1}`, "neither a proctor eval-set run"},
		{`{"evalSetResultId":"x"}`, "has no evalSetId"},
		{`{"evalSetId":"s","evalCaseResults":[{"runId":1}]}`, "evalCaseResults[0] has no evalId"},
		{`{"id":"r","cases":[{"evalId":"c"}]}`, "cases[0] has no evalSetId or evalId"},
		{`{"id":"r","cases":"nope"}`, "does not decode"},
		{`"not json inside"`, "not a JSON object"},
	}
	for _, tc := range bad {
		_, err := ReadEvalSetRun(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadEvalSetRun(%q) = %v, want an error saying %q", tc.in, err, tc.want)
		}
	}
}

func TestReadEvalSetBaselineDirectory(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadEvalSetBaseline(dir); err == nil || !strings.Contains(err.Error(), "holds no") {
		t.Errorf("empty directory: err = %v", err)
	}
	if _, err := ReadEvalSetBaseline(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("missing path: no error")
	}
	// Two results of set smoke (the framework's, and an older one) and one
	// of another app: the newest of each set is taken.
	framework, err := os.ReadFile(frameworkResult)
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel string, data []byte) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("weather_app/"+filepath.Base(frameworkResult), framework)
	write("weather_app/weather_app_smoke_old.evalset_result.json", []byte(`{"evalSetResultId":"weather_app_smoke_old","evalSetId":"smoke","creationTimestamp":1000,
		"evalCaseResults":[{"evalSetId":"smoke","evalId":"weather_ok","runId":1,"finalEvalStatus":"failed"}]}`))
	write("other_app/other_app_greet_1.evalset_result.json", []byte(`{"evalSetResultId":"other_app_greet_1","evalSetId":"greet",
		"evalCaseResults":[{"evalSetId":"greet","evalId":"hi","runId":1,"finalEvalStatus":"passed",
		"overallEvalMetricResults":[{"metricName":"final_response_avg_score","score":1,"evalStatus":"passed","threshold":1}]}]}`))
	write("notes.txt", []byte("ignored"))
	run, err := ReadEvalSetBaseline(dir)
	if err != nil {
		t.Fatal(err)
	}
	var sets, cases []string
	for _, s := range run.Sets {
		sets = append(sets, s.AppName+"/"+s.ID)
	}
	for _, cs := range run.Summary.Cases {
		cases = append(cases, cs.EvalSetID+"/"+cs.EvalID+" "+string(outcomeOf(cs)))
	}
	if diff := cmp.Diff([]string{"other_app/greet", "weather_app/smoke"}, sets); diff != "" {
		t.Errorf("sets (-want +got):\n%s", diff)
	}
	want := []string{"greet/hi passed", "smoke/greet_wrong failed", "smoke/model_error error", "smoke/weather_flaky failed", "smoke/weather_ok passed"}
	if diff := cmp.Diff(want, cases); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	write("broken/broken_x_1.evalset_result.json", []byte("{"))
	if _, err := ReadEvalSetBaseline(dir); err == nil || !strings.Contains(err.Error(), "broken_x_1") {
		t.Errorf("a broken file: err = %v, want one naming it", err)
	}
}

func FuzzReadEvalSetRun(f *testing.F) {
	// Small seeds of both layouts (large ones slow the fuzzer down).
	small := fixtureRun()
	small.Cases = []*result.CaseResult{weatherRun("weather_flaky", 2, false), errorRun(1)}
	small.Summary.Cases = small.Summary.Cases[1:2]
	var b bytes.Buffer
	_ = WriteEvalSetRun(&b, JSON, small)
	f.Add(b.String())
	small.Sets = small.Sets[:1]
	b.Reset()
	_ = WriteEvalSetRun(&b, EvalSetResult, small)
	f.Add(b.String())
	f.Add(`{"evalSetId":"s","evalCaseResults":[{"evalId":"c","runId":7,"finalEvalStatus":"weird","overallEvalMetricResults":[null,{"metricName":"m","evalStatus":"unknown"}]}]}`)
	f.Add(`"{\"evalSetId\":\"s\"}"`)
	f.Add(`{"id":"r","summary":{"cases":[{"eval_set_id":"s","eval_id":"c","runs":-1,"errors":5}]}}`)
	f.Fuzz(func(t *testing.T, in string) {
		run, err := ReadEvalSetRun(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, format := range []Format{Table, JSON, Markdown, JUnit} {
			if err := WriteEvalSetRun(&bytes.Buffer{}, format, run); err != nil {
				t.Errorf("%s of a run that was read: %v", format, err)
			}
		}
		_ = CompareEvalSets(run, run, 0)
	})
}
