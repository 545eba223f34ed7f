package report

// This file holds tRPC-Agent-Go's evalset_result layout (module
// trpc.group/trpc-go/trpc-agent-go/evaluation v1.10.0, package evalresult):
// the types, JSON names and omitempty conventions of its EvalSetResult and
// EvalSetResultSummary, and the summary its evaluator computes over the
// runs (internal/multirun), so that proctor writes the file the framework's
// local result manager would have written for the same case results.
//
// Conventions kept (checked against a file the framework wrote, see
// testdata/trpcgen):
//
//	evalSetResultId     "<appName>_<evalSetId>_<uuid>" (local manager's Save)
//	evalSetResultName   the id
//	creationTimestamp   Unix seconds, fractional (epochtime.EpochTime)
//	zero values         left out: scores of 0, empty counts, empty lists
//	statuses            "passed", "failed", "not_evaluated"; a case run that
//	                    could not be played is "failed" with its errorMessage
//	summary             per run: case status counts, metric averages over the
//	                    cases that evaluated them; per case (sorted by id):
//	                    run status counts, metric averages over the runs
//	                    that evaluated them, each run's metric results
//	                    (sorted by name); a metric passes when its average
//	                    reaches the threshold; any failed status fails the
//	                    whole, and a case with only errors is failed
//	encoding            json.Encoder, two-space indent, HTML escaped, ending
//	                    in a newline

import (
	"slices"
	"sort"
	"strings"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/result"
)

// trpcResultSuffix ends the name of an evalset_result file.
const trpcResultSuffix = ".evalset_result.json"

// trpcEvalSetResult is tRPC's evalresult.EvalSetResult.
type trpcEvalSetResult struct {
	EvalSetResultID   string             `json:"evalSetResultId,omitempty"`
	EvalSetResultName string             `json:"evalSetResultName,omitempty"`
	EvalSetID         string             `json:"evalSetId,omitempty"`
	EvalCaseResults   []*trpcCaseResult  `json:"evalCaseResults,omitempty"`
	Summary           *trpcSummary       `json:"summary,omitempty"`
	CreationTimestamp *evalset.EpochTime `json:"creationTimestamp,omitempty"`
}

// trpcCaseResult is tRPC's evalresult.EvalCaseResult: the tRPC fields of a
// result.CaseResult.
type trpcCaseResult struct {
	EvalSetID                     string                  `json:"evalSetId,omitempty"`
	EvalID                        string                  `json:"evalId,omitempty"`
	RunID                         int                     `json:"runId,omitempty"`
	FinalEvalStatus               result.EvalStatus       `json:"finalEvalStatus,omitempty"`
	ErrorMessage                  string                  `json:"errorMessage,omitempty"`
	OverallEvalMetricResults      []*trpcMetricResult     `json:"overallEvalMetricResults,omitempty"`
	EvalMetricResultPerInvocation []*trpcInvocationResult `json:"evalMetricResultPerInvocation,omitempty"`
	SessionID                     string                  `json:"sessionId,omitempty"`
	UserID                        string                  `json:"userId,omitempty"`
}

// trpcMetricResult is tRPC's evalresult.EvalMetricResult.
type trpcMetricResult struct {
	MetricName string             `json:"metricName,omitempty"`
	Score      float64            `json:"score,omitempty"`
	EvalStatus result.EvalStatus  `json:"evalStatus,omitempty"`
	Threshold  float64            `json:"threshold,omitempty"`
	Criterion  *evalset.Criterion `json:"criterion,omitempty"`
	Details    *trpcDetails       `json:"details,omitempty"`
}

// trpcDetails is tRPC's evalresult.EvalMetricResultDetails (without
// proctor's judge samples).
type trpcDetails struct {
	Reason       string                `json:"reason,omitempty"`
	Score        float64               `json:"score,omitempty"`
	RubricScores []*result.RubricScore `json:"rubricScores,omitempty"`
}

// trpcInvocationResult is tRPC's evalresult.EvalMetricResultPerInvocation.
type trpcInvocationResult struct {
	ActualInvocation   *trpcInvocation     `json:"actualInvocation,omitempty"`
	ExpectedInvocation *trpcInvocation     `json:"expectedInvocation,omitempty"`
	EvalMetricResults  []*trpcMetricResult `json:"evalMetricResults,omitempty"`
}

