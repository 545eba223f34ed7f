package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/proctor-eval/proctor/result"
)

// WriteUserAudit renders a user-simulator audit in format: Table or
// Markdown (the plain score beside the score with the simulator's possible
// failures set aside, then each flagged simulation) or JSON (the
// UserAudit, every simulation included, indented).
func WriteUserAudit(w io.Writer, format Format, a *result.UserAudit) error {
	switch format {
	case JSON:
		return writeJSON(w, a)
	case Markdown:
		return userAuditMarkdown(w, a)
	case Table:
		return userAuditTable(w, a)
	}
	return fmt.Errorf("unknown user audit format %q: want table, json or markdown", format)
}

func userAuditFigures(a *result.UserAudit) [][2]string {
	how := "deterministic checks"
	if a.AuditModel != "" {
		how += fmt.Sprintf(" and an LLM auditor (%s, %s)", a.AuditModel, Plural(a.AuditorCalls, "call"))
	}
	return [][2]string{
		{"evaluation", a.Evaluation + " (" + a.Domain + ")"},
		{"audited by", how},
		{"failed", fmt.Sprintf("%d of %d simulations; %d may be the user simulator's", a.Failed, len(a.Simulations), a.Attributable)},
		{"pass^1", fmt.Sprintf("%.3f as scored; %.3f with %s set aside", a.PassHat1, a.PassHat1SetAside, Plural(a.Attributable, "simulation"))},
	}
}

// auditFindings are a simulation's flags and auditor deviations, one line
// each.
func auditFindings(s result.SimulationAudit) []string {
	var out []string
	for _, f := range s.Flags {
		where := ""
		if f.Turn > 0 {
			where = fmt.Sprintf(" (turn %d)", f.Turn)
		}
		out = append(out, string(f.Check)+where+": "+f.Detail)
	}
	if v := s.Auditor; v != nil {
		for _, d := range v.Deviations {
			out = append(out, "auditor: "+d)
		}
		if v.Error != "" {
			out = append(out, "auditor failed: "+v.Error)
		} else if v.CouldChangeOutcome {
			out = append(out, "auditor: could have changed the outcome ("+v.Reasoning+")")
		}
	}
	return out
}

func outcomeWord(s result.SimulationAudit) string {
	switch {
	case s.Attributable:
		return "failed, set aside"
	case s.Passed:
		return "passed"
	}
	return "failed"
}

func userAuditTable(w io.Writer, a *result.UserAudit) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range userAuditFigures(a) {
		fmt.Fprintf(tw, "%s\t%s\n", f[0], f[1])
	}
	header := false
	for _, s := range a.Simulations {
		findings := auditFindings(s)
		if len(findings) == 0 {
			continue
		}
		if !header {
			fmt.Fprint(tw, "\nSIMULATION\tOUTCOME\tFINDING\n")
			header = true
		}
		for i, f := range findings {
			id, outcome := s.ID, outcomeWord(s)
			if i > 0 {
				id, outcome = "", ""
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", id, outcome, clip(f, 160))
		}
	}
	return tw.Flush()
}

func userAuditMarkdown(w io.Writer, a *result.UserAudit) error {
	var b strings.Builder
	b.WriteString("## User simulator audit\n\n| | |\n|---|---|\n")
	for _, f := range userAuditFigures(a) {
		fmt.Fprintf(&b, "| %s | %s |\n", f[0], mdText(f[1], 1000))
	}
	rows := 0
	for _, s := range a.Simulations {
		findings := auditFindings(s)
		if len(findings) == 0 {
			continue
		}
		if rows == 0 {
			b.WriteString("\n| Simulation | Outcome | Findings |\n|---|---|---|\n")
		}
		rows++
		for i := range findings {
			findings[i] = mdText(findings[i], 300)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", mdText(s.ID, 100), outcomeWord(s), strings.Join(findings, "<br>"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
