package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/server"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// serveBench serves proctor with a fresh database until the benchmark ends.
func serveBench(tb testing.TB) (*server.Server, *skills.Service) {
	tb.Helper()
	reg, err := catalog.Builtin()
	if err != nil {
		tb.Fatal(err)
	}
	db, err := store.Open(filepath.Join(tb.TempDir(), "p.db"), store.WithNoSync())
	if err != nil {
		tb.Fatal(err)
	}
	svc := &skills.Service{Domains: reg, Store: db}
	srv, err := server.New(server.Config{GRPCPort: -1}, svc)
	if err != nil {
		tb.Fatal(err)
	}
	server.ServeInBackground(tb, srv, db)
	return srv, svc
}

// jsonrpcClient is a2a-go's client on the JSON-RPC 1.0 interface of the
// agent at base, and only that one.
func jsonrpcClient(tb testing.TB, base string) *sdkclient.Client {
	tb.Helper()
	card, err := agentcard.DefaultResolver.Resolve(context.Background(), base)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := sdkclient.NewFromCard(context.Background(), card, sdkclient.WithDefaultsDisabled(), sdkclient.WithJSONRPCTransport(nil))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Destroy() })
	return c
}

// bigEvaluation stores a completed evaluation of tasks x trials
// simulations made of real ones: the built-in agent is evaluated once on
// the tasks, and every trial repeats those records (transcripts, rewards,
// metrics, request metrics) under its own id and context.
func bigEvaluation(tb testing.TB, svc *skills.Service, tasks []string, trials int) (string, int) {
	tb.Helper()
	ctx := context.Background()
	run, err := svc.Prepare(ctx, skills.EvaluationRequest{AgentURL: skills.BuiltinAgent, TaskIDs: tasks})
	if err != nil {
		tb.Fatal(err)
	}
	defer run.Close()
	if err := run.Execute(ctx, nil); err != nil {
		tb.Fatal(err)
	}
	real := run.Evaluation()
	if real.Status != result.StatusCompleted || len(real.Simulations) != len(tasks) {
		tb.Fatalf("the seed evaluation: %s with %d simulations", real.Status, len(real.Simulations))
	}
	requests := map[string]json.RawMessage{}
	transcript := 0
	for _, s := range real.Simulations {
		if requests[s.TaskID], err = svc.Store.Requests(ctx, real.ID, s.ID); err != nil {
			tb.Fatal(err)
		}
		m, _ := json.Marshal(s.Messages)
		transcript += len(m)
	}

	id := store.NewID()
	eval := *real
	eval.ID, eval.Status, eval.Simulations = id, result.StatusInterrupted, nil
	eval.Config.NumTrials = trials
	put := func() {
		data, err := json.Marshal(eval)
		if err != nil {
			tb.Fatal(err)
		}
		if err := svc.Store.PutEvaluation(ctx, store.Evaluation{ID: id, Domain: eval.Domain, AgentURL: eval.Agent.URL,
			Status: string(eval.Status), CreatedAt: eval.CreatedAt, Data: data}); err != nil {
			tb.Fatal(err)
		}
	}
	put()
	// Concurrent writers share transactions (group commit).
	jobs := make(chan result.Simulation)
	var wg sync.WaitGroup
	var failed error
	var once sync.Once
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range jobs {
				data, err := json.Marshal(s)
				if err == nil {
					err = svc.Store.PutSimulation(ctx, id, store.Simulation{ID: s.ID, TaskID: s.TaskID, Trial: s.Trial,
						Reward: s.Reward, Data: data, Requests: requests[s.TaskID]})
				}
				if err != nil {
					once.Do(func() { failed = err })
				}
			}
		}()
	}
	for trial := range trials {
		for _, s := range real.Simulations {
			s.ID, s.Trial = result.SimulationID(s.TaskID, trial), trial
			s.ContextID = fmt.Sprintf("%s-%d", s.ContextID, trial)
			s.StartedAt = s.StartedAt.Add(time.Duration(trial) * time.Second)
			jobs <- s
		}
	}
	close(jobs)
	wg.Wait()
	if failed != nil {
		tb.Fatal(failed)
	}
	// Score it as a whole (Load recomputes the scores of an evaluation
	// that did not complete), then record it completed.
	scored, err := evaluation.Load(ctx, svc.Store, id)
	if err != nil {
		tb.Fatal(err)
	}
	eval.Summary, eval.Metrics, eval.Status = scored.Summary, scored.Metrics, result.StatusCompleted
	finished := time.Now().UTC()
	eval.FinishedAt = &finished
	put()
	return id, transcript / len(real.Simulations)
}

