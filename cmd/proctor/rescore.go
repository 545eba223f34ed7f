package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
)

type rescoreFlags struct {
	strict              bool
	actionMatch         string
	dbPath, format, out string
	tau2Data, progress  string
	concurrency         int
	llm                 llmFlags
}

func newRescoreCmd() *cobra.Command {
	f := &rescoreFlags{llm: llmFlags{panel: true}}
	cmd := &cobra.Command{
		Use:   "rescore ID",
		Short: "Score a stored evaluation again, without the agent",
		Long: `Score the simulations a stored evaluation recorded again, and store the result as
a new evaluation that names its source (rescored_from). Nothing is played: neither
the agent nor the user simulator is contacted. The transcripts, tool calls, request
metrics and user-model calls are the source's; the rewards, the do-nothing baseline
and pass^k are computed anew.

Without flags the source's scoring settings are kept, and its rewards come out the
same. --strict=true or --strict=false changes the scoring mode, --action-match
tau2|exact how expected tool calls are matched; --judge-model and
--judge-samples change the NL_ASSERTION judge (with --llm-cassette, a recording of
the original run's judge replays offline).

--judge-model given 2 to 8 times makes a judge panel: each judge grades every NL
assertion of the stored conversations (airline's too, where NL assertions are not
part of the reward), with --judge-samples verdicts each, and proctor reports how
far the judges agree (unanimous assertions, pairwise agreement, Fleiss' kappa),
which simulations change outcome with the judge, and how the outcomes' variance
splits between the agent (between conversations) and the judges (on the same
conversation). Only the judges' models are called, and nothing is stored.`,
		Example: `  proctor rescore e88edbe3 --strict
  proctor rescore e88edbe3 --judge-model openai:gpt-4.1 --judge-samples 5 --format markdown
  proctor rescore e88edbe3 --llm-cassette run.cassette.json --llm-mode replay
  proctor rescore e88edbe3 --judge-model openai:gpt-4.1 --judge-model gemini:gemini-2.5-pro --judge-model anthropic-compatible:judge --judge-samples 1`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return rescoreEvaluation(cmd, f, args[0]) },
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.strict, "strict", false, "score strictly (true) or leniently (false); default: as the source was scored")
	fl.StringVar(&f.actionMatch, "action-match", "", "how ACTION matches expected tool calls: tau2 (tau2-bench's reading) or exact (proctor's stricter one); default: as the source was scored")
	fl.StringVar(&f.dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	fl.StringVar(&f.format, "format", "table", "output format: table, json, markdown, tau2 (tau2-bench's results.json)")
	fl.StringVar(&f.out, "out", "", "write the result to this file instead of stdout")
	fl.IntVar(&f.concurrency, "concurrency", 0, "simulations scored at the same time (judge calls); default: the source's")
	fl.StringVar(&f.progress, "progress", "auto", "progress display on stderr: auto (a bar on a terminal), bar, lines, none")
	addTau2Flag(cmd, &f.tau2Data)
	addLLMFlags(cmd, &f.llm, true)
	for _, name := range []string{"user-model"} {
		_ = fl.MarkHidden(name) // rescoring plays nothing: no user model
	}
	return cmd
}

// validate checks what only the command line has: the request's fields are
// the service's to check.
func (f *rescoreFlags) validate(cmd *cobra.Command) error {
	errs := f.llm.validate(cmd)
	if !slices.Contains(report.Formats(), report.Format(f.format)) {
		errs = append(errs, fmt.Sprintf("--format %q: want table, json, markdown or tau2", f.format))
	}
	if !slices.Contains([]string{"auto", "bar", "lines", "none"}, f.progress) {
		errs = append(errs, fmt.Sprintf("--progress %q: want auto, bar, lines or none", f.progress))
	}
	if f.llm.userModel != "" {
		errs = append(errs, "--user-model: rescoring plays no conversation; only the judge (--judge-model) is used")
	}
	if err := checkOut(f.out); err != "" {
		errs = append(errs, err)
	}
	if len(f.llm.judgeModels) > 1 {
		errs = append(errs, panelConflicts(cmd, f)...)
	}
	if len(errs) > 0 {
		return usageErr("%s", strings.Join(errs, "; "))
	}
	return nil
}

func rescoreEvaluation(cmd *cobra.Command, f *rescoreFlags, id string) error {
	ctx := cmd.Context()
	if err := f.validate(cmd); err != nil {
		return err
	}
	su, err := start(cmd, &f.llm, needs{domains: true, tau2Data: f.tau2Data})
	if err != nil {
		return err
	}
	defer su.close()
	reg, models := su.catalog, su.models
	if len(f.llm.judgeModels) > 1 {
		return judgePanel(cmd, f, &skills.Service{Domains: reg, Models: models}, id)
	}
	req := skills.RescoreRequest{ID: id, JudgeModel: f.llm.judgeModel, Concurrency: f.concurrency,
		Temperature: f.llm.temperaturePtr(cmd), Seed: f.llm.seedPtr(cmd)}
	if cmd.Flags().Changed("strict") {
		req.Strict = &f.strict
	}
	req.ActionMatch = result.ActionMatch(f.actionMatch)
	if cmd.Flags().Changed("judge-samples") {
		req.JudgeSamples = f.llm.judgeSamples
	}
	db, err := openWritableDB(ctx, f.dbPath, cmd.ErrOrStderr(), "see 'proctor results'")
	if err != nil {
		return failErr(err)
	}
	defer db.Close()
	svc := &skills.Service{Domains: reg, Store: db, Models: models}
	rs, err := svc.PrepareRescore(ctx, req)
	if err != nil {
		return requestErr(err)
	}
	src, eval := rs.Source(), rs.Evaluation()
	fmt.Fprintf(cmd.ErrOrStderr(), "proctor: evaluation %s: scoring the %d simulations of %s again (%s)\n",
		eval.ID, len(src.Simulations), src.ID, scoringMode(eval.Config.Strict, eval.Config.ActionMatch))
	_, err = execute(cmd, rs, output{f.out, f.format, f.progress, reg, nil}, "scored. Start again with: proctor rescore "+src.ID)
	return err
}

func scoringMode(strict bool, match result.ActionMatch) string {
	mode := "lenient scoring"
	if strict {
		mode = "strict scoring"
	}
	return mode + ", " + string(match.OrDefault()) + " action matching"
}
