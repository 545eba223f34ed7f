package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/proctor-eval/proctor/result"
)

// WriteEvaluationComparison renders a comparison of evaluations in format:
// Table (the overall figures, the test and the gate, then a row per task
// whose pass rate moved), Markdown (the same as tables) or JSON (the
// EvaluationComparison, every task included, indented).
func WriteEvaluationComparison(w io.Writer, format Format, c EvaluationComparison) error {
	switch format {
	case JSON:
		return writeJSON(w, c)
	case Markdown:
		return evalComparisonMarkdown(w, c)
	case Table:
		return evalComparisonTable(w, c)
	}
	return fmt.Errorf("unknown comparison format %q: want table, json or markdown", format)
}

// testLine says which test gave which p-values.
func testLine(t PairedTest) string {
	how := "exact"
	if !t.Exact {
		how = fmt.Sprintf("%d random sign flips", signFlipDraws)
	}
	return fmt.Sprintf("%s (%s, %d tasks, %d differ): p %.4f two-sided, p %.4f that B is worse",
		t.Name, how, t.Tasks, t.Discordant, t.PValue, t.PWorse)
}

func gateLine(g *RegressionGate) string {
	verdict := "pass"
	switch {
	case g.Regressed:
		verdict = "REGRESSION"
	case g.Inconclusive:
		verdict = "INCONCLUSIVE"
	}
	return verdict + ": " + g.Reason
}

func rate(o TaskOutcome) string { return fmt.Sprintf("%d/%d %.3f", o.Successes, o.Trials, o.PassRate) }

func evalComparisonTable(w io.Writer, c EvaluationComparison) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "domain\t%s\n", c.Domain)
	fmt.Fprintf(tw, "A (base)\t%s  %s  %s\n", c.Base.ID, c.Base.Agent, c.Base.Status)
	fmt.Fprintf(tw, "B (current)\t%s  %s  %s\n", c.Current.ID, c.Current.Agent, c.Current.Status)
	fmt.Fprintf(tw, "tasks\t%d shared (%d simulations in A, %d in B)\n", len(c.Tasks), c.Base.NumSimulations, c.Current.NumSimulations)
	if len(c.Removed) > 0 {
		fmt.Fprintf(tw, "only in A\t%s\n", clip(strings.Join(c.Removed, ", "), 1000))
	}
	if len(c.Added) > 0 {
		fmt.Fprintf(tw, "only in B\t%s\n", clip(strings.Join(c.Added, ", "), 1000))
	}
	for _, k := range c.PassHatK {
		fmt.Fprintf(tw, "pass^%d\tA %.3f (95%% CI %.3f-%.3f)  B %.3f (95%% CI %.3f-%.3f)  delta %+.3f\n",
			k.K, k.Base, k.BaseCI.Low, k.BaseCI.High, k.Current, k.CurrentCI.Low, k.CurrentCI.High, k.Delta)
	}
	if len(c.Tasks) > 0 {
		fmt.Fprintf(tw, "delta pass^1\t%+.3f (95%% CI %+.3f to %+.3f, over tasks)\n", c.Test.MeanDelta, c.Test.DeltaCI95.Low, c.Test.DeltaCI95.High)
		fmt.Fprintf(tw, "test\t%s\n", testLine(c.Test))
		fmt.Fprintf(tw, "noise\t%s\n", noiseLine(c.Noise))
	}
	fmt.Fprintf(tw, "tasks changed\t%d regressed, %d improved, %d unchanged\n", len(c.Regressions), len(c.Improvements), len(c.Tasks)-len(c.Regressions)-len(c.Improvements))
	for _, side := range []struct {
		name string
		s    ComparedSide
	}{{"process A", c.Base}, {"process B", c.Current}} {
		if note := ProcessNote(result.Summary{Process: side.s.Process}); note != "" {
			fmt.Fprintf(tw, "%s\t%s\n", side.name, note)
		}
	}
	if c.Gate != nil {
		fmt.Fprintf(tw, "gate\t%s\n", gateLine(c.Gate))
	}
	for _, warn := range c.Warnings {
		fmt.Fprintf(tw, "warning\t%s\n", warn)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	changed := c.changedTasks()
	if len(changed) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tA\tB\tDELTA\tFISHER P\tCHANGE")
	for _, t := range changed {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%+.3f\t%.4f\t%s\n", clip(t.TaskID, tableTextChars), rate(t.Base), rate(t.Current), t.Delta, t.FisherP, t.Change)
	}
	return tw.Flush()
}

