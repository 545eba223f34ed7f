package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/proctor-eval/proctor/result"
)

// renderMarkdown writes the evaluation as Markdown, for pull requests and
// chat: its metrics, a table of tasks and one of the failed simulations.
func renderMarkdown(w io.Writer, e *result.Evaluation) error {
	var b strings.Builder
	markdownHead(&b, e)
	markdownTasks(&b, e.Summary.Tasks)
	markdownFailures(&b, failedSimulations(e.Simulations))
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownHead writes the title and the table of metrics.
func markdownHead(b *strings.Builder, e *result.Evaluation) {
	fmt.Fprintf(b, "## proctor evaluation `%s`\n\n", e.ID)
	fmt.Fprintf(b, "Domain **%s**, agent %s, status **%s**.\n\n", e.Domain, mdEscape(AgentLabel(e.Agent)), e.Status)
	if e.Status == result.StatusFailed && e.Error != "" {
		fmt.Fprintf(b, "**Failed:** %s\n\n", mdEscape(e.Error))
	}
	if e.ImportedFrom != "" {
		fmt.Fprintf(b, "Imported from %s.\n\n", mdEscape(e.ImportedFrom))
	}
	b.WriteString("| metric | value |\n|---|---|\n")
	markdownScores(b, e)
	markdownTraffic(b, e.Metrics)
}

// markdownScores writes the metric rows about the scores: simulations,
// pass rates, reward, the do-nothing baseline, strict scoring and how runs
// ended.
func markdownScores(b *strings.Builder, e *result.Evaluation) {
	s := e.Summary
	fmt.Fprintf(b, "| simulations | %s |\n", SimulationsNote(e))
	fmt.Fprintf(b, "| pass^1 | %.3f (95%% CI %.3f-%.3f) |\n", s.PassHatK["1"], s.PassHat1CI95.Low, s.PassHat1CI95.High)
	if len(s.PassHatK) > 1 {
		fmt.Fprintf(b, "| pass^k | %s |\n| pass@k | %s |\n", kLine(s.PassHatK), kLine(s.PassAtK))
	}
	fmt.Fprintf(b, "| average reward | %.3f |\n", s.AvgReward)
	for _, l := range ReliabilityLines(s) {
		fmt.Fprintf(b, "| %s | %s |\n", l[0], l[1])
	}
	if note := Tau2FiguresNote(s); note != "" {
		fmt.Fprintf(b, "| tau2's figures | %s |\n", mdEscape(note))
	}
	if note := BaselineNote(s); note != "" {
		fmt.Fprintf(b, "| do-nothing baseline | %s |\n", note)
		fmt.Fprintf(b, "| vacuous tasks | %s |\n", mdEscape(VacuousNote(s.VacuousTasks, 0)))
	}
	if note := EnvUncheckedNote(s); note != "" {
		fmt.Fprintf(b, "| env unchecked | %s |\n", mdEscape(note))
	}
	if e.Config.Strict {
		fmt.Fprintf(b, "| scoring | %s |\n", strictNote)
	}
	if e.Config.ActionMatch == result.ActionMatchExact {
		fmt.Fprintf(b, "| action match | %s |\n", exactMatchNote)
	}
	fmt.Fprintf(b, "| termination | %s |\n", Counts(s.TerminationReasons))
	if note := RobustnessNote(s); note != "" {
		fmt.Fprintf(b, "| robustness | %s |\n", note)
	}
	if note := ProcessNote(s); note != "" {
		fmt.Fprintf(b, "| process | %s |\n", note)
	}
	if note := PolicyViolationsNote(e.Simulations); note != "" {
		fmt.Fprintf(b, "| policy violations | %s |\n", mdEscape(note))
	}
}

// markdownTraffic writes the metric rows about the requests to the agent
// and proctor's own model calls.
func markdownTraffic(b *strings.Builder, m result.Metrics) {
	fmt.Fprintf(b, "| requests | %d (errors %d; status %s) |\n", m.Requests, m.Errors, Counts(m.StatusCodes))
	fmt.Fprintf(b, "| latency | p50 %s, p95 %s, p99 %s |\n", ms(m.LatencyMS.P50), ms(m.LatencyMS.P95), ms(m.LatencyMS.P99))
	fmt.Fprintf(b, "| tokens | in %d, out %d%s |\n", m.InputTokens, m.OutputTokens, estimated(m.TokensEstimated))
	for _, line := range llmUsageLines(m) {
		fmt.Fprintf(b, "| %s | %s |\n", line[0], line[1])
	}
}

// markdownTasks writes the table of tasks, if there are any.
func markdownTasks(b *strings.Builder, tasks []result.TaskSummary) {
	if len(tasks) == 0 {
		return
	}
	b.WriteString("\n| task | trials | passed | avg reward |\n|---|---|---|---|\n")
	for _, t := range tasks {
		fmt.Fprintf(b, "| %s | %d | %d | %.3f |\n", t.TaskID, t.Trials, t.Successes, t.AvgReward)
	}
}

// failedSimulations are the simulations that did not pass, by
// Simulation.Passed: the summary's definition of success.
func failedSimulations(sims []result.Simulation) []result.Simulation {
	var failed []result.Simulation
	for i := range sims {
		if !sims[i].Passed() {
			failed = append(failed, sims[i])
		}
	}
	return failed
}

// markdownFailures writes the table of failed simulations and why each
// failed, if there are any.
func markdownFailures(b *strings.Builder, failed []result.Simulation) {
	if len(failed) == 0 {
		return
	}
	b.WriteString("\n### Failed simulations\n\n| simulation | termination | reward | why |\n|---|---|---|---|\n")
	for _, sim := range failed {
		fmt.Fprintf(b, "| %s | %s | %.3f | %s |\n", sim.ID, sim.TerminationReason, sim.Reward, mdEscape(WhyFailed(sim)))
	}
}

// WhyFailed says in one line which check a simulation failed, as proctor
// show and the viewer's evaluation page put it.
func WhyFailed(s result.Simulation) string {
	var why []string
	if s.Error != "" {
		why = append(why, s.Error)
	}
	ri := s.RewardInfo
	if ri.DBCheck != nil && !ri.DBCheck.DBMatch {
		why = append(why, "database differs from the expected state")
	}
	for _, a := range ri.ActionChecks {
		if !a.ActionMatch {
			why = append(why, "missing action "+a.Action.Name)
		}
	}
	for _, c := range ri.CommunicateChecks {
		if !c.Met {
			why = append(why, fmt.Sprintf("did not tell the user %q", c.Info))
		}
	}
	for _, v := range ri.PolicyViolations {
		why = append(why, fmt.Sprintf("called %s, which it is not permitted (turn %d)", v.Tool, v.Turn))
	}
	if ri.Note != "" && len(why) == 0 {
		why = append(why, ri.Note)
	}
	return strings.Join(why, "; ")
}

// mdEscape makes s fit in one Markdown table cell, and show as text
// where Markdown is rendered as HTML: cut after 300 characters (never
// inside one), HTML's special characters escaped (an agent's card or reply
// is not markup), pipes escaped, newlines as spaces.
func mdEscape(s string) string {
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	s = htmlEscaper.Replace(s)
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// htmlEscaper escapes the characters that start markup or an entity.
var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