// cannedExecutor is a bare a2a-go agent that answers every message with the
// same parts, built once: what serving an answer costs a2a-go's server and
// client, with nothing computed.
type cannedExecutor struct{ parts []*a2a.Part }

func (e cannedExecutor) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		msg := a2a.NewMessage(a2a.MessageRoleAgent, e.parts...)
		msg.ContextID = ec.ContextID
		yield(msg, nil)
	}
}

func (cannedExecutor) Cancel(context.Context, *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(func(a2a.Event, error) bool) {}
}

func startCanned(tb testing.TB, parts []*a2a.Part) string {
	tb.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(agenttest.Card(srv.URL)))
	mux.Handle("/", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(cannedExecutor{parts})))
	return srv.URL
}

// BenchmarkSkillsVsEcho measures proctor's cheap skills against the
// cheapest A2A call there is: a round trip to a bare a2a-go agent that
// echoes, on the same machine, over the same transport (JSON-RPC 1.0,
// a2a-go's client). Each iteration makes one call of each kind; the ratios
// say how many echo round trips a skill costs. get_results reads an
// evaluation of 1,000 simulations.
//
// ratio-floor-no-transcripts is a bare a2a-go agent answering with the very
// parts of proctor's get_results answer without transcripts, made once: the
// share of that call which is a2a-go encoding and decoding the answer
// (about 1 KB per simulation), not proctor.
func BenchmarkSkillsVsEcho(b *testing.B) {
	const tasks, trials = 10, 100 // 1,000 simulations
	ctx := context.Background()
	srv, svc := serveBench(b)
	var taskIDs []string
	for i := 1; i <= tasks; i++ {
		taskIDs = append(taskIDs, fmt.Sprintf("mock-%02d", i))
	}
	evalID, transcript := bigEvaluation(b, svc, taskIDs, trials)

	proctor := jsonrpcClient(b, srv.URL())
	echoSrv := agenttest.Start(b, func(_ context.Context, _, text string) string { return text })
	echo := jsonrpcClient(b, echoSrv.URL)

	send := func(c *sdkclient.Client, part *a2a.Part) *a2a.Message {
		res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, part)})
		if err != nil {
			b.Fatal(err)
		}
		return answerOf(b, res)
	}
	skillPart := func(name server.Skill, params map[string]any) *a2a.Part {
		body := map[string]any{"skill": string(name)}
		if params != nil {
			body["params"] = params
		}
		return a2a.NewDataPart(body)
	}
	echoPart := a2a.NewTextPart("ping")
	listPart := skillPart(server.SkillListDomains, nil)
	getPart := skillPart(server.SkillGetResults, map[string]any{"id": evalID})
	getLeanPart := skillPart(server.SkillGetResults, map[string]any{"id": evalID, "include_transcripts": false})

	// The floor: a bare a2a-go agent answering with proctor's own answer
	// to get_results without transcripts, made once.
	canned := send(proctor, getLeanPart).Parts
	floor := jsonrpcClient(b, startCanned(b, canned))

	// Check once what the calls answer, and warm the connections up.
	if got := send(echo, echoPart).Parts[0].Text(); got != "ping" {
		b.Fatalf("echo answered %q", got)
	}
	send(proctor, listPart)
	for part, transcripts := range map[*a2a.Part]bool{getPart: true, getLeanPart: false} {
		var eval struct {
			ID          string `json:"id"`
			Simulations []struct {
				Messages []any `json:"messages"`
			} `json:"simulations"`
			Rows []result.SimulationRow `json:"simulation_rows"`
		}
		raw, _ := json.Marshal(dataPartOf(b, send(proctor, part)))
		if err := json.Unmarshal(raw, &eval); err != nil || eval.ID != evalID {
			b.Fatalf("get_results: evaluation %q (%v)", eval.ID, err)
		}
		if transcripts && (len(eval.Simulations) != tasks*trials || len(eval.Simulations[0].Messages) == 0) {
			b.Fatalf("get_results with transcripts: %d simulations", len(eval.Simulations))
		}
		if !transcripts && (eval.Simulations != nil || eval.Rows != nil) {
			b.Fatalf("get_results without transcripts: %d simulations, %d rows", len(eval.Simulations), len(eval.Rows))
		}
	}

	// Each call is measured side by side with the echo round trip, in a
	// loop of its own: a 3 MB answer's garbage would otherwise slow the
	// small calls measured beside it. Medians, not means: the ratios should
	// not swing with a few calls slowed by whatever else the machine runs.
	median := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Nanoseconds())
	}
	pair := func(name string, c *sdkclient.Client, part *a2a.Part) {
		b.Run(name, func(b *testing.B) {
			var echoT, callT []time.Duration
			for b.Loop() {
				start := time.Now()
				send(echo, echoPart)
				echoT = append(echoT, time.Since(start))
				start = time.Now()
				send(c, part)
				callT = append(callT, time.Since(start))
			}
			e, x := median(echoT), median(callT)
			b.ReportMetric(e, "echo-ns/op")
			b.ReportMetric(x, "call-ns/op")
			b.ReportMetric(x/e, "x-echo") // times the bare echo: 1 is no cost of proctor's
		})
	}
	pair("list_domains", proctor, listPart)
	pair("get_results-no-transcripts", proctor, getLeanPart)
	pair("get_results", proctor, getPart)
	// What a2a-go alone spends carrying the no-transcripts answer, built
	// once: get_results-no-transcripts can go no lower.
	pair("floor-no-transcripts", floor, echoPart)
	b.Logf("%d simulations, transcripts of %d bytes on average", tasks*trials, transcript)
}

