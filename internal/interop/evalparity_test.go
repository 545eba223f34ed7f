//go:build unix

package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/result"
)

// The oracle of the eval-set parity proof (issue 15): tRPC-Agent-Go's own
// evaluator (evaluation v1.10.0), run by `trpcpeer eval` on the calculator
// agent that `trpcpeer --mode calc` serves over A2A, scores the sets under
// testdata/evalsets/trpc. TestTRPCEvalOracle pins what it answers, case by
// case and metric by metric, so that proctor's scores of the same sets
// against the same agent can be held to it (compareWithTRPC).

const (
	// trpcEvalSetsDir holds the sets, in tRPC-Agent-Go's local layout:
	// <app>/<set>.evalset.json and <app>/<set>.metrics.json.
	trpcEvalSetsDir = "testdata/evalsets/trpc"
	// trpcEvalApp is the app the sets belong to.
	trpcEvalApp = "calcapp"
	// trpcEvalRuns is how many times each set is run.
	trpcEvalRuns = 2
	// trpcEvalTimeout bounds one `trpcpeer eval`.
	trpcEvalTimeout = time.Minute
)

// trpcEvalSetIDs are the sets under trpcEvalSetsDir/trpcEvalApp.
func trpcEvalSetIDs() []string {
	return []string{"trajectory", "response", "json", "edges", "nil_criterion"}
}

// trpcEvalSetResult is an evalset_result.json as the framework's local
// result manager writes it. The case results are decoded into proctor's own
// result.CaseResult, strictly: a field the framework writes that proctor's
// model lacks fails the decoding.
type trpcEvalSetResult struct {
	EvalSetResultID   string               `json:"evalSetResultId"`
	EvalSetResultName string               `json:"evalSetResultName"`
	EvalSetID         string               `json:"evalSetId"`
	EvalCaseResults   []*result.CaseResult `json:"evalCaseResults"`
	Summary           *trpcEvalSummary     `json:"summary"`
	CreationTimestamp *evalset.EpochTime   `json:"creationTimestamp"`
}

// trpcEvalSummary is the part of the framework's multi-run summary the
// oracle checks.
type trpcEvalSummary struct {
	OverallStatus     result.EvalStatus `json:"overallStatus"`
	NumRuns           int               `json:"numRuns"`
	RunStatusCounts   json.RawMessage   `json:"runStatusCounts"`
	RunSummaries      json.RawMessage   `json:"runSummaries"`
	EvalCaseSummaries []struct {
		EvalID          string            `json:"evalId"`
		OverallStatus   result.EvalStatus `json:"overallStatus"`
		RunStatusCounts json.RawMessage   `json:"runStatusCounts"`
		MetricSummaries json.RawMessage   `json:"metricSummaries"`
		RunSummaries    json.RawMessage   `json:"runSummaries"`
	} `json:"evalCaseSummaries"`
}

// resultFileRE is the framework's result file name: <app>_<set>_<uuid>
// (evalresult/local Save) plus the locator's suffix.
var resultFileRE = regexp.MustCompile(`^([a-z_]+)_([a-z_]+)_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.evalset_result\.json$`)

// runTRPCEval runs `trpcpeer eval` on every set and returns the raw result
// files by set id.
func runTRPCEval(t *testing.T, bin string) map[string][]byte {
	t.Helper()
	data, err := filepath.Abs(trpcEvalSetsDir)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), trpcEvalTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "eval", "--data", data, "--app", trpcEvalApp,
		"--set", strings.Join(trpcEvalSetIDs(), ","), "--out", out, "--runs", fmt.Sprint(trpcEvalRuns))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("trpcpeer eval: %v\nstderr:\n%s", err, stderr.String())
	}
	files := make(map[string][]byte)
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || f[0] != "RESULT" {
			t.Fatalf("trpcpeer eval printed %q: want RESULT <set> <status> <path>", line)
		}
		set, path := f[1], f[3]
		if dir := filepath.Join(out, trpcEvalApp); filepath.Dir(path) != dir {
			t.Errorf("set %s written to %s: want it in %s (<out>/<app>/)", set, path, dir)
		}
		m := resultFileRE.FindStringSubmatch(filepath.Base(path))
		if m == nil || m[1]+"_"+m[2] != trpcEvalApp+"_"+set {
			t.Errorf("set %s result file %s: want %s_%s_<uuid>.evalset_result.json", set, filepath.Base(path), trpcEvalApp, set)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files[set] = b
	}
	if len(files) != len(trpcEvalSetIDs()) {
		t.Fatalf("trpcpeer eval wrote %d result files: want one per set %v\nstdout:\n%s", len(files), trpcEvalSetIDs(), stdout.String())
	}
	return files
}

