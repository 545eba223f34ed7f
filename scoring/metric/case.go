package metric

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
)

// reasonSeparator joins the per-invocation reasons of a metric's overall
// result, as tRPC-Agent-Go does.
const reasonSeparator = ";"

func invocationDetails(reason string, score float64) *result.MetricDetails {
	return &result.MetricDetails{Reason: reason, Score: score}
}

// ScoreCase scores one run of a case, as tRPC-Agent-Go's evaluation service
// does: every metric scores the actual invocations against the expected
// ones turn by turn, a metric passing when its score reaches its
// threshold, and the case passing when no metric failed and one passed
// (not_evaluated when none was evaluated).
//
// Expected is c.Conversation. actual is what the agent did; for a
// trace-mode case an empty actual means the case's recorded
// actualConversation, else its conversation, and the expected side keeps
// only the user contents unless both were recorded. A scenario case (played
// by a simulated user) expects only the user contents it produced. Case
// metrics (c.Metrics) replace the metric of the same name; case rubrics
// are added to their metric's judge rubrics.
//
// A case that cannot be scored (turn counts differ, an evaluator or judge
// fails) is failed with its ErrorMessage set and no metric results, as the
// reference does. The error is only the context's. EvalSetID, RunID and
// SessionID are left for the caller; LLMCalls gets the judges' calls, which
// also go to the context's ledger if it has one.
func (s *Scorer) ScoreCase(ctx context.Context, c *evalset.Case, actual []*evalset.Invocation, metrics []*evalset.Metric) (*result.CaseResult, error) {
	res := &result.CaseResult{EvalID: c.ID}
	if c.SessionInput != nil {
		res.UserID = c.SessionInput.UserID
	}
	actuals, expecteds, err := caseInputs(c, actual)
	res.Actual, res.Expected = actuals, expecteds
	if err != nil {
		return failed(res, err), nil
	}
	ledger := &llm.Ledger{}
	outer := llm.LedgerFrom(ctx)
	defer func() {
		res.LLMCalls = append(res.LLMCalls, ledger.Calls()...)
		if outer != nil {
			for _, call := range ledger.Calls() {
				outer.Add(call)
			}
		}
	}()
	err = s.scoreMetrics(llm.WithLedger(ctx, ledger), res, c, actuals, expecteds, metrics)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, fmt.Errorf("scoring case %s: %w", c.ID, ctxErr)
	}
	if err != nil {
		return failed(res, err), nil
	}
	return res, nil
}

// failed is a case that could not be scored.
func failed(res *result.CaseResult, err error) *result.CaseResult {
	res.FinalEvalStatus = result.EvalFailed
	res.ErrorMessage = err.Error()
	res.OverallEvalMetricResults, res.EvalMetricResultPerInvocation = nil, nil
	return res
}

// scoreMetrics runs every effective metric and fills the case's results.
func (s *Scorer) scoreMetrics(ctx context.Context, res *result.CaseResult, c *evalset.Case, actuals, expecteds []*evalset.Invocation, metrics []*evalset.Metric) error {
	effective, err := effectiveMetrics(c, metrics)
	if err != nil {
		return err
	}
	res.EvalMetricResultPerInvocation = make([]*result.InvocationResult, len(actuals))
	for i := range actuals {
		res.EvalMetricResultPerInvocation[i] = &result.InvocationResult{ActualInvocation: actuals[i], ExpectedInvocation: expecteds[i]}
	}
	for _, m := range effective {
		ev, ok := evaluators[m.Evaluator()]
		if !ok {
			return fmt.Errorf("metric %s: unknown evaluator %q (known: %s)", m.Name, m.Evaluator(), strings.Join(Evaluators(), ", "))
		}
		out, err := ev.evaluate(ctx, s, m, actuals, expecteds)
		if err != nil {
			return fmt.Errorf("run evaluation for metric %s: %w", m.Name, err)
		}
		if len(out.perInvocation) != len(actuals) {
			return fmt.Errorf("metric %s returned %d per-invocation results, expected %d", m.Name, len(out.perInvocation), len(actuals))
		}
		res.OverallEvalMetricResults = append(res.OverallEvalMetricResults, record(res, m, out))
	}
	res.FinalEvalStatus = summarizeStatuses(res.OverallEvalMetricResults)
	return nil
}

