package report

// This file lays out a tau2-bench leaderboard submission, as tau2's `tau2
// submit prepare` does (src/tau2/scripts/leaderboard/prepare_submission.py):
// DIR/submission.json, whose fields follow tau2's
// web/leaderboard/public/submissions/schema.json, and DIR/trajectories/
// DOMAIN_results.json, each evaluation's tau2 export (WriteTau2). The
// pass^k figures are tau2's own (Summary.Tau2) in percent, as tau2 computes
// them from those trajectories. The requirements of tau2's
// docs/leaderboard-submission.md are checked: one result per leaderboard
// domain and one agent and user configuration across them (errors, as
// tau2's prepare refuses them), all tasks of the base split and 4+ trials
// (stated as unmet, in Problems and in methodology.verification).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
)

// Tau2LeaderboardDomains are the domains tau2's leaderboard ranks
// (schema.json's Results); proctor runs the first three.
var tau2LeaderboardDomains = []string{"retail", "airline", "telecom", "banking_knowledge"}

// Tau2MinTrials is the trial count tau2's leaderboard asks for.
const Tau2MinTrials = 4

// Tau2SubmissionMeta is what the submitter supplies: tau2's prepare asks
// for it interactively.
type Tau2SubmissionMeta struct {
	ModelName              string
	ModelOrganization      string
	SubmittingOrganization string // default ModelOrganization
	ContactEmail           string
	ContactName            string
	// UserSimulator names the user simulator's model; default the
	// evaluations' user model.
	UserSimulator string
	Notes         string
	Date          time.Time
}

// Tau2Submission is submission.json (tau2's Submission model).
type Tau2Submission struct {
	ModelName              string                        `json:"model_name"`
	ModelOrganization      string                        `json:"model_organization"`
	SubmittingOrganization string                        `json:"submitting_organization"`
	SubmissionDate         string                        `json:"submission_date"`
	SubmissionType         string                        `json:"submission_type"`
	Modality               string                        `json:"modality"`
	ContactInfo            Tau2ContactInfo               `json:"contact_info"`
	Results                map[string]*Tau2DomainResults `json:"results"`
	IsNew                  bool                          `json:"is_new"`
	TrajectoriesAvailable  bool                          `json:"trajectories_available"`
	TrajectoryFiles        map[string]string             `json:"trajectory_files"`
	Methodology            Tau2Methodology               `json:"methodology"`
}

// Tau2ContactInfo is submission.json's contact_info.
type Tau2ContactInfo struct {
	Email string  `json:"email"`
	Name  *string `json:"name"`
}

// Tau2DomainResults is one domain's pass^1..4 in percent (null when the
// evaluation has too few trials) and cost (null: proctor does not know what
// a remote agent costs).
type Tau2DomainResults struct {
	Pass1 *float64 `json:"pass_1"`
	Pass2 *float64 `json:"pass_2"`
	Pass3 *float64 `json:"pass_3"`
	Pass4 *float64 `json:"pass_4"`
	Cost  *float64 `json:"cost"`
}

// Tau2Methodology is submission.json's methodology.
type Tau2Methodology struct {
	EvaluationDate string           `json:"evaluation_date"`
	UserSimulator  *string          `json:"user_simulator"`
	Notes          *string          `json:"notes"`
	Verification   Tau2Verification `json:"verification"`
}

// Tau2Verification is methodology.verification: omitted_questions is true
// when an evaluation did not run every task of the base split, and details
// then says which.
type Tau2Verification struct {
	ModifiedPrompts  bool    `json:"modified_prompts"`
	OmittedQuestions bool    `json:"omitted_questions"`
	Details          *string `json:"details"`
}

// Tau2SubmissionFiles is a submission ready to write: submission.json, the
// trajectory files by name, the directory name tau2 gives it, and the
// requirements it does not meet.
type Tau2SubmissionFiles struct {
	Dir          string
	Submission   Tau2Submission
	Trajectories map[string]*Tau2Results
	Problems     []string
}

// ErrTau2Submission is wrapped by the errors of submissions tau2 would refuse.
var ErrTau2Submission = errors.New("not a tau2 leaderboard submission")

