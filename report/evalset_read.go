package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/result"
)

// Bounds on what ReadEvalSetRun and ReadEvalSetBaseline read.
const (
	// MaxEvalSetRunBytes bounds one file read as a run or a result.
	MaxEvalSetRunBytes = 256 << 20
	// MaxEvalSetResultFiles bounds the evalset_result files of a directory.
	MaxEvalSetResultFiles = 10000
	// MaxEvalSetRuns bounds the runs of a case (a run id, num_runs).
	MaxEvalSetRuns = 10000
)

// ReadEvalSetRun reads a run written by WriteEvalSetRun's JSON (proctor
// evalset run --format json), or one tRPC-Agent-Go evalset_result.json
// (also in the framework's legacy layout, the JSON as a string), for use as
// a baseline. A tRPC result becomes a run of its one eval set whose case
// summaries are the framework's (see CompareEvalSets); its app name is read
// from its evalSetResultId. Input beyond MaxEvalSetRunBytes is refused.
func ReadEvalSetRun(r io.Reader) (*result.EvalSetRun, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxEvalSetRunBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read eval-set run: %w", err)
	}
	if len(data) > MaxEvalSetRunBytes {
		return nil, fmt.Errorf("eval-set run is larger than %d bytes: give a smaller file", MaxEvalSetRunBytes)
	}
	return decodeEvalSetRun(data, "")
}

// ReadEvalSetBaseline reads a baseline from path: a file as ReadEvalSetRun
// reads it, or a directory of tRPC-Agent-Go results
// (<appName>/*.evalset_result.json at any depth), merged into one run. When
// a directory holds several results of one eval set, the newest (by
// creationTimestamp, then name) is taken.
func ReadEvalSetBaseline(path string) (*result.EvalSetRun, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	if !info.IsDir() {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, MaxEvalSetRunBytes+1))
		if err != nil {
			return nil, fmt.Errorf("baseline %s: %w", path, err)
		}
		if len(data) > MaxEvalSetRunBytes {
			return nil, fmt.Errorf("baseline %s is larger than %d bytes", path, MaxEvalSetRunBytes)
		}
		run, err := decodeEvalSetRun(data, appFromPath(path))
		if err != nil {
			return nil, fmt.Errorf("baseline %s: %w", path, err)
		}
		return run, nil
	}
	return readTRPCDir(path)
}

// appFromPath is the app name a result file's directory gives it
// (<appName>/<id>.evalset_result.json), or "" for another file.
func appFromPath(path string) string {
	if !strings.HasSuffix(path, trpcResultSuffix) {
		return ""
	}
	return filepath.Base(filepath.Dir(path))
}

// decodeEvalSetRun tells the layouts apart and decodes data; app, when
// given, is the app name of a tRPC result.
func decodeEvalSetRun(data []byte, app string) (*result.EvalSetRun, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var inner string
		if err := json.Unmarshal(data, &inner); err != nil {
			return nil, fmt.Errorf("eval-set result is a JSON string that does not decode: %w", err)
		}
		data = bytes.TrimSpace([]byte(inner))
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, fmt.Errorf("eval-set run is not a JSON object: %w (want proctor evalset run --format json output or a tRPC-Agent-Go evalset_result.json)", err)
	}
	switch {
	case has(keys, "evalSetResultId", "evalCaseResults", "evalSetId"):
		res, err := decodeTRPC(data)
		if err != nil {
			return nil, err
		}
		return runFromTRPC([]*trpcEvalSetResult{res}, []string{app})
	case has(keys, "cases", "sets", "summary"):
		var run result.EvalSetRun
		if err := json.Unmarshal(data, &run); err != nil {
			return nil, fmt.Errorf("eval-set run does not decode: %w", err)
		}
		if err := checkRun(&run); err != nil {
			return nil, err
		}
		return &run, nil
	}
	return nil, errors.New("neither a proctor eval-set run (proctor evalset run --format json) nor a tRPC-Agent-Go evalset_result.json: it has none of their fields")
}

func has(keys map[string]json.RawMessage, names ...string) bool {
	for _, n := range names {
		if _, ok := keys[n]; ok {
			return true
		}
	}
	return false
}

