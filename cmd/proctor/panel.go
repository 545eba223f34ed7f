package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/skills"
)

// panelConflicts lists the rescore flags a judge panel cannot honour: it
// grades NL assertions and stores nothing.
func panelConflicts(cmd *cobra.Command, f *rescoreFlags) []string {
	var errs []string
	for _, name := range []string{"strict", "action-match"} {
		if cmd.Flags().Changed(name) {
			errs = append(errs, "--"+name+": a judge panel (several --judge-model) grades NL assertions only; rescore with one judge to change the scoring")
		}
	}
	if f.format == string(report.Tau2) {
		errs = append(errs, "--format tau2: a judge panel is reported as table, json or markdown")
	}
	return errs
}

// judgePanel grades the stored evaluation id under each --judge-model and
// writes the panel's report.
func judgePanel(cmd *cobra.Command, f *rescoreFlags, svc *skills.Service, id string) error {
	ctx := cmd.Context()
	db, path, err := openDBForReading(f.dbPath)
	if err != nil {
		return failErr(err)
	}
	if db == nil {
		return usageErr("no evaluation %q: there is no results database at %s yet", id, path)
	}
	defer db.Close()
	svc.Store = db
	req := skills.PanelRequest{ID: id, JudgeModels: f.llm.judgeModels, Concurrency: f.concurrency,
		Temperature: f.llm.temperaturePtr(cmd), Seed: f.llm.seedPtr(cmd)}
	if cmd.Flags().Changed("judge-samples") {
		req.JudgeSamples = f.llm.judgeSamples
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "proctor: a panel of %d judges grading the NL assertions of %s\n", len(req.JudgeModels), id)
	panel, err := svc.JudgePanel(ctx, req, panelProgress(cmd.ErrOrStderr(), f.progress))
	if err != nil {
		return requestErr(err)
	}
	return writeOut(cmd.OutOrStdout(), f.out, func(w io.Writer) error {
		return report.WriteJudgePanel(w, report.Format(f.format), panel)
	})
}

// panelProgress reports each conversation graded on a line, unless
// progress is off.
func panelProgress(w io.Writer, mode string) func(done, total int) {
	if mode == "none" {
		return nil
	}
	return func(done, total int) {
		if done == total || done%10 == 0 {
			fmt.Fprintf(w, "proctor: %d/%d conversations graded by every judge\n", done, total)
		}
	}
}