// NewTau2Submission builds a leaderboard submission from evaluations, one
// per leaderboard domain. doms holds each evaluated domain's base split by
// proctor's domain name, for the trajectories' tasks and to check that
// every task was run; a domain missing from it is checked against the
// evaluation's own task filters instead.
func NewTau2Submission(evals []*result.Evaluation, doms map[string]*domains.Domain, meta Tau2SubmissionMeta) (Tau2SubmissionFiles, error) {
	if err := meta.check(); err != nil {
		return Tau2SubmissionFiles{}, err
	}
	if err := checkTau2Set(evals); err != nil {
		return Tau2SubmissionFiles{}, err
	}
	sub := meta.submission()
	files := Tau2SubmissionFiles{Trajectories: map[string]*Tau2Results{}}
	var omitted []string
	for _, e := range evals {
		name := Tau2DomainName(e.Domain)
		file := name + "_results.json"
		dom := doms[e.Domain]
		traj := NewTau2Results(e, dom)
		// tau2's validation compares the submission's model name with the
		// trajectories' agent llm, which proctor fills with the agent's
		// card name: the submitter names the model.
		traj.Info.AgentInfo.LLM = strPtr(meta.ModelName)
		files.Trajectories[file] = traj
		sub.TrajectoryFiles[name] = file
		figures := scoring.Summarize(e.Simulations, nil).Tau2
		sub.Results[name] = tau2DomainResults(figures)
		problems, missing := tau2Requirements(e, dom, figures)
		files.Problems = append(files.Problems, problems...)
		if missing != "" {
			omitted = append(omitted, missing)
		}
		if sub.Methodology.UserSimulator == nil && e.Config.UserModel != "" {
			sub.Methodology.UserSimulator = strPtr(e.Config.UserModel)
		}
	}
	if len(omitted) > 0 {
		sub.Methodology.Verification.OmittedQuestions = true
		sub.Methodology.Verification.Details = strPtr(strings.Join(omitted, "; "))
	}
	sub.TrajectoriesAvailable = true
	files.Submission = sub
	files.Dir = tau2Slug(meta.ModelName) + "_" + tau2Slug(meta.ModelOrganization) + "_" + sub.SubmissionDate
	return files, nil
}

// check says which of the submitter's fields are missing.
func (m Tau2SubmissionMeta) check() error {
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"model name", m.ModelName}, {"model organization", m.ModelOrganization}, {"contact email", m.ContactEmail},
	} {
		if strings.TrimSpace(f.value) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: the leaderboard needs the %s", ErrTau2Submission, strings.Join(missing, ", "))
	}
	if !strings.Contains(m.ContactEmail, "@") {
		return fmt.Errorf("%w: contact email %q is not an email address", ErrTau2Submission, m.ContactEmail)
	}
	return nil
}

// submission is submission.json with the submitter's fields filled in.
func (m Tau2SubmissionMeta) submission() Tau2Submission {
	date := m.Date.Format(time.DateOnly)
	s := Tau2Submission{
		ModelName: m.ModelName, ModelOrganization: m.ModelOrganization, SubmittingOrganization: m.SubmittingOrganization,
		SubmissionDate: date, SubmissionType: "standard", Modality: "text",
		ContactInfo:     Tau2ContactInfo{Email: m.ContactEmail, Name: strPtr(m.ContactName)},
		Results:         map[string]*Tau2DomainResults{},
		TrajectoryFiles: map[string]string{},
		Methodology:     Tau2Methodology{EvaluationDate: date, UserSimulator: strPtr(m.UserSimulator), Notes: strPtr(m.Notes)},
	}
	if s.SubmittingOrganization == "" {
		s.SubmittingOrganization = m.ModelOrganization
	}
	return s
}

// checkTau2Set refuses what tau2's prepare refuses: a domain the
// leaderboard does not rank, a domain twice, and evaluations of different
// agents or user simulators.
func checkTau2Set(evals []*result.Evaluation) error {
	if len(evals) == 0 {
		return fmt.Errorf("%w: no evaluation given", ErrTau2Submission)
	}
	seen := map[string]string{}
	first := tau2Configuration(evals[0])
	for _, e := range evals {
		name := Tau2DomainName(e.Domain)
		if !slices.Contains(tau2LeaderboardDomains, name) {
			return fmt.Errorf("%w: %s is of domain %s; the leaderboard ranks %s", ErrTau2Submission, e.ID, e.Domain, strings.Join(tau2LeaderboardDomains, ", "))
		}
		if other, dup := seen[name]; dup {
			return fmt.Errorf("%w: %s and %s are both of %s: give one evaluation per domain", ErrTau2Submission, other, e.ID, name)
		}
		seen[name] = e.ID
		if c := tau2Configuration(e); c != first {
			return fmt.Errorf("%w: one model configuration across domains: %s has %s, %s has %s", ErrTau2Submission, evals[0].ID, first, e.ID, c)
		}
	}
	return nil
}

