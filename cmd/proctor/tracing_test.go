package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/internal/tracing/otlptest"
)

// traceAttrs are the attributes the trace tree tests compare: the ids and
// outcomes, not what changes from run to run (ids, times, sizes).
var traceAttrs = []string{
	"proctor.domain", "proctor.agent.url", "proctor.tasks", "proctor.trials", "proctor.evaluation.status", "proctor.passed",
	"proctor.task.id", "proctor.trial", "proctor.reward", "proctor.termination_reason",
	"a2a.method", "a2a.transport", "a2a.protocol_version", "http.response.status_code", "error.type",
	"gen_ai.tool.name", "proctor.tool.error",
}

func keepTraceAttrs(string) []string { return traceAttrs }

// TestRunExportsTrace runs a real evaluation (the mock domain, the
// built-in agent over A2A on loopback) with OTEL_EXPORTER_OTLP_ENDPOINT
// pointing at a loopback OTLP/HTTP receiver, and checks the tree of spans
// it exported by the time proctor exited: one evaluation, a simulation per
// task, under each the agent requests and tool calls, all in one trace.
func TestRunExportsTrace(t *testing.T) {
	recv := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	t.Setenv("OTEL_SERVICE_NAME", "")
	mustCLI(t, exitOK, "run", "--domain", "mock", "--agent", "builtin", "--db", tempDB(t), "--task-ids", "mock-01,mock-02", "--concurrency", "2")

	spans := recv.Spans()
	send := func() *otlptest.Node {
		return &otlptest.Node{Name: "a2a SendStreamingMessage", Attrs: map[string]string{
			"a2a.method": "SendStreamingMessage", "a2a.protocol_version": "1.0", "a2a.transport": "jsonrpc", "http.response.status_code": "200",
		}}
	}
	tool := func(name string) *otlptest.Node {
		return &otlptest.Node{Name: "execute_tool " + name, Attrs: map[string]string{"gen_ai.tool.name": name, "proctor.tool.error": "false"}}
	}
	sim := func(task string, tools ...string) *otlptest.Node {
		n := &otlptest.Node{Name: "proctor.simulation", Attrs: map[string]string{
			"proctor.task.id": task, "proctor.trial": "0", "proctor.reward": "1", "proctor.termination_reason": "user_stop",
		}, Children: []*otlptest.Node{send(), send(), send(), send()}}
		for _, name := range tools {
			n.Children = append(n.Children, tool(name))
		}
		return n
	}
	want := []*otlptest.Node{{
		Name: "proctor.evaluation",
		Attrs: map[string]string{
			"proctor.agent.url": "builtin", "proctor.domain": "mock", "proctor.evaluation.status": "completed",
			"proctor.tasks": "2", "proctor.trials": "1", "proctor.passed": "2",
		},
		Children: []*otlptest.Node{
			sim("mock-01", "find_user_by_email", "list_tasks"),
			sim("mock-02", "create_task", "find_user_by_email"),
		},
	}}
	if diff := cmp.Diff(want, otlptest.Tree(spans, keepTraceAttrs)); diff != "" {
		t.Errorf("span tree (-want +got):\n%s", diff)
	}
	traces := map[string]bool{}
	for _, s := range spans {
		traces[s.TraceID] = true
		if s.Service != "proctor" || s.Scope != "github.com/proctor-eval/proctor" {
			t.Errorf("span %s: service %q scope %q, want proctor and the module", s.Name, s.Service, s.Scope)
		}
		if strings.HasPrefix(s.Name, "a2a ") && s.Kind != "SPAN_KIND_CLIENT" {
			t.Errorf("span %s is %s, want a client span", s.Name, s.Kind)
		}
	}
	if len(traces) != 1 {
		t.Errorf("spans belong to %d traces, want 1", len(traces))
	}
}