// decodeTRPCResult decodes a result file strictly into proctor's model.
func decodeTRPCResult(t *testing.T, set string, b []byte) *trpcEvalSetResult {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var res trpcEvalSetResult
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("set %s: decode the framework's evalset_result.json into proctor's result.CaseResult: %v", set, err)
	}
	return &res
}

// metricOutcome is one metric's score and verdict on a case run.
type metricOutcome struct {
	Name   string
	Score  float64
	Status result.EvalStatus
}

// caseOutcome is a case run's verdict: its status, the error it failed
// with (session ids masked) and its metrics' outcomes, in order.
type caseOutcome struct {
	Status  result.EvalStatus
	Error   string
	Metrics []metricOutcome
}

var sessionIDRE = regexp.MustCompile(`sessionID=[0-9a-f-]{36}`)

func outcomeOf(c *result.CaseResult) caseOutcome {
	o := caseOutcome{Status: c.FinalEvalStatus, Error: sessionIDRE.ReplaceAllString(c.ErrorMessage, "sessionID=*")}
	for _, m := range c.OverallEvalMetricResults {
		o.Metrics = append(o.Metrics, metricOutcome{m.MetricName, m.Score, m.EvalStatus})
	}
	return o
}

// outcomes expands a compact row of a set's pinned outcomes: one
// "<score><p|f>" token per metric, in the set's metric order.
func outcomes(t *testing.T, names []string, status result.EvalStatus, row string) caseOutcome {
	t.Helper()
	tokens := strings.Fields(row)
	if len(tokens) != len(names) {
		t.Fatalf("row %q has %d tokens: want one per metric %v", row, len(tokens), names)
	}
	o := caseOutcome{Status: status}
	for i, tok := range tokens {
		score, err := strconv.ParseFloat(tok[:len(tok)-1], 64)
		st, ok := map[byte]result.EvalStatus{'p': result.EvalPassed, 'f': result.EvalFailed}[tok[len(tok)-1]]
		if err != nil || !ok {
			t.Fatalf("token %q: want <score>p or <score>f", tok)
		}
		o.Metrics = append(o.Metrics, metricOutcome{names[i], score, st})
	}
	return o
}

