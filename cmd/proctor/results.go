package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/server/ui"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

func newResultsCmd() *cobra.Command {
	var dbPath, format, domain, agent, out, tau2Data string
	var limit int
	var conformanceRuns bool
	var sub submissionFlags
	cmd := &cobra.Command{
		Use:   "results [ID...]",
		Short: "List stored evaluations, or show one",
		Example: `  proctor results
  proctor results --domain mock --limit 5
  proctor results e88edbe3 --format markdown
  proctor results e88edbe3 --format tau2 --out results.json
  proctor results 1a2b3c4d 5e6f7a8b 9c0d1e2f --format tau2-submission --out submissions \
    --model-name my-model --model-organization my-org --contact-email me@example.com
  proctor results --conformance
  proctor results 3b6f2e10 --format junit --out conformance.xml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if format == formatTau2Submission {
				return writeSubmission(ctx, dbPath, tau2Data, args, out, sub.meta, cmd.ErrOrStderr())
			}
			if len(args) > 1 {
				return usageErr("accepts at most 1 arg, the evaluation ID, received %d (several only with --format tau2-submission)", len(args))
			}
			if !slices.Contains(report.Formats(), report.Format(format)) && format != conformance.FormatJUnit && format != formatHTML {
				return usageErr("--format %q: want table, json, markdown, tau2, tau2-submission, junit or html", format)
			}
			if limit < 1 {
				return usageErr("--limit must be at least 1")
			}
			if conformanceRuns && len(args) == 0 {
				if format != "table" && format != "json" {
					return usageErr("--conformance lists runs as table or json; give an ID for other formats")
				}
				db, _, err := openDBForReading(dbPath)
				if err != nil {
					return failErr(err)
				}
				if db != nil {
					defer db.Close()
				}
				return listConformance(ctx, db, cmd.OutOrStdout(), format, agent, limit)
			}
			if len(args) == 0 && (report.Format(format) == report.Tau2 || format == conformance.FormatJUnit || format == formatHTML || out != "") {
				return usageErr("--format tau2, junit and html and --out show one evaluation or conformance run: give its ID")
			}
			db, path, err := openDBForReading(dbPath)
			if err != nil {
				return failErr(err)
			}
			if db == nil {
				if len(args) == 1 {
					return usageErr("no evaluation %q: there is no results database at %s yet", args[0], path)
				}
				return listResults(cmd.OutOrStdout(), format, nil)
			}
			defer db.Close()
			if len(args) == 1 {
				eval, err := skills.NewResults(db).Evaluation(ctx, args[0])
				if errors.Is(err, evaluation.ErrEvalSetRun) && format == formatHTML {
					return writeStoredEvalSetHTML(ctx, db, cmd.OutOrStdout(), out, args[0])
				}
				if errors.Is(err, evaluation.ErrEvalSetRun) {
					return showEvalSetRun(ctx, db, cmd.OutOrStdout(), args[0], out, format)
				}
				if conformanceRuns || (errors.Is(err, store.ErrNotFound) && conformanceExists(ctx, db, args[0])) {
					if format == formatHTML {
						return writeStoredConformanceHTML(ctx, db, cmd.OutOrStdout(), out, args[0])
					}
					return showConformance(ctx, db, cmd.OutOrStdout(), args[0], out, format)
				}
				if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAmbiguous) {
					return usageErr("%v", err)
				}
				if format == conformance.FormatJUnit {
					return usageErr("--format junit is for conformance reports; %s is an evaluation", eval.ID)
				}
				if err != nil {
					return failErr(err)
				}
				eval.Status = shownStatus(eval.Status, writersActive(db))
				if format == formatHTML {
					return writeStoredHTML(ctx, db, cmd.OutOrStdout(), out, eval)
				}
				var cat *catalog.Catalog
				if report.Format(format) == report.Tau2 {
					cat, _ = newCatalog(tau2Data) // without it, tau2's tasks are stubs
				}
				return writeResult(cmd.OutOrStdout(), out, format, eval, cat)
			}
			svc := &skills.Service{Store: db}
			_, page, err := svc.GetResults(ctx, skills.ResultsRequest{Domain: domain, AgentURL: agent, Limit: limit})
			var invalid *skills.InvalidRequestError
			if errors.As(err, &invalid) {
				return usageErr("%v", err)
			}
			if err != nil {
				return failErr(err)
			}
			heads := page.Evaluations
			live := writersActive(db)
			for i := range heads {
				heads[i].Status = shownStatus(heads[i].Status, live)
				if strings.HasPrefix(heads[i].Error, skills.UnreadableRecord) {
					heads[i].Status += " (unreadable)"
				}
			}
			if err := listResults(cmd.OutOrStdout(), format, heads); err != nil || format == "json" {
				return err
			}
			runs, err := skills.NewResults(db).EvalSetRuns(ctx, skills.ResultsRequest{AgentURL: agent, Limit: limit})
			if err != nil {
				return failErr(err)
			}
			return listEvalSetRuns(cmd.OutOrStdout(), db, runs.Runs)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	fl.StringVar(&format, "format", "table", "output format: table, json, markdown, tau2 (tau2-bench's results.json; one evaluation), tau2-submission (a tau2 leaderboard submission directory under --out; one evaluation per domain), junit (one conformance report or eval-set run), html (one self-contained file)")
	fl.StringVar(&out, "out", "", "write the evaluation to this file instead of stdout")
	fl.StringVar(&domain, "domain", "", "list only evaluations of this domain")
	fl.StringVar(&agent, "agent-url", "", `list only evaluations of this agent (its URL, card URL, or "builtin")`)
	fl.IntVar(&limit, "limit", skills.DefaultResultsLimit, "list at most this many evaluations, newest first (at most 500)")
	fl.BoolVar(&conformanceRuns, "conformance", false, "list conformance runs (proctor conformance, check_conformance) instead of evaluations")
	addTau2Flag(cmd, &tau2Data)
	addSubmissionFlags(cmd, &sub)
	return cmd
}

// showEvalSetRun writes a stored eval-set run in format (table, json,
// markdown or junit).
func showEvalSetRun(ctx context.Context, db *store.DB, stdout io.Writer, id, out, format string) error {
	if format == string(report.Tau2) {
		return usageErr("--format tau2 is for evaluations of simulations; %s is an eval-set run", id)
	}
	run, err := skills.NewResults(db).EvalSetRun(ctx, id)
	if err != nil {
		return failErr(err)
	}
	run.Status = shownStatus(run.Status, writersActive(db))
	if err := writeOut(stdout, out, func(w io.Writer) error { return report.WriteEvalSetRun(w, report.Format(format), run) }); err != nil {
		return failErr(err)
	}
	return nil
}

// listEvalSetRuns writes the eval-set runs after the evaluations.
func listEvalSetRuns(out io.Writer, db *store.DB, runs []result.EvalSetRun) error {
	if len(runs) == 0 {
		return nil
	}
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EVAL-SET RUN\tCREATED\tSETS\tAGENT\tSTATUS\tCASES\tPASSED\tFAILED")
	live := writersActive(db)
	for _, r := range runs {
		ids := make([]string, len(r.Sets))
		for i, s := range r.Sets {
			ids[i] = s.ID
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\n", r.ID, r.CreatedAt.Local().Format("2006-01-02 15:04"),
			strings.Join(ids, ","), report.AgentLabel(r.Agent), shownStatus(r.Status, live), r.Summary.NumCases, r.Summary.Passed, r.Summary.Failed)
	}
	return tw.Flush()
}

func listResults(out io.Writer, format string, heads []result.Evaluation) error {
	if format == "json" {
		if heads == nil {
			heads = []result.Evaluation{}
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(heads)
	}
	if len(heads) == 0 {
		fmt.Fprintln(out, "No evaluations stored yet. Start one with: proctor run --domain mock --agent builtin")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCREATED\tDOMAIN\tAGENT\tORIGIN\tSTATUS\tSIMS\tPASS^1\tAVG REWARD")
	for _, e := range heads {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%.3f\t%.3f\n", e.ID, e.CreatedAt.Local().Format("2006-01-02 15:04"),
			e.Domain, report.AgentLabel(e.Agent), originLabel(&e), e.Status, e.Summary.NumSimulations, e.Summary.PassHatK["1"], e.Summary.AvgReward)
	}
	return tw.Flush()
}

// originLabel names how an evaluation came to be, for the results table:
// "run", "merge of 4", "shard 2/4", "rescore of 01a1fd45".
func originLabel(e *result.Evaluation) string {
	switch o := e.Origin(); o {
	case result.OriginMerge:
		return fmt.Sprintf("merge of %d", e.MergedShards)
	case result.OriginShard:
		return fmt.Sprintf("shard %d/%d", e.Config.ShardIndex, e.Config.NumShards)
	case result.OriginRescore:
		return "rescore of " + report.ShortID(e.RescoredFrom)
	default:
		return string(o)
	}
}

// shownStatus is the status to show for a stored evaluation, read while
// writersLive said whether any proctor had the database open for writing:
// when none has, an evaluation marked running was left by a proctor that
// stopped, and is interrupted (the next 'proctor run' records it so).
func shownStatus(stored result.Status, writersLive bool) result.Status {
	if stored == result.StatusRunning && !writersLive {
		return result.StatusInterrupted
	}
	return stored
}

// writeReport renders eval in format. tau2-bench's layout takes the
// domain's policy and tasks from cat when the evaluated domain is available
// there; without it (cat nil, or the domain's data gone) its tasks are stubs.
func writeReport(w io.Writer, format string, eval *result.Evaluation, cat *catalog.Catalog) error {
	if format == formatHTML {
		return ui.WriteEvaluation(w, eval, ui.RequestLatencies(eval.Simulations))
	}
	if report.Format(format) != report.Tau2 {
		return report.Write(w, report.Format(format), eval)
	}
	var dom *domains.Domain
	if cat != nil {
		if d, _, err := cat.GetWith(eval.Domain, eval.Config.Split, domainOptions(eval)); err == nil {
			dom = d
		}
	}
	return report.WriteTau2(w, eval, dom)
}
