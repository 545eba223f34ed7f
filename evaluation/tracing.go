package evaluation

import (
	"context"
	"net/url"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/result"
)

// Attributes of the evaluation's span ("proctor.evaluation") and of each
// simulation's ("proctor.simulation").
const (
	AttrEvaluationID      = attribute.Key("proctor.evaluation.id")
	AttrDomain            = attribute.Key("proctor.domain")
	AttrAgentURL          = attribute.Key("proctor.agent.url")
	AttrTasks             = attribute.Key("proctor.tasks")
	AttrTrials            = attribute.Key("proctor.trials")
	AttrStatus            = attribute.Key("proctor.evaluation.status")
	AttrSimulations       = attribute.Key("proctor.simulations")
	AttrPassed            = attribute.Key("proctor.passed")
	AttrSimulationID      = attribute.Key("proctor.simulation.id")
	AttrTaskID            = attribute.Key("proctor.task.id")
	AttrTrial             = attribute.Key("proctor.trial")
	AttrReward            = attribute.Key("proctor.reward")
	AttrTerminationReason = attribute.Key("proctor.termination_reason")
	// AttrContextID is the simulation's conversation: its A2A context id
	// (an ECP conversation's own id), under the A2A name.
	AttrContextID = attribute.Key("a2a.context_id")
)

// Span names.
const (
	SpanEvaluation = "proctor.evaluation"
	SpanSimulation = "proctor.simulation"
)

// RedactURL returns an agent URL fit for a span or log: without user
// information, query or fragment, where credentials hide. A target that is
// not a URL (an ECP command line, "builtin") is cut to its scheme.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable)"
	}
	if u.Scheme == "ecp+stdio" || u.Opaque != "" {
		return u.Scheme + ":" // a command line may carry secrets in its arguments
	}
	u.User, u.RawQuery, u.Fragment, u.RawFragment = nil, "", "", ""
	return u.String()
}

// startSpan opens the span of a run of the evaluation.
func (k *simulations) startSpan(ctx context.Context) (context.Context, trace.Span) {
	if k.tracer == nil {
		return ctx, trace.SpanFromContext(context.Background())
	}
	ctx, span := k.tracer.Start(ctx, SpanEvaluation)
	if span.IsRecording() {
		eval := k.eval
		span.SetAttributes(
			AttrEvaluationID.String(eval.ID), AttrDomain.String(eval.Domain),
			AttrAgentURL.String(RedactURL(eval.Config.Agent)),
			AttrTasks.Int(len(k.tasks)), AttrTrials.Int(max(eval.Config.NumTrials, 1)),
		)
	}
	return ctx, span
}

// endSpan records the evaluation's outcome and ends its span.
func (k *simulations) endSpan(span trace.Span, err error) {
	defer span.End()
	eval := k.eval
	if !span.IsRecording() {
		return
	}
	passed := 0
	for i := range eval.Simulations {
		if eval.Simulations[i].Passed() {
			passed++
		}
	}
	span.SetAttributes(AttrStatus.String(string(eval.Status)), AttrSimulations.Int(len(eval.Simulations)), AttrPassed.Int(passed))
	switch {
	case err != nil:
		span.SetStatus(codes.Error, err.Error())
	case eval.Error != "":
		span.SetStatus(codes.Error, eval.Error)
	}
}

// startTrialSpan opens the span of one simulation.
func (k *simulations) startTrialSpan(ctx context.Context, j simulationTrial) (context.Context, trace.Span) {
	if k.tracer == nil {
		return ctx, trace.SpanFromContext(context.Background())
	}
	return k.tracer.Start(ctx, SpanSimulation, trace.WithAttributes(
		AttrSimulationID.String(result.SimulationID(j.task.ID, j.trial)), AttrTaskID.String(j.task.ID), AttrTrial.Int(j.trial)))
}

// endSimulationSpan records a simulation's outcome and ends its span.
func endSimulationSpan(span trace.Span, sim *result.Simulation, aborted bool) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	if aborted {
		span.SetStatus(codes.Error, "interrupted")
		return
	}
	span.SetAttributes(AttrReward.Float64(sim.Reward), AttrTerminationReason.String(string(sim.TerminationReason)),
		AttrContextID.String(sim.ContextID))
	if sim.Error != "" {
		span.SetStatus(codes.Error, sim.Error)
	}
}

// Attributes of an eval-set run's span ("proctor.evalset_run") and of each
// case trial's ("proctor.eval_case"); AttrRuns and AttrCaseRun keep their
// tRPC-Agent-Go names ("runs") but count trials.
const (
	AttrEvalSetRunID = attribute.Key("proctor.evalset_run.id")
	AttrEvalSets     = attribute.Key("proctor.evalsets")
	AttrCases        = attribute.Key("proctor.cases")
	AttrRuns         = attribute.Key("proctor.runs")
	AttrEvalSetID    = attribute.Key("proctor.evalset.id")
	AttrCaseID       = attribute.Key("proctor.case.id")
	AttrCaseRun      = attribute.Key("proctor.case.run")
	AttrCaseStatus   = attribute.Key("proctor.case.status")
	SpanEvalSetRun   = "proctor.evalset_run"
	SpanEvalCase     = "proctor.eval_case"
)

// startSpan opens the span of an eval-set run.
func (k *cases) startSpan(ctx context.Context) (context.Context, trace.Span) {
	if k.tracer == nil {
		return ctx, trace.SpanFromContext(context.Background())
	}
	ctx, span := k.tracer.Start(ctx, SpanEvalSetRun)
	if span.IsRecording() {
		run, sets, cases := k.run, k.sets, 0
		for _, s := range sets {
			cases += len(s.Cases)
		}
		span.SetAttributes(AttrEvalSetRunID.String(run.ID), AttrAgentURL.String(RedactURL(run.Agent.URL)),
			AttrEvalSets.Int(len(sets)), AttrCases.Int(cases), AttrRuns.Int(max(run.Config.NumRuns, 1)))
	}
	return ctx, span
}

// endSpan records an eval-set run's outcome and ends its span.
func (k *cases) endSpan(span trace.Span, err error) {
	defer span.End()
	run := k.run
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(AttrStatus.String(string(run.Status)))
	switch {
	case err != nil:
		span.SetStatus(codes.Error, err.Error())
	case run.Error != "":
		span.SetStatus(codes.Error, run.Error)
	}
}

// startTrialSpan opens the span of one case trial.
func (k *cases) startTrialSpan(ctx context.Context, j caseTrial) (context.Context, trace.Span) {
	if k.tracer == nil {
		return ctx, trace.SpanFromContext(context.Background())
	}
	ctx, span := k.tracer.Start(ctx, SpanEvalCase)
	if span.IsRecording() {
		span.SetAttributes(AttrEvalSetID.String(j.set.ID), AttrCaseID.String(j.c.ID), AttrCaseRun.Int(j.trial))
	}
	return ctx, span
}

// endCaseSpan records a case trial's outcome and ends its span.
func endCaseSpan(span trace.Span, cr *result.CaseResult) {
	defer span.End()
	if !span.IsRecording() || cr == nil {
		return
	}
	span.SetAttributes(AttrCaseStatus.String(string(cr.FinalEvalStatus)))
	if cr.ErrorMessage != "" {
		span.SetStatus(codes.Error, cr.ErrorMessage)
	}
}