// trpcOracle is what tRPC-Agent-Go v1.10.0's evaluator answers on each
// case of each set, established by running it: every run of a case gives
// the same (the agent is scripted).
func trpcOracle(t *testing.T) map[string]map[string]caseOutcome {
	t.Helper()
	const P, F = result.EvalPassed, result.EvalFailed
	traj := []string{"tool_trajectory_avg_score", "trajectory_ordered", "trajectory_subset_ordered", "trajectory_subset",
		"trajectory_calculator_args", "trajectory_tolerance", "trajectory_name_regex", "trajectory_name_contains", "trajectory_half"}
	resp := []string{"final_response_avg_score", "response_contains", "response_regex", "response_case_insensitive",
		"response_rouge1", "response_half"}
	js := []string{"final_response_avg_score", "json_ignore_request_id", "json_only_result"}
	return map[string]map[string]caseOutcome{
		"trajectory": {
			// The default strategy compares name, arguments and result
			// exactly, ignoring order.
			"add_exact": outcomes(t, traj, P, "1p 1p 1p 1p 1p 1p 1p 1p 1p"),
			// A per-tool strategy replaces the default whole: only
			// arguments (b ignored) are compared for calculator.
			"wrong_args": outcomes(t, traj, F, "0f 0f 0f 0f 1p 0f 1p 1p 0f"),
			// Equal counts are required unless subsetMatching.
			"extra_call": outcomes(t, traj, F, "0f 0f 1p 1p 0f 0f 0f 0f 0f"),
			// Unordered is a bipartite matching; ordered follows order.
			"order_swapped": outcomes(t, traj, F, "1p 0f 0f 1p 1p 1p 1p 1p 1p"),
			// Ordered subset matching is an in-order subsequence: the
			// expected current_time is found after the extra calculator.
			"subset_in_order": outcomes(t, traj, F, "0f 0f 1p 1p 0f 0f 0f 0f 0f"),
			"missing_call":    outcomes(t, traj, F, "0f 0f 0f 0f 0f 0f 0f 0f 0f"),
			// No call expected, none made: 1 under every criterion.
			"no_calls": outcomes(t, traj, P, "1p 1p 1p 1p 1p 1p 1p 1p 1p"),
			// numberTolerance 0.001 absorbs 3 vs 3.0004 and 3.333… vs
			// 3.3334; the default tolerance (1e-6) does not.
			"near_numbers": outcomes(t, traj, F, "0f 0f 0f 0f 1p 1p 1p 1p 0f"),
			// The expected name is the pattern: regex ^current_ matches,
			// case-insensitive contains of TIME matches.
			"name_regex":    outcomes(t, traj, F, "0f 0f 0f 0f 0f 0f 1p 0f 0f"),
			"name_contains": outcomes(t, traj, F, "0f 0f 0f 0f 0f 0f 0f 1p 0f"),
			// The per-tool strategy is picked by the actual call's name
			// first; having no name part, it matches an expected call of
			// another name.
			"other_name": outcomes(t, traj, F, "0f 0f 0f 0f 1p 0f 0f 0f 0f"),
			// An expected call without a result fails wherever results
			// are compared (the tool did return one).
			"no_result": outcomes(t, traj, F, "0f 0f 0f 0f 1p 0f 1p 1p 0f"),
			// Two invocations: the score is their mean.
			"two_turns_half": outcomes(t, traj, F, "0.5f 0.5f 0.5f 0.5f 0.5f 0.5f 0.5f 0.5f 0.5p"),
			"two_turns_pass": outcomes(t, traj, P, "1p 1p 1p 1p 1p 1p 1p 1p 1p"),
		},
		"response": {
			"exact":     outcomes(t, resp, P, "1p 1p 1p 1p 1p 1p"),
			"substring": outcomes(t, resp, F, "0f 1p 1p 0f 1p 0f"),
			"pattern":   outcomes(t, resp, F, "0f 0f 1p 0f 0f 0f"),
			"loud":      outcomes(t, resp, F, "0f 0f 0f 1p 1p 0f"),
			// ROUGE-1 F1 of 3 tokens in 4 is 0.75 < 0.8.
			"wrong_number": outcomes(t, resp, F, "0f 0f 0f 0f 0f 0f"),
			// No expected response: compared with "", which every text
			// contains and every text matches as a regex.
			"no_expected_text": outcomes(t, resp, F, "0f 1p 1p 0f 0f 0f"),
			"two_turns_half":   outcomes(t, resp, F, "0.5f 0.5f 0.5f 0.5f 0.5f 0.5p"),
		},
		"json": {
			"same_json":        outcomes(t, js, P, "1p 1p 1p"),
			"other_request_id": outcomes(t, js, F, "0f 1p 1p"),
			"wrong_result":     outcomes(t, js, F, "0f 0f 0f"),
			"not_json":         outcomes(t, js, F, "0f 0f 0f"),
		},
		"edges": {
			// A trace case is scored from its actualConversation; a metric
			// whose evaluator is unknown is skipped without a word.
			"trace_scored": outcomes(t, []string{"tool_trajectory_avg_score"}, P, "1p"),
			// A case the framework cannot score fails with an error and no
			// metric results at all.
			"trace_turns_differ": {Status: F, Error: "inference eval case (evalCaseID=trace_turns_differ, sessionID=*): " +
				"actual conversation length 1 does not match conversation length 2"},
			// The agent failing a turn fails the case the same way, however
			// well the turns before it went.
			"agent_error":      {Status: F, Error: "inference eval case (evalCaseID=agent_error, sessionID=*): event: scripted model failure"},
			"no_session_input": {Status: F, Error: "inference eval case (evalCaseID=no_session_input, sessionID=*): session input is nil"},
		},
		"nil_criterion": {
			"add_exact": {Status: F, Error: "run evaluation for metric tool_trajectory_avg_score: tool trajectory criterion not configured"},
		},
	}
}

