package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/result"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -run %s -update to create it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got; -update rewrites it):\n%s", name, diff)
	}
}

func TestWriteEvalSetRunGolden(t *testing.T) {
	cases := []struct {
		format Format
		file   string
	}{
		{Table, "evalset_run.table.golden"},
		{Markdown, "evalset_run.md.golden"},
		{JSON, "evalset_run.json.golden"},
		{JUnit, "evalset_run.junit.golden"},
	}
	for _, tc := range cases {
		t.Run(string(tc.format), func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteEvalSetRun(&b, tc.format, fixtureRun()); err != nil {
				t.Fatal(err)
			}
			if !utf8.Valid(b.Bytes()) {
				t.Errorf("%s output is not valid UTF-8", tc.format)
			}
			golden(t, tc.file, b.Bytes())
		})
	}
}

func TestWriteEvalSetRunTruncates(t *testing.T) {
	for _, format := range []Format{Table, Markdown} {
		var b bytes.Buffer
		if err := WriteEvalSetRun(&b, format, fixtureRun()); err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(b.String(), "\n") {
			if n := utf8.RuneCountInString(line); n > 1200 {
				t.Errorf("%s line %d has %d characters: long texts are not cut", format, i+1, n)
			}
		}
		if strings.Contains(b.String(), "</details> end") {
			t.Errorf("%s output carries the agent's </details> unescaped", format)
		}
	}
}

func TestWriteEvalSetRunFormats(t *testing.T) {
	var b bytes.Buffer
	err := WriteEvalSetRun(&b, Tau2, fixtureRun())
	if err == nil || !strings.Contains(err.Error(), "junit") {
		t.Errorf("tau2 format: err = %v, want one listing the formats", err)
	}
	if err := WriteEvalSetRun(&b, EvalSetResult, fixtureRun()); err == nil || !strings.Contains(err.Error(), "--out-dir") {
		t.Errorf("evalset-result of two sets to a stream: err = %v, want one pointing at --out-dir", err)
	}
	one := fixtureRun()
	one.Sets = one.Sets[:1]
	one.Cases = slices.DeleteFunc(one.Cases, func(cr *result.CaseResult) bool { return cr.EvalSetID != "smoke" })
	b.Reset()
	if err := WriteEvalSetRun(&b, EvalSetResult, one); err != nil {
		t.Fatal(err)
	}
	var res trpcEvalSetResult
	if err := json.Unmarshal(b.Bytes(), &res); err != nil || res.EvalSetID != "smoke" || len(res.EvalCaseResults) != 12 {
		t.Errorf("evalset-result of one set: %v, set %q with %d case results", err, res.EvalSetID, len(res.EvalCaseResults))
	}
}