// checkRun refuses a run whose case runs or summaries do not say which case
// they are.
func checkRun(run *result.EvalSetRun) error {
	if run.Config.NumRuns < 0 || run.Config.NumRuns > MaxEvalSetRuns {
		return fmt.Errorf("eval-set run: config.num_runs %d is not between 0 and %d", run.Config.NumRuns, MaxEvalSetRuns)
	}
	for i, cr := range run.Cases {
		if cr == nil || cr.EvalSetID == "" || cr.EvalID == "" {
			return fmt.Errorf("eval-set run: cases[%d] has no evalSetId or evalId", i)
		}
		if cr.RunID < 0 || cr.RunID > MaxEvalSetRuns {
			return fmt.Errorf("eval-set run: cases[%d] has runId %d, not between 0 and %d", i, cr.RunID, MaxEvalSetRuns)
		}
	}
	for i, cs := range run.Summary.Cases {
		if cs.EvalSetID == "" || cs.EvalID == "" {
			return fmt.Errorf("eval-set run: summary.cases[%d] has no eval_set_id or eval_id", i)
		}
	}
	return nil
}

// decodeTRPC decodes a tRPC result and checks it names its set and cases.
func decodeTRPC(data []byte) (*trpcEvalSetResult, error) {
	var res trpcEvalSetResult
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("tRPC-Agent-Go eval-set result does not decode: %w", err)
	}
	if res.EvalSetID == "" {
		return nil, errors.New("tRPC-Agent-Go eval-set result has no evalSetId")
	}
	if res.Summary != nil && (res.Summary.NumRuns < 0 || res.Summary.NumRuns > MaxEvalSetRuns) {
		return nil, fmt.Errorf("tRPC-Agent-Go eval-set result %s: summary.numRuns %d is not between 0 and %d", res.EvalSetID, res.Summary.NumRuns, MaxEvalSetRuns)
	}
	for i, c := range res.EvalCaseResults {
		if c == nil || c.EvalID == "" {
			return nil, fmt.Errorf("tRPC-Agent-Go eval-set result %s: evalCaseResults[%d] has no evalId", res.EvalSetID, i)
		}
		if c.RunID <= 0 {
			c.RunID = 1
		}
		if c.RunID > MaxEvalSetRuns {
			return nil, fmt.Errorf("tRPC-Agent-Go eval-set result %s: evalCaseResults[%d] has runId %d, beyond %d", res.EvalSetID, i, c.RunID, MaxEvalSetRuns)
		}
		if c.EvalSetID == "" {
			c.EvalSetID = res.EvalSetID
		}
	}
	return &res, nil
}

// readTRPCDir reads every evalset_result file under dir, keeping the
// newest of each set.
func readTRPCDir(dir string) (*result.EvalSetRun, error) {
	type found struct {
		res *trpcEvalSetResult
		app string
		at  time.Time
	}
	newest := map[string]found{}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, trpcResultSuffix) {
			return err
		}
		if files++; files > MaxEvalSetResultFiles {
			return fmt.Errorf("more than %d result files: point at one app's directory or file", MaxEvalSetResultFiles)
		}
		res, err := readTRPCFile(path)
		if err != nil {
			return err
		}
		f := found{res: res, app: appFromPath(path)}
		if res.CreationTimestamp != nil {
			f.at = res.CreationTimestamp.Time
		}
		key := f.app + "\x00" + res.EvalSetID
		if prev, ok := newest[key]; !ok || f.at.After(prev.at) || (f.at.Equal(prev.at) && res.EvalSetResultID > prev.res.EvalSetResultID) {
			newest[key] = f
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", dir, err)
	}
	if len(newest) == 0 {
		return nil, fmt.Errorf("baseline %s holds no *%s file", dir, trpcResultSuffix)
	}
	var results []*trpcEvalSetResult
	var apps []string
	for _, k := range sortedKeys(newest) {
		results = append(results, newest[k].res)
		apps = append(apps, newest[k].app)
	}
	return runFromTRPC(results, apps)
}