// TestTRPCEvalOracle runs tRPC-Agent-Go's own evaluator on the eval sets
// and pins its verdicts, the layout of its result files and the comparison
// proctor's runs will be held to.
func TestTRPCEvalOracle(t *testing.T) {
	bin := buildTRPCPeer(t)
	files := runTRPCEval(t, bin)
	oracle := trpcOracle(t)
	for _, set := range trpcEvalSetIDs() {
		t.Run(set, func(t *testing.T) {
			res := decodeTRPCResult(t, set, files[set])
			checkResultLayout(t, set, res, files[set])
			got := make(map[string]caseOutcome)
			for _, c := range res.EvalCaseResults {
				o := outcomeOf(c)
				if prev, seen := got[c.EvalID]; seen {
					if diff := cmp.Diff(prev, o); diff != "" {
						t.Errorf("case %s: run %d differs from an earlier run (-earlier +run):\n%s", c.EvalID, c.RunID, diff)
					}
					continue
				}
				got[c.EvalID] = o
			}
			if diff := cmp.Diff(oracle[set], got); diff != "" {
				t.Errorf("set %s: the framework's verdicts (-pinned +got):\n%s", set, diff)
			}
			// The reference agrees with itself.
			checkTRPCParity(t, set, res, res.EvalCaseResults)
		})
	}
	t.Run("compare-finds-differences", func(t *testing.T) {
		checkCompareFindsDifferences(t, decodeTRPCResult(t, "trajectory", files["trajectory"]).EvalCaseResults)
	})
	base := startTRPCPeers(t, bin, trpcCalc)[trpcCalc]
	t.Run("served-over-a2a", func(t *testing.T) {
		checkCalcServed(t, base)
	})
	t.Run("proctor", func(t *testing.T) {
		refs := make(map[string]*trpcEvalSetResult, len(files))
		for set, b := range files {
			refs[set] = decodeTRPCResult(t, set, b)
		}
		checkProctorParity(t, base, refs)
	})
}

// trpcCalc serves the calculator agent the oracle runs in-process.
const trpcCalc trpcMode = "calc"

// calcWirePart is what a turn of the calculator agent shows on the wire: a
// function_call or function_response data part, or the answer's text.
type calcWirePart struct {
	Kind, Name, Payload string
}

