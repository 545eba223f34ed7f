package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/proctor-eval/proctor/domains"
)

// showValueChars bounds a value (a record, an argument) shown in text.
const showValueChars = 300

// WriteSimulationReports renders simulations in format: Text (for
// terminals), Markdown, or JSON (the reports, as a list, indented).
func WriteSimulationReports(w io.Writer, format Format, reports []SimulationReport) error {
	switch format {
	case JSON:
		return writeJSON(w, reports)
	case Text, Markdown:
		var b strings.Builder
		for i, r := range reports {
			if i > 0 {
				b.WriteString("\n")
			}
			if format == Markdown {
				simulationMarkdown(&b, r)
			} else {
				simulationText(&b, r)
			}
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	return fmt.Errorf("unknown format %q: want text, markdown or json", format)
}

func verdict(passed bool) string {
	if passed {
		return "PASS"
	}
	return "FAIL"
}

func speaker(t Turn) string {
	s := string(t.Role)
	if t.Requestor == "user" && t.Role == TurnTool {
		s = "tool (user's)"
	}
	if t.History {
		s += ", history"
	}
	return s
}

func simulationText(b *strings.Builder, r SimulationReport) {
	fmt.Fprintf(b, "simulation %s of evaluation %s (%s, %s)\n", r.SimulationID, r.EvaluationID, r.Domain, r.Agent)
	fmt.Fprintf(b, "reward %.3f %s, ended %s\n", r.Reward, verdict(r.Passed), r.TerminationReason)
	if r.Error != "" {
		fmt.Fprintf(b, "error: %s\n", r.Error)
	}
	b.WriteString("\n")
	for _, t := range r.Turns {
		fmt.Fprintf(b, "[%s]", speaker(t))
		if t.Error {
			b.WriteString(" (error)")
		}
		if t.Text != "" {
			b.WriteString(" " + indent(t.Text, "  "))
		}
		b.WriteString("\n")
		if t.PrivateThought != "" {
			fmt.Fprintf(b, "  (private thought, not shown to the user) %s\n", indent(t.PrivateThought, "    "))
		}
		for _, c := range t.ToolCalls {
			fmt.Fprintf(b, "  -> %s\n", clip(callText(toolCall(c, t.Requestor)), 1000))
			if len(c.Retrieved) > 0 {
				retrievedText(b, c)
				continue
			}
			fmt.Fprintf(b, "     %s\n", resultText(c))
		}
	}
	b.WriteString("\nchecks\n")
	if len(r.Checks) == 0 {
		b.WriteString("  none\n")
	}
	for _, c := range r.Checks {
		checkText(b, c)
	}
	if r.Note != "" {
		fmt.Fprintf(b, "note: %s\n", r.Note)
	}
}

func resultText(c ToolCallView) string {
	fault := ""
	if c.Fault != "" {
		fault = "[corrupted by proctor: " + string(c.Fault) + "] "
	}
	switch {
	case c.NoResult:
		return "(no result recorded)"
	case c.ResultError:
		return "= " + fault + "error: " + indent(clip(c.Result, 2000), "       ")
	}
	return "= " + fault + indent(clip(c.Result, 2000), "       ")
}

func checkText(b *strings.Builder, c Check) {
	fmt.Fprintf(b, "  %s %-13s %s\n", verdict(c.Passed), c.Basis, clip(c.Subject, 1000))
	pad := "       "
	if c.Why != "" {
		fmt.Fprintf(b, "%s%s\n", pad, c.Why)
	}
	for _, rd := range c.Records {
		tw := rd.Path
		if rd.Side != "" {
			tw = rd.Side + ": " + tw
		}
		switch rd.Kind {
		case "missing":
			fmt.Fprintf(b, "%smissing    %s  expected %s\n", pad, tw, clip(compactJSON(rd.Expected), showValueChars))
		case "unexpected":
			fmt.Fprintf(b, "%sunexpected %s  %s\n", pad, tw, clip(compactJSON(rd.Actual), showValueChars))
		default:
			fmt.Fprintf(b, "%schanged    %s  expected %s, actual %s\n", pad, tw, clip(compactJSON(rd.Expected), showValueChars), clip(compactJSON(rd.Actual), showValueChars))
		}
	}
	if c.RecordsTruncated {
		fmt.Fprintf(b, "%s(more differences left out)\n", pad)
	}
	if c.RecordsNote != "" {
		fmt.Fprintf(b, "%s%s\n", pad, c.RecordsNote)
	}
	for _, ac := range c.Calls {
		fmt.Fprintf(b, "%sactual: %s\n", pad, clip(callText(toolCallOf(c.Expected.Name, ac)), 1000))
		for _, d := range ac.Differs {
			fmt.Fprintf(b, "%s  %s\n", pad, argDiffText(d))
		}
	}
	if c.Samples > 0 {
		fmt.Fprintf(b, "%sjudge: met in %d of %d samples\n", pad, c.MetVotes, c.Samples)
	}
	if c.Reasoning != "" {
		fmt.Fprintf(b, "%sreasoning: %s\n", pad, indent(c.Reasoning, pad+"  "))
	}
}

func argDiffText(d ArgDiff) string {
	if d.Missing {
		return fmt.Sprintf("%s missing (expected %s)", d.Name, clip(compactJSON(d.Expected), showValueChars))
	}
	return fmt.Sprintf("%s: expected %s, actual %s", d.Name, clip(compactJSON(d.Expected), showValueChars), clip(compactJSON(d.Actual), showValueChars))
}

// indent puts prefix before every line of s after the first.
func indent(s, prefix string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

func simulationMarkdown(b *strings.Builder, r SimulationReport) {
	fmt.Fprintf(b, "## Simulation `%s` of `%s`\n\n", r.SimulationID, r.EvaluationID)
	fmt.Fprintf(b, "Domain **%s**, agent %s: reward **%.3f** (%s), ended `%s`.\n", r.Domain, mdEscape(r.Agent), r.Reward, verdict(r.Passed), r.TerminationReason)
	if r.Error != "" {
		fmt.Fprintf(b, "\nError: %s\n", mdEscape(r.Error))
	}
	b.WriteString("\n### Conversation\n\n")
	for _, t := range r.Turns {
		fmt.Fprintf(b, "**%s**", speaker(t))
		if t.Error {
			b.WriteString(" (error)")
		}
		b.WriteString(":")
		if t.Text != "" {
			b.WriteString(" " + mdQuoteText(t.Text))
		}
		b.WriteString("\n\n")
		if t.PrivateThought != "" {
			fmt.Fprintf(b, "> *private thought:* %s\n\n", mdQuoteText(t.PrivateThought))
		}
		for _, c := range t.ToolCalls {
			fmt.Fprintf(b, "- `%s`\n", mdCode(callText(toolCall(c, t.Requestor))))
			if len(c.Retrieved) > 0 {
				retrievedMarkdown(b, c)
				continue
			}
			fmt.Fprintf(b, "  %s\n", mdCode(resultText(c)))
		}
		if len(t.ToolCalls) > 0 {
			b.WriteString("\n")
		}
	}
	b.WriteString("### Checks\n\n")
	for _, c := range r.Checks {
		fmt.Fprintf(b, "- **%s** %s: %s\n", verdict(c.Passed), c.Basis, mdEscape(c.Subject))
		var sub strings.Builder
		checkText(&sub, Check{Why: c.Why, Records: c.Records, RecordsTruncated: c.RecordsTruncated, RecordsNote: c.RecordsNote,
			Calls: c.Calls, Expected: c.Expected, MetVotes: c.MetVotes, Samples: c.Samples, Reasoning: c.Reasoning})
		lines := strings.Split(strings.TrimRight(sub.String(), "\n"), "\n")[1:]
		if len(lines) > 0 {
			b.WriteString("  ```\n")
			for _, l := range lines {
				b.WriteString("  " + strings.TrimPrefix(l, "       ") + "\n")
			}
			b.WriteString("  ```\n")
		}
	}
	if r.Note != "" {
		fmt.Fprintf(b, "\nNote: %s\n", mdEscape(r.Note))
	}
}

// mdQuoteText keeps a message's line breaks inside Markdown paragraphs.
func mdQuoteText(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "  \n")
}

// mdCode makes s fit between single backticks.
func mdCode(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(clip(s, 1000), "`", "'"), "\n", " ")
}

// WriteEvaluationOverview renders an overview in format: Text or Table
// (the summary, then a line per simulation), Markdown, or JSON.
func WriteEvaluationOverview(w io.Writer, format Format, o EvaluationOverview) error {
	switch format {
	case JSON:
		return writeJSON(w, o)
	case Markdown:
		var b strings.Builder
		markdownHead(&b, o.Evaluation)
		b.WriteString("\n### Simulations\n\n| simulation | reward | termination | why |\n|---|---|---|---|\n")
		for _, s := range o.Simulations {
			fmt.Fprintf(&b, "| %s | %.3f | %s | %s |\n", mdEscape(s.ID), s.Reward, s.TerminationReason, mdEscape(orDash(s.Why)))
		}
		_, err := io.WriteString(w, b.String())
		return err
	case Text, Table:
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		tableHead(tw, o.Evaluation)
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
		fmt.Fprintln(tw, "SIMULATION\tREWARD\tRESULT\tTERMINATION\tWHY")
		for _, s := range o.Simulations {
			fmt.Fprintf(tw, "%s\t%.3f\t%s\t%s\t%s\n", clip(s.ID, tableTextChars), s.Reward, verdict(s.Passed), s.TerminationReason, clip(s.Why, 200))
		}
		return tw.Flush()
	}
	return fmt.Errorf("unknown format %q: want text, markdown or json", format)
}

func toolCall(c ToolCallView, requestor string) domains.ToolCall {
	return domains.ToolCall{Name: c.Name, Arguments: c.Arguments, Requestor: requestor}
}

func toolCallOf(name string, ac ActualCall) domains.ToolCall {
	return domains.ToolCall{Name: name, Arguments: ac.Arguments, Requestor: ac.Requestor}
}
