package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// formatTau2Submission is `proctor results --format tau2-submission`: a
// tau2-bench leaderboard submission directory from stored evaluations.
const formatTau2Submission = "tau2-submission"

// submissionFlags are what the submitter tells tau2's leaderboard.
type submissionFlags struct {
	meta report.Tau2SubmissionMeta
}

func addSubmissionFlags(cmd *cobra.Command, f *submissionFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.meta.ModelName, "model-name", "", "with --format tau2-submission: the name of the evaluated model")
	fl.StringVar(&f.meta.ModelOrganization, "model-organization", "", "with --format tau2-submission: who developed the model")
	fl.StringVar(&f.meta.SubmittingOrganization, "submitting-organization", "", "with --format tau2-submission: who ran the evaluation (default --model-organization)")
	fl.StringVar(&f.meta.ContactEmail, "contact-email", "", "with --format tau2-submission: contact email for the submission")
	fl.StringVar(&f.meta.ContactName, "contact-name", "", "with --format tau2-submission: contact name (optional)")
	fl.StringVar(&f.meta.UserSimulator, "user-simulator", "", "with --format tau2-submission: the user simulator's model (default the evaluations' --user-model)")
	fl.StringVar(&f.meta.Notes, "notes", "", "with --format tau2-submission: methodology notes (optional)")
}

// missingSubmissionFlags names the required flags left empty, so that the
// error says what to add.
func missingSubmissionFlags(m report.Tau2SubmissionMeta, out string) error {
	var missing []string
	for _, f := range []struct{ flag, value string }{
		{"--out DIR", out}, {"--model-name", m.ModelName}, {"--model-organization", m.ModelOrganization}, {"--contact-email", m.ContactEmail},
	} {
		if f.value == "" {
			missing = append(missing, f.flag)
		}
	}
	if len(missing) > 0 {
		return usageErr("--format tau2-submission needs %s (the leaderboard asks for them)", strings.Join(missing, ", "))
	}
	return nil
}

// writeSubmission loads the evaluations ids (one per domain), builds the
// submission, writes it under out and says on stderr where, and which of
// the leaderboard's requirements it does not meet.
func writeSubmission(ctx context.Context, dbPath, tau2Data string, ids []string, out string, meta report.Tau2SubmissionMeta, stderr io.Writer) error {
	if len(ids) == 0 {
		return usageErr("--format tau2-submission: give the IDs of the evaluations to submit, one per domain")
	}
	if err := missingSubmissionFlags(meta, out); err != nil {
		return err
	}
	db, path, err := openDBForReading(dbPath)
	if err != nil {
		return failErr(err)
	}
	if db == nil {
		return usageErr("no results database at %s yet", path)
	}
	defer db.Close()
	evals, doms, err := loadSubmitted(ctx, db, tau2Data, ids)
	if err != nil {
		return err
	}
	meta.Date = time.Now().UTC()
	files, err := report.NewTau2Submission(evals, doms, meta)
	if errors.Is(err, report.ErrTau2Submission) {
		return usageErr("%v", err)
	}
	if err != nil {
		return failErr(err)
	}
	dir, err := report.WriteTau2Submission(out, files)
	if err != nil {
		return failErr(err)
	}
	for _, p := range files.Problems {
		fmt.Fprintf(stderr, "proctor: leaderboard requirement not met: %s\n", p)
	}
	fmt.Fprintf(stderr, "proctor: tau2 submission in %s (submission.json and trajectories/)\n", dir)
	return nil
}

// loadSubmitted loads the evaluations and the base split of each domain
// (nil when tau2's data is not at hand: the tasks are then stubs and the
// all-tasks check reads the evaluation's task filters).
func loadSubmitted(ctx context.Context, db *store.DB, tau2Data string, ids []string) ([]*result.Evaluation, map[string]*domains.Domain, error) {
	cat, _ := newCatalog(tau2Data)
	doms := map[string]*domains.Domain{}
	var evals []*result.Evaluation
	results := skills.NewResults(db)
	for _, id := range ids {
		eval, err := results.Evaluation(ctx, id)
		if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAmbiguous) || errors.Is(err, evaluation.ErrEvalSetRun) {
			return nil, nil, usageErr("%v", err)
		}
		if err != nil {
			return nil, nil, failErr(err)
		}
		evals = append(evals, eval)
		if cat != nil {
			if d, _, err := cat.GetWith(eval.Domain, "base", domainOptions(eval)); err == nil {
				doms[eval.Domain] = d
			}
		}
	}
	return evals, doms, nil
}
