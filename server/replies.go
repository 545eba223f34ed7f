package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/skills"
)

// The skills that answer at once, with a task that is already completed
// (failed when the answer is an error): list_domains, get_results, and
// help for free text.

// listDomains answers list_domains: a Markdown list and the domains' data.
func (e *executor) listDomains(ec *a2asrv.ExecutorContext) *a2a.Task {
	domains := e.svc.ListDomains()
	var b strings.Builder
	for _, d := range domains {
		fmt.Fprintf(&b, "- **%s** (%d tasks): %s\n", d.Name, d.NumTasks, d.Description)
	}
	return answeredTask(ec, a2a.TaskStateCompleted, a2a.NewTextPart(b.String()), dataPart(map[string]any{"domains": domains}))
}

// getResults answers get_results: one evaluation or eval-set run (its
// Markdown report and JSON) or a page of evaluations. A request the
// service finds wrong is rejected.
func (e *executor) getResults(ctx context.Context, ec *a2asrv.ExecutorContext, req *skills.ResultsRequest) a2a.Event {
	one, page, err := e.svc.GetResults(ctx, *req)
	if errors.Is(err, evaluation.ErrEvalSetRun) {
		return e.getEvalSetRun(ctx, ec, req)
	}
	if err != nil {
		var inv *skills.InvalidRequestError
		if errors.As(err, &inv) {
			return rejectedTask(ec, err)
		}
		return answeredTask(ec, a2a.TaskStateFailed, a2a.NewTextPart("get_results failed: "+err.Error()))
	}
	if one != nil {
		var md bytes.Buffer
		_ = report.Write(&md, report.Markdown, one)
		return answeredTask(ec, a2a.TaskStateCompleted, a2a.NewTextPart(md.String()), dataPart(one))
	}
	var b strings.Builder
	if len(page.Evaluations) == 0 {
		b.WriteString("No evaluations match.")
	}
	for _, ev := range page.Evaluations {
		fmt.Fprintf(&b, "- `%s` %s on %s, %s: pass^1 %.3f over %d simulations\n", ev.ID, report.AgentLabel(ev.Agent),
			ev.Domain, ev.Status, ev.Summary.PassHatK["1"], ev.Summary.NumSimulations)
	}
	return answeredTask(ec, a2a.TaskStateCompleted, a2a.NewTextPart(b.String()), dataPart(page))
}

// getEvalSetRun answers get_results for the id of an eval-set run: its
// Markdown report and the run JSON.
func (e *executor) getEvalSetRun(ctx context.Context, ec *a2asrv.ExecutorContext, req *skills.ResultsRequest) a2a.Event {
	run, err := e.svc.GetEvalSetRun(ctx, *req)
	if err != nil {
		var inv *skills.InvalidRequestError
		if errors.As(err, &inv) {
			return rejectedTask(ec, err)
		}
		return answeredTask(ec, a2a.TaskStateFailed, a2a.NewTextPart("get_results failed: "+err.Error()))
	}
	var md bytes.Buffer
	_ = report.WriteEvalSetRun(&md, report.Markdown, run)
	return answeredTask(ec, a2a.TaskStateCompleted, a2a.NewTextPart(md.String()), dataPart(run))
}

// helpText answers free text until a chat model is configured.
func helpText(said string) string {
	greeting := "I am proctor: I evaluate A2A agents."
	if said == "" {
		greeting = "I am proctor: I evaluate A2A agents. Your message had no text I could read."
	}
	return greeting + ` I do not understand free text yet (no chat model is configured), but I take these requests, as a data part or as text holding the JSON:

- Evaluate an agent:
  {"skill": "run_evaluation", "params": {"domain": "mock", "agent_url": "https://your-agent.example.com", "num_trials": 1}}
  More params: task_ids, num_tasks, transport (jsonrpc|rest|grpc), protocol (1.0|0.3), profile (agentbeats|tau2-a2a|structured), max_steps, concurrency, timeout ("30m"), headers, resume, include_transcripts.
- Play an eval set (tRPC-Agent-Go or ADK, inline; or YAML cases) against an agent and score it:
  {"skill": "run_evalset", "params": {"agent_url": "https://your-agent.example.com", "eval_set": {"evalSetId": "calc", "evalCases": [...]}, "metrics": [{"metricName": "final_response_avg_score", "threshold": 1, "criterion": {"finalResponse": {"text": {"matchStrategy": "contains"}}}}]}}
  Instead of eval_set: "yaml_cases": ["case: add\ninput:\n  content: calc add 2 3\n..."]. More params: num_runs, concurrency, transport, protocol, streaming, timeout, request_timeout, retries, headers, judge_model, user_model.
- List the domains: {"skill": "list_domains"}
- Read results: {"skill": "get_results", "params": {"id": "<evaluation or eval-set run id>"}} or {"skill": "get_results", "params": {"domain": "mock", "limit": 10}}
- Check an agent against the A2A specification: {"skill": "check_conformance", "params": {"agent_url": "https://your-agent.example.com"}}
- An AgentBeats assessment: {"participants": {"agent": "https://your-agent.example.com"}, "config": {"domain": "mock", "num_trials": 1}}

run_evaluation and run_evalset answer with a task that reports progress and ends with an artifact named "Result" (a Markdown summary and the results JSON).`
}
