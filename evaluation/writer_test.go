package evaluation_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
)

// errDiskFull is what faultyStore answers with.
var errDiskFull = errors.New("disk full")

// faultyStore counts the simulation writes and refuses those holding the
// simulation refused, and the evaluation's first record when failRecord
// is set.
type faultyStore struct {
	*store.DB
	refused    string
	failRecord bool

	mu      sync.Mutex
	writes  int
	records int
	// closings holds, for each record stored with simulations, how many
	// it carried.
	closings []int
}

func (s *faultyStore) PutEvaluation(ctx context.Context, e store.Evaluation) error {
	s.mu.Lock()
	s.records++
	first := s.records == 1
	s.mu.Unlock()
	if first && s.failRecord {
		return errDiskFull
	}
	return s.DB.PutEvaluation(ctx, e)
}

func (s *faultyStore) PutEvaluationWith(ctx context.Context, e store.Evaluation, sims []store.Simulation) error {
	s.mu.Lock()
	s.records++
	s.writes++
	first := s.records == 1
	s.closings = append(s.closings, len(sims))
	s.mu.Unlock()
	if first && s.failRecord || slices.ContainsFunc(sims, func(sim store.Simulation) bool { return sim.ID == s.refused }) {
		return errDiskFull
	}
	return s.DB.PutEvaluationWith(ctx, e, sims)
}

func (s *faultyStore) PutSimulations(ctx context.Context, evalID string, sims []store.Simulation) error {
	s.mu.Lock()
	s.writes++
	s.mu.Unlock()
	if slices.ContainsFunc(sims, func(sim store.Simulation) bool { return sim.ID == s.refused }) {
		return errDiskFull
	}
	return s.DB.PutSimulations(ctx, evalID, sims)
}

// runCounter runs the counter domain's two tasks, trials times each,
// against an agent that answers at once, storing through st.
func runCounter(t *testing.T, st evaluation.Store, trials, concurrency int) (*result.Evaluation, error) {
	t.Helper()
	d := counterDomain(t)
	r := &evaluation.Runner{
		Simulator:   rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}),
		Scorer:      scoring.NewScorer(d, false),
		Agent:       a2aagent.New(dial(t, agenttest.Start(t, counterAgent).URL)),
		Store:       st,
		Concurrency: concurrency,
	}
	eval := evaluation.NewEvaluation(store.NewID(), result.Config{Domain: d.Name, NumTrials: trials}, result.AgentInfo{})
	return eval, r.Run(context.Background(), eval, allTasks(d))
}

// storedIDs lists the simulations stored for an evaluation.
func storedIDs(t *testing.T, db *store.DB, evalID string) []string {
	t.Helper()
	sims, err := db.Simulations(context.Background(), evalID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range sims {
		ids = append(ids, s.ID)
	}
	slices.Sort(ids)
	return ids
}

func resultIDs(eval *result.Evaluation) []string {
	var ids []string
	for _, s := range eval.Simulations {
		ids = append(ids, s.ID)
	}
	slices.Sort(ids)
	return ids
}

// TestFastTrialsShareCommits: simulations that finish faster than the
// store commits are written several to a transaction, and every one is
// stored and in the result.
func TestFastTrialsShareCommits(t *testing.T) {
	st := &faultyStore{DB: openStore(t)}
	eval, err := runCounter(t, st, 10, 4)
	if err != nil {
		t.Fatal(err)
	}
	ids := storedIDs(t, st.DB, eval.ID)
	if len(ids) != 20 || eval.Status != result.StatusCompleted {
		t.Fatalf("%s with %d simulations stored, want completed with 20", eval.Status, len(ids))
	}
	if diff := cmp.Diff(ids, resultIDs(eval)); diff != "" {
		t.Errorf("result against store (-stored +result):\n%s", diff)
	}
	if st.writes >= len(ids) {
		t.Errorf("%d writes for %d simulations: none shared a commit", st.writes, len(ids))
	}
}

// TestRefusedTrialFailsTheRun: when the store refuses one simulation (one
// stored during the run, or the last, held for the closing record), the
// run fails naming it; the simulations stored are exactly those in the
// result (none lost from it, none counted unstored), the refused one not
// among them.
func TestRefusedTrialFailsTheRun(t *testing.T) {
	for _, refused := range []string{"add-three#0", "add-three#2"} {
		t.Run(refused, func(t *testing.T) {
			st := &faultyStore{DB: openStore(t), refused: refused}
			eval, err := runCounter(t, st, 3, 1)
			if !errors.Is(err, errDiskFull) && !strings.Contains(eval.Error, errDiskFull.Error()) {
				t.Fatalf("run error %v, evaluation error %q: want the store's refusal", err, eval.Error)
			}
			if eval.Status != result.StatusFailed || !strings.Contains(eval.Error, refused) {
				t.Errorf("status %s, error %q: want failed, naming %s", eval.Status, eval.Error, refused)
			}
			ids := storedIDs(t, st.DB, eval.ID)
			if slices.Contains(ids, refused) {
				t.Errorf("the refused simulation is stored: %v", ids)
			}
			if diff := cmp.Diff(ids, resultIDs(eval)); diff != "" {
				t.Errorf("result against store (-stored +result):\n%s", diff)
			}
			stored, err := evaluation.Load(context.Background(), st.DB, eval.ID)
			if err != nil || stored.Status != result.StatusFailed || stored.FinishedAt != nil {
				t.Errorf("stored record: %v, error %v: want failed, without a finish time", stored, err)
			}
		})
	}
}

// TestRunEndsInOneCommit: the simulations that finish last are stored in
// the transaction of the evaluation's closing record, so that the end of a
// run waits for one commit; everything is stored and in the result.
func TestRunEndsInOneCommit(t *testing.T) {
	st := &faultyStore{DB: openStore(t)}
	eval, err := runCounter(t, st, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	ids := storedIDs(t, st.DB, eval.ID)
	if len(ids) != 10 || eval.Status != result.StatusCompleted {
		t.Fatalf("%s with %d simulations stored, want completed with 10", eval.Status, len(ids))
	}
	if diff := cmp.Diff(ids, resultIDs(eval)); diff != "" {
		t.Errorf("result against store (-stored +result):\n%s", diff)
	}
	if st.records != 2 || len(st.closings) != 1 || st.closings[0] == 0 {
		t.Errorf("%d records stored, %v simulations with them: want the starting record, then the closing one with the last simulations",
			st.records, st.closings)
	}
	stored, err := evaluation.Load(context.Background(), st.DB, eval.ID)
	if err != nil || stored.Status != result.StatusCompleted || stored.Summary.NumSimulations != 10 {
		t.Errorf("stored record: %+v, error %v: want completed, totalling 10 simulations", stored.Summary, err)
	}
}

// TestRefusedRecordFailsTheRun: the evaluation's record is stored while
// the first simulations play; when the store refuses it, no simulation is
// stored and the run fails with the store's error.
func TestRefusedRecordFailsTheRun(t *testing.T) {
	st := &faultyStore{DB: openStore(t), failRecord: true}
	eval, err := runCounter(t, st, 3, 2)
	if !errors.Is(err, errDiskFull) {
		t.Fatalf("run error %v, want the store's refusal", err)
	}
	if ids := storedIDs(t, st.DB, eval.ID); len(ids) != 0 || len(eval.Simulations) != 0 {
		t.Errorf("stored %v, result holds %d simulations: want none", ids, len(eval.Simulations))
	}
}
