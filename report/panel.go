package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/proctor-eval/proctor/result"
)

// maxPanelRows bounds the assertions a table or Markdown panel report lists
// one by one (those the judges disagree on); JSON has them all.
const maxPanelRows = 50

// WriteJudgePanel renders a judge panel in format: Table or Markdown (the
// agreement figures, then the assertions the judges disagree on) or JSON
// (the JudgePanel, indented).
func WriteJudgePanel(w io.Writer, format Format, p *result.JudgePanel) error {
	switch format {
	case JSON:
		return writeJSON(w, p)
	case Markdown:
		return panelMarkdown(w, p)
	case Table:
		return panelTable(w, p)
	}
	return fmt.Errorf("unknown judge panel format %q: want table, json or markdown", format)
}

// panelFigures are the panel's headline figures as label/value pairs.
func panelFigures(p *result.JudgePanel) [][2]string {
	kappa := "undefined (the judges gave one verdict throughout, or nothing was graded)"
	if p.FleissKappa != nil {
		kappa = fmt.Sprintf("%.3f", *p.FleissKappa)
	}
	calls := make([]string, len(p.Judges))
	for i, j := range p.Judges {
		calls[i] = fmt.Sprintf("%s %d", j, p.JudgeCalls[i])
	}
	return [][2]string{
		{"evaluation", p.Evaluation + " (" + p.Domain + ")"},
		{"judges", fmt.Sprintf("%s, %s each", strings.Join(p.Judges, ", "), Plural(p.Samples, "sample"))},
		{"graded", fmt.Sprintf("%s with NL assertions (%d not graded), %s", Plural(len(p.Simulations), "simulation"), p.NotGraded, Plural(p.Assertions, "assertion"))},
		{"agreement", fmt.Sprintf("%d of %d assertions unanimous; pairwise agreement %.3f; Fleiss' kappa %s", p.Unanimous, p.Assertions, p.Agreement, kappa)},
		{"variance", fmt.Sprintf("agent (between conversations) %.0f%%, judge (same conversation) %.0f%%", 100*p.AgentVarianceShare, 100*p.JudgeVarianceShare)},
		{"outcome changes", fmt.Sprintf("%s change outcome with the judge: %s", Plural(len(p.OutcomeChanges), "simulation"), clip(strings.Join(p.OutcomeChanges, ", "), 1000))},
		{"judge calls", strings.Join(calls, ", ")},
	}
}

// disagreement is one assertion the judges did not all grade alike.
type disagreement struct {
	sim, assertion string
	verdicts       []string
}

func disagreements(p *result.JudgePanel) []disagreement {
	var out []disagreement
	for _, s := range p.Simulations {
		for a, text := range s.Assertions {
			if s.Agreement[a] == 1 {
				continue
			}
			d := disagreement{sim: s.ID, assertion: text}
			for j := range p.Judges {
				d.verdicts = append(d.verdicts, map[bool]string{true: "met", false: "not met"}[s.Met[j][a]])
			}
			out = append(out, d)
		}
	}
	return out
}

func panelTable(w io.Writer, p *result.JudgePanel) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range panelFigures(p) {
		fmt.Fprintf(tw, "%s\t%s\n", f[0], f[1])
	}
	ds := disagreements(p)
	if len(ds) > 0 {
		fmt.Fprintf(tw, "\nSIMULATION\t%s\tASSERTION\n", strings.ToUpper(strings.Join(p.Judges, "\t")))
		for i, d := range ds {
			if i == maxPanelRows {
				fmt.Fprintf(tw, "...\t%d more (see --format json)\n", len(ds)-i)
				break
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", d.sim, strings.Join(d.verdicts, "\t"), clip(d.assertion, 120))
		}
	}
	return tw.Flush()
}

func panelMarkdown(w io.Writer, p *result.JudgePanel) error {
	var b strings.Builder
	b.WriteString("## Judge panel\n\n| | |\n|---|---|\n")
	for _, f := range panelFigures(p) {
		fmt.Fprintf(&b, "| %s | %s |\n", f[0], mdText(f[1], 1000))
	}
	if ds := disagreements(p); len(ds) > 0 {
		b.WriteString("\n### Assertions the judges disagree on\n\n| Simulation | ")
		for _, j := range p.Judges {
			b.WriteString(mdText(j, 1000) + " | ")
		}
		b.WriteString("Assertion |\n|---|" + strings.Repeat("---|", len(p.Judges)) + "---|\n")
		for i, d := range ds {
			if i == maxPanelRows {
				fmt.Fprintf(&b, "\n%d more (see --format json)\n", len(ds)-i)
				break
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", mdText(d.sim, 1000), strings.Join(d.verdicts, " | "), mdText(d.assertion, 1000))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