// trpcInvocation is tRPC's evalset.Invocation (without proctor's YAML
// expectations on tools).
type trpcInvocation struct {
	InvocationID          string             `json:"invocationId,omitempty"`
	ContextMessages       []*evalset.Message `json:"contextMessages,omitempty"`
	UserContent           *evalset.Message   `json:"userContent,omitempty"`
	FinalResponse         *evalset.Message   `json:"finalResponse,omitempty"`
	Tools                 []*trpcTool        `json:"tools,omitempty"`
	IntermediateResponses []*evalset.Message `json:"intermediateResponses,omitempty"`
	CreationTimestamp     *evalset.EpochTime `json:"creationTimestamp,omitempty"`
}

// trpcTool is tRPC's evalset.Tool.
type trpcTool struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments any    `json:"arguments,omitempty"`
	Result    any    `json:"result,omitempty"`
}

// trpcSummary is tRPC's evalresult.EvalSetResultSummary.
type trpcSummary struct {
	OverallStatus     result.EvalStatus  `json:"overallStatus,omitempty"`
	NumRuns           int                `json:"numRuns,omitempty"`
	RunStatusCounts   *trpcCounts        `json:"runStatusCounts,omitempty"`
	RunSummaries      []*trpcRunSummary  `json:"runSummaries,omitempty"`
	EvalCaseSummaries []*trpcCaseSummary `json:"evalCaseSummaries,omitempty"`
}

// trpcRunSummary is tRPC's evalresult.EvalSetRunSummary.
type trpcRunSummary struct {
	RunID            int                  `json:"runId,omitempty"`
	OverallStatus    result.EvalStatus    `json:"overallStatus,omitempty"`
	CaseStatusCounts *trpcCounts          `json:"caseStatusCounts,omitempty"`
	MetricSummaries  []*trpcMetricSummary `json:"metricSummaries,omitempty"`
}

// trpcCaseSummary is tRPC's evalresult.EvalCaseResultSummary.
type trpcCaseSummary struct {
	EvalID          string                `json:"evalId,omitempty"`
	OverallStatus   result.EvalStatus     `json:"overallStatus,omitempty"`
	RunStatusCounts *trpcCounts           `json:"runStatusCounts,omitempty"`
	MetricSummaries []*trpcMetricSummary  `json:"metricSummaries,omitempty"`
	RunSummaries    []*trpcCaseRunSummary `json:"runSummaries,omitempty"`
}

// trpcCaseRunSummary is tRPC's evalresult.EvalCaseRunSummary.
type trpcCaseRunSummary struct {
	RunID           int                    `json:"runId,omitempty"`
	FinalEvalStatus result.EvalStatus      `json:"finalEvalStatus,omitempty"`
	ErrorMessage    string                 `json:"errorMessage,omitempty"`
	MetricResults   []*trpcMetricRunResult `json:"metricResults,omitempty"`
}

// trpcMetricRunResult is tRPC's evalresult.EvalMetricRunSummary.
type trpcMetricRunResult struct {
	MetricName string            `json:"metricName,omitempty"`
	Score      float64           `json:"score,omitempty"`
	EvalStatus result.EvalStatus `json:"evalStatus,omitempty"`
	Threshold  float64           `json:"threshold,omitempty"`
}

// trpcMetricSummary is tRPC's evalresult.EvalMetricSummary.
type trpcMetricSummary struct {
	MetricName   string            `json:"metricName,omitempty"`
	AverageScore float64           `json:"averageScore,omitempty"`
	EvalStatus   result.EvalStatus `json:"evalStatus,omitempty"`
	Threshold    float64           `json:"threshold,omitempty"`
	StatusCounts *trpcCounts       `json:"statusCounts,omitempty"`
}

// trpcCounts is tRPC's evalresult.EvalStatusCounts.
type trpcCounts struct {
	Passed       int `json:"passed,omitempty"`
	Failed       int `json:"failed,omitempty"`
	NotEvaluated int `json:"notEvaluated,omitempty"`
}

// add counts a status the framework knows; others are not counted.
func (c *trpcCounts) add(s result.EvalStatus) {
	switch s {
	case result.EvalPassed:
		c.Passed++
	case result.EvalFailed:
		c.Failed++
	case result.EvalNotEvaluated:
		c.NotEvaluated++
	}
}

// orNil is the counts, or nil when all are zero, as the framework leaves
// empty counts out.
func (c trpcCounts) orNil() *trpcCounts {
	if c == (trpcCounts{}) {
		return nil
	}
	return &c
}

