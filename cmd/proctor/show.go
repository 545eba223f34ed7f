package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/domains/tau2/load"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// maxShownRecords bounds the differing records proctor show lists for a
// failed DB check.
const maxShownRecords = 50

func newShowCmd() *cobra.Command {
	var dbPath, format, tau2Data string
	cmd := &cobra.Command{
		Use:   "show ID[/TASK[#TRIAL]]",
		Short: "Read a stored evaluation's conversations and why each check failed",
		Long: `Show a stored evaluation in a terminal. ID alone gives its summary and a line per
simulation with its reward and why it failed; ID/TASK every trial of a task;
ID/TASK#TRIAL one simulation. A simulation is shown as its conversation (the user,
the agent and its private thoughts, tool calls with their arguments and results; a
knowledge-base search, KB_search or grep, as its documents: id, title and score, the
content folded to its first words, whole in --format json) and then every check of
its reward: a failed DB check lists the records that differ from the expected
database (the conversation's tool calls are replayed on the domain, as proctor
rescore does), a missing ACTION the calls of that tool the agent made and the
arguments that differ, COMMUNICATE the information the user never got, NL_ASSERTION
the judge's votes and reasoning.

ID is a full evaluation id or a short one (a unique prefix or suffix of at least 8
characters), as for proctor results.`,
		Example: `  proctor show 01970d1c
  proctor show 01970d1c/mock-02
  proctor show 01970d1c/mock-02#0 --format markdown`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains([]string{"text", "markdown", "json"}, format) {
				return usageErr("--format %q: want text, markdown or json", format)
			}
			return showEvaluation(cmd, dbPath, tau2Data, report.Format(format), args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	fl.StringVar(&format, "format", "text", "output format: text, markdown or json")
	addTau2Flag(cmd, &tau2Data)
	return cmd
}

// showTarget is what proctor show was asked for: an evaluation, one of its
// tasks, or one trial of it (trial -1: all).
type showTarget struct {
	id, task string
	trial    int
}

// parseShowTarget reads ID[/TASK[#TRIAL]]. Evaluation ids have no "/";
// task ids may have "#", so only a last "#" followed by digits is a trial.
func parseShowTarget(arg string) (showTarget, error) {
	t := showTarget{trial: -1}
	id, rest, hasTask := strings.Cut(arg, "/")
	t.id = id
	if id == "" {
		return t, usageErr("%q: want ID, ID/TASK or ID/TASK#TRIAL", arg)
	}
	if !hasTask {
		return t, nil
	}
	t.task = rest
	if i := strings.LastIndex(rest, "#"); i >= 0 {
		digits := rest[i+1:]
		if n, err := strconv.Atoi(digits); err == nil && digits != "" && strings.Trim(digits, "0123456789") == "" {
			t.task, t.trial = rest[:i], n
		}
	}
	if t.task == "" {
		return t, usageErr("%q: the task id after / is empty", arg)
	}
	return t, nil
}

func showEvaluation(cmd *cobra.Command, dbFlag, tau2Data string, format report.Format, arg string) error {
	target, err := parseShowTarget(arg)
	if err != nil {
		return err
	}
	db, path, err := openDBForReading(dbFlag)
	if err != nil {
		return failErr(err)
	}
	if db == nil {
		return usageErr("no evaluation %q: there is no results database at %s yet", target.id, path)
	}
	defer db.Close()
	ctx := cmd.Context()
	eval, err := loadEvaluation(ctx, db, target.id, false)
	if errors.Is(err, evaluation.ErrEvalSetRun) {
		return usageErr("%s is an eval-set run, which has no conversations to show: see 'proctor results %s'", target.id, target.id)
	}
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if target.task == "" {
		if format == report.Text {
			format = report.Table
		}
		return report.WriteEvaluationOverview(out, format, report.NewEvaluationOverview(eval))
	}
	sims, err := selectSimulations(eval, target)
	if err != nil {
		return err
	}
	diff := dbDiffer(eval, tau2Data)
	reports := make([]report.SimulationReport, len(sims))
	for i := range sims {
		reports[i] = report.NewSimulationReport(eval, sims[i], diff)
	}
	return report.WriteSimulationReports(out, format, reports)
}

// loadEvaluation reads a stored evaluation by id or short id: the one
// resolver of proctor results, show and compare (store.GetEvaluation's).
// brief leaves out the simulations (skills.Results.EvaluationBrief). An
// unknown or ambiguous id is a usage error; an eval-set run's id comes
// back as an error wrapping evaluation.ErrEvalSetRun for the caller to
// handle.
func loadEvaluation(ctx context.Context, db *store.DB, id string, brief bool) (*result.Evaluation, error) {
	results := skills.NewResults(db)
	load := results.Evaluation
	if brief {
		load = func(ctx context.Context, id string) (*result.Evaluation, error) {
			return results.EvaluationBrief(ctx, id, false)
		}
	}
	eval, err := load(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAmbiguous):
		return nil, usageErr("%v (see 'proctor results' for the stored evaluations)", err)
	case errors.Is(err, evaluation.ErrEvalSetRun):
		return nil, err
	case err != nil:
		return nil, failErr(err)
	}
	eval.Status = shownStatus(eval.Status, writersActive(db))
	return eval, nil
}

// selectSimulations picks the simulations of target's task (and trial).
func selectSimulations(eval *result.Evaluation, target showTarget) ([]*result.Simulation, error) {
	var out []*result.Simulation
	trials := []string{}
	for i := range eval.Simulations {
		s := &eval.Simulations[i]
		if s.TaskID != target.task {
			continue
		}
		trials = append(trials, strconv.Itoa(s.Trial))
		if target.trial < 0 || s.Trial == target.trial {
			out = append(out, s)
		}
	}
	switch {
	case len(trials) == 0:
		return nil, usageErr("evaluation %s has no simulation of task %q (see 'proctor show %s' for its simulations)", eval.ID, target.task, eval.ID)
	case len(out) == 0:
		return nil, usageErr("evaluation %s has no trial %d of task %s: its trials are %s", eval.ID, target.trial, target.task, strings.Join(trials, ", "))
	}
	return out, nil
}

// dbDiffer lists the records a simulation's final database differs in,
// replaying its conversation on the evaluated domain; nil when the domain
// is not available here (a tau2 domain without its data).
func dbDiffer(eval *result.Evaluation, tau2Data string) report.DBDiffFunc {
	cat, err := newCatalog(tau2Data)
	if err != nil {
		return nil
	}
	return catalogDiffer(cat)(eval)
}

// catalogDiffer is dbDiffer over the domains of cat: the viewer's
// ui.Options.DBDiff.
func catalogDiffer(cat *catalog.Catalog) func(eval *result.Evaluation) report.DBDiffFunc {
	return func(eval *result.Evaluation) report.DBDiffFunc {
		dom, err := domainOf(cat, eval)
		if err != nil {
			return func(*result.Simulation) ([]domains.RecordDiff, bool, error) { return nil, false, err }
		}
		return func(sim *result.Simulation) ([]domains.RecordDiff, bool, error) {
			task, ok := dom.Task(sim.TaskID)
			if !ok {
				return nil, false, fmt.Errorf("domain %s no longer has task %s", eval.Domain, sim.TaskID)
			}
			return scoring.DBDiff(dom, task, sim.Messages, maxShownRecords)
		}
	}
}

// domainOptions are the options an evaluation's domain was loaded with.
func domainOptions(eval *result.Evaluation) load.Options {
	return load.Options{RetrievalConfig: eval.Config.RetrievalConfig}
}

func domainOf(cat *catalog.Catalog, eval *result.Evaluation) (*domains.Domain, error) {
	dom, _, err := cat.GetWith(eval.Domain, eval.Config.Split, domainOptions(eval))
	if err != nil {
		return nil, fmt.Errorf("domain %s is not available here (%v); give --tau2-data to compare records", eval.Domain, err)
	}
	return dom, nil
}
