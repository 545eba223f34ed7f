package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/proctor-eval/proctor/server"
)

// Secrets the metrics and the log must never show.
const (
	metricsToken  = "tok-9f8e7d6c5b4a-never-logged"
	metricsHeader = "hdr-value-1a2b3c-never-logged"
)

// observedEvaluation is a server, with a token and a JSON log, that has
// run one evaluation of the built-in agent on three mock tasks, two trials
// each.
type observedEvaluation struct {
	f        fixture
	log      *logBuffer
	requests int // the evaluation's requests to its agent
}

func runObservedEvaluation(t *testing.T, cfg server.Config) observedEvaluation {
	t.Helper()
	logs := &logBuffer{}
	cfg.Tenants = []server.Tenant{{Name: "carol", Tokens: []string{"another-token"}}, {Name: "dave", Tokens: []string{metricsToken}}}
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	f := start(t, cfg)
	c := client(t, f.srv.URL(), sdkclient.WithCallInterceptors(bearer(metricsToken)))
	res, err := c.SendMessage(context.Background(), skill(server.SkillRunEvaluation, map[string]any{
		"agent_url": "builtin", "task_ids": []string{"mock-01", "mock-02", "mock-03"}, "num_trials": 2,
		"headers": map[string]string{"X-Api-Key": metricsHeader}, "include_transcripts": false}))
	if err != nil {
		t.Fatal(err)
	}
	task := awaitEnd(t, c, res.(*a2a.Task), time.Minute)
	if task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("evaluation ended %s: %s", task.Status.State, text(task.Status.Message.Parts))
	}
	metrics := data(t, task.Artifacts[0].Parts)["metrics"].(map[string]any)
	return observedEvaluation{f: f, log: logs, requests: int(metrics["requests"].(float64))}
}

func scrape(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return body
}

// sample is the value of the family's series with exactly these labels
// (a histogram's count), -1 without one.
func sample(families map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	return sum(families, name, func(got map[string]string) bool { return cmp.Equal(got, labels) })
}

// sum adds the values of the family's series whose labels match (a
// histogram's count), -1 without one.
func sum(families map[string]*dto.MetricFamily, name string, match func(labels map[string]string) bool) float64 {
	total, found := 0.0, false
	for _, m := range families[name].GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		if !match(got) {
			continue
		}
		found = true
		switch {
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Gauge != nil:
			total += m.GetGauge().GetValue()
		case m.Histogram != nil:
			total += float64(m.GetHistogram().GetSampleCount())
		}
	}
	if !found {
		return -1
	}
	return total
}

// TestMetricsAfterEvaluation checks what /metrics says after an evaluation:
// its simulations, requests and store writes counted, the task finished,
// nothing running; and that it is valid exposition by promtool.
func TestMetricsAfterEvaluation(t *testing.T) {
	ev := runObservedEvaluation(t, server.Config{})
	body := scrape(t, ev.f.srv.MetricsURL()) // no token: open, like /healthz
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	mock := map[string]string{"domain": "mock"}
	want := map[string]float64{
		"simulations user_stop":         6,
		"simulations passed":            6,
		"agent requests timed":          float64(ev.requests),
		"agent responses 200":           float64(ev.requests),
		"put_simulation writes":         6,
		"evaluations completed":         1,
		"evaluations running":           0,
		"evaluations queued":            0,
		"update_task writes (at least)": 1,
	}
	got := map[string]float64{
		"simulations user_stop": sample(families, "proctor_simulations_finished_total", map[string]string{"domain": "mock", "termination_reason": "user_stop"}),
		"simulations passed":    sample(families, "proctor_simulations_passed_total", mock),
		"agent requests timed":  sum(families, "proctor_agent_request_duration_seconds", func(l map[string]string) bool { return l["domain"] == "mock" }),
		"agent responses 200":   sample(families, "proctor_agent_responses_total", map[string]string{"domain": "mock", "code": "200"}),
		"put_simulation writes": sample(families, "proctor_store_write_duration_seconds", map[string]string{"operation": "put_simulation"}),
		"evaluations completed": sample(families, "proctor_tasks_finished_total", map[string]string{"skill": "run_evaluation", "state": "completed"}),
		"evaluations running":   sample(families, "proctor_evaluations_running", map[string]string{}),
		"evaluations queued":    sample(families, "proctor_evaluations_queued", map[string]string{}),
		"update_task writes (at least)": min(1, sample(families, "proctor_store_write_duration_seconds",
			map[string]string{"operation": "update_task"})),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics after 6 simulations of %d requests (-want +got):\n%s", ev.requests, diff)
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if _, ok := families[name]; !ok {
			t.Errorf("no %s", name)
		}
	}
	if bytes.Contains(body, []byte(metricsToken)) || bytes.Contains(body, []byte(metricsHeader)) {
		t.Error("the metrics show a secret")
	}
	server.PromtoolCheck(t, body)
}

