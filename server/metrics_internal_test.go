package server

import (
	"bytes"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
)

// TestSimulationRecorded counts a simulation's requests by status and
// error class and its model calls by role and model, a model without a
// price as "other" (a request may name any model).
func TestSimulationRecorded(t *testing.T) {
	m := newMetrics(newQueue(1))
	sim := &result.Simulation{TerminationReason: result.TermAgentError, Requests: []a2aclient.RequestMetrics{
		{Method: "SendMessage", LatencyMS: 20, HTTPStatus: 200},
		{Method: "SendMessage", LatencyMS: 3000, HTTPStatus: 503, ErrorClass: a2aclient.ErrClassHTTPStatus},
		{Method: "SendMessage", LatencyMS: 5, GRPCCode: "Unavailable", ErrorClass: a2aclient.ErrClassRPC},
		{Method: "SendStreamingMessage", LatencyMS: 1, ErrorClass: a2aclient.ErrClassConnection},
		{Method: "SendMessage", LatencyMS: 1, HTTPStatus: 999},
	}, LLMCalls: []llm.Call{
		{Role: "user", Model: "openai:gpt-4.1", InputTokens: 100, OutputTokens: 10, CostUSD: 0.25, Priced: true},
		{Role: "user", Model: "openai:gpt-4.1", InputTokens: 50, OutputTokens: 5, CostUSD: 0.125, Priced: true},
		{Role: "judge", Model: "ollama:my-finetune-1234", InputTokens: 7, OutputTokens: 3},
	}}
	m.SimulationRecorded("airline", sim)
	m.SimulationRecorded("airline", &result.Simulation{TerminationReason: result.TermUserStop, Reward: 1})

	got := map[string]float64{
		"agent_error":            testutil.ToFloat64(m.simulations.WithLabelValues("airline", "agent_error")),
		"user_stop":              testutil.ToFloat64(m.simulations.WithLabelValues("airline", "user_stop")),
		"passed":                 testutil.ToFloat64(m.passed.WithLabelValues("airline")),
		"code 200":               testutil.ToFloat64(m.agentResponses.WithLabelValues("airline", "200")),
		"code 503":               testutil.ToFloat64(m.agentResponses.WithLabelValues("airline", "503")),
		"code Unavailable":       testutil.ToFloat64(m.agentResponses.WithLabelValues("airline", "Unavailable")),
		"code none":              testutil.ToFloat64(m.agentResponses.WithLabelValues("airline", "none")),
		"code other":             testutil.ToFloat64(m.agentResponses.WithLabelValues("airline", "other")),
		"errors connection":      testutil.ToFloat64(m.agentErrors.WithLabelValues("airline", "connection")),
		"user gpt-4.1 calls":     testutil.ToFloat64(m.llmCalls.WithLabelValues("user", "openai:gpt-4.1")),
		"user gpt-4.1 input":     testutil.ToFloat64(m.llmTokens.WithLabelValues("user", "openai:gpt-4.1", "input")),
		"user gpt-4.1 output":    testutil.ToFloat64(m.llmTokens.WithLabelValues("user", "openai:gpt-4.1", "output")),
		"user gpt-4.1 cost":      testutil.ToFloat64(m.llmCost.WithLabelValues("user", "openai:gpt-4.1")),
		"judge other input":      testutil.ToFloat64(m.llmTokens.WithLabelValues("judge", modelOther, "input")),
		"request series (count)": float64(testutil.CollectAndCount(m.agentLatency)),
	}
	want := map[string]float64{
		"agent_error": 1, "user_stop": 1, "passed": 1,
		"code 200": 1, "code 503": 1, "code Unavailable": 1, "code none": 1, "code other": 1, "errors connection": 1,
		"user gpt-4.1 calls": 2, "user gpt-4.1 input": 150, "user gpt-4.1 output": 15, "user gpt-4.1 cost": 0.375,
		"judge other input": 7, "request series (count)": 2,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// The whole exposition, LLM series included, passes promtool, and
	// names no model a caller made up.
	rec := httptest.NewRecorder()
	m.handler().ServeHTTP(rec, httptest.NewRequest("GET", PathMetrics, nil))
	body := rec.Body.Bytes()
	if bytes.Contains(body, []byte("my-finetune")) {
		t.Error("an unpriced model's name is a label")
	}
	promtoolCheck(t, body)
}

// TestRedactURL keeps credentials out of the log's agent URLs.
func TestRedactURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"builtin", "builtin"},
		{"http://alice:s3cret@agent.example:9019/a2a?api_key=k3y#frag", "http://agent.example:9019/a2a"},
		{"https://agent.example/", "https://agent.example/"},
		{"ecp+stdio:python agent.py --token s3cret", "ecp+stdio:python"},
		{"ecp+ws://bob:pw@127.0.0.1:7000/ws", "ecp+ws://127.0.0.1:7000/ws"},
		{"http://[::1", "[unparsable]"},
	} {
		if got := redactURL(tc.in); got != tc.want || strings.Contains(got, "s3cret") {
			t.Errorf("redactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// PromtoolCheck is promtoolCheck for the external tests.
var PromtoolCheck = promtoolCheck

// NeedTool is needTool for the external tests.
var NeedTool = needTool

// needTool is the path of a program of Debian's prometheus package
// (promtool, prometheus): the test is skipped without it, and fails with
// CI set.
func needTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but %s is missing: .ci/run installs Debian's prometheus package (apt-get install -y prometheus)", name)
		}
		t.Skipf("%s not installed (apt-get install -y prometheus)", name)
	}
	return path
}

// promtoolCheck lints an exposition with Debian's promtool (package
// prometheus).
func promtoolCheck(t *testing.T, body []byte) {
	t.Helper()
	cmd := exec.Command(needTool(t, "promtool"), "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

// FuzzRedactURL: whatever agent URL a request names, its log form keeps
// no user info, query or fragment of it, and never panics.
func FuzzRedactURL(f *testing.F) {
	for _, s := range []string{"builtin", "http://u:p@h/x?k=v#f", "ecp+stdio:cmd --key v", "ecp+ws://h:1/p", "%zz", "http://[::1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := redactURL(raw)
		u, err := url.Parse(raw)
		if err != nil || u.Scheme == "" || u.Opaque != "" {
			return
		}
		for _, secret := range []string{u.User.String(), u.RawQuery, u.Fragment} {
			if len(secret) > 3 && strings.Contains(got, secret) && !strings.Contains(u.Host+u.Path, secret) {
				t.Fatalf("redactURL(%q) = %q keeps %q", raw, got, secret)
			}
		}
	})
}
