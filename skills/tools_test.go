package skills_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

func service(t *testing.T) *skills.Service {
	t.Helper()
	reg, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return &skills.Service{Domains: reg, Store: db}
}

func intp(n int) *int { return &n }

func TestCheckListsEveryViolation(t *testing.T) {
	svc := service(t)
	cases := []struct {
		name string
		req  skills.EvaluationRequest
		want []string
	}{
		{"ok", skills.EvaluationRequest{AgentURL: "http://a.example"}, nil},
		{"no agent", skills.EvaluationRequest{}, []string{"agent_url is required"}},
		{"exact action matching", skills.EvaluationRequest{AgentURL: "builtin", ActionMatch: result.ActionMatchExact}, nil},
		{"bad action matching", skills.EvaluationRequest{AgentURL: "builtin", ActionMatch: "fuzzy"}, []string{`action_match "fuzzy": want one of tau2, exact`}},
		{"many at once", skills.EvaluationRequest{
			AgentURL: "ftp://x", Transport: "carrier-pigeon", Protocol: "2.0", NumTrials: 5000,
			Concurrency: -1, Retries: intp(99), Profile: "chatty",
		}, []string{"agent_url \"ftp://x\"", "transport \"carrier-pigeon\": want one of jsonrpc, rest, grpc",
			"protocol \"2.0\"", "num_trials 5000: at most 1000", "concurrency -1: at least 0", "retries 99: at most 20", "profile \"chatty\""}},
		{"unknown domain", skills.EvaluationRequest{AgentURL: "builtin", Domain: "nope"}, []string{`unknown domain "nope"`}},
		{"unknown task", skills.EvaluationRequest{AgentURL: "builtin", TaskIDs: []string{"mock-01", "mock-99"}}, []string{"has no task mock-99"}},
		{"shard out of range", skills.EvaluationRequest{AgentURL: "builtin", ShardIndex: 3, NumShards: 3}, []string{"shard_index 3: must be below num_shards"}},
		{"bad header", skills.EvaluationRequest{AgentURL: "builtin", Headers: map[string]string{"Bad Name": "x"}}, []string{"is not a header name"}},
		{"llm user without models", skills.EvaluationRequest{AgentURL: "builtin", User: "llm"}, []string{"no language models configured"}},
		{"bad model spec", skills.EvaluationRequest{AgentURL: "builtin", UserModel: "gpt-4.1", JudgeModel: "openai: x"}, []string{"user_model \"gpt-4.1\": want provider:model", "judge_model \"openai: x\""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := svc.Check(tc.req)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var inv *skills.InvalidRequestError
			if !errors.As(err, &inv) {
				t.Fatalf("err = %v, want an InvalidRequestError", err)
			}
			all := strings.Join(inv.Violations, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("violations lack %q:\n%s", w, all)
				}
			}
		})
	}
}