// TestRunWithoutCollectorEnvSendsNothing: with no OTEL_* variable set the
// evaluation runs untraced (and says nothing about tracing).
func TestRunTracingOffByDefault(t *testing.T) {
	recv := otlptest.Start(t)
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER", "OTEL_SDK_DISABLED"} {
		t.Setenv(k, "")
	}
	r := mustCLI(t, exitOK, "run", "--domain", "mock", "--agent", "builtin", "--db", tempDB(t), "--task-ids", "mock-01")
	if n := recv.Count(); n != 0 {
		t.Errorf("received %d spans with tracing off", n)
	}
	if strings.Contains(r.stderr, "tracing") {
		t.Errorf("stderr mentions tracing with tracing off:\n%s", r.stderr)
	}
}

// TestRunDeadCollector: a collector that cannot be reached costs the
// evaluation nothing but one line on stderr.
func TestRunDeadCollector(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	r := mustCLI(t, exitOK, "run", "--domain", "mock", "--agent", "builtin", "--db", tempDB(t), "--task-ids", "mock-01")
	if n := strings.Count(r.stderr, "proctor: tracing:"); n != 1 {
		t.Errorf("stderr has %d tracing notices, want 1:\n%s", n, r.stderr)
	}
}

func TestRunMalformedEndpointIsUsageError(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318")
	r := mustCLI(t, exitUsage, "run", "--domain", "mock", "--agent", "builtin", "--db", tempDB(t), "--task-ids", "mock-01")
	if !strings.Contains(r.stderr, "OTEL_EXPORTER_OTLP_ENDPOINT") {
		t.Errorf("stderr does not name the variable:\n%s", r.stderr)
	}
}

// TestEvalSetRunExportsTrace plays a tRPC-Agent-Go eval set against a real
// A2A agent with tracing on: a run span, a span per case run under it, an
// invocation span per invocation under its case, and the agent requests
// under their invocation.
func TestEvalSetRunExportsTrace(t *testing.T) {
	recv := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	agent := agenttest.StartCalculator(t, agenttest.CalculatorOptions{})
	mustCLI(t, exitCaseFailed, "evalset", "run", "--agent", agent.URL, "--db", tempDB(t), "--progress", "none", writeCalcSet(t))

	spans := recv.Spans()
	byID := map[string]otlptest.Span{}
	for _, s := range spans {
		byID[s.SpanID] = s
	}
	// parentOf names each span's parent ("" for a root), counted by pair.
	pairs := map[string]int{}
	for _, s := range spans {
		name := s.Name
		if strings.HasPrefix(name, "a2a ") {
			name = "a2a"
		}
		pairs[name+" < "+byID[s.ParentSpanID].Name]++
	}
	if pairs["proctor.evalset_run < "] != 1 {
		t.Errorf("want one root proctor.evalset_run span; parent pairs: %v", pairs)
	}
	if pairs["proctor.eval_case < proctor.evalset_run"] != 4 {
		t.Errorf("want 4 case spans under the run; parent pairs: %v", pairs)
	}
	if n := pairs["proctor.invocation < proctor.eval_case"]; n < 4 || pairs["a2a < proctor.invocation"] != n {
		t.Errorf("want an invocation span per invocation under its case, each the parent of its agent request; parent pairs: %v", pairs)
	}
	for p := range pairs {
		if !strings.HasPrefix(p, "proctor.evalset_run < ") && strings.HasSuffix(p, " < ") {
			t.Errorf("span without its parent: %s", p)
		}
	}
}

// TestConformanceExportsTrace: a conformance run is one span, whose trace
// context the checker's requests carry.
func TestConformanceExportsTrace(t *testing.T) {
	recv := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	agent := agenttest.Start(t, agenttest.Sorry)
	r := cli(t, "conformance", agent.URL, "--db", tempDB(t), "--protocol", "1.0")
	if r.code != exitOK && r.code != exitNonConformant {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	spans := recv.Spans()
	if len(spans) != 1 || spans[0].Name != "proctor.conformance" || spans[0].Attributes["proctor.conformance.level"] == "" {
		t.Fatalf("spans = %+v, want one proctor.conformance span with its level", spans)
	}
}
