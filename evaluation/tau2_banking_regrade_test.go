package evaluation_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/banking"
	"github.com/proctor-eval/proctor/internal/tau2test"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
)

// bankingOracleConfigs are the retrieval configurations the banking oracle
// runs are made with: the oracle never searches, so they differ only in
// the policy and the tool list the export carries.
var bankingOracleConfigs = []string{"bm25_grep", "no_knowledge"}

// tau2BankingRewards is testdata/banking_tau2_rewards.json, made by
// testdata/banking_tau2_regrade.py: the rewards tau2's own evaluate-trajs
// gave every simulation of the oracle's export, per retrieval
// configuration, with the embedded tasks ("embedded") and with
// --fresh-tasks ("fresh").
type tau2BankingRewards map[string]map[string]map[string]float64

// TestBankingOracleRegrades: the oracle plays the gold actions of all 97
// banking_knowledge tasks (discoverable tools unlocked and called with
// their JSON-string arguments, user tools given and called by the user),
// every simulation gets reward 1, proctor's re-grade of the tau2 export
// agrees, and so do tau2's own evaluate-trajs rewards of that export,
// pinned in testdata. With PROCTOR_TAU2_EXPORT_DIR set, the exports are
// written there (banking_<config>.json) for the script to re-grade.
func TestBankingOracleRegrades(t *testing.T) {
	dir := tau2test.Dir(t, banking.Name)
	raw, err := os.ReadFile("testdata/banking_tau2_rewards.json")
	if err != nil {
		t.Fatal(err)
	}
	var tau2 tau2BankingRewards
	if err := json.Unmarshal(raw, &tau2); err != nil {
		t.Fatal(err)
	}
	for _, config := range bankingOracleConfigs {
		t.Run(config, func(t *testing.T) {
			d, err := banking.NewWithRetrieval(dir, config, nil)
			if err != nil {
				t.Fatal(err)
			}
			if raceEnabled && len(d.Tasks) > raceTasks {
				d.Tasks = d.Tasks[:raceTasks]
			}
			eval := originalRun(t, d, players[0].play, scoring.NewScorer(d, false).WithJudge(metJudge{}))
			eval.Config.RetrievalConfig = config
			var buf bytes.Buffer
			if err := report.WriteTau2(&buf, eval, d); err != nil {
				t.Fatal(err)
			}
			if out := os.Getenv("PROCTOR_TAU2_EXPORT_DIR"); out != "" {
				if err := os.WriteFile(filepath.Join(out, "banking_"+config+".json"), buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			again := regrade(t, exportTau2(t, eval, d), scoring.NewScorer(d, false).WithJudge(metJudge{}))
			got := map[string]float64{}
			for _, s := range eval.Simulations {
				got[s.ID] = s.Reward
				if s.Reward != 1 || again[s.ID].Reward != 1 {
					t.Errorf("%s: reward %v, re-graded %v, want 1: %+v", s.ID, s.Reward, again[s.ID].Reward, s.RewardInfo)
				}
			}
			for _, how := range []string{"embedded", "fresh"} {
				want := tau2[config][how]
				if raceEnabled {
					want = only(want, got)
				}
				if diff := gocmp.Diff(want, got); diff != "" {
					t.Errorf("rewards differ from tau2's evaluate-trajs (%s tasks) (-tau2 +proctor):\n%s", how, diff)
				}
			}
		})
	}
}

// metJudge finds every NL assertion met (task_102 is judged on them; the
// script gives tau2 the same judge).
type metJudge struct{}

func (metJudge) Assess(_ context.Context, task *domains.Task, _ []result.Message) ([]result.NLAssertionCheck, error) {
	var checks []result.NLAssertionCheck
	for _, a := range task.EvaluationCriteria.NLAssertions {
		checks = append(checks, result.NLAssertionCheck{Assertion: a, Met: true, Reasoning: "oracle"})
	}
	return checks, nil
}

// only keeps the entries of m whose keys are in keep.
func only(m, keep map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k := range keep {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}