func TestShardsPartitionTheTasks(t *testing.T) {
	svc := service(t)
	var seen []string
	for shard := range 3 {
		run, err := svc.Prepare(context.Background(), skills.EvaluationRequest{AgentURL: "builtin", ShardIndex: shard, NumShards: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range run.Tasks() {
			seen = append(seen, task.ID)
		}
		run.Close()
	}
	slices.Sort(seen)
	if len(seen) != 17 || slices.Compact(slices.Clone(seen))[16] != "mock-17" {
		t.Errorf("shards cover %v, want each of the 17 tasks once", seen)
	}
}

// TestShardResumesItsOwnTasks checks that a shard records the whole
// selection and that its resume runs the shard's own tasks again, not a
// share of them.
func TestShardResumesItsOwnTasks(t *testing.T) {
	svc := service(t)
	ctx := context.Background()
	run, err := svc.Prepare(ctx, skills.EvaluationRequest{AgentURL: "builtin", NumTasks: 12, ShardIndex: 1, NumShards: 3, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"mock-02", "mock-05", "mock-08", "mock-11"}
	if got := taskNames(run.Tasks()); !slices.Equal(got, want) {
		t.Fatalf("shard 1 of 3 of 12 tasks runs %v, want %v", got, want)
	}
	if n := len(run.Evaluation().Config.TaskIDs); n != 12 {
		t.Errorf("the shard records %d selected tasks, want all 12", n)
	}
	cctx, cancel := context.WithCancel(ctx)
	if err := run.Execute(cctx, func(p evaluation.Progress) { cancel() }); err != nil {
		t.Fatal(err)
	}
	run.Close()
	resumed, err := svc.Prepare(ctx, skills.EvaluationRequest{Resume: run.Evaluation().ID})
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Close()
	if got := taskNames(resumed.Tasks()); !slices.Equal(got, want) {
		t.Errorf("the resumed shard runs %v, want %v", got, want)
	}
}

func taskNames(tasks []*domains.Task) []string {
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	return ids
}

func TestPrepareExecuteResumeAndResults(t *testing.T) {
	svc := service(t)
	ctx := context.Background()
	// One at a time over all 17 tasks, so that cancelling after the first
	// leaves work to resume however fast the machine is.
	run, err := svc.Prepare(ctx, skills.EvaluationRequest{AgentURL: "builtin", Concurrency: 1,
		Headers: map[string]string{"X-Secret": "hush"}})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	if err := run.Execute(cctx, func(p evaluation.Progress) {
		if p.Done == 1 {
			cancel()
		}
	}); err != nil {
		t.Fatal(err)
	}
	run.Close()
	eval := run.Evaluation()
	if eval.Status != result.StatusInterrupted || len(eval.Simulations) == 0 || len(eval.Simulations) == 17 {
		t.Fatalf("interrupted run: %s with %d simulations", eval.Status, len(eval.Simulations))
	}
	if !slices.Equal(eval.Config.HeaderNames, []string{"X-Secret"}) {
		t.Errorf("header names = %v", eval.Config.HeaderNames)
	}

	resumed, err := svc.Prepare(ctx, skills.EvaluationRequest{Resume: eval.ID[:12]})
	if err != nil {
		t.Fatal(err)
	}
	if resumed.Resumed() != len(eval.Simulations) {
		t.Errorf("resume found %d done, want %d", resumed.Resumed(), len(eval.Simulations))
	}
	if err := resumed.Execute(ctx, nil); err != nil {
		t.Fatal(err)
	}
	resumed.Close()
	if got := resumed.Evaluation(); got.Status != result.StatusCompleted || got.Summary.NumSimulations != 17 || got.Summary.AvgReward != 1 {
		t.Fatalf("after resume: %s, %+v", got.Status, got.Summary)
	}
	if _, err := svc.Prepare(ctx, skills.EvaluationRequest{Resume: eval.ID}); err == nil || !strings.Contains(err.Error(), "already completed") {
		t.Errorf("resuming a completed evaluation: %v", err)
	}

	brief, _, err := svc.GetResults(ctx, skills.ResultsRequest{ID: eval.ID, IncludeTranscripts: new(bool)})
	if err != nil || brief.Simulations != nil || brief.SimulationRows != nil || brief.Summary.NumSimulations != 17 {
		t.Fatalf("get_results without transcripts: %v, %+v", err, brief)
	}
	one, _, err := svc.GetResults(ctx, skills.ResultsRequest{ID: eval.ID, IncludeTranscripts: new(bool), IncludeRows: true})
	if err != nil || one.ID != eval.ID || one.Simulations != nil || len(one.SimulationRows) != 17 || one.SimulationRows[0].Reward != 1 {
		t.Fatalf("get_results by id: %v, %+v", err, one)
	}
	_, page, err := svc.GetResults(ctx, skills.ResultsRequest{AgentURL: "builtin"})
	if err != nil || len(page.Evaluations) != 1 || page.Evaluations[0].Simulations != nil {
		t.Fatalf("get_results page: %v, %+v", err, page)
	}
	if _, _, err := svc.GetResults(ctx, skills.ResultsRequest{ID: "nope-nope-nope"}); err == nil {
		t.Error("unknown id: no error")
	}
}

func TestResultsPaging(t *testing.T) {
	svc := service(t)
	ctx := context.Background()
	for range 5 {
		run, err := svc.Prepare(ctx, skills.EvaluationRequest{AgentURL: "builtin", TaskIDs: []string{"mock-02"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := run.Execute(ctx, nil); err != nil {
			t.Fatal(err)
		}
		run.Close()
	}
	var ids []string
	before := ""
	for pages := 0; ; pages++ {
		_, page, err := svc.GetResults(ctx, skills.ResultsRequest{Limit: 2, Before: before})
		if err != nil || pages > 5 {
			t.Fatalf("page %d: %v", pages, err)
		}
		for _, e := range page.Evaluations {
			ids = append(ids, e.ID)
		}
		if page.Next == "" {
			break
		}
		before = page.Next
	}
	if len(ids) != 5 || !slices.IsSortedFunc(ids, func(a, b string) int { return strings.Compare(b, a) }) {
		t.Errorf("paged ids %v: want 5, newest first", ids)
	}
}

func TestListDomains(t *testing.T) {
	ds := service(t).ListDomains()
	if len(ds) != 1 || ds[0].Name != "mock" || ds[0].NumTasks != 17 || len(ds[0].Tools) != 7 {
		t.Errorf("list_domains = %+v", ds)
	}
}