// combineStatuses is the framework's verdict over statuses: failed if any
// failed, else passed if any passed, else not evaluated.
func combineStatuses(statuses []result.EvalStatus) result.EvalStatus {
	combined := result.EvalNotEvaluated
	for _, s := range statuses {
		switch s {
		case result.EvalFailed:
			return result.EvalFailed
		case result.EvalPassed:
			combined = result.EvalPassed
		}
	}
	return combined
}

// trpcStatus is a status as the framework writes it: one it does not know
// ("" or "unknown") is failed for a run that could not be played, as the
// framework records such a run, and not evaluated otherwise.
func trpcStatus(s result.EvalStatus, errored bool) result.EvalStatus {
	switch s {
	case result.EvalPassed, result.EvalFailed, result.EvalNotEvaluated:
		return s
	}
	if errored {
		return result.EvalFailed
	}
	return result.EvalNotEvaluated
}

// newTRPCCaseResult is the tRPC fields of a case run.
func newTRPCCaseResult(cr *result.CaseResult) *trpcCaseResult {
	out := &trpcCaseResult{
		EvalSetID: cr.EvalSetID, EvalID: cr.EvalID, RunID: cr.RunID,
		FinalEvalStatus: trpcStatus(cr.FinalEvalStatus, cr.ErrorMessage != ""),
		ErrorMessage:    cr.ErrorMessage, SessionID: cr.SessionID, UserID: cr.UserID,
		OverallEvalMetricResults: trpcMetricResults(cr.OverallEvalMetricResults),
	}
	for _, ir := range cr.EvalMetricResultPerInvocation {
		if ir == nil {
			continue
		}
		out.EvalMetricResultPerInvocation = append(out.EvalMetricResultPerInvocation, &trpcInvocationResult{
			ActualInvocation:   trpcInvocationOf(ir.ActualInvocation),
			ExpectedInvocation: trpcInvocationOf(ir.ExpectedInvocation),
			EvalMetricResults:  trpcMetricResults(ir.EvalMetricResults),
		})
	}
	return out
}

func trpcMetricResults(ms []*result.MetricResult) []*trpcMetricResult {
	var out []*trpcMetricResult
	for _, m := range ms {
		if m == nil {
			continue
		}
		t := &trpcMetricResult{MetricName: m.MetricName, Score: m.Score, EvalStatus: trpcStatus(m.EvalStatus, false),
			Threshold: m.Threshold, Criterion: m.Criterion}
		if d := m.Details; d != nil {
			t.Details = &trpcDetails{Reason: d.Reason, Score: d.Score, RubricScores: d.RubricScores}
		}
		out = append(out, t)
	}
	return out
}

func trpcInvocationOf(inv *evalset.Invocation) *trpcInvocation {
	if inv == nil {
		return nil
	}
	out := &trpcInvocation{
		InvocationID: inv.ID, ContextMessages: inv.ContextMessages, UserContent: inv.UserContent,
		FinalResponse: inv.FinalResponse, IntermediateResponses: inv.IntermediateResponses, CreationTimestamp: inv.Created,
	}
	for _, t := range inv.Tools {
		if t != nil {
			out.Tools = append(out.Tools, &trpcTool{ID: t.ID, Name: t.Name, Arguments: t.Arguments, Result: t.Result})
		}
	}
	return out
}

// metricTally accumulates one metric's results, as the framework's
// metricAgg: the first threshold seen, statuses counted, scores summed over
// the results that were evaluated.
type metricTally struct {
	threshold float64
	seen      bool
	evaluated int
	sum       float64
	counts    trpcCounts
}

type metricTallies map[string]*metricTally

func (mt metricTallies) add(ms []*trpcMetricResult) {
	for _, m := range ms {
		if m == nil {
			continue
		}
		t := mt[m.MetricName]
		if t == nil {
			t = &metricTally{}
			mt[m.MetricName] = t
		}
		if !t.seen {
			t.threshold, t.seen = m.Threshold, true
		}
		t.counts.add(m.EvalStatus)
		if m.EvalStatus == result.EvalNotEvaluated {
			continue
		}
		t.evaluated++
		t.sum += m.Score
	}
}