// tau2Configuration is what tau2 requires equal across a submission's
// domains: the agent, the user simulator and their settings.
func tau2Configuration(e *result.Evaluation) string {
	c := fmt.Sprintf("agent %s, user %s", AgentLabel(e.Agent), e.Config.User)
	if e.Config.UserModel != "" {
		c += " " + e.Config.UserModel
	}
	if t := e.Config.Temperature; t != nil {
		c += fmt.Sprintf(" temperature %g", *t)
	}
	if s := e.Config.Seed; s != nil {
		c += fmt.Sprintf(" seed %d", *s)
	}
	return c
}

// tau2DomainResults is an evaluation's tau2 figures as pass^1..4 in percent as tau2
// computes them (null beyond the largest k it reports).
func tau2DomainResults(f *result.Tau2Figures) *Tau2DomainResults {
	pct := func(k string) *float64 {
		if f == nil {
			return nil
		}
		v, ok := f.PassHatK[k]
		if !ok {
			return nil
		}
		p := v * 100
		return &p
	}
	return &Tau2DomainResults{Pass1: pct("1"), Pass2: pct("2"), Pass3: pct("3"), Pass4: pct("4")}
}

// tau2Requirements lists the leaderboard's requirements an evaluation does
// not meet, and says which tasks it left out ("" when none).
func tau2Requirements(e *result.Evaluation, dom *domains.Domain, f *result.Tau2Figures) (problems []string, omitted string) {
	say := func(format string, a ...any) { problems = append(problems, e.ID+": "+fmt.Sprintf(format, a...)) }
	if e.Status != result.StatusCompleted {
		say("is %s, not completed", e.Status)
	}
	if e.Config.Split != "" && e.Config.Split != "base" {
		say("ran the %s split; the leaderboard wants the base split", e.Config.Split)
	}
	if e.Config.NumTrials < Tau2MinTrials {
		say("ran %d trials per task; the leaderboard wants %d or more", e.Config.NumTrials, Tau2MinTrials)
	}
	if dom == nil {
		say("%s's tasks are not at hand (tau2's data: --tau2-data): the trajectories carry stub tasks, which tau2's verification cannot score", e.Domain)
	}
	ran := len(e.Summary.Tasks)
	switch {
	case dom != nil && ran < len(dom.Tasks):
		omitted = fmt.Sprintf("%s ran %d of the %d tasks of %s", e.ID, ran, len(dom.Tasks), e.Domain)
	case dom == nil && (e.Config.NumTasks > 0 || len(e.Config.TaskIDs) > 0):
		omitted = fmt.Sprintf("%s ran a selection of the tasks of %s (--num-tasks or --task-ids)", e.ID, e.Domain)
	}
	if omitted != "" {
		say("did not run every task: %s", omitted)
	}
	if f != nil && f.Excluded > 0 {
		say("has %d simulations tau2 would have retried (%s); the leaderboard's figures leave them out", f.Excluded, Counts(f.ExcludedBy))
	}
	return problems, omitted
}

// tau2Slug is a name as tau2's prepare puts it in the directory name.
func tau2Slug(s string) string {
	return strings.NewReplacer(" ", "-", "/", "-", ".", "-").Replace(strings.ToLower(s))
}

// WriteTau2Submission writes the submission under parent as tau2 lays it
// out: parent/DIR/submission.json and parent/DIR/trajectories/*. It returns
// the submission's directory. An existing submission.json is not
// overwritten.
func WriteTau2Submission(parent string, files Tau2SubmissionFiles) (string, error) {
	dir := filepath.Join(parent, files.Dir)
	subPath := filepath.Join(dir, "submission.json")
	if _, err := os.Stat(subPath); err == nil {
		return "", fmt.Errorf("%s exists: remove it or choose another --out", subPath)
	}
	if err := os.MkdirAll(filepath.Join(dir, "trajectories"), 0o755); err != nil {
		return "", fmt.Errorf("tau2 submission: %w", err)
	}
	for name, r := range files.Trajectories {
		if err := writeJSONFile(filepath.Join(dir, "trajectories", name), r); err != nil {
			return "", err
		}
	}
	return dir, writeJSONFile(subPath, files.Submission)
}

// writeJSONFile writes v as report's JSON (writeJSON) to path.
func writeJSONFile(path string, v any) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("tau2 submission: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("tau2 submission: %w", cerr)
		}
	}()
	if err := writeJSON(f, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
