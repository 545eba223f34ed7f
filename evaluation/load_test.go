package evaluation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// TestLoadBriefScoresAsLoad: an interrupted evaluation, whose scores
// LoadBrief computes from its simulations read without their
// conversations, gets the summary and metrics Load gives it.
func TestLoadBriefScoresAsLoad(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(filepath.Join(t.TempDir(), "results.db"), store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	id := store.NewID()
	head, _ := json.Marshal(result.Evaluation{ID: id, Domain: "mock", Status: result.StatusInterrupted, Config: result.Config{TaskIDs: []string{"t-2", "t-1"}}})
	if err := db.PutEvaluation(ctx, store.Evaluation{ID: id, Domain: "mock", Status: string(result.StatusInterrupted), Data: head}); err != nil {
		t.Fatal(err)
	}
	for i, task := range []string{"t-1", "t-1", "t-2", "t-2", "t-2"} {
		s := result.Simulation{ID: result.SimulationID(task, i), TaskID: task, Trial: i, TerminationReason: result.TermUserStop, Reward: float64(i % 2),
			RewardInfo: result.RewardInfo{DoNothingPasses: i == 4},
			Messages: []result.Message{{Role: result.RoleUser, Content: "hi"}, {Role: result.RoleAssistant, Content: "done",
				ToolCalls: []domains.ToolCall{{ID: "c", Name: "create_task", Arguments: map[string]any{"n": i}}}}},
			LLMCalls: []llm.Call{{Role: "user", Model: "m", InputTokens: 10}},
			Metrics:  result.Metrics{Requests: 2, InputTokens: int64(100 * i), StatusCodes: map[string]int{"200": 2}}}
		data, _ := json.Marshal(s)
		reqs, _ := json.Marshal([]a2aclient.RequestMetrics{{LatencyMS: float64(10 + i)}, {LatencyMS: float64(20 * i)}})
		if err := db.PutSimulation(ctx, id, store.Simulation{ID: s.ID, TaskID: task, Trial: i, Reward: s.Reward, Data: data, Requests: reqs}); err != nil {
			t.Fatal(err)
		}
	}
	full, err := evaluation.Load(ctx, db, id)
	if err != nil {
		t.Fatal(err)
	}
	brief, err := evaluation.LoadBrief(ctx, db, id)
	if err != nil {
		t.Fatal(err)
	}
	if brief.Summary.Process != nil || full.Summary.Process == nil || full.Summary.Process.ToolCalls != 5 {
		t.Errorf("process: Load %+v, LoadBrief %+v; want 5 tool calls and none (LoadBrief reads no conversations)", full.Summary.Process, brief.Summary.Process)
	}
	full.Summary.Process = nil
	if diff := cmp.Diff(full.Summary, brief.Summary); diff != "" {
		t.Errorf("summary (-Load +LoadBrief):\n%s", diff)
	}
	if diff := cmp.Diff(full.Metrics, brief.Metrics); diff != "" {
		t.Errorf("metrics (-Load +LoadBrief):\n%s", diff)
	}
	if brief.Simulations != nil {
		t.Errorf("LoadBrief kept %d simulations", len(brief.Simulations))
	}
	if n := len(full.Simulations); n != 5 || len(full.Simulations[0].Messages) != 2 || len(full.Simulations[0].LLMCalls) != 1 {
		t.Errorf("Load: %d simulations, the first with %d messages and %d model calls; want 5, 2 and 1", n, len(full.Simulations[0].Messages), len(full.Simulations[0].LLMCalls))
	}
	if got := fmt.Sprint(full.Metrics.LatencyMS.P50 > 0, full.Summary.NumSimulations); got != "true 5" {
		t.Errorf("Load: latency p50 > 0 and simulations: %s, want true 5", got)
	}
}