// junitDoc is the shape CI reporters read, decoded independently of the
// writer's types.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    string   `xml:"tests,attr"`
	Failures string   `xml:"failures,attr"`
	Errors   string   `xml:"errors,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Tests      string `xml:"tests,attr"`
		Failures   string `xml:"failures,attr"`
		Errors     string `xml:"errors,attr"`
		Skipped    string `xml:"skipped,attr"`
		Time       string `xml:"time,attr"`
		Timestamp  string `xml:"timestamp,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name       string `xml:"name,attr"`
			Classname  string `xml:"classname,attr"`
			Time       string `xml:"time,attr"`
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Failure []struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error []struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"error"`
			Skipped []struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnitParsesBack(t *testing.T) {
	var b bytes.Buffer
	if err := WriteEvalSetRun(&b, JUnit, fixtureRun()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), `<?xml version="1.0" encoding="UTF-8"?>`) {
		t.Errorf("no XML declaration:\n%.80s", b.String())
	}
	var doc junitDoc
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit XML does not parse: %v", err)
	}
	type suiteShape struct {
		Name                             string
		Tests, Failures, Errors, Skipped int
		Outcomes                         []string
	}
	var got []suiteShape
	total := [4]int{}
	for _, s := range doc.Suites {
		if _, err := time.Parse(junitTimestamp, s.Timestamp); err != nil {
			t.Errorf("suite %s timestamp %q: %v", s.Name, s.Timestamp, err)
		}
		mustFloat(t, "suite time", s.Time)
		shape := suiteShape{Name: s.Name, Tests: atoi(t, s.Tests), Failures: atoi(t, s.Failures), Errors: atoi(t, s.Errors), Skipped: atoi(t, s.Skipped)}
		counted := [4]int{len(s.Cases), 0, 0, 0}
		for _, c := range s.Cases {
			mustFloat(t, "case time", c.Time)
			if c.Name == "" || c.Classname == "" {
				t.Errorf("suite %s: a testcase lacks name or classname: %+v", s.Name, c)
			}
			outcome := "passed"
			switch {
			case len(c.Failure)+len(c.Error)+len(c.Skipped) > 1:
				t.Errorf("case %s has more than one outcome element", c.Name)
			case len(c.Failure) == 1:
				outcome, counted[1] = "failure: "+c.Failure[0].Message, counted[1]+1
			case len(c.Error) == 1:
				outcome, counted[2] = "error: "+c.Error[0].Message, counted[2]+1
			case len(c.Skipped) == 1:
				outcome, counted[3] = "skipped", counted[3]+1
			}
			shape.Outcomes = append(shape.Outcomes, c.Name+" "+outcome)
		}
		if counted != [4]int{shape.Tests, shape.Failures, shape.Errors, shape.Skipped} {
			t.Errorf("suite %s counts %+v, its testcases %v", s.Name, shape, counted)
		}
		for i := range total {
			total[i] += counted[i]
		}
		got = append(got, shape)
	}
	if [3]int(total[:3]) != [3]int{atoi(t, doc.Tests), atoi(t, doc.Failures), atoi(t, doc.Errors)} {
		t.Errorf("testsuites counts %s/%s/%s, suites total %v", doc.Tests, doc.Failures, doc.Errors, total)
	}
	want := []suiteShape{
		{Name: "smoke", Tests: 4, Failures: 2, Errors: 1, Outcomes: []string{
			"weather_ok passed",
			"weather_flaky failure: tool_trajectory_avg_score 0.667<1.000; final_response_avg_score 0.667<1.000",
			"judge_rubric failure: llm_rubric_response 0.500<1.000",
			"unreachable error: send message: dial tcp 127.0.0.1:1: connect: connection refused",
		}},
		{Name: "yaml-cases", Tests: 1, Failures: 1, Outcomes: []string{"東京-weather failure: final_response_avg_score 0.000<1.000"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JUnit suites (-want +got):\n%s", diff)
	}
	flaky := doc.Suites[0].Cases[1]
	props := map[string]string{}
	for _, p := range flaky.Properties {
		props[p.Name] = p.Value
	}
	wantProps := map[string]string{"runs": "3", "runs_passed": "2", "flaky": "true", "pass@3": "1", "pass^3": "0",
		"tool_trajectory_avg_score.score": "0.6666666666666666", "tool_trajectory_avg_score.threshold": "1", "tool_trajectory_avg_score.status": "failed",
		"final_response_avg_score.score": "0.6666666666666666", "final_response_avg_score.threshold": "1", "final_response_avg_score.status": "failed"}
	if diff := cmp.Diff(wantProps, props); diff != "" {
		t.Errorf("flaky case properties (-want +got):\n%s", diff)
	}
	if text := flaky.Failure[0].Text; !strings.Contains(text, `actual: tools get_weather {"city":"Lyon"}`) || !strings.Contains(text, "run 2: failed") {
		t.Errorf("flaky case failure text lacks the failing run and its actual call:\n%s", text)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Errorf("count %q: %v", s, err)
	}
	return n
}

func mustFloat(t *testing.T, what, s string) {
	t.Helper()
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		t.Errorf("%s %q is not seconds: %v", what, s, err)
	}
}

func TestClip(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"  many\n\tlines\r\n here ", 40, "many lines here"},
		{"東京の天気は晴れです", 5, "東京の天…"},
		{"emoji 🌤️🌤️🌤️", 8, "emoji 🌤…"},
		{"bad \xff utf8", 20, "bad \ufffd utf8"},
		{"word boundary  ", 6, "word…"},
		{"ctl\x00\x01chars", 20, "ctl chars"},
	}
	for _, tc := range cases {
		got := clip(tc.in, tc.n)
		if got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
		if utf8.RuneCountInString(got) > tc.n {
			t.Errorf("clip(%q, %d) = %q is longer than %d", tc.in, tc.n, got, tc.n)
		}
	}
}

// mdEscape cuts long texts between characters, never inside one.
func TestMDEscapeKeepsUTF8(t *testing.T) {
	got := mdEscape(strings.Repeat("é", 400))
	if !utf8.ValidString(got) || utf8.RuneCountInString(got) != 301 {
		t.Errorf("mdEscape cut %q", got)
	}
}
