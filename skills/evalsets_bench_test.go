package skills_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// calcBenchSet is a set of n one-turn calculator cases, each expecting the
// tool call and answer the agent gives, scored on both.
func calcBenchSet(n int) *evalset.Set {
	set := &evalset.Set{ID: "bench", Path: "bench", Metrics: []*evalset.Metric{
		{Name: evalset.MetricToolTrajectory, Threshold: 1, Criterion: &evalset.Criterion{ToolTrajectory: &evalset.ToolTrajectoryCriterion{
			OrderSensitive: true,
			DefaultStrategy: &evalset.ToolStrategy{
				Name: &evalset.TextCriterion{}, Arguments: &evalset.JSONCriterion{}, Result: &evalset.JSONCriterion{},
			},
		}}},
		{Name: evalset.MetricFinalResponse, Threshold: 1, Criterion: &evalset.Criterion{FinalResponse: &evalset.FinalResponseCriterion{
			Text: &evalset.TextCriterion{MatchStrategy: evalset.TextExact},
		}}},
	}}
	for i := range n {
		set.Cases = append(set.Cases, &evalset.Case{ID: fmt.Sprintf("case-%d", i), Conversation: []*evalset.Invocation{{
			ID:            "1",
			UserContent:   &evalset.Message{Role: evalset.RoleUser, Content: fmt.Sprintf("calc add %d 1", i)},
			FinalResponse: &evalset.Message{Role: evalset.RoleAssistant, Content: fmt.Sprintf("The result is %d.", i+1)},
			Tools: []*evalset.Tool{{Name: "calculator",
				Arguments: map[string]any{"operation": "add", "a": float64(i), "b": float64(1)},
				Result:    map[string]any{"result": float64(i + 1)}}},
		}}})
	}
	return set
}

func benchService(b *testing.B, opts ...store.Option) *skills.Service {
	db, err := store.Open(filepath.Join(b.TempDir(), "proctor.db"), opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	return &skills.Service{Store: db}
}

// runBenchSet plays set against the agent at url and checks every case
// passed.
func runBenchSet(b *testing.B, svc *skills.Service, url string, set *evalset.Set, runs, concurrency int) *result.EvalSetRun {
	return executeBenchSet(b, prepareBenchSet(b, svc, url, set, runs, concurrency), set)
}

// prepareBenchSet reaches the agent and records the run.
func prepareBenchSet(b *testing.B, svc *skills.Service, url string, set *evalset.Set, runs, concurrency int) *skills.EvalSetJob {
	job, err := svc.PrepareEvalSets(context.Background(), skills.EvalSetRequest{AgentURL: url, NumRuns: runs, Concurrency: concurrency}, []*evalset.Set{set})
	if err != nil {
		b.Fatal(err)
	}
	return job
}

// executeBenchSet plays a prepared run and checks every case passed.
func executeBenchSet(b *testing.B, job *skills.EvalSetJob, set *evalset.Set) *result.EvalSetRun {
	defer job.Close()
	if err := job.Execute(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	run := job.Run()
	if run.Summary.Passed != len(set.Cases) {
		b.Fatalf("%d of %d cases passed: %+v", run.Summary.Passed, len(set.Cases), run.Cases[0])
	}
	return run
}

// BenchmarkEvalSetCaseOverhead compares, side by side in one run, playing
// and scoring a one-turn case through proctor (case player, wire reading,
// both metrics, one store transaction per case) with the bare a2a-go
// SendMessage round trip the case needs, against the same instant agent,
// one case at a time. The ratio is proctor's per-case overhead. The agent
// runs in this process: "lean" answers without a2a-go's server, whose own
// CPU (a deep copy of the task at every update) would otherwise be most of
// both sides.
func BenchmarkEvalSetCaseOverhead(b *testing.B) {
	for _, lean := range []bool{true, false} {
		b.Run(fmt.Sprintf("lean=%v", lean), func(b *testing.B) {
			svc := benchService(b)
			srv := agenttest.StartCalculator(b, agenttest.CalculatorOptions{Lean: lean})
			bare, err := sdkclient.NewFromCard(context.Background(), agenttest.Card(srv.URL))
			if err != nil {
				b.Fatal(err)
			}
			defer bare.Destroy()
			const cases = 200
			set := calcBenchSet(cases)
			var full, plain time.Duration
			var requests int
			b.ResetTimer()
			for range b.N {
				job := prepareBenchSet(b, svc, srv.URL, set, 1, 1)
				start := time.Now()
				run := executeBenchSet(b, job, set)
				full += time.Since(start)
				requests += run.Metrics.Requests
				start = time.Now()
				for i := range cases {
					msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(fmt.Sprintf("calc add %d 1", i)))
					if _, err := bare.SendMessage(context.Background(), &a2a.SendMessageRequest{Message: msg}); err != nil {
						b.Fatal(err)
					}
				}
				plain += time.Since(start)
			}
			b.ReportMetric(float64(full.Nanoseconds())/float64(b.N*cases), "ns/case")
			b.ReportMetric(float64(plain.Nanoseconds())/float64(b.N*cases), "ns/bare")
			b.ReportMetric(float64(full)/float64(plain), "x-bare") // 1 is no overhead over bare calls
			b.ReportMetric(float64(requests)/float64(b.N*cases), "requests/case")
		})
	}
}

// BenchmarkEvalSetShortRun plays a run of 3 one-turn cases, one at a
// time, against the lean instant agent, with a real store (fsync on): what
// a small eval set in a CI gate waits for from its first case to its
// stored result, most of it the store's commits (the starting record, the
// trials, the closing record).
func BenchmarkEvalSetShortRun(b *testing.B) {
	svc := benchService(b)
	srv := agenttest.StartCalculator(b, agenttest.CalculatorOptions{Lean: true})
	set := calcBenchSet(3)
	var wall time.Duration
	for range b.N {
		job := prepareBenchSet(b, svc, srv.URL, set, 1, 1)
		start := time.Now()
		executeBenchSet(b, job, set)
		wall += time.Since(start)
	}
	b.ReportMetric(float64(wall.Microseconds())/float64(b.N), "us/run")
}

// BenchmarkEvalSetWallTime runs 1,000 cases x 3 runs at concurrency 64
// against an agent that takes 50 ms a turn, through the whole path with a
// real store and the lean agent (which shares this process's two cores).
// The ideal wall time is cases x runs / 64 x 50 ms; wall/ideal is how far
// proctor falls short of it.
func BenchmarkEvalSetWallTime(b *testing.B) {
	const cases, runs, concurrency = 1000, 3, 64
	const delay = 50 * time.Millisecond
	svc := benchService(b)
	srv := agenttest.StartCalculator(b, agenttest.CalculatorOptions{Delay: delay, Lean: true})
	set := calcBenchSet(cases)
	ideal := time.Duration((cases*runs+concurrency-1)/concurrency) * delay
	var wall time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		runBenchSet(b, svc, srv.URL, set, runs, concurrency)
		wall += time.Since(start)
	}
	b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s")
	b.ReportMetric(ideal.Seconds(), "ideal-s")
	b.ReportMetric(float64(wall)/float64(b.N)/float64(ideal), "wall/ideal")
}

