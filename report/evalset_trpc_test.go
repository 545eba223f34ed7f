package report

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/result"
)

// frameworkResult is an evalset_result.json that tRPC-Agent-Go's evaluator
// (evaluation v1.10.0) wrote: testdata/trpcgen ran eval set smoke of app
// weather_app three times against an LLM agent of the framework with a
// scripted model. weather_ok passes every run; weather_flaky fails both
// metrics on run 2; greet_wrong fails its final response; model_error's
// inference fails every run. To make it again: cd testdata/trpcgen && go
// run . DIR, then copy DIR/weather_app/*.evalset_result.json here (and
// rename frameworkResult).
const frameworkResult = "testdata/trpcresult/weather_app/weather_app_smoke_3e3aab51-7f94-4edd-9d7f-05e23b31780d.evalset_result.json"

// The framework's file read as a baseline and written back by
// WriteEvalSetResults is the framework's file, byte for byte, but for the
// UUID of the result id: field names, omitted zeros, the creation time,
// statuses, the order of case results and the summary proctor computes
// from the case results alone.
func TestEvalSetResultsMatchFramework(t *testing.T) {
	want, err := os.ReadFile(frameworkResult)
	if err != nil {
		t.Fatal(err)
	}
	run, err := ReadEvalSetBaseline(filepath.Dir(filepath.Dir(frameworkResult)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := WriteEvalSetResults(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 1 {
		t.Fatalf("wrote %v, want one file", paths)
	}
	nameRE := regexp.MustCompile(`^weather_app_smoke_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.evalset_result\.json$`)
	if rel, _ := filepath.Rel(dir, paths[0]); filepath.Dir(rel) != "weather_app" || !nameRE.MatchString(filepath.Base(rel)) {
		t.Errorf("wrote %s, want weather_app/weather_app_smoke_<uuid>.evalset_result.json", rel)
	}
	got, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(normalizeTRPC(string(want)), normalizeTRPC(string(got))); diff != "" {
		t.Errorf("written result differs from the framework's (-framework +proctor):\n%s", diff)
	}
}

var trpcIDRE = regexp.MustCompile(`weather_app_smoke_[0-9a-f-]{36}`)

// normalizeTRPC blanks what differs between two writes of one result: the
// UUID of its id.
func normalizeTRPC(s string) string {
	return trpcIDRE.ReplaceAllString(s, "weather_app_smoke_UUID")
}

// The framework's file read as a baseline gives the cases' verdicts over
// the three runs as the framework summarized them.
func TestReadFrameworkResult(t *testing.T) {
	f, err := os.Open(frameworkResult)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run, err := ReadEvalSetRun(f)
	if err != nil {
		t.Fatal(err)
	}
	type caseLine struct {
		Case                 string
		Outcome              CaseOutcome
		Runs, Passed, Errors int
		Flaky                bool
		Scores               string
	}
	var got []caseLine
	for _, cs := range run.Summary.Cases {
		got = append(got, caseLine{cs.EvalSetID + "/" + cs.EvalID, outcomeOf(cs), cs.Runs, cs.Passed, cs.Errors, cs.Flaky, scoresLine(cs.Metrics)})
	}
	want := []caseLine{
		{"smoke/greet_wrong", OutcomeFailed, 3, 0, 0, false, "final_response_avg_score 0.000<1.000  tool_trajectory_avg_score 1.000>=1.000"},
		{"smoke/model_error", OutcomeError, 3, 0, 3, false, "-"},
		{"smoke/weather_flaky", OutcomeFailed, 3, 2, 0, true, "final_response_avg_score 0.667<1.000  tool_trajectory_avg_score 0.667<1.000"},
		{"smoke/weather_ok", OutcomePassed, 3, 3, 0, false, "final_response_avg_score 1.000>=1.000  tool_trajectory_avg_score 1.000>=1.000"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("case summaries (-want +got):\n%s", diff)
	}
	wantTotals := result.EvalSetSummary{NumSets: 1, NumCases: 4, NumRuns: 3, Passed: 1, Failed: 2, Errors: 1, Flaky: []string{"smoke/weather_flaky"},
		MetricAverages: map[string]float64{"final_response_avg_score": 0.555556, "tool_trajectory_avg_score": 0.888889}}
	gotTotals := run.Summary
	gotTotals.Cases = nil
	if diff := cmp.Diff(wantTotals, gotTotals); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
	if run.Sets[0].AppName != "weather_app" || run.Config.NumRuns != 3 || len(run.Cases) != 12 {
		t.Errorf("run: sets %+v, %d runs, %d case runs; want app weather_app, 3 runs, 12 case runs", run.Sets, run.Config.NumRuns, len(run.Cases))
	}
	if run.Cases[5].ID != "smoke/weather_flaky#2" || run.Cases[5].FinalEvalStatus != result.EvalFailed {
		t.Errorf("case run 6 = %s %s, want smoke/weather_flaky#2 failed", run.Cases[5].ID, run.Cases[5].FinalEvalStatus)
	}
}

// proctorOnlyKeys are JSON names of fields proctor adds to tRPC's types:
// none may appear in an evalset_result file.
var proctorOnlyKeys = []string{"actual", "expected", "turns", "metrics", "non_conformant", "started_at",
	"duration_ms", "llm_calls", "samples", "argsContain", "parallel"}

// jsonKeys collects the object keys of a decoded JSON value, leaving out
// the free-form values of tool arguments and results.
func jsonKeys(v any, into map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			into[k] = true
			if k != "arguments" && k != "result" && k != "state" {
				jsonKeys(e, into)
			}
		}
	case []any:
		for _, e := range v {
			jsonKeys(e, into)
		}
	}
}

func TestWriteEvalSetResults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	run := fixtureRun()
	paths, err := WriteEvalSetResults(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	again, err := WriteEvalSetResults(dir, run)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(paths, again); diff != "" {
		t.Errorf("writing the run again names other files (-first +second):\n%s", diff)
	}
	var rel []string
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o644)
		if d.IsDir() {
			want = 0o755 | fs.ModeDir
		}
		if info.Mode() != want {
			t.Errorf("%s has mode %v, want %v", path, info.Mode(), want)
		}
		if !d.IsDir() {
			r, _ := filepath.Rel(dir, path)
			rel = append(rel, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := []string{
		"weather_app/weather_app_smoke_e0b5a1a6-3b4c-5f04-9c0d-a8ab0b1b4a3e.evalset_result.json",
		"yaml-cases/yaml-cases_yaml-cases_0d4c4b6e-0a3e-5e3f-8b5c-7c6f2f0e1d2a.evalset_result.json",
	}
	uuidRE := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`)
	if diff := cmp.Diff(uuidRE.ReplaceAllString(strings.Join(wantFiles, "\n"), "UUID"), uuidRE.ReplaceAllString(strings.Join(rel, "\n"), "UUID")); diff != "" {
		t.Errorf("files (-want +got; no temporary file may remain):\n%s", diff)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "evalset_run.trpc.golden", data)
	var decoded any
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	jsonKeys(decoded, keys)
	for _, k := range proctorOnlyKeys {
		if keys[k] {
			t.Errorf("the evalset_result file has proctor's field %q", k)
		}
	}
	trpcCaseKeys := map[string]bool{"evalSetId": true, "evalId": true, "runId": true, "finalEvalStatus": true, "errorMessage": true,
		"overallEvalMetricResults": true, "evalMetricResultPerInvocation": true, "sessionId": true, "userId": true}
	for _, c := range decoded.(map[string]any)["evalCaseResults"].([]any) {
		for k := range c.(map[string]any) {
			if !trpcCaseKeys[k] {
				t.Errorf("a case result has the field %q, which tRPC's EvalCaseResult does not", k)
			}
		}
	}
}

func TestWriteEvalSetResultsRefusesPathNames(t *testing.T) {
	for _, id := range []string{"../escape", "a/b", `a\b`, "..", ""} {
		run := &result.EvalSetRun{ID: "r", Sets: []result.EvalSetInfo{{ID: id}}}
		dir := t.TempDir()
		if _, err := WriteEvalSetResults(dir, run); err == nil || !strings.Contains(err.Error(), "without slashes") {
			t.Errorf("set id %q: err = %v, want a refusal", id, err)
		}
	}
	run := &result.EvalSetRun{ID: "r", Sets: []result.EvalSetInfo{{ID: "ok", AppName: "../up"}}}
	if _, err := WriteEvalSetResults(t.TempDir(), run); err == nil {
		t.Errorf("app name ../up: no error")
	}
}

func TestWriteEvalSetReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "target", "eval", "es-1")
	if err := WriteEvalSetReport(dir, fixtureRun()); err != nil {
		t.Fatal(err)
	}
	for name, format := range map[string]Format{"report.json": JSON, "report.md": Markdown} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := WriteEvalSetRun(&want, format, fixtureRun()); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s is not the run's %s rendering", name, format)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%s holds %d entries, want report.json and report.md alone", dir, len(entries))
	}
}