func dataPartOf(tb testing.TB, msg *a2a.Message) map[string]any {
	tb.Helper()
	for _, p := range msg.Parts {
		if d, ok := p.Data().(map[string]any); ok {
			return d
		}
	}
	tb.Fatalf("no data part in %+v", msg.Parts)
	return nil
}

// TestGetResultsWithoutTranscripts: get_results without transcripts, which
// skips decoding them, answers what loading the whole evaluation and
// dropping its messages answers: same records, same order (task order of
// the evaluation, then trial, which is not the store's key order), for
// completed evaluations and for the others (rescored on load).
func TestGetResultsWithoutTranscripts(t *testing.T) {
	ctx := context.Background()
	_, svc := serveBench(t)
	id, _ := bigEvaluation(t, svc, []string{"mock-03", "mock-01", "mock-02"}, 12)
	lean := false
	check := func(ref string) {
		t.Helper()
		full, err := evaluation.Load(ctx, svc.Store, id)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := svc.GetResults(ctx, skills.ResultsRequest{ID: ref, IncludeTranscripts: &lean, IncludeRows: true})
		if err != nil {
			t.Fatal(err)
		}
		if got.Simulations != nil {
			t.Fatalf("get_results without transcripts sent %d simulations", len(got.Simulations))
		}
		if diff := cmp.Diff(result.Rows(full.Simulations), got.SimulationRows); diff != "" {
			t.Fatalf("rows differ from the simulations' (-simulations +rows):\n%.4000s", diff)
		}
		if diff := cmp.Diff(full.Summary, got.Summary); diff != "" || got.Status != full.Status {
			t.Errorf("status %s, want %s; summary (-loaded +got):\n%s", got.Status, full.Status, diff)
		}
		if len(got.SimulationRows) != 36 || got.SimulationRows[0].ID != "mock-03#0" || got.SimulationRows[12].ID != "mock-01#0" {
			t.Errorf("%d rows, in the order %s, %s...", len(got.SimulationRows), got.SimulationRows[0].ID, got.SimulationRows[1].ID)
		}
		withTranscripts, _, err := svc.GetResults(ctx, skills.ResultsRequest{ID: ref})
		if err != nil || len(withTranscripts.Simulations[0].Messages) == 0 || withTranscripts.SimulationRows != nil {
			t.Fatalf("get_results with transcripts: %v", err)
		}
	}
	check(id)
	check(id[:len(id)-1]) // a prefix (the seed evaluation shares the first characters)

	// An evaluation that did not complete is read whole and rescored.
	rec, err := svc.Store.GetEvaluation(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rec.Status, rec.UpdatedAt = string(result.StatusInterrupted), time.Time{}
	if err := svc.Store.PutEvaluation(ctx, rec); err != nil {
		t.Fatal(err)
	}
	check(id)

	// Unknown and ambiguous ids are the request's fault.
	var inv *skills.InvalidRequestError
	if _, _, err := svc.GetResults(ctx, skills.ResultsRequest{ID: "ffffffff-0000", IncludeTranscripts: &lean}); !errors.As(err, &inv) {
		t.Errorf("unknown id: %v, want an InvalidRequestError", err)
	}
}
