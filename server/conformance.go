package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/skills"
)

// ConformanceArtifact is the name of the artifact that carries a
// check_conformance report: a Markdown summary and the report JSON.
const ConformanceArtifact = "ConformanceReport"

// checkConformance runs check_conformance as a long task: working at once
// (or queued behind running evaluations: a check shares their slots), then
// the ConformanceReport artifact and completed. A bad request is rejected.
func (e *executor) checkConformance(ctx context.Context, ec *a2asrv.ExecutorContext, req *skills.ConformanceRequest, yield func(a2a.Event, error) bool) {
	if err := e.svc.CheckConformanceRequest(*req); err != nil {
		yield(rejectedTask(ec, err), nil)
		return
	}
	e.startLongTask(ctx, ec, longTaskSpec{
		skill:    SkillCheckConformance,
		accepted: "Checking the A2A conformance of " + req.AgentURL + ".",
		slot:     "slot",
		canceled: "Canceled: the conformance check stopped.",
		steps:    func(t *longTask) taskEnd { return e.conformanceCheck(t, req) },
	}, yield)
}

// conformanceCheck is check_conformance's steps: check the agent, and end
// with the report (stored when the store takes it).
func (e *executor) conformanceCheck(t *longTask, req *skills.ConformanceRequest) taskEnd {
	rep, err := e.svc.CheckConformance(t.ctx, *req)
	var inv *skills.InvalidRequestError
	switch {
	case errors.As(err, &inv):
		return rejected(inv)
	case rep == nil:
		return failed("The conformance check could not run: "+err.Error(), nil)
	}
	var md bytes.Buffer
	_ = conformance.Write(&md, conformance.FormatMarkdown, rep)
	text := fmt.Sprintf("Conformance of %s: %s (%d passed, %d failed, %d skipped; %d requests).",
		rep.AgentURL, rep.Level, rep.Summary.Passed, rep.Summary.Failed, rep.Summary.Skipped, rep.Requests)
	if err != nil {
		text += " The report could not be stored: " + err.Error()
	}
	return completed(taskArtifact{
		name:        ConformanceArtifact,
		description: "A2A conformance report " + rep.ID + ": Markdown summary and report JSON",
		parts:       []*a2a.Part{a2a.NewTextPart(md.String()), dataPart(rep)},
	}, text, map[string]any{"conformance_id": rep.ID, "level": string(rep.Level), "summary": rep.Summary})
}
