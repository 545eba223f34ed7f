package result

import (
	"encoding/json"
	"time"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/measure"
)

// EvalStatus is a metric's, an invocation's or a case's verdict, spelled as
// tRPC-Agent-Go's status.EvalStatus.
type EvalStatus string

// Eval statuses.
const (
	EvalPassed       EvalStatus = "passed"
	EvalFailed       EvalStatus = "failed"
	EvalNotEvaluated EvalStatus = "not_evaluated"
	EvalUnknown      EvalStatus = "unknown"
)

// The types below mirror tRPC-Agent-Go's evalresult package, JSON names and
// omitempty conventions included (a zero score is left out), so that a case
// result is written in its evalset_result layout as it is; the fields proctor
// adds come after them and are left out of that layout.

// MetricResult is one metric's score and verdict (tRPC's EvalMetricResult).
type MetricResult struct {
	MetricName string             `json:"metricName,omitempty"`
	Score      float64            `json:"score,omitempty"`
	EvalStatus EvalStatus         `json:"evalStatus,omitempty"`
	Threshold  float64            `json:"threshold,omitempty"`
	Criterion  *evalset.Criterion `json:"criterion,omitempty"`
	Details    *MetricDetails     `json:"details,omitempty"`
}

// MetricDetails explain a score: a mismatch's reason, a judge's reasoning
// and its verdict on each rubric.
type MetricDetails struct {
	Reason       string         `json:"reason,omitempty"`
	Score        float64        `json:"score,omitempty"`
	RubricScores []*RubricScore `json:"rubricScores,omitempty"`
	// Samples are an LLM judge's votes, the representative one first
	// (proctor's addition).
	Samples []*JudgeSample `json:"samples,omitempty"`
}

// RubricScore is a judge's verdict on one rubric.
type RubricScore struct {
	ID     string  `json:"id,omitempty"`
	Reason string  `json:"reason,omitempty"`
	Score  float64 `json:"score,omitempty"`
}

// JudgeSample is one vote of an LLM judge.
type JudgeSample struct {
	Score        float64        `json:"score"`
	Passed       bool           `json:"passed"`
	Reason       string         `json:"reason,omitempty"`
	RubricScores []*RubricScore `json:"rubric_scores,omitempty"`
}

// InvocationResult is the metrics' verdicts on one invocation, with what was
// expected and what the agent did (tRPC's EvalMetricResultPerInvocation).
type InvocationResult struct {
	ActualInvocation   *evalset.Invocation `json:"actualInvocation,omitempty"`
	ExpectedInvocation *evalset.Invocation `json:"expectedInvocation,omitempty"`
	EvalMetricResults  []*MetricResult     `json:"evalMetricResults,omitempty"`
}

// CaseResult is one run of one case: its verdict per metric and per
// invocation (tRPC's EvalCaseResult), and what proctor recorded playing it.
type CaseResult struct {
	EvalSetID                     string              `json:"evalSetId,omitempty"`
	EvalID                        string              `json:"evalId,omitempty"`
	RunID                         int                 `json:"runId,omitempty"`
	FinalEvalStatus               EvalStatus          `json:"finalEvalStatus,omitempty"`
	ErrorMessage                  string              `json:"errorMessage,omitempty"`
	OverallEvalMetricResults      []*MetricResult     `json:"overallEvalMetricResults,omitempty"`
	EvalMetricResultPerInvocation []*InvocationResult `json:"evalMetricResultPerInvocation,omitempty"`
	SessionID                     string              `json:"sessionId,omitempty"`
	UserID                        string              `json:"userId,omitempty"`

	// ID is the stored record's id: "<evalSetId>/<evalId>#<runId>".
	ID string `json:"id,omitempty"`
	// Actual is what the agent did, turn by turn; Expected what the case
	// expected (for a trace-mode case, the user contents only).
	Actual   []*evalset.Invocation `json:"actual,omitempty"`
	Expected []*evalset.Invocation `json:"expected,omitempty"`
	// Turns are what proctor saw of each invocation on the wire.
	Turns []Turn `json:"turns,omitempty"`
	// Metrics are the case's request metrics.
	Metrics       Metrics   `json:"metrics,omitzero"`
	NonConformant []string  `json:"non_conformant,omitempty"`
	StartedAt     time.Time `json:"started_at,omitzero"`
	DurationMS    float64   `json:"duration_ms,omitempty"`
	// LLMCalls are the judges' and the user simulator's model calls.
	LLMCalls []measure.LLMCall `json:"llm_calls,omitempty"`
	// Inspections are what an ECP agent's agent/inspect returned after the
	// case's last invocation, one per inspect assertion, in order: the
	// "ecp_inspect" metric is scored from them.
	Inspections []Inspection `json:"inspections,omitempty"`
	// Requests are the per-request metrics, stored apart.
	Requests []measure.Request `json:"-"`
}

// Inspection is one agent/inspect call: the path asked for and the value
// the agent returned (raw JSON), or why there is none.
type Inspection struct {
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
	Error string          `json:"error,omitempty"`
}

