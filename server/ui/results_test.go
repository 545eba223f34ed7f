package ui

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// recordingResults is skills' repository, recording what the pages ask
// of it.
type recordingResults struct {
	*skills.Results
	mu    sync.Mutex
	calls []string
}

func (r *recordingResults) record(call string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, call)
}

func (r *recordingResults) Evaluation(ctx context.Context, id string) (*result.Evaluation, error) {
	r.record("Evaluation")
	return r.Results.Evaluation(ctx, id)
}

func (r *recordingResults) EvaluationBrief(ctx context.Context, id string, withRows bool) (*result.Evaluation, error) {
	r.record("EvaluationBrief")
	return r.Results.EvaluationBrief(ctx, id, withRows)
}

func (r *recordingResults) EvalSetRun(ctx context.Context, id string) (*result.EvalSetRun, error) {
	r.record("EvalSetRun")
	return r.Results.EvalSetRun(ctx, id)
}

func (r *recordingResults) EvalSetRunHead(ctx context.Context, id string) (*result.EvalSetRun, error) {
	r.record("EvalSetRunHead")
	return r.Results.EvalSetRunHead(ctx, id)
}

func (r *recordingResults) Completed(ctx context.Context, domain, split string) ([]*result.Evaluation, error) {
	r.record("Completed")
	return r.Results.Completed(ctx, domain, split)
}

// TestPagesReadThroughResults: the pages that show stored evaluations and
// eval-set runs read them through the repository of Options.Results, as
// the command line and the server's skills do, and no other way.
func TestPagesReadThroughResults(t *testing.T) {
	s := seed(t)
	tests := []struct {
		name, path string
		want       []string
	}{
		{"evaluation", s.eval, []string{"Evaluation"}},
		{"eval-set run", s.evalSetPath, []string{"EvalSetRun"}},
		{"eval-set case", s.evalSetPath + "/case?id=math/add", []string{"EvalSetRunHead"}},
		{"eval-set matrix", "/evalsets/matrix?id=" + s.laterRunID + "&id=" + s.runID, []string{"EvalSetRunHead", "EvalSetRunHead"}},
		{"compare", "/compare?a=" + s.betterID + "&b=" + s.evalID, []string{"EvaluationBrief", "EvaluationBrief"}},
		{"leaderboard", "/leaderboard?domain=airline", []string{"Completed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingResults{}
			opts := s.options(t)
			opts.Results = func(db *store.DB) Results {
				rec.Results = skills.NewResults(db)
				return rec
			}
			h, err := New(s.db, opts)
			if err != nil {
				t.Fatal(err)
			}
			if code, body, _ := get(t, h, tt.path); code != 200 {
				t.Fatalf("GET %s: %d %s", tt.path, code, body)
			}
			if diff := cmp.Diff(tt.want, rec.calls); diff != "" {
				t.Errorf("GET %s read (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}