// checkCalcServed sends one turn to the calculator agent behind
// server/a2a and checks that its tool calls and their results travel as
// data parts marked function_call / function_response, matched by id, and
// its answer as the artifact's text: what proctor's case player observes.
func checkCalcServed(t *testing.T, base string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1",` +
		`"role":"user","contextId":"c1","parts":[{"kind":"text","text":"add 1 and 1, then tell the time"}]}}}`
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	type part struct {
		Kind, Text string
		Data       struct {
			ID, Name, Args, Response string
		}
		Metadata struct{ Type string }
	}
	var reply struct {
		Result struct {
			History   []struct{ Parts []part }
			Artifacts []struct{ Parts []part }
		}
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&reply); err != nil {
		t.Fatal(err)
	}
	var got []calcWirePart
	calls := make(map[string]string)
	for _, m := range reply.Result.History {
		for _, p := range m.Parts {
			switch p.Metadata.Type {
			case "function_call":
				calls[p.Data.ID] = p.Data.Name
				got = append(got, calcWirePart{p.Metadata.Type, p.Data.Name, p.Data.Args})
			case "function_response":
				if calls[p.Data.ID] != p.Data.Name {
					t.Errorf("function_response %s (%s) answers no call of that id", p.Data.ID, p.Data.Name)
				}
				got = append(got, calcWirePart{p.Metadata.Type, p.Data.Name, p.Data.Response})
			}
		}
	}
	for _, a := range reply.Result.Artifacts {
		for _, p := range a.Parts {
			got = append(got, calcWirePart{p.Kind, "", p.Text})
		}
	}
	want := []calcWirePart{
		{"function_call", "calculator", `{"operation":"add","a":1,"b":1}`},
		{"function_call", "current_time", `{"timezone":"UTC"}`},
		{"function_response", "calculator", `{"result":2}`},
		{"function_response", "current_time", `{"time":"2026-01-01T12:00:00Z","timezone":"UTC"}`},
		{"text", "", "1 + 1 = 2, and it is 12:00 UTC."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the calculator agent's turn on the wire (-want +got):\n%s", diff)
	}
}

// checkResultLayout pins the result file's layout: the top-level keys, the
// id naming, one case result per case and run (run ids 1..N), the summary,
// and that a zero score is never written (omitempty).
func checkResultLayout(t *testing.T, set string, res *trpcEvalSetResult, raw []byte) {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"creationTimestamp", "evalCaseResults", "evalSetId", "evalSetResultId", "evalSetResultName", "summary"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("top-level keys (-want +got):\n%s", diff)
	}
	if res.EvalSetID != set || res.EvalSetResultName != res.EvalSetResultID || !strings.HasPrefix(res.EvalSetResultID, trpcEvalApp+"_"+set+"_") {
		t.Errorf("evalSetId %q, evalSetResultId %q, evalSetResultName %q: want %q, %s_%s_<uuid> twice",
			res.EvalSetID, res.EvalSetResultID, res.EvalSetResultName, set, trpcEvalApp, set)
	}
	if res.CreationTimestamp == nil || res.CreationTimestamp.IsZero() {
		t.Error("no creationTimestamp")
	}
	runs := make(map[string][]int)
	for _, c := range res.EvalCaseResults {
		runs[c.EvalID] = append(runs[c.EvalID], c.RunID)
		if c.EvalSetID != set {
			t.Errorf("case %s run %d: evalSetId %q, want %q", c.EvalID, c.RunID, c.EvalSetID, set)
		}
	}
	for id, ids := range runs {
		if !slices.Equal(ids, []int{1, 2}) {
			t.Errorf("case %s: run ids %v, want [1 2] (cases of run 1, then run 2)", id, ids)
		}
	}
	if s := res.Summary; s == nil || s.NumRuns != trpcEvalRuns || s.OverallStatus != result.EvalFailed || len(s.EvalCaseSummaries) != len(runs) {
		t.Errorf("summary %+v: want numRuns %d, overallStatus failed, one case summary per case", s, trpcEvalRuns)
	}
	if zeros := zeroScores(t, raw); len(zeros) != 0 {
		t.Errorf("zero scores written (the framework omits them): %v", zeros)
	}
}

// zeroScores lists the JSON paths of score fields holding 0.
func zeroScores(t *testing.T, raw []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var zeros []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if n, ok := c.(float64); ok && n == 0 && strings.Contains(strings.ToLower(k), "score") {
					zeros = append(zeros, path+"."+k)
				}
				walk(path+"."+k, c)
			}
		case []any:
			for i, c := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), c)
			}
		}
	}
	walk("$", v)
	return zeros
}

// scoreTolerance is how far proctor's score may be from the reference's.
const scoreTolerance = 1e-9

// compareWithTRPC compares proctor's case results of an eval set with the
// reference tRPC-Agent-Go's evaluator wrote for the same set: for each case
// and run, the case's status, whether it failed with an error, and each
// metric's score (within scoreTolerance) and status, metric by metric. It
// returns the differences, one line each; none when they agree.
func compareWithTRPC(ref, got []*result.CaseResult) []string {
	type key struct {
		id  string
		run int
	}
	index := func(cs []*result.CaseResult) map[key]*result.CaseResult {
		m := make(map[key]*result.CaseResult, len(cs))
		for _, c := range cs {
			m[key{c.EvalID, c.RunID}] = c
		}
		return m
	}
	refs, gots := index(ref), index(got)
	var diffs []string
	for k, r := range refs {
		g, ok := gots[k]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("case %s run %d: missing", k.id, k.run))
			continue
		}
		diffs = append(diffs, compareCaseRun(fmt.Sprintf("case %s run %d", k.id, k.run), r, g)...)
	}
	for k := range gots {
		if _, ok := refs[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("case %s run %d: not in the reference", k.id, k.run))
		}
	}
	slices.Sort(diffs)
	return diffs
}

