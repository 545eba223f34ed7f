package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/skills"
)

type userAuditFlags struct {
	dbPath, format, out  string
	tau2Data, auditModel string
	concurrency          int
	llm                  llmFlags
}

func newUserAuditCmd() *cobra.Command {
	f := &userAuditFlags{}
	cmd := &cobra.Command{
		Use:   "user-audit ID",
		Short: "Check how far a stored evaluation's user simulator kept to its scenarios",
		Long: `Check the user simulator's conduct in every conversation of a stored evaluation, and
score the evaluation with the failures it may have caused set aside, beside the plain score
(never instead of it). Deterministic checks flag a user that:

  ended_unanswered  ended the conversation on a question of the agent's
  invented_fact     stated an identifier, number or address that neither its scenario nor
                    the agent gave it
  withheld_info     never gave an identifier of its scenario's known_info, although it
                    answered the agent's questions

With --audit-model, a model also reads each scenario and conversation and says where the
user deviated and whether that could have changed the outcome. A failed simulation with a
flag, or that the auditor says could have turned out otherwise, is set aside. Nothing is
played or stored; only the auditor's model is called.`,
		Example: `  proctor user-audit e88edbe3
  proctor user-audit e88edbe3 --audit-model openai:gpt-4.1 --format markdown`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return userAudit(cmd, f, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.auditModel, "audit-model", "", "model of the LLM auditor, e.g. openai:gpt-4.1 (default: deterministic checks only)")
	fl.StringVar(&f.dbPath, "db", "", "results database (default $PROCTOR_DB or the user data directory)")
	fl.StringVar(&f.format, "format", "table", "output format: table, json, markdown")
	fl.StringVar(&f.out, "out", "", "write the report to this file instead of stdout")
	fl.IntVar(&f.concurrency, "concurrency", 0, "conversations the auditor reads at the same time; default: the evaluation's")
	addTau2Flag(cmd, &f.tau2Data)
	addLLMFlags(cmd, &f.llm, true)
	for _, name := range []string{"user-model", "judge-model", "judge-samples"} {
		_ = fl.MarkHidden(name) // the auditor is the only model
	}
	return cmd
}

func (f *userAuditFlags) validate(cmd *cobra.Command) error {
	errs := f.llm.validate(cmd)
	if !slices.Contains([]string{"table", "json", "markdown"}, f.format) {
		errs = append(errs, fmt.Sprintf("--format %q: want table, json or markdown", f.format))
	}
	if f.llm.userModel != "" || f.llm.judgeModel != "" {
		errs = append(errs, "--user-model, --judge-model: a user audit calls only its auditor (--audit-model)")
	}
	if err := checkOut(f.out); err != "" {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return usageErr("%s", strings.Join(errs, "; "))
	}
	return nil
}

func userAudit(cmd *cobra.Command, f *userAuditFlags, id string) error {
	if err := f.validate(cmd); err != nil {
		return err
	}
	su, err := start(cmd, &f.llm, needs{domains: true, tau2Data: f.tau2Data})
	if err != nil {
		return err
	}
	defer su.close()
	db, path, err := openDBForReading(f.dbPath)
	if err != nil {
		return failErr(err)
	}
	if db == nil {
		return usageErr("no evaluation %q: there is no results database at %s yet", id, path)
	}
	defer db.Close()
	svc := &skills.Service{Domains: su.catalog, Store: db, Models: su.models}
	audit, err := svc.AuditUsers(cmd.Context(), skills.AuditRequest{ID: id, AuditModel: f.auditModel, Concurrency: f.concurrency})
	if err != nil {
		return requestErr(err)
	}
	return writeOut(cmd.OutOrStdout(), f.out, func(w io.Writer) error {
		return report.WriteUserAudit(w, report.Format(f.format), audit)
	})
}