// BenchmarkEvalSetRescore10k scores a stored run of 10,000 invocations
// (1,000 cases of 10 turns, each turn one tool call) again, from the
// database: load, score both metrics, store every case run.
func BenchmarkEvalSetRescore10k(b *testing.B) {
	svc := benchService(b)
	set := calcBenchSet(1000)
	for _, c := range set.Cases {
		for len(c.Conversation) < 10 {
			c.Conversation = append(c.Conversation, c.Conversation[0])
		}
	}
	src := storeRecordedRun(b, svc, set)
	b.ResetTimer()
	for range b.N {
		run, err := svc.RescoreEvalSets(context.Background(), src, nil, "", nil)
		if err != nil {
			b.Fatal(err)
		}
		if run.Summary.Passed != len(set.Cases) {
			b.Fatalf("%d of %d cases passed", run.Summary.Passed, len(set.Cases))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e9, "s/rescore")
}

// storeRecordedRun stores a run of set whose recorded invocations are the
// expected ones, as if the agent had done exactly that, by scoring its
// cases as trace-mode recordings, and returns its id.
func storeRecordedRun(b *testing.B, svc *skills.Service, set *evalset.Set) string {
	traced := *set
	traced.Cases = nil
	for _, c := range set.Cases {
		tc := *c
		tc.Mode = evalset.ModeTrace
		tc.ActualConversation = c.Conversation
		traced.Cases = append(traced.Cases, &tc)
	}
	job, err := svc.PrepareEvalSets(context.Background(), skills.EvalSetRequest{AgentURL: "http://127.0.0.1:1", Concurrency: 8}, []*evalset.Set{&traced})
	if err != nil {
		b.Fatal(err)
	}
	defer job.Close()
	if err := job.Execute(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	return job.Run().ID
}
