package evaluation_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/result"
)

// echoPlayer "plays" a case by answering each user message with its text
// upper-cased, counting what it played; block, when set, holds the
// case named so until ctx ends.
type echoPlayer struct {
	mu     sync.Mutex
	played []string
	block  string
}

func (p *echoPlayer) RecordCase(ctx context.Context, set *evalset.Set, c *evalset.Case, run int) *result.CaseResult {
	if c.ID == p.block {
		<-ctx.Done()
		return &result.CaseResult{ErrorMessage: ctx.Err().Error()}
	}
	p.mu.Lock()
	p.played = append(p.played, evaluation.CaseResultID(set.ID, c.ID, run))
	p.mu.Unlock()
	cr := &result.CaseResult{Requests: []a2aclient.RequestMetrics{{LatencyMS: 10}}}
	for _, inv := range c.Conversation {
		cr.Actual = append(cr.Actual, &evalset.Invocation{
			UserContent:   inv.UserContent,
			FinalResponse: &evalset.Message{Role: evalset.RoleAssistant, Content: fmt.Sprintf("%s (run %d)", inv.UserContent.Content, run)},
		})
	}
	cr.Metrics = result.AggregateRequests(cr.Requests)
	return cr
}

// firstRunScorer passes a case run when its answer names run 1, and counts
// what it scored.
type firstRunScorer struct {
	mu     sync.Mutex
	scored int
}

func (s *firstRunScorer) ScoreCase(_ context.Context, _ *evalset.Set, _ *evalset.Case, r *result.CaseResult) {
	s.mu.Lock()
	s.scored++
	s.mu.Unlock()
	r.FinalEvalStatus = result.EvalFailed
	if r.RunID == 1 {
		r.FinalEvalStatus = result.EvalPassed
	}
}

// Summarize counts passes.
func (s *firstRunScorer) Summarize(rs []*result.CaseResult, numRuns int) result.EvalSetSummary {
	sum := result.EvalSetSummary{NumRuns: numRuns}
	for _, r := range rs {
		if r.FinalEvalStatus == result.EvalPassed {
			sum.Passed++
		}
	}
	return sum
}

func testSets() []*evalset.Set {
	msg := func(s string) *evalset.Message { return &evalset.Message{Role: evalset.RoleUser, Content: s} }
	return []*evalset.Set{
		{ID: "math", Cases: []*evalset.Case{
			{ID: "add", Conversation: []*evalset.Invocation{{UserContent: msg("add")}}},
			{ID: "sub", Conversation: []*evalset.Invocation{{UserContent: msg("sub")}, {UserContent: msg("again")}}},
		}},
		{ID: "chat", Cases: []*evalset.Case{{ID: "hello", Conversation: []*evalset.Invocation{{UserContent: msg("hello")}}}}},
	}
}

// TestEvalSetRunner plays every case x run, stores each, resumes an
// interrupted run without playing again what it finished, and rescoring
// plays nothing.
func TestEvalSetRunner(t *testing.T) {
	ctx := t.Context()
	db := openStore(t)
	sets := testSets()
	cfg := result.EvalSetConfig{Agent: "http://agent", NumRuns: 2, Concurrency: 3}

	// First attempt: "hello" never finishes; the run is interrupted once
	// the others are done.
	player := &echoPlayer{block: "hello"}
	cut, cancel := context.WithCancel(ctx)
	defer cancel()
	runner := &evaluation.Runner{CaseRecorder: player, CaseScorer: &firstRunScorer{}, Store: db, Concurrency: 3,
		OnProgress: func(p evaluation.Progress) {
			if p.Done == 4 {
				cancel()
			}
		}}
	run := evaluation.NewEvalSetRun("01000000-0000-7000-8000-000000000001", cfg, result.AgentInfo{URL: "http://agent"}, sets)
	if err := runner.RunCases(cut, run, sets); err != nil {
		t.Fatal(err)
	}
	if run.Status != result.StatusInterrupted || len(run.Cases) != 4 {
		t.Fatalf("first attempt: %s with %d case runs, want interrupted with 4", run.Status, len(run.Cases))
	}

	// Resume: only the two runs of "hello" are played.
	player2 := &echoPlayer{}
	runner.CaseRecorder, runner.OnProgress = player2, nil
	if err := runner.RunCases(ctx, run, sets); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"chat/hello#1", "chat/hello#2"}, slices.Sorted(slices.Values(player2.played))); diff != "" {
		t.Errorf("resume played (-want +got):\n%s", diff)
	}
	var ids []string
	for _, cr := range run.Cases {
		ids = append(ids, cr.ID)
	}
	want := []string{"math/add#1", "math/sub#1", "chat/hello#1", "math/add#2", "math/sub#2", "chat/hello#2"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("case runs (-want +got):\n%s", diff)
	}
	if run.Status != result.StatusCompleted || run.Summary.Passed != 3 || run.Summary.NumSets != 2 || run.Metrics.Requests != 6 {
		t.Errorf("run: %s, %d passed, %d sets, %d requests; want completed, 3, 2, 6", run.Status, run.Summary.Passed, run.Summary.NumSets, run.Metrics.Requests)
	}

	loaded, err := evaluation.LoadEvalSetRun(ctx, db, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(run.Cases, loaded.Cases); diff != "" {
		t.Errorf("loaded case runs (-stored +loaded):\n%s", diff)
	}
	if _, err := evaluation.Load(ctx, db, run.ID); err == nil || !errors.Is(err, evaluation.ErrEvalSetRun) {
		t.Errorf("Load of an eval-set run: %v, want evaluation.ErrEvalSetRun", err)
	}

	// Rescore: nothing played, everything scored again.
	scorer := &firstRunScorer{}
	rr := &evaluation.Runner{CaseRecorder: &echoPlayer{block: "add"}, CaseScorer: scorer, Store: db, Concurrency: 2}
	dst := evaluation.NewEvalSetRun("01000000-0000-7000-8000-000000000002", cfg, run.Agent, nil)
	if err := evaluation.RescoreEvalSets(ctx, rr, loaded, dst, nil); err != nil {
		t.Fatal(err)
	}
	if scorer.scored != 6 || dst.RescoredFrom != run.ID || dst.Summary.Passed != 3 || len(dst.Sets) != 2 {
		t.Errorf("rescore: %d scored, from %q, %d passed, %d sets; want 6, %q, 3, 2", scorer.scored, dst.RescoredFrom, dst.Summary.Passed, len(dst.Sets), run.ID)
	}
	if got := dst.Cases[1].Actual[1].FinalResponse.Content; got != "again (run 1)" {
		t.Errorf("rescored case kept %q, want the recorded answer", got)
	}
}

// TestEvalSetRunnerRefusesDuplicateSetIDs: two sets with one id would mix
// their case runs.
func TestEvalSetRunnerRefusesDuplicateSetIDs(t *testing.T) {
	sets := []*evalset.Set{{ID: "a", Path: "x/a.evalset.json"}, {ID: "a", Path: "y/a.evalset.json"}}
	r := &evaluation.Runner{CaseRecorder: &echoPlayer{}, CaseScorer: &firstRunScorer{}}
	err := r.RunCases(t.Context(), evaluation.NewEvalSetRun("01000000-0000-7000-8000-000000000003", result.EvalSetConfig{}, result.AgentInfo{}, sets), sets)
	if err == nil {
		t.Fatal("no error for two sets with one id")
	}
}