// record adds a metric's per-invocation results to the case and returns
// its overall result, whose reason joins the invocations' and whose rubric
// scores are theirs in turn.
func record(res *result.CaseResult, m *evalset.Metric, out *outcome) *result.MetricResult {
	overall := &result.MetricResult{MetricName: m.Name, Threshold: m.Threshold, Criterion: m.Criterion, Score: out.score, EvalStatus: out.status,
		Details: &result.MetricDetails{Score: out.score}}
	reasons := make([]string, 0, len(out.perInvocation))
	for i, p := range out.perInvocation {
		r := &result.MetricResult{MetricName: m.Name, Threshold: m.Threshold, Criterion: m.Criterion, Score: p.score, EvalStatus: p.status, Details: p.details}
		if p.details != nil {
			reasons = append(reasons, p.details.Reason)
			overall.Details.RubricScores = append(overall.Details.RubricScores, p.details.RubricScores...)
		}
		res.EvalMetricResultPerInvocation[i].EvalMetricResults = append(res.EvalMetricResultPerInvocation[i].EvalMetricResults, r)
	}
	overall.Details.Reason = strings.Join(reasons, reasonSeparator)
	return overall
}

// summarizeStatuses is the case's verdict from its metrics': failed if any
// failed, else passed if any passed, else not_evaluated.
func summarizeStatuses(results []*result.MetricResult) result.EvalStatus {
	status := result.EvalNotEvaluated
	for _, r := range results {
		switch r.EvalStatus {
		case result.EvalFailed:
			return result.EvalFailed
		case result.EvalPassed:
			status = result.EvalPassed
		case result.EvalNotEvaluated:
		default:
			return result.EvalFailed
		}
	}
	return status
}

// caseInputs returns the actual and expected invocations a case is scored
// on, aligned by turn, with the case's context messages attached to those
// that have none.
func caseInputs(c *evalset.Case, actual []*evalset.Invocation) ([]*evalset.Invocation, []*evalset.Invocation, error) {
	var expecteds []*evalset.Invocation
	switch {
	case c.Mode == evalset.ModeTrace:
		if len(actual) == 0 {
			actual = c.ActualConversation
			if len(actual) == 0 {
				actual = c.Conversation
			}
		}
		switch {
		case len(c.Conversation) > 0 && len(c.ActualConversation) > 0:
			expecteds = c.Conversation
		case len(c.Conversation) > 0:
			expecteds = userInputsOnly(c.Conversation)
		case len(c.ActualConversation) > 0:
			expecteds = userInputsOnly(c.ActualConversation)
		default:
			return actual, nil, errors.New("invalid eval case: a trace-mode case needs a conversation or an actualConversation")
		}
	case c.Scenario != nil:
		expecteds = userInputsOnly(actual)
	default:
		if len(c.Conversation) == 0 {
			return actual, nil, errors.New("invalid eval case: it has no conversation")
		}
		expecteds = c.Conversation
	}
	if len(actual) != len(expecteds) {
		return actual, expecteds, fmt.Errorf("inference count %d does not match expected conversation length %d", len(actual), len(expecteds))
	}
	for i := range actual {
		if actual[i] == nil {
			return actual, expecteds, fmt.Errorf("actual invocation %d is missing", i+1)
		}
		if expecteds[i] == nil {
			return actual, expecteds, fmt.Errorf("expected invocation %d is missing", i+1)
		}
	}
	return withContext(actual, c.ContextMessages), withContext(expecteds, c.ContextMessages), nil
}

// userInputsOnly keeps only each invocation's id and user content: the
// placeholders that keep recorded outputs from serving as references.
func userInputsOnly(conv []*evalset.Invocation) []*evalset.Invocation {
	out := make([]*evalset.Invocation, len(conv))
	for i, inv := range conv {
		out[i] = &evalset.Invocation{}
		if inv != nil {
			out[i].ID, out[i].UserContent = inv.ID, inv.UserContent
		}
	}
	return out
}

// withContext returns the invocations with the case's context messages on
// those that have none, copying rather than changing them.
func withContext(invs []*evalset.Invocation, msgs []*evalset.Message) []*evalset.Invocation {
	if len(msgs) == 0 {
		return invs
	}
	out := make([]*evalset.Invocation, len(invs))
	for i, inv := range invs {
		out[i] = inv
		if len(inv.ContextMessages) == 0 {
			cp := *inv
			cp.ContextMessages = msgs
			out[i] = &cp
		}
	}
	return out
}