// MetricECPInspect names the metric-like check a case's inspect assertions
// are reported as: score 1 when every assertion holds, else the share that
// holds; threshold 1.
const MetricECPInspect = "ecp_inspect"

// Turn is what proctor saw of one invocation: how long the agent took, what
// it said along the way and what it kept private.
type Turn struct {
	LatencyMS    float64 `json:"latency_ms"`
	InputTokens  int64   `json:"input_tokens,omitempty"`
	OutputTokens int64   `json:"output_tokens,omitempty"`
	// State is the A2A task state the turn ended in ("" for a message).
	State string `json:"state,omitempty"`
	// Status is the HTTP status or gRPC code of the turn's last request.
	Status string `json:"status,omitempty"`
	// Thoughts are text parts the agent marked as thoughts: recorded, never
	// shown to a judge or a user simulator.
	Thoughts []string `json:"thoughts,omitempty"`
	// Error is why the turn failed, if it did.
	Error string `json:"error,omitempty"`
}

// CaseSummary is a case over all its runs: metric scores averaged over runs
// (tRPC's run summary), the verdict they give, and pass@k / pass^k.
type CaseSummary struct {
	EvalSetID string          `json:"eval_set_id"`
	EvalID    string          `json:"eval_id"`
	Status    EvalStatus      `json:"status"`
	Metrics   []*MetricResult `json:"metrics,omitempty"`
	Runs      int             `json:"runs"`
	Passed    int             `json:"passed"`
	// Errors counts runs that could not be played or scored.
	Errors   int                `json:"errors,omitempty"`
	PassAtK  map[string]float64 `json:"pass_at_k,omitempty"`
	PassHatK map[string]float64 `json:"pass_hat_k,omitempty"`
	// PassRateCI95 is the 95% confidence interval of the pass rate.
	PassRateCI95 Interval `json:"pass_rate_ci95"`
	// Flaky is set when the case's runs disagree.
	Flaky bool `json:"flaky,omitempty"`
}

// EvalSetSummary is a run's totals.
type EvalSetSummary struct {
	NumSets  int `json:"num_sets"`
	NumCases int `json:"num_cases"`
	NumRuns  int `json:"num_runs"`
	// Passed, Failed and Errors count cases by their verdict over all runs.
	Passed int           `json:"passed"`
	Failed int           `json:"failed"`
	Errors int           `json:"errors"`
	Flaky  []string      `json:"flaky,omitempty"`
	Cases  []CaseSummary `json:"cases"`
	// MetricAverages is each metric's average score over all case runs.
	MetricAverages map[string]float64 `json:"metric_averages,omitempty"`
}

// EvalSetInfo names an eval set a run played.
type EvalSetInfo struct {
	ID       string         `json:"id"`
	AppName  string         `json:"app_name,omitempty"`
	Name     string         `json:"name,omitempty"`
	Format   evalset.Format `json:"format"`
	Path     string         `json:"path,omitempty"`
	NumCases int            `json:"num_cases"`
	// Metrics are the metrics the set was scored with.
	Metrics []*evalset.Metric `json:"metrics,omitempty"`
	// Cases are the set's cases as played, so that the run can be scored
	// again without the files.
	Cases []*evalset.Case `json:"cases,omitempty"`
}

// EvalSetConfig is how an eval-set run was asked for.
type EvalSetConfig struct {
	Agent       string   `json:"agent"`
	Paths       []string `json:"paths,omitempty"`
	MetricsFile string   `json:"metrics_file,omitempty"`
	NumRuns     int      `json:"num_runs"`
	Concurrency int      `json:"concurrency"`
	Transport   string   `json:"transport,omitempty"`
	Protocol    string   `json:"protocol,omitempty"`
	Streaming   string   `json:"streaming,omitempty"`
	JudgeModel  string   `json:"judge_model,omitempty"`
	UserModel   string   `json:"user_model,omitempty"`
	Timeout     Duration `json:"timeout"`
	// RequestTimeout bounds one request to the agent.
	RequestTimeout Duration `json:"request_timeout"`
	// HeaderNames lists the extra request headers by name only: their
	// values are never stored.
	HeaderNames []string `json:"header_names,omitempty"`
}

// EvalSetRun is one run of one or more eval sets against an agent: every
// case x run, scored.
type EvalSetRun struct {
	ID         string         `json:"id"`
	Status     Status         `json:"status"`
	Agent      AgentInfo      `json:"agent"`
	Config     EvalSetConfig  `json:"config"`
	Sets       []EvalSetInfo  `json:"sets"`
	CreatedAt  time.Time      `json:"created_at"`
	UpdatedAt  time.Time      `json:"updated_at"`
	FinishedAt *time.Time     `json:"finished_at,omitempty"`
	Error      string         `json:"error,omitempty"`
	Summary    EvalSetSummary `json:"summary"`
	Metrics    Metrics        `json:"metrics"`
	Cases      []*CaseResult  `json:"cases"`
	// RescoredFrom is the id of the run whose recorded invocations this one
	// scored again (proctor evalset rescore).
	RescoredFrom string `json:"rescored_from,omitempty"`
}