func evalComparisonMarkdown(w io.Writer, c EvaluationComparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## proctor comparison: `%s` (A) vs `%s` (B)\n\n", c.Base.ID, c.Current.ID)
	fmt.Fprintf(&b, "Domain **%s**; A %s (%s), B %s (%s); %d shared tasks.\n\n",
		c.Domain, mdEscape(c.Base.Agent), c.Base.Status, mdEscape(c.Current.Agent), c.Current.Status, len(c.Tasks))
	if c.Gate != nil {
		fmt.Fprintf(&b, "**%s**\n\n", mdEscape(gateLine(c.Gate)))
	}
	b.WriteString("| metric | A | B | delta |\n|---|---|---|---|\n")
	for _, k := range c.PassHatK {
		fmt.Fprintf(&b, "| pass^%d | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f) | %+.3f |\n",
			k.K, k.Base, k.BaseCI.Low, k.BaseCI.High, k.Current, k.CurrentCI.Low, k.CurrentCI.High, k.Delta)
	}
	if a, b2 := c.Base.Process, c.Current.Process; a != nil && b2 != nil {
		fmt.Fprintf(&b, "| turns to success | %.1f | %.1f | %+.1f |\n", a.TurnsToSuccess, b2.TurnsToSuccess, b2.TurnsToSuccess-a.TurnsToSuccess)
		fmt.Fprintf(&b, "| repeated tool calls | %d | %d | %+d |\n", a.RepeatedCalls, b2.RepeatedCalls, b2.RepeatedCalls-a.RepeatedCalls)
		fmt.Fprintf(&b, "| unverified writes | %d | %d | %+d |\n", a.UnverifiedWrites, b2.UnverifiedWrites, b2.UnverifiedWrites-a.UnverifiedWrites)
		fmt.Fprintf(&b, "| tool error rate | %.3f | %.3f | %+.3f |\n", a.ToolErrorRate, b2.ToolErrorRate, b2.ToolErrorRate-a.ToolErrorRate)
		fmt.Fprintf(&b, "| tokens per success | %.0f | %.0f | %+.0f |\n", a.TokensPerSuccess, b2.TokensPerSuccess, b2.TokensPerSuccess-a.TokensPerSuccess)
	}
	if len(c.Tasks) > 0 {
		fmt.Fprintf(&b, "\nSignificance: %s.\n", mdEscape(testLine(c.Test)))
		fmt.Fprintf(&b, "\nAgainst the noise: %s.\n", mdEscape(noiseLine(c.Noise)))
	}
	for _, warn := range c.Warnings {
		fmt.Fprintf(&b, "\n> warning: %s\n", mdEscape(warn))
	}
	if changed := c.changedTasks(); len(changed) > 0 {
		b.WriteString("\n### Tasks that changed\n\n| task | A | B | delta | Fisher p | change |\n|---|---|---|---|---|---|\n")
		for _, t := range changed {
			fmt.Fprintf(&b, "| %s | %s | %s | %+.3f | %.4f | %s |\n", mdEscape(t.TaskID), rate(t.Base), rate(t.Current), t.Delta, t.FisherP, t.Change)
		}
	}
	if len(c.Removed) > 0 {
		fmt.Fprintf(&b, "\nOnly in A: %s\n", mdText(strings.Join(c.Removed, ", "), 2000))
	}
	if len(c.Added) > 0 {
		fmt.Fprintf(&b, "\nOnly in B: %s\n", mdText(strings.Join(c.Added, ", "), 2000))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