// summaries are the metrics' averages, by name.
func (mt metricTallies) summaries() []*trpcMetricSummary {
	var out []*trpcMetricSummary
	for _, name := range sortedKeys(mt) {
		t := mt[name]
		s := &trpcMetricSummary{MetricName: name, EvalStatus: result.EvalNotEvaluated, Threshold: t.threshold, StatusCounts: t.counts.orNil()}
		if t.evaluated > 0 {
			s.AverageScore = t.sum / float64(t.evaluated)
			s.EvalStatus = result.EvalFailed
			if s.AverageScore >= t.threshold {
				s.EvalStatus = result.EvalPassed
			}
		}
		out = append(out, s)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// summarizeTRPC computes the framework's summary of a set's case runs over
// numRuns runs (run ids 1..numRuns; a larger id found raises it).
func summarizeTRPC(cases []*trpcCaseResult, numRuns int) *trpcSummary {
	byRun := map[int][]*trpcCaseResult{}
	for _, c := range cases {
		byRun[c.RunID] = append(byRun[c.RunID], c)
		numRuns = max(numRuns, c.RunID)
	}
	numRuns = max(numRuns, 1)
	s := &trpcSummary{NumRuns: numRuns}
	var runCounts trpcCounts
	for run := 1; run <= numRuns; run++ {
		rs := trpcRunSummaryOf(run, byRun[run])
		runCounts.add(rs.OverallStatus)
		s.RunSummaries = append(s.RunSummaries, rs)
	}
	s.RunStatusCounts = runCounts.orNil()
	s.EvalCaseSummaries = trpcCaseSummaries(byRun, numRuns)
	statuses := make([]result.EvalStatus, len(s.EvalCaseSummaries))
	for i, cs := range s.EvalCaseSummaries {
		statuses[i] = cs.OverallStatus
	}
	s.OverallStatus = combineStatuses(statuses)
	return s
}

func trpcRunSummaryOf(run int, cases []*trpcCaseResult) *trpcRunSummary {
	var counts trpcCounts
	statuses := make([]result.EvalStatus, 0, len(cases))
	tallies := metricTallies{}
	for _, c := range cases {
		statuses = append(statuses, c.FinalEvalStatus)
		counts.add(c.FinalEvalStatus)
		tallies.add(c.OverallEvalMetricResults)
	}
	return &trpcRunSummary{RunID: run, OverallStatus: combineStatuses(statuses), CaseStatusCounts: counts.orNil(), MetricSummaries: tallies.summaries()}
}

// trpcCaseSummaries summarizes each case over its runs, sorted by case id.
func trpcCaseSummaries(byRun map[int][]*trpcCaseResult, numRuns int) []*trpcCaseSummary {
	type caseTally struct {
		counts  trpcCounts
		errored bool
		runs    []*trpcCaseRunSummary
		metrics metricTallies
	}
	tallies := map[string]*caseTally{}
	for run := 1; run <= numRuns; run++ {
		for _, c := range byRun[run] {
			t := tallies[c.EvalID]
			if t == nil {
				t = &caseTally{metrics: metricTallies{}}
				tallies[c.EvalID] = t
			}
			t.errored = t.errored || c.ErrorMessage != ""
			t.counts.add(c.FinalEvalStatus)
			t.runs = append(t.runs, &trpcCaseRunSummary{RunID: run, FinalEvalStatus: c.FinalEvalStatus,
				ErrorMessage: c.ErrorMessage, MetricResults: trpcMetricRunResults(c.OverallEvalMetricResults)})
			t.metrics.add(c.OverallEvalMetricResults)
		}
	}
	out := make([]*trpcCaseSummary, 0, len(tallies))
	for _, id := range sortedKeys(tallies) {
		t := tallies[id]
		ms := t.metrics.summaries()
		statuses := make([]result.EvalStatus, len(ms))
		for i, m := range ms {
			statuses[i] = m.EvalStatus
		}
		status := combineStatuses(statuses)
		if status == result.EvalNotEvaluated && t.errored {
			status = result.EvalFailed
		}
		out = append(out, &trpcCaseSummary{EvalID: id, OverallStatus: status, RunStatusCounts: t.counts.orNil(), MetricSummaries: ms, RunSummaries: t.runs})
	}
	return out
}

func trpcMetricRunResults(ms []*trpcMetricResult) []*trpcMetricRunResult {
	if len(ms) == 0 {
		return nil
	}
	out := make([]*trpcMetricRunResult, 0, len(ms))
	for _, m := range ms {
		if m != nil {
			out = append(out, &trpcMetricRunResult{MetricName: m.MetricName, Score: m.Score, EvalStatus: m.EvalStatus, Threshold: m.Threshold})
		}
	}
	slices.SortStableFunc(out, func(a, b *trpcMetricRunResult) int { return strings.Compare(a.MetricName, b.MetricName) })
	return out
}