// effectiveMetrics are the metrics a case is scored by: the set's, each
// replaced by the case's metric of the same name, then the case's others;
// case rubrics join their metric's judge rubrics.
func effectiveMetrics(c *evalset.Case, metrics []*evalset.Metric) ([]*evalset.Metric, error) {
	byName := map[string]*evalset.Metric{}
	for _, m := range c.Metrics {
		if m != nil {
			byName[m.Name] = m
		}
	}
	out := make([]*evalset.Metric, 0, len(metrics)+len(c.Metrics))
	used := map[string]bool{}
	for _, m := range metrics {
		if m == nil {
			continue
		}
		if cm, ok := byName[m.Name]; ok {
			m = cm
			used[m.Name] = true
		}
		out = append(out, m)
	}
	for _, m := range c.Metrics {
		if m != nil && !used[m.Name] {
			out = append(out, m)
		}
	}
	return withCaseRubrics(c, out)
}

// withCaseRubrics adds each case rubric to its metric's judge rubrics (on a
// copy of the metric), as tRPC-Agent-Go does: the metric must exist and
// have an llmJudge criterion, and rubric ids must stay unique.
func withCaseRubrics(c *evalset.Case, metrics []*evalset.Metric) ([]*evalset.Metric, error) {
	if len(c.Rubrics) == 0 {
		return metrics, nil
	}
	index := map[string]int{}
	for i, m := range metrics {
		index[m.Name] = i
	}
	extra := map[string][]*evalset.Rubric{}
	for i, r := range c.Rubrics {
		rb, err := caseRubric(c.ID, i, r, index)
		if err != nil {
			return nil, err
		}
		extra[r.MetricName] = append(extra[r.MetricName], rb)
	}
	out := append([]*evalset.Metric(nil), metrics...)
	for name, rubrics := range extra {
		m := metrics[index[name]]
		if m.Criterion == nil || m.Criterion.LLMJudge == nil {
			return nil, fmt.Errorf("case rubric %s: metric %s has no llmJudge criterion to hold rubrics", c.ID, name)
		}
		seen := map[string]bool{}
		for _, r := range m.Criterion.LLMJudge.Rubrics {
			if r != nil && strings.TrimSpace(r.ID) != "" {
				seen[strings.TrimSpace(r.ID)] = true
			}
		}
		for _, r := range rubrics {
			if seen[r.ID] {
				return nil, fmt.Errorf("case rubric %s: duplicate rubric id %s", c.ID, r.ID)
			}
			seen[r.ID] = true
		}
		cp, crit, judge := *m, *m.Criterion, *m.Criterion.LLMJudge
		judge.Rubrics = append(append([]*evalset.Rubric(nil), judge.Rubrics...), rubrics...)
		crit.LLMJudge = &judge
		cp.Criterion = &crit
		out[index[name]] = &cp
	}
	return out, nil
}

// caseRubric validates the i-th case rubric and makes it a metric rubric.
func caseRubric(caseID string, i int, r *evalset.CaseRubric, index map[string]int) (*evalset.Rubric, error) {
	switch {
	case r == nil:
		return nil, fmt.Errorf("case rubric %s[%d]: rubric is empty", caseID, i)
	case strings.TrimSpace(r.MetricName) == "":
		return nil, fmt.Errorf("case rubric %s[%d]: metricName is empty", caseID, i)
	case r.Content == nil || strings.TrimSpace(r.Content.Text) == "":
		return nil, fmt.Errorf("case rubric %s[%d]: content.text is empty", caseID, i)
	}
	if _, ok := index[r.MetricName]; !ok {
		return nil, fmt.Errorf("case rubric %s[%d]: metric %s not found", caseID, i, r.MetricName)
	}
	id := strings.TrimSpace(r.ID)
	if id == "" {
		id = fmt.Sprintf("case_rubric_%d", i+1)
	}
	return &evalset.Rubric{ID: id, Content: &evalset.RubricContent{Text: strings.TrimSpace(r.Content.Text)},
		Description: r.Description, Type: strings.TrimSpace(r.Type)}, nil
}
