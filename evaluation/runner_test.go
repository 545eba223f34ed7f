package evaluation_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
)

func openStore(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "proctor.db"), store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func allTasks(d *domains.Domain) []*domains.Task {
	out := make([]*domains.Task, len(d.Tasks))
	for i := range d.Tasks {
		out[i] = &d.Tasks[i]
	}
	return out
}

// contextCounter counts the conversations an agent sees.
type contextCounter struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (c *contextCounter) reply(ctx context.Context, contextID, text string) string {
	c.mu.Lock()
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.seen[contextID] = true
	c.mu.Unlock()
	return counterAgent(ctx, contextID, text)
}

func (c *contextCounter) conversations() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

func TestRunnerStoresAndScores(t *testing.T) {
	d := counterDomain(t)
	db := openStore(t)
	client := dial(t, agenttest.Start(t, counterAgent).URL)
	var progress []evaluation.Progress
	r := &evaluation.Runner{
		Simulator:   rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}),
		Scorer:      scoring.NewScorer(d, false),
		Agent:       a2aagent.New(client),
		Store:       db,
		Concurrency: 3,
		OnProgress:  func(p evaluation.Progress) { progress = append(progress, p) },
	}
	eval := evaluation.NewEvaluation(store.NewID(), result.Config{Domain: d.Name, NumTrials: 3}, result.AgentInfo{URL: "x"})
	if err := r.Run(context.Background(), eval, allTasks(d)); err != nil {
		t.Fatal(err)
	}
	if eval.Status != result.StatusCompleted || eval.Summary.NumSimulations != 6 || eval.Summary.AvgReward != 1 {
		t.Fatalf("status %s, summary %+v", eval.Status, eval.Summary)
	}
	if len(eval.Summary.PassHatK) != 3 || eval.Summary.PassHatK["3"] != 1 {
		t.Errorf("pass^k = %v", eval.Summary.PassHatK)
	}
	if eval.Metrics.Requests != 2*3+3*3 || eval.Metrics.LatencyMS.P50 <= 0 {
		t.Errorf("metrics = %+v", eval.Metrics)
	}
	if len(progress) != 6 || progress[5].Done != 6 || progress[5].Total != 6 || progress[5].Passed != 6 {
		t.Errorf("progress = %+v", progress)
	}
	loaded, err := evaluation.Load(context.Background(), db, eval.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Simulations) != 6 || loaded.Status != result.StatusCompleted || loaded.Summary.AvgReward != 1 {
		t.Fatalf("loaded = %s, %d sims", loaded.Status, len(loaded.Simulations))
	}
	if loaded.Simulations[0].TaskID != "add-two" || loaded.Simulations[0].Trial != 0 || loaded.Simulations[3].TaskID != "add-three" {
		t.Errorf("order: %s %s", loaded.Simulations[0].ID, loaded.Simulations[3].ID)
	}
	if len(loaded.Simulations[0].Messages) == 0 {
		t.Error("stored simulation lost its transcript")
	}
	raw, err := db.Requests(context.Background(), eval.ID, loaded.Simulations[0].ID)
	if err != nil || len(raw) < 10 {
		t.Errorf("per-request metrics not stored: %v %s", err, raw)
	}
}

// cancelOnSave is a store that ends a context once the evaluation's
// record is first saved: a run cut short between saving it and reading
// what it already finished.
type cancelOnSave struct {
	*store.DB
	cancel context.CancelFunc
}

func (s cancelOnSave) PutEvaluation(ctx context.Context, e store.Evaluation) error {
	defer s.cancel()
	return s.DB.PutEvaluation(ctx, e)
}

// TestRunnerCutShortBeforeItPlaysIsInterrupted: a run whose context ends
// before its first simulation (a drain or a ^C just as it starts) leaves
// its evaluation stored as interrupted, which a resume carries on, and not
// missing nor "running", which no resume accepts.
func TestRunnerCutShortBeforeItPlaysIsInterrupted(t *testing.T) {
	d := counterDomain(t)
	client := dial(t, agenttest.Start(t, counterAgent).URL)
	for _, tc := range []struct {
		name  string
		store func(*store.DB, context.CancelFunc) evaluation.Store
	}{
		{"canceled before the run", func(db *store.DB, cancel context.CancelFunc) evaluation.Store { cancel(); return db }},
		{"canceled once the record is saved", func(db *store.DB, cancel context.CancelFunc) evaluation.Store {
			return cancelOnSave{DB: db, cancel: cancel}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openStore(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := &evaluation.Runner{
				Simulator: rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}),
				Scorer:    scoring.NewScorer(d, false),
				Agent:     a2aagent.New(client),
				Store:     tc.store(db, cancel),
			}
			eval := evaluation.NewEvaluation(store.NewID(), result.Config{Domain: d.Name}, result.AgentInfo{})
			runErr := r.Run(ctx, eval, allTasks(d))
			stored, err := db.GetEvaluation(context.Background(), eval.ID)
			got := []any{runErr, eval.Status, stored.Status, err}
			want := []any{nil, result.StatusInterrupted, string(result.StatusInterrupted), nil}
			if diff := cmp.Diff(want, got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("run error, status, stored status, lookup error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunnerResumesWithoutRerunning(t *testing.T) {
	d := counterDomain(t)
	db := openStore(t)
	var first contextCounter
	client := dial(t, agenttest.Start(t, first.reply).URL)
	ctx, cancel := context.WithCancel(context.Background())
	r := &evaluation.Runner{
		Simulator:   rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}),
		Scorer:      scoring.NewScorer(d, false),
		Agent:       a2aagent.New(client),
		Store:       db,
		Concurrency: 1,
		OnProgress: func(p evaluation.Progress) {
			if p.Done == 2 {
				cancel()
			}
		},
	}
	eval := evaluation.NewEvaluation(store.NewID(), result.Config{Domain: d.Name, NumTrials: 4}, result.AgentInfo{})
	if err := r.Run(ctx, eval, allTasks(d)); err != nil {
		t.Fatal(err)
	}
	if eval.Status != result.StatusInterrupted {
		t.Fatalf("status = %s, want interrupted", eval.Status)
	}
	kept := len(eval.Simulations)
	if kept < 2 || kept >= 8 {
		t.Fatalf("kept %d simulations", kept)
	}

	var second contextCounter
	r.Agent = a2aagent.New(dial(t, agenttest.Start(t, second.reply).URL))
	r.OnProgress = nil
	resumed, err := evaluation.Load(context.Background(), db, eval.ID)
	if err != nil {
		t.Fatal(err)
	}
	if resumed.Status != result.StatusInterrupted {
		t.Fatalf("stored status = %s", resumed.Status)
	}
	if err := r.Run(context.Background(), resumed, allTasks(d)); err != nil {
		t.Fatal(err)
	}
	if resumed.Status != result.StatusCompleted || len(resumed.Simulations) != 8 {
		t.Fatalf("after resume: %s with %d simulations", resumed.Status, len(resumed.Simulations))
	}
	if got := second.conversations(); got != 8-kept {
		t.Errorf("resume ran %d simulations, want %d", got, 8-kept)
	}
	ids := map[string]bool{}
	for _, s := range resumed.Simulations {
		if ids[s.ID] {
			t.Errorf("duplicate simulation %s", s.ID)
		}
		ids[s.ID] = true
	}
	if resumed.Summary.PassHatK["4"] != 1 {
		t.Errorf("pass^4 = %v", resumed.Summary.PassHatK)
	}
}