func readTRPCFile(path string) (*trpcEvalSetResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxEvalSetRunBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxEvalSetRunBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, MaxEvalSetRunBytes)
	}
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var inner string
		if err := json.Unmarshal(data, &inner); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		data = []byte(inner)
	}
	res, err := decodeTRPC(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

// trpcApp is a result's app name: given, else read from its id
// "<appName>_<evalSetId>_<uuid>", else the set's id.
func trpcApp(res *trpcEvalSetResult, given string) string {
	if given != "" {
		return given
	}
	if i := strings.LastIndex(res.EvalSetResultID, "_"+res.EvalSetID+"_"); i > 0 {
		return res.EvalSetResultID[:i]
	}
	return res.EvalSetID
}

// runFromTRPC makes one run of tRPC results: their case runs, and case
// summaries from the framework's summary (computed when a file has none).
func runFromTRPC(results []*trpcEvalSetResult, apps []string) (*result.EvalSetRun, error) {
	run := &result.EvalSetRun{Status: result.StatusCompleted}
	var ids []string
	numRuns := 0
	for i, res := range results {
		ids = append(ids, res.EvalSetResultID)
		run.Sets = append(run.Sets, result.EvalSetInfo{ID: res.EvalSetID, AppName: trpcApp(res, apps[i]), Format: evalset.FormatTRPC})
		if res.CreationTimestamp != nil && res.CreationTimestamp.After(run.CreatedAt) {
			run.CreatedAt = res.CreationTimestamp.Time
		}
		for _, c := range res.EvalCaseResults {
			run.Cases = append(run.Cases, caseFromTRPC(c))
		}
		sum := res.Summary
		if sum == nil {
			sum = summarizeTRPC(res.EvalCaseResults, 0)
		}
		numRuns = max(numRuns, sum.NumRuns)
		cases := caseSummariesFromTRPC(res.EvalSetID, sum)
		run.Sets[i].NumCases = len(cases)
		run.Summary.Cases = append(run.Summary.Cases, cases...)
	}
	run.ID = strings.Join(ids, "+")
	run.UpdatedAt = run.CreatedAt
	run.Config.NumRuns = numRuns
	run.Summary = totalEvalSets(run.Summary.Cases, run.Cases, len(run.Sets), numRuns)
	return run, nil
}

func caseFromTRPC(c *trpcCaseResult) *result.CaseResult {
	cr := &result.CaseResult{
		EvalSetID: c.EvalSetID, EvalID: c.EvalID, RunID: c.RunID, FinalEvalStatus: c.FinalEvalStatus,
		ErrorMessage: c.ErrorMessage, SessionID: c.SessionID, UserID: c.UserID,
		OverallEvalMetricResults: metricsFromTRPC(c.OverallEvalMetricResults),
		ID:                       fmt.Sprintf("%s/%s#%d", c.EvalSetID, c.EvalID, c.RunID),
	}
	for _, ir := range c.EvalMetricResultPerInvocation {
		if ir == nil {
			continue
		}
		cr.EvalMetricResultPerInvocation = append(cr.EvalMetricResultPerInvocation, &result.InvocationResult{
			ActualInvocation: invocationFromTRPC(ir.ActualInvocation), ExpectedInvocation: invocationFromTRPC(ir.ExpectedInvocation),
			EvalMetricResults: metricsFromTRPC(ir.EvalMetricResults),
		})
	}
	return cr
}

func metricsFromTRPC(ms []*trpcMetricResult) []*result.MetricResult {
	var out []*result.MetricResult
	for _, m := range ms {
		if m == nil {
			continue
		}
		r := &result.MetricResult{MetricName: m.MetricName, Score: m.Score, EvalStatus: m.EvalStatus, Threshold: m.Threshold, Criterion: m.Criterion}
		if d := m.Details; d != nil {
			r.Details = &result.MetricDetails{Reason: d.Reason, Score: d.Score, RubricScores: d.RubricScores}
		}
		out = append(out, r)
	}
	return out
}

func invocationFromTRPC(inv *trpcInvocation) *evalset.Invocation {
	if inv == nil {
		return nil
	}
	out := &evalset.Invocation{ID: inv.InvocationID, ContextMessages: inv.ContextMessages, UserContent: inv.UserContent,
		FinalResponse: inv.FinalResponse, IntermediateResponses: inv.IntermediateResponses, Created: inv.CreationTimestamp}
	for _, t := range inv.Tools {
		if t != nil {
			out.Tools = append(out.Tools, &evalset.Tool{ID: t.ID, Name: t.Name, Arguments: t.Arguments, Result: t.Result})
		}
	}
	return out
}

// caseSummariesFromTRPC reads the framework's case summaries: averaged
// metrics and verdict, runs passed, runs that could not be played, and
// pass@k / pass^k computed from the run counts.
func caseSummariesFromTRPC(setID string, sum *trpcSummary) []result.CaseSummary {
	out := make([]result.CaseSummary, 0, len(sum.EvalCaseSummaries))
	for _, cs := range sum.EvalCaseSummaries {
		if cs == nil {
			continue
		}
		s := result.CaseSummary{EvalSetID: setID, EvalID: cs.EvalID, Status: cs.OverallStatus}
		for _, r := range cs.RunSummaries {
			if r == nil {
				continue
			}
			s.Runs++
			if r.FinalEvalStatus == result.EvalPassed {
				s.Passed++
			}
			if r.ErrorMessage != "" {
				s.Errors++
			}
		}
		for _, m := range cs.MetricSummaries {
			if m == nil {
				continue
			}
			s.Metrics = append(s.Metrics, &result.MetricResult{MetricName: m.MetricName, Score: m.AverageScore, EvalStatus: m.EvalStatus, Threshold: m.Threshold})
		}
		s.PassAtK, s.PassHatK = passKs(s.Runs, s.Passed)
		s.PassRateCI95 = wilson95(s.Passed, s.Runs)
		s.Flaky = s.Passed > 0 && s.Passed < s.Runs
		out = append(out, s)
	}
	return out
}

// passKs are pass@k (some of k runs pass) and pass^k (all k pass), the
// unbiased estimates from c passes in n runs, for k = 1 and k = n.
func passKs(n, c int) (at, hat map[string]float64) {
	if n <= 0 || c < 0 || c > n {
		return nil, nil
	}
	at, hat = map[string]float64{}, map[string]float64{}
	for _, k := range []int{1, n} {
		key := strconv.Itoa(k)
		at[key] = round6(1 - chooseRatio(n-c, n, k))
		hat[key] = round6(chooseRatio(c, n, k))
	}
	return at, hat
}

// chooseRatio is C(m, k) / C(n, k) for m <= n, as a product that neither
// overflows nor loses precision.
func chooseRatio(m, n, k int) float64 {
	if k > m {
		return 0
	}
	r := 1.0
	for i := 0; i < k; i++ {
		r *= float64(m-i) / float64(n-i)
	}
	return r
}

// wilson95 is the Wilson score 95% interval of c passes in n runs.
func wilson95(c, n int) result.Interval {
	if n == 0 {
		return result.Interval{}
	}
	const z = 1.959964
	p, nf := float64(c)/float64(n), float64(n)
	den := 1 + z*z/nf
	centre := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return result.Interval{Low: round6(math.Max(0, centre-half)), High: round6(math.Min(1, centre+half))}
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// totalEvalSets totals case summaries into a run summary: cases by
// outcome, the flaky ones, and each metric's average over the case runs
// that evaluated it.
func totalEvalSets(cases []result.CaseSummary, runs []*result.CaseResult, numSets, numRuns int) result.EvalSetSummary {
	s := result.EvalSetSummary{NumSets: numSets, NumCases: len(cases), NumRuns: numRuns, Cases: cases}
	for _, c := range cases {
		switch outcomeOf(c) {
		case OutcomePassed:
			s.Passed++
		case OutcomeError:
			s.Errors++
		default:
			s.Failed++
		}
		if c.Flaky {
			s.Flaky = append(s.Flaky, c.EvalSetID+"/"+c.EvalID)
		}
	}
	sums, counts := map[string]float64{}, map[string]int{}
	for _, cr := range runs {
		for _, m := range cr.OverallEvalMetricResults {
			if m != nil && m.EvalStatus != result.EvalNotEvaluated {
				sums[m.MetricName] += m.Score
				counts[m.MetricName]++
			}
		}
	}
	if len(sums) > 0 {
		s.MetricAverages = map[string]float64{}
		for _, k := range sortedKeys(sums) {
			s.MetricAverages[k] = round6(sums[k] / float64(counts[k]))
		}
	}
	sort.Strings(s.Flaky)
	return s
}
