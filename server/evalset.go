package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
)

// Bounds of run_evalset's inline set.
const (
	// MaxEvalSetBytes bounds the JSON of eval_set, metrics and yaml_cases
	// together.
	MaxEvalSetBytes = 4 << 20
	// MaxEvalSetCases bounds the cases of one run_evalset.
	MaxEvalSetCases = 10_000
	// maxEvalSetRequestJSON bounds a run_evalset request: the set and the
	// other params.
	maxEvalSetRequestJSON = MaxEvalSetBytes + maxRequestJSON
	// maxResultData bounds the run JSON of run_evalset's Result artifact:
	// above it the case runs' invocations are left out (get_results has
	// them).
	maxResultData = 1 << 20
)

// evalSetParams are run_evalset's parameters: an eval-set request plus the
// set itself, inline.
type evalSetParams struct {
	skills.EvalSetRequest
	// EvalSet is a tRPC-Agent-Go or ADK eval set: a JSON object, or a
	// string holding the file's JSON.
	EvalSet json.RawMessage `json:"eval_set,omitempty"`
	// Metrics are tRPC-Agent-Go metrics (a list) or an ADK test_config
	// object; they replace the set's own.
	Metrics json.RawMessage `json:"metrics,omitempty"`
	// YAMLCases are YAML case texts, one case each: one set, in place of
	// EvalSet.
	YAMLCases []string `json:"yaml_cases,omitempty"`
}

// Names the inline set and metrics go by in violations.
const (
	nameEvalSet   = "eval_set"
	nameMetrics   = "metrics"
	nameYAMLCases = "yaml_cases"
)

