package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/proctor-eval/proctor/result"
)

// renderTable writes the evaluation as two aligned tables, for terminals:
// its metrics, then a row per task.
func renderTable(w io.Writer, e *result.Evaluation) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	tableHead(tw, e)
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(e.Summary.Tasks) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	return tableTasks(w, e)
}

// WriteSummary writes the evaluation's summary for a terminal: what it
// evaluated, its scores and its traffic, without the table of tasks.
func WriteSummary(w io.Writer, e *result.Evaluation) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	tableHead(tw, e)
	return tw.Flush()
}

// tableHead writes the rows about the evaluation: what it evaluated, its
// scores and its traffic.
func tableHead(tw io.Writer, e *result.Evaluation) {
	fmt.Fprintf(tw, "evaluation\t%s (%s)\n", e.ID, e.Status)
	if e.Status == result.StatusFailed && e.Error != "" {
		fmt.Fprintf(tw, "failed\t%s\n", e.Error)
	}
	fmt.Fprintf(tw, "domain\t%s\n", e.Domain)
	fmt.Fprintf(tw, "agent\t%s\n", AgentLabel(e.Agent))
	if e.ImportedFrom != "" {
		fmt.Fprintf(tw, "imported\t%s\n", e.ImportedFrom)
	}
	tableScores(tw, e)
	tableTraffic(tw, e.Metrics)
}

// tableScores writes the rows about the scores: simulations, pass rates,
// reward, the do-nothing baseline, strict scoring and how runs ended.
func tableScores(tw io.Writer, e *result.Evaluation) {
	s := e.Summary
	fmt.Fprintf(tw, "simulations\t%s\n", SimulationsNote(e))
	fmt.Fprintf(tw, "pass^1\t%.3f  (95%% CI %.3f-%.3f)\n", s.PassHatK["1"], s.PassHat1CI95.Low, s.PassHat1CI95.High)
	if len(s.PassHatK) > 1 {
		fmt.Fprintf(tw, "pass^k\t%s\n", kLine(s.PassHatK))
		fmt.Fprintf(tw, "pass@k\t%s\n", kLine(s.PassAtK))
	}
	fmt.Fprintf(tw, "avg reward\t%.3f\n", s.AvgReward)
	for _, l := range ReliabilityLines(s) {
		fmt.Fprintf(tw, "%s\t%s\n", l[0], l[1])
	}
	if note := Tau2FiguresNote(s); note != "" {
		fmt.Fprintf(tw, "tau2's figures\t%s\n", note)
	}
	if note := BaselineNote(s); note != "" {
		fmt.Fprintf(tw, "do-nothing baseline\t%s\n", note)
		fmt.Fprintf(tw, "\t%s\n", VacuousNote(s.VacuousTasks, 10))
	}
	if note := EnvUncheckedNote(s); note != "" {
		fmt.Fprintf(tw, "env unchecked\t%s\n", note)
	}
	if e.Config.Strict {
		fmt.Fprintf(tw, "scoring\t%s\n", strictNote)
	}
	if e.Config.ActionMatch == result.ActionMatchExact {
		fmt.Fprintf(tw, "action match\t%s\n", exactMatchNote)
	}
	fmt.Fprintf(tw, "termination\t%s\n", Counts(s.TerminationReasons))
	if note := RobustnessNote(s); note != "" {
		fmt.Fprintf(tw, "robustness\t%s\n", note)
	}
	if note := ProcessNote(s); note != "" {
		fmt.Fprintf(tw, "process\t%s\n", note)
	}
	if note := PolicyViolationsNote(e.Simulations); note != "" {
		fmt.Fprintf(tw, "policy violations\t%s\n", note)
	}
}

// tableTraffic writes the rows about the requests to the agent and
// proctor's own model calls.
func tableTraffic(tw io.Writer, m result.Metrics) {
	fmt.Fprintf(tw, "requests\t%d  errors %d  status %s\n", m.Requests, m.Errors, Counts(m.StatusCodes))
	if len(m.ErrorClasses) > 0 {
		fmt.Fprintf(tw, "error classes\t%s\n", Counts(m.ErrorClasses))
	}
	fmt.Fprintf(tw, "latency\tp50 %s  p95 %s  p99 %s  max %s\n", ms(m.LatencyMS.P50), ms(m.LatencyMS.P95), ms(m.LatencyMS.P99), ms(m.LatencyMS.Max))
	fmt.Fprintf(tw, "tokens\tin %d  out %d%s\n", m.InputTokens, m.OutputTokens, estimated(m.TokensEstimated))
	for _, line := range llmUsageLines(m) {
		fmt.Fprintf(tw, "%s\t%s\n", line[0], line[1])
	}
}

// tableTasks writes the table of tasks: trials, successes, reward and how
// the task's runs ended.
func tableTasks(w io.Writer, e *result.Evaluation) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tTRIALS\tPASSED\tAVG REWARD\tTERMINATION")
	term := terminationsByTask(e.Simulations)
	for _, t := range e.Summary.Tasks {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%s\n", t.TaskID, t.Trials, t.Successes, t.AvgReward, Counts(term[t.TaskID]))
	}
	return tw.Flush()
}

// terminationsByTask counts the termination reasons of each task's
// simulations.
func terminationsByTask(sims []result.Simulation) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, s := range sims {
		if out[s.TaskID] == nil {
			out[s.TaskID] = map[string]int{}
		}
		out[s.TaskID][string(s.TerminationReason)]++
	}
	return out
}
