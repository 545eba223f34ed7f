package report

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/result"
)

func lbEval(id, url string, day int, p1 float64, ci result.Interval, tasks int) *result.Evaluation {
	return &result.Evaluation{ID: id, Domain: "mock", Status: result.StatusCompleted, Agent: result.AgentInfo{URL: url},
		CreatedAt: time.Date(2026, 1, day, 0, 0, 0, 0, time.UTC),
		Summary: result.Summary{NumTasks: tasks, NumTrials: 2, PassHatK: map[string]float64{"1": p1, "2": p1 / 2}, PassHat1CI95: ci,
			DoNothingBaseline: &result.Baseline{PassHat1: 0.1}}}
}

func TestNewLeaderboard(t *testing.T) {
	ci := func(lo, hi float64) result.Interval { return result.Interval{Low: lo, High: hi} }
	evals := []*result.Evaluation{
		lbEval("a-old", "http://a", 1, 0.9, ci(0.8, 0.95), 10),
		lbEval("a-new", "http://a", 3, 0.6, ci(0.5, 0.7), 10),
		lbEval("b", "http://b", 2, 0.85, ci(0.75, 0.92), 10),
		lbEval("c", "http://c", 2, 0.5, ci(0.4, 0.6), 10),
	}
	entry := func(rank int, tied bool, e *result.Evaluation, n int) LeaderboardEntry {
		s := e.Summary
		return LeaderboardEntry{Rank: rank, Tied: tied, Agent: e.Agent.URL, AgentLabel: e.Agent.URL, EvaluationID: e.ID, CreatedAt: e.CreatedAt,
			Evaluations: n, NumTasks: s.NumTasks, NumTrials: 2, PassHat1: s.PassHatK["1"], PassHat1CI95: s.PassHat1CI95, PassHatK: s.PassHatK["2"]}
	}
	tests := []struct {
		name   string
		latest bool
		want   []LeaderboardEntry
	}{
		{"best: a and b tie, c third", false, []LeaderboardEntry{entry(1, true, evals[0], 2), entry(1, true, evals[2], 1), entry(3, false, evals[3], 1)}},
		{"latest: a's newer run ties with c", true, []LeaderboardEntry{entry(1, false, evals[2], 1), entry(2, true, evals[1], 2), entry(2, true, evals[3], 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewLeaderboard(evals, LeaderboardOptions{Domain: "mock", Latest: tt.latest})
			want := Leaderboard{Domain: "mock", Latest: tt.latest, K: 2, Entries: tt.want, Baseline: &result.Baseline{PassHat1: 0.1}, Notes: []string{}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("NewLeaderboard (-want +got):\n%s", diff)
			}
			var b strings.Builder
			if err := WriteLeaderboard(&b, Table, got); err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"=1", "do-nothing baseline", "PASS^2"} {
				if tt.latest && s == "=1" {
					s = "=2"
				}
				if !strings.Contains(b.String(), s) {
					t.Errorf("table has no %q:\n%s", s, b.String())
				}
			}
		})
	}
}

// TestLeaderboardCountsOriginalRuns: a rescore (even a better one) and a
// shard are neither an agent's best run nor counted among its
// evaluations, unless derived evaluations are asked for; a merge is a run.
func TestLeaderboardCountsOriginalRuns(t *testing.T) {
	run := lbEval("run", "http://a", 1, 0.5, result.Interval{}, 10)
	rescore := lbEval("rescore", "http://a", 2, 0.9, result.Interval{}, 10)
	rescore.RescoredFrom = "run"
	shard := lbEval("shard", "http://a", 3, 1, result.Interval{}, 5)
	shard.Config.ShardIndex, shard.Config.NumShards = 1, 2
	merge := lbEval("merge", "http://b", 4, 0.7, result.Interval{}, 10)
	merge.MergedShards = 2
	evals := []*result.Evaluation{run, rescore, shard, merge}
	type row struct {
		ID string
		N  int
	}
	rows := func(derived bool) []row {
		var out []row
		for _, e := range NewLeaderboard(evals, LeaderboardOptions{Domain: "mock", Derived: derived}).Entries {
			out = append(out, row{e.EvaluationID, e.Evaluations})
		}
		return out
	}
	if diff := cmp.Diff([]row{{"merge", 1}, {"run", 1}}, rows(false)); diff != "" {
		t.Errorf("runs and merges only (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]row{{"shard", 3}, {"merge", 1}}, rows(true)); diff != "" {
		t.Errorf("with derived evaluations (-want +got):\n%s", diff)
	}
	origins := []result.Origin{run.Origin(), rescore.Origin(), shard.Origin(), merge.Origin()}
	if diff := cmp.Diff([]result.Origin{result.OriginRun, result.OriginRescore, result.OriginShard, result.OriginMerge}, origins); diff != "" {
		t.Errorf("origins (-want +got):\n%s", diff)
	}
}