// TestMetricsListen serves the metrics on their own address, and not on
// the A2A port.
func TestMetricsListen(t *testing.T) {
	f := start(t, server.Config{MetricsAddr: "127.0.0.1:0"})
	if strings.HasPrefix(f.srv.MetricsURL(), f.srv.URL()) {
		t.Fatalf("metrics at %s, on the A2A port %s", f.srv.MetricsURL(), f.srv.URL())
	}
	if body := scrape(t, f.srv.MetricsURL()); !bytes.Contains(body, []byte("proctor_evaluations_running 0")) {
		t.Errorf("metrics lack proctor_evaluations_running:\n%s", body)
	}
	resp, err := http.Get(f.srv.URL() + server.PathMetrics)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics on the A2A port: %d, want 404", resp.StatusCode)
	}
}

// TestRequestAndEvaluationLog decodes every record of the JSON log of a
// server that ran an evaluation and refused a caller: one per A2A request
// with its method, binding, tenant and status, the evaluation's start and
// end; and neither the token nor a header value anywhere.
func TestRequestAndEvaluationLog(t *testing.T) {
	ev := runObservedEvaluation(t, server.Config{})
	refused := client(t, ev.f.srv.URL(), sdkclient.WithCallInterceptors(bearer("wrong-token")))
	if _, err := refused.GetTask(context.Background(), &a2a.GetTaskRequest{ID: "nope"}); err == nil {
		t.Fatal("a wrong token was accepted")
	}
	// The server writes a request's record once the reply has gone out:
	// wait for the three records the test looks for.
	wanted := []string{"SendMessage jsonrpc dave 200", "GetTask jsonrpc dave 200", " jsonrpc  401"}
	var evals []logRecord
	raw := ev.log.waitFor(t, func(raw []byte) bool {
		var requests map[string]int
		requests, evals = readLog(t, raw)
		for _, want := range wanted {
			if requests[want] == 0 {
				return false
			}
		}
		return true
	})
	for _, secret := range []string{metricsToken, metricsHeader, "wrong-token"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the log shows %q", secret)
		}
	}
	wantEvals := []logRecord{
		{Msg: server.LogEvaluationStart, Level: "INFO", EvalID: "x", Domain: "mock", AgentURL: "builtin", Tasks: 3, Trials: 2, Status: "running"},
		{Msg: server.LogEvaluationEnd, Level: "INFO", EvalID: "x", Domain: "mock", AgentURL: "builtin", Tasks: 3, Trials: 2, Status: "completed"},
	}
	if diff := cmp.Diff(wantEvals, evals); diff != "" {
		t.Errorf("evaluation records (-want +got):\n%s", diff)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

// TestTasksFinishedByState: every kind of long task that completes is
// counted completed in proctor_tasks_finished_total, not interrupted. A
// task is counted just after its final event is sent: the metrics are read
// until all three are.
func TestTasksFinishedByState(t *testing.T) {
	f := startTenants(t, server.TenantLimits{})
	makeAliceObjects(t, f) // an evaluation, a conformance check and an eval-set run
	finished := func() map[string]string {
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(bytes.NewReader(scrape(t, f.srv.MetricsURL())))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, m := range families["proctor_tasks_finished_total"].GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			got[labels["skill"]] += fmt.Sprintf("%s %v", labels["state"], m.GetCounter().GetValue())
		}
		return got
	}
	got := finished()
	for deadline := time.Now().Add(10 * time.Second); len(got) < 3 && time.Now().Before(deadline); got = finished() {
		time.Sleep(20 * time.Millisecond) // polling the counter: nothing else says it moved
	}
	want := map[string]string{"run_evaluation": "completed 1", "check_conformance": "completed 1", "run_evalset": "completed 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tasks finished by skill (-want +got):\n%s", diff)
	}
}
