package report

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/result"
)

// submissionEvals are the tau2metrics fixture evaluation as three
// leaderboard domains.
func submissionEvals(t *testing.T) []*result.Evaluation {
	t.Helper()
	var evals []*result.Evaluation
	for _, d := range []string{"airline", "retail", "telecom"} {
		var e result.Evaluation
		readJSON(t, filepath.Join("testdata", "tau2metrics", "evaluation.json"), &e)
		e.ID, e.Domain, e.Config.Domain = "ev-"+d, d, d
		evals = append(evals, &e)
	}
	return evals
}

func submissionMeta() Tau2SubmissionMeta {
	return Tau2SubmissionMeta{ModelName: "My Model 1.5", ModelOrganization: "Acme", ContactEmail: "a@acme.example",
		Date: time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)}
}

// TestTau2Submission: the submission carries what tau2's schema.json asks
// for (required top-level fields, results per domain in percent as tau2
// computes them, trajectory files by domain, methodology.verification), in
// the directory tau2's prepare names, and states what the leaderboard's
// requirements it misses.
func TestTau2Submission(t *testing.T) {
	files, err := NewTau2Submission(submissionEvals(t), nil, submissionMeta())
	if err != nil {
		t.Fatal(err)
	}
	if files.Dir != "my-model-1-5_acme_2026-03-04" {
		t.Errorf("dir %q", files.Dir)
	}
	b, err := json.Marshal(files.Submission)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	// The fields of schema.json's Submission, DomainResults and Methodology
	// proctor fills; required: model_name, model_organization,
	// submitting_organization, submission_date, contact_info, results.
	domain := map[string]any{"pass_1": 87.5, "pass_2": 75.0, "pass_3": nil, "pass_4": nil, "cost": nil}
	want := map[string]any{
		"model_name": "My Model 1.5", "model_organization": "Acme", "submitting_organization": "Acme",
		"submission_date": "2026-03-04", "submission_type": "standard", "modality": "text",
		"contact_info": map[string]any{"email": "a@acme.example", "name": nil},
		"results":      map[string]any{"airline": domain, "retail": domain, "telecom": domain},
		"is_new":       false, "trajectories_available": true,
		"trajectory_files": map[string]any{"airline": "airline_results.json", "retail": "retail_results.json", "telecom": "telecom_results.json"},
		"methodology": map[string]any{"evaluation_date": "2026-03-04", "user_simulator": nil, "notes": nil,
			"verification": map[string]any{"modified_prompts": false, "omitted_questions": true,
				"details": "ev-airline ran a selection of the tasks of airline (--num-tasks or --task-ids); " +
					"ev-retail ran a selection of the tasks of retail (--num-tasks or --task-ids); " +
					"ev-telecom ran a selection of the tasks of telecom (--num-tasks or --task-ids)"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("submission.json (-want +got):\n%s", diff)
	}
	for _, p := range []string{
		"ev-airline: did not run every task: ev-airline ran a selection of the tasks of airline (--num-tasks or --task-ids)",
		"ev-airline: has 8 simulations tau2 would have retried (infrastructure_error 5, user_error 2, agent_error:connection 1); the leaderboard's figures leave them out",
	} {
		if !slices.Contains(files.Problems, p) {
			t.Errorf("problems %q lack %q", files.Problems, p)
		}
	}
	if llm := files.Trajectories["retail_results.json"].Info.AgentInfo.LLM; llm == nil || *llm != "My Model 1.5" {
		t.Errorf("trajectory agent llm %v", llm)
	}
}

// TestTau2SubmissionRefused: what tau2's prepare refuses, and missing
// metadata, are errors that say what to do.
func TestTau2SubmissionRefused(t *testing.T) {
	temp := 0.5
	for _, c := range []struct {
		name string
		edit func([]*result.Evaluation, *Tau2SubmissionMeta) []*result.Evaluation
		want string
	}{
		{"no email", func(e []*result.Evaluation, m *Tau2SubmissionMeta) []*result.Evaluation {
			m.ContactEmail = ""
			return e
		},
			"not a tau2 leaderboard submission: the leaderboard needs the contact email"},
		{"not a leaderboard domain", func(e []*result.Evaluation, _ *Tau2SubmissionMeta) []*result.Evaluation {
			e[0].Domain = "mock"
			return e
		}, "not a tau2 leaderboard submission: ev-airline is of domain mock; the leaderboard ranks retail, airline, telecom, banking_knowledge"},
		{"domain twice", func(e []*result.Evaluation, _ *Tau2SubmissionMeta) []*result.Evaluation {
			e[1].Domain = "airline"
			return e
		}, "not a tau2 leaderboard submission: ev-airline and ev-retail are both of airline: give one evaluation per domain"},
		{"two configurations", func(e []*result.Evaluation, _ *Tau2SubmissionMeta) []*result.Evaluation {
			e[2].Config.Temperature = &temp
			return e
		}, "not a tau2 leaderboard submission: one model configuration across domains: ev-airline has agent built-in reference agent, user scripted, ev-telecom has agent built-in reference agent, user scripted temperature 0.5"},
	} {
		meta := submissionMeta()
		evals := c.edit(submissionEvals(t), &meta)
		_, err := NewTau2Submission(evals, nil, meta)
		if !errors.Is(err, ErrTau2Submission) || err.Error() != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
}

// TestWriteTau2Submission: the directory holds submission.json and the
// trajectories, and an existing submission is not overwritten.
func TestWriteTau2Submission(t *testing.T) {
	files, err := NewTau2Submission(submissionEvals(t), nil, submissionMeta())
	if err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	dir, err := WriteTau2Submission(parent, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"submission.json", "trajectories/airline_results.json", "trajectories/retail_results.json", "trajectories/telecom_results.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := WriteTau2Submission(parent, files); err == nil {
		t.Error("an existing submission was overwritten")
	}
}