// sets decodes the inline set and metrics, within the bounds (see
// evalset.MaxValues), stopping when ctx ends. A bad set is an
// *skills.InvalidRequestError listing every violation by its path.
func (p *evalSetParams) sets(ctx context.Context) ([]*evalset.Set, error) {
	hasSet := len(p.EvalSet) > 0 && string(p.EvalSet) != "null"
	switch {
	case hasSet && len(p.YAMLCases) > 0:
		return nil, invalid("give eval_set or yaml_cases, not both")
	case !hasSet && len(p.YAMLCases) == 0:
		return nil, invalid("no eval set: give eval_set (a tRPC-Agent-Go or ADK eval set object) or yaml_cases (a list of YAML case texts)")
	case len(p.YAMLCases) > MaxEvalSetCases:
		return nil, invalid("yaml_cases has %d cases; at most %d: split them over several runs", len(p.YAMLCases), MaxEvalSetCases)
	}
	size := len(p.EvalSet) + len(p.Metrics)
	for _, y := range p.YAMLCases {
		size += len(y)
	}
	if size > MaxEvalSetBytes {
		return nil, invalid("the eval set and metrics are %d bytes; at most %d (%d MiB): split the set over several runs", size, MaxEvalSetBytes, MaxEvalSetBytes>>20)
	}
	set, err := p.decodeSet(ctx, hasSet)
	if err != nil {
		return nil, setViolations(err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(set.Cases) > MaxEvalSetCases {
		return nil, invalid("%s has %d cases; at most %d: split it over several runs", nameEvalSet, len(set.Cases), MaxEvalSetCases)
	}
	var metrics []*evalset.Metric
	if len(p.Metrics) > 0 && string(p.Metrics) != "null" {
		if metrics, err = evalset.DecodeMetrics(nameMetrics, p.Metrics); err != nil {
			return nil, setViolations(err)
		}
		set.Metrics = metrics
	}
	sets := []*evalset.Set{set}
	if err := evalset.Validate(sets, metrics); err != nil {
		return nil, setViolations(err)
	}
	return sets, nil
}

// decodeSet decodes eval_set (an object, or a string holding one), else
// yaml_cases.
func (p *evalSetParams) decodeSet(ctx context.Context, hasSet bool) (*evalset.Set, error) {
	if !hasSet {
		return evalset.DecodeYAMLCases(ctx, nameYAMLCases, p.YAMLCases)
	}
	data := []byte(p.EvalSet)
	var text string
	if json.Unmarshal(data, &text) == nil {
		data = []byte(text)
	}
	return evalset.Decode(nameEvalSet, data)
}

// setViolations turns an eval set's *evalset.ValidationError into an
// *skills.InvalidRequestError, a violation per problem, by its path; the
// error of a context that ended stays as it is.
func setViolations(err error) error {
	var ve *evalset.ValidationError
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if !errors.As(err, &ve) {
		return invalid("%v", err)
	}
	out := make([]string, len(ve.Violations))
	for i, v := range ve.Violations {
		out[i] = v.String()
	}
	return &skills.InvalidRequestError{Violations: out}
}

// runEvalSet runs run_evalset as a long task, as run_evaluation runs: a
// working task at once, a status update per finished case run and at
// least every progressEvery, then the Result artifact and completed. A bad
// request or set ends the task rejected. The request and its sets are
// checked and resolved once, when it comes (skills.Service.PlanEvalSets).
func (e *executor) runEvalSet(ctx context.Context, ec *a2asrv.ExecutorContext, p *evalSetParams, yield func(a2a.Event, error) bool) {
	var plan *skills.EvalSetPlan
	sets, err := p.sets(ctx)
	if err == nil {
		plan, err = e.svc.PlanEvalSets(ctx, p.EvalSetRequest, sets)
	}
	if ctx.Err() != nil {
		return // the request ended while its set was read: nobody hears of it
	}
	if err != nil {
		yield(rejectedTask(ec, err), nil)
		return
	}
	e.startLongTask(ctx, ec, longTaskSpec{
		skill:    SkillRunEvalSet,
		accepted: "Eval-set run accepted; starting.",
		slot:     "evaluation slot",
		canceled: "Canceled before the eval-set run started.",
		steps:    func(t *longTask) taskEnd { return e.playEvalSets(t, plan) },
	}, yield)
}

// playEvalSets is run_evalset's steps: start the planned run, announce
// it, play it reporting progress, and end with its results.
func (e *executor) playEvalSets(t *longTask, plan *skills.EvalSetPlan) taskEnd {
	job, err := e.svc.StartEvalSets(t.ctx, plan)
	if err != nil {
		var inv *skills.InvalidRequestError
		switch {
		case errors.As(err, &inv):
			return rejected(inv)
		case t.ctx.Err() != nil:
			return taskEnd{}
		}
		return failed("The eval-set run could not start: "+err.Error(), nil)
	}
	defer job.Close()
	run := job.Run()
	t.onCancel(fmt.Sprintf("Canceled. Eval-set run %s keeps its finished case runs (status interrupted): "+
		`read them with {"skill": "get_results", "params": {"id": %q}}.`, run.ID, run.ID), map[string]any{"eval_set_run_id": run.ID})
	start := evaluation.Progress{Total: plan.CaseRuns()}
	running := fmt.Sprintf("Eval-set run %s running: %s, %d case runs.", run.ID, report.AgentLabel(run.Agent), start.Total)
	if asked, clamped := job.ClampedConcurrency(); clamped {
		running += fmt.Sprintf(" Concurrency %d: the %d asked for is above this server's --max-simulation-concurrency.", run.Config.Concurrency, asked)
	}
	if !t.working(running, caseProgressData(run.ID, start)) {
		return taskEnd{}
	}
	last, err := reportProgress(t, start, func(p evaluation.Progress) (string, map[string]any) {
		return caseProgressText(run.ID, p), caseProgressData(run.ID, p)
	}, job.Execute)
	return evalSetEnd(run, err, last)
}

// evalSetEnd is how an eval-set run that was played ends: completed with
// the Result artifact (whatever its cases' verdicts), or failed.
func evalSetEnd(run *result.EvalSetRun, runErr error, last evaluation.Progress) taskEnd {
	data := caseProgressData(run.ID, last)
	switch {
	case runErr != nil:
		return failed(fmt.Sprintf("Eval-set run %s failed: %v; it keeps the case runs it stored.", run.ID, runErr), data)
	case run.Status != result.StatusCompleted:
		end := failed(fmt.Sprintf("Eval-set run %s stopped (%s) after %d case runs.", run.ID, run.Status, len(run.Cases)), data)
		end.interrupted = run.Status == result.StatusInterrupted
		return end
	}
	var md bytes.Buffer
	_ = report.WriteEvalSetRun(&md, report.Markdown, run)
	part, trimmed := runDataPart(run)
	desc := "Eval-set run " + run.ID + ": Markdown summary and run JSON (without the sets' cases)"
	if trimmed {
		desc += fmt.Sprintf("; the run JSON leaves out the invocations played and expected, as it is over %d KiB: get_results has them", maxResultData>>10)
	}
	data["trimmed"] = trimmed
	s := run.Summary
	return completed(taskArtifact{name: ResultArtifact, description: desc, parts: []*a2a.Part{a2a.NewTextPart(md.String()), part}},
		fmt.Sprintf("Eval-set run %s completed: %d of %d cases passed, %d failed, %d errors.", run.ID, s.Passed, s.NumCases, s.Failed, s.Errors), data)
}

// runDataPart is the run JSON of the Result artifact: the run without its
// sets' cases (the caller sent them), and without the case runs'
// invocations too when it is still over maxResultData.
func runDataPart(run *result.EvalSetRun) (*a2a.Part, bool) {
	brief := skills.StripEvalSetRun(run, false)
	if b, err := json.Marshal(brief); err == nil && len(b) <= maxResultData {
		return dataPart(brief), false
	}
	return dataPart(skills.StripEvalSetRun(run, true)), true
}

// caseProgressText is the status text of an eval-set run's progress.
func caseProgressText(runID string, p evaluation.Progress) string {
	return fmt.Sprintf("Eval-set run %s: %d/%d case runs done, %d passed.", runID, p.Done, p.Total, p.Passed)
}

// caseProgressData is the status data of an eval-set run's progress.
func caseProgressData(runID string, p evaluation.Progress) map[string]any {
	return map[string]any{"eval_set_run_id": runID, "done": p.Done, "total": p.Total, "passed": p.Passed}
}
