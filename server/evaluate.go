package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
)

// ResultArtifact is the name of the artifact that carries an evaluation's
// results: a Markdown summary and the results JSON.
const ResultArtifact = "Result"

// runEvaluation runs run_evaluation as a long task: a working task at once,
// a status update per finished simulation and at least every
// progressEvery, then the Result artifact and completed. A request the
// service rejects ends the task rejected.
func (e *executor) runEvaluation(ctx context.Context, ec *a2asrv.ExecutorContext, p *runParams, yield func(a2a.Event, error) bool) {
	plan, err := e.svc.Plan(ctx, p.EvaluationRequest)
	if err != nil {
		yield(rejectedTask(ec, err), nil)
		return
	}
	if err := e.gate.simulationsError(plan.Simulations()); err != nil {
		yield(rejectedTask(ec, err), nil)
		return
	}
	e.startLongTask(ctx, ec, longTaskSpec{
		skill:    SkillRunEvaluation,
		accepted: "Evaluation accepted; starting.",
		slot:     "evaluation slot",
		canceled: "Canceled before the evaluation started.",
		steps:    func(t *longTask) taskEnd { return e.evaluate(t, plan, p.IncludeTranscripts) },
	}, yield)
}

// evaluate is run_evaluation's steps: start the planned evaluation (the
// request was checked, and its simulations counted against the tenant's
// limit, when it came: runEvaluation), announce it, run it
// reporting progress, and end with its results.
func (e *executor) evaluate(t *longTask, plan *skills.Plan, includeTranscripts *bool) taskEnd {
	run, end := e.startEvaluation(t, plan)
	if run == nil {
		return end
	}
	defer run.Close()
	eval := run.Evaluation()
	began := time.Now()
	e.logEvaluation(t.ctx, LogEvaluationStart, eval, len(run.Tasks()))
	hint, hintData := resumeHint(eval.ID)
	t.onCancel(fmt.Sprintf("Canceled. Evaluation %s keeps its finished simulations; %s.", eval.ID, hint), hintData)
	start := evaluation.Progress{Done: run.Resumed(), Total: len(run.Tasks()) * max(eval.Config.NumTrials, 1)}
	running := fmt.Sprintf("Evaluation %s running: %s on %s, %d simulations.", eval.ID, report.AgentLabel(eval.Agent), eval.Domain, start.Total)
	if asked, clamped := run.ClampedConcurrency(); clamped {
		running += fmt.Sprintf(" Concurrency %d: the %d asked for is above this server's --max-simulation-concurrency.", eval.Config.Concurrency, asked)
	}
	if !t.working(running, progressData(eval.ID, start)) {
		return taskEnd{}
	}
	last, err := reportProgress(t, start, func(p evaluation.Progress) (string, map[string]any) {
		return progressText(eval.ID, p), progressData(eval.ID, p)
	}, run.Execute)
	e.logEvaluation(t.ctx, LogEvaluationEnd, run.Evaluation(), len(run.Tasks()),
		slog.Float64("duration_ms", float64(time.Since(began).Microseconds())/1000), slog.Bool("error", err != nil))
	return evaluationEnd(run.Evaluation(), err, last, includeTranscripts)
}

// logEvaluation writes an evaluation's start or end record: its id,
// domain, agent (its URL without credentials), size and status.
func (e *executor) logEvaluation(ctx context.Context, msg string, eval *result.Evaluation, tasks int, more ...slog.Attr) {
	if e.log == nil {
		return
	}
	attrs := append([]slog.Attr{slog.String("evaluation_id", eval.ID), slog.String("domain", eval.Domain),
		slog.String("agent_url", redactURL(eval.Config.Agent)), slog.Int("tasks", tasks),
		slog.Int("trials", max(eval.Config.NumTrials, 1)), slog.String("status", string(eval.Status))}, more...)
	e.log.LogAttrs(context.WithoutCancel(ctx), slog.LevelInfo, msg, attrs...)
}

// startEvaluation starts the planned evaluation (or the resumption of a
// stored one, if it is still resumable). Without a run, the task ends as
// the returned taskEnd says.
func (e *executor) startEvaluation(t *longTask, plan *skills.Plan) (*skills.Run, taskEnd) {
	run, err := e.svc.Start(t.ctx, plan)
	if err == nil {
		return run, taskEnd{}
	}
	var inv *skills.InvalidRequestError
	switch {
	case errors.As(err, &inv):
		return nil, rejected(inv)
	case t.ctx.Err() != nil:
		return nil, taskEnd{}
	}
	return nil, failed("The evaluation could not start: "+err.Error(), nil)
}

// evaluationEnd is how an evaluation that ran ends: completed with the
// Result artifact, or failed when it did not complete (it can be resumed).
func evaluationEnd(eval *result.Evaluation, runErr error, last evaluation.Progress, includeTranscripts *bool) taskEnd {
	switch {
	case runErr != nil:
		// A storage error (a full disk) stops the evaluation with what it
		// stored; once the storage is fixed, resume finishes it.
		hint, data := resumeHint(eval.ID)
		return failed(fmt.Sprintf("Evaluation %s failed: %v; it keeps the simulations it stored: once the cause is fixed, %s.", eval.ID, runErr, hint), data)
	case eval.Status == result.StatusFailed:
		// It ran to the end and measured nothing: resuming would not
		// help, fixing the agent (or the model's access) would.
		return failed(fmt.Sprintf("Evaluation %s failed: %s.", eval.ID, eval.Error),
			map[string]any{"evaluation_id": eval.ID, "status": string(eval.Status), "error": eval.Error})
	case eval.Status != result.StatusCompleted:
		hint, data := resumeHint(eval.ID)
		end := failed(fmt.Sprintf("Evaluation %s stopped (%s) after %d simulations; %s.",
			eval.ID, eval.Status, len(eval.Simulations), hint), data)
		end.interrupted = eval.Status == result.StatusInterrupted
		return end
	}
	if includeTranscripts != nil && !*includeTranscripts {
		skills.StripTranscripts(eval)
	}
	var md bytes.Buffer
	_ = report.Write(&md, report.Markdown, eval)
	return completed(taskArtifact{
		name:        ResultArtifact,
		description: "Evaluation " + eval.ID + ": Markdown summary and results JSON",
		parts:       []*a2a.Part{a2a.NewTextPart(md.String()), dataPart(eval)},
	}, fmt.Sprintf("Evaluation %s completed: pass^1 %.3f, average reward %.3f over %d simulations.",
		eval.ID, eval.Summary.PassHatK["1"], eval.Summary.AvgReward, eval.Summary.NumSimulations), progressData(eval.ID, last))
}

// progressText is the status text of an evaluation's progress.
func progressText(evalID string, p evaluation.Progress) string {
	rate := 0.0
	if p.Done > 0 {
		rate = float64(p.Passed) / float64(p.Done)
	}
	return fmt.Sprintf("Evaluation %s: %d/%d simulations done, running pass rate %.2f.", evalID, p.Done, p.Total, rate)
}

// progressData is the status data of an evaluation's progress.
func progressData(evalID string, p evaluation.Progress) map[string]any {
	return map[string]any{"evaluation_id": evalID, "done": p.Done, "total": p.Total, "passed": p.Passed}
}