// compareCaseRun compares one case run with the reference's.
func compareCaseRun(what string, ref, got *result.CaseResult) []string {
	var diffs []string
	if ref.FinalEvalStatus != got.FinalEvalStatus {
		diffs = append(diffs, fmt.Sprintf("%s: status %s, want %s", what, got.FinalEvalStatus, ref.FinalEvalStatus))
	}
	if (ref.ErrorMessage == "") != (got.ErrorMessage == "") {
		diffs = append(diffs, fmt.Sprintf("%s: error %q, want one like %q", what, got.ErrorMessage, ref.ErrorMessage))
	}
	gotMetrics := make(map[string]*result.MetricResult, len(got.OverallEvalMetricResults))
	for _, m := range got.OverallEvalMetricResults {
		gotMetrics[m.MetricName] = m
	}
	for _, r := range ref.OverallEvalMetricResults {
		g, ok := gotMetrics[r.MetricName]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s: metric %s missing", what, r.MetricName))
		case math.Abs(g.Score-r.Score) > scoreTolerance || g.EvalStatus != r.EvalStatus:
			diffs = append(diffs, fmt.Sprintf("%s: metric %s scored %v %s, want %v %s", what, r.MetricName, g.Score, g.EvalStatus, r.Score, r.EvalStatus))
		}
		delete(gotMetrics, r.MetricName)
	}
	for name := range gotMetrics {
		diffs = append(diffs, fmt.Sprintf("%s: metric %s not in the reference", what, name))
	}
	return diffs
}

// checkCompareFindsDifferences holds compareWithTRPC to finding each kind
// of difference in a copy of the reference with one thing changed.
func checkCompareFindsDifferences(t *testing.T, ref []*result.CaseResult) {
	t.Helper()
	cases := []struct {
		name   string
		change func([]*result.CaseResult) []*result.CaseResult
		want   string
	}{
		{"score", func(cs []*result.CaseResult) []*result.CaseResult {
			cs[0].OverallEvalMetricResults[0].Score += 1e-6
			return cs
		}, "metric tool_trajectory_avg_score scored"},
		{"metric-status", func(cs []*result.CaseResult) []*result.CaseResult {
			cs[0].OverallEvalMetricResults[1].EvalStatus = result.EvalNotEvaluated
			return cs
		}, "metric trajectory_ordered scored"},
		{"case-status", func(cs []*result.CaseResult) []*result.CaseResult {
			cs[0].FinalEvalStatus = result.EvalFailed
			return cs
		}, "status failed, want passed"},
		{"missing-metric", func(cs []*result.CaseResult) []*result.CaseResult {
			cs[0].OverallEvalMetricResults = cs[0].OverallEvalMetricResults[1:]
			return cs
		}, "metric tool_trajectory_avg_score missing"},
		{"missing-run", func(cs []*result.CaseResult) []*result.CaseResult { return cs[1:] }, "run 1: missing"},
		{"error", func(cs []*result.CaseResult) []*result.CaseResult {
			cs[0].ErrorMessage = "boom"
			return cs
		}, `error "boom"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			diffs := compareWithTRPC(ref, tc.change(cloneCaseResults(t, ref)))
			if len(diffs) != 1 || !strings.Contains(diffs[0], tc.want) {
				t.Errorf("differences %q: want one containing %q", diffs, tc.want)
			}
		})
	}
}

func cloneCaseResults(t *testing.T, cs []*result.CaseResult) []*result.CaseResult {
	t.Helper()
	b, err := json.Marshal(cs)
	if err != nil {
		t.Fatal(err)
	}
	var out []*result.CaseResult
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkTRPCParity fails t with every difference between proctor's case
// results of a set and the reference's.
func checkTRPCParity(t *testing.T, set string, ref *trpcEvalSetResult, proctor []*result.CaseResult) {
	t.Helper()
	for _, d := range compareWithTRPC(ref.EvalCaseResults, proctor) {
		t.Errorf("set %s: %s", set, d)
	}
}
