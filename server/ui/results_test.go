package ui

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/conformance"
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

func (r *recordingResults) EvaluationHeads(ctx context.Context, req skills.ResultsRequest) (*skills.ResultsPage, error) {
	r.record("EvaluationHeads")
	return r.Results.EvaluationHeads(ctx, req)
}

func (r *recordingResults) EvalSetRuns(ctx context.Context, req skills.ResultsRequest) (*skills.EvalSetRunsPage, error) {
	r.record("EvalSetRuns")
	return r.Results.EvalSetRuns(ctx, req)
}

func (r *recordingResults) ConformanceRuns(ctx context.Context, req skills.ResultsRequest) (*skills.ConformancePage, error) {
	r.record("ConformanceRuns")
	return r.Results.ConformanceRuns(ctx, req)
}

func (r *recordingResults) Conformance(ctx context.Context, id string) (*conformance.Report, error) {
	r.record("Conformance")
	return r.Results.Conformance(ctx, id)
}

func (r *recordingResults) RequestLatencies(ctx context.Context, eval *result.Evaluation) ([]float64, error) {
	r.record("RequestLatencies")
	return r.Results.RequestLatencies(ctx, eval)
}

func (r *recordingResults) Simulation(ctx context.Context, evalID, simID string) (*skills.StoredSimulation, error) {
	r.record("Simulation")
	return r.Results.Simulation(ctx, evalID, simID)
}

func (r *recordingResults) CaseRun(ctx context.Context, runID, setID, caseID string, n int) (*result.CaseResult, error) {
	r.record("CaseRun")
	return r.Results.CaseRun(ctx, runID, setID, caseID, n)
}

// TestPagesReadThroughResults: the pages that show stored evaluations and
// eval-set runs read them through the repository of Options.Results, as
// the command line and the server's skills do, and no other way: the
// listings, the simulation and case pages and the latencies too.
func TestPagesReadThroughResults(t *testing.T) {
	s := seed(t)
	tests := []struct {
		name, path string
		want       []string
	}{
		{"evaluations", "/", []string{"EvaluationHeads"}},
		{"evaluation", s.eval, []string{"Evaluation", "RequestLatencies"}},
		{"simulation", s.failSim, []string{"Simulation"}},
		{"eval-set runs", "/evalsets", []string{"EvalSetRuns"}},
		{"eval-set run", s.evalSetPath, []string{"EvalSetRun"}},
		{"eval-set case", s.evalSetPath + "/case?id=math/add", []string{"EvalSetRunHead", "CaseRun"}},
		{"conformance reports", "/conformance", []string{"ConformanceRuns"}},
		{"conformance report", s.confPath, []string{"Conformance"}},
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
