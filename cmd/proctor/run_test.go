package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/internal/agenttest"
)

// mockTasks is the number of tasks of the built-in mock domain.
const mockTasks = 17

var terminationReasons = []string{"user_stop", "agent_stop", "max_steps", "too_many_errors", "timeout", "agent_error", "user_error", "infrastructure_error"}

// checkSchema checks that an evaluation's JSON carries every documented
// field under its wire name.
func checkSchema(t *testing.T, eval map[string]any) {
	t.Helper()
	if str(t, eval, "id") == "" {
		t.Error("id is empty")
	}
	if d := str(t, eval, "domain"); d != "mock" {
		t.Errorf("domain = %q, want mock", d)
	}
	if u := str(t, eval, "agent.url"); !strings.HasPrefix(u, "http://127.0.0.1:") {
		t.Errorf("agent.url = %q, want the agent's loopback URL", u)
	}
	num(t, eval, "summary.num_simulations")
	num(t, eval, "summary.avg_reward")
	passHat := obj(t, eval, "summary.pass_hat_k")
	if len(passHat) == 0 {
		t.Error("summary.pass_hat_k is empty")
	}
	for k, v := range passHat {
		if _, ok := v.(float64); !ok || strings.Trim(k, "0123456789") != "" {
			t.Errorf("summary.pass_hat_k[%q] = %#v, want k -> number", k, v)
		}
	}
	for reason, n := range obj(t, eval, "summary.termination_reasons") {
		if !slices.Contains(terminationReasons, reason) {
			t.Errorf("summary.termination_reasons has unknown reason %q", reason)
		}
		if _, ok := n.(float64); !ok {
			t.Errorf("summary.termination_reasons[%q] = %#v, want a count", reason, n)
		}
	}
	num(t, eval, "metrics.requests")
	num(t, eval, "metrics.errors")
	for code, n := range obj(t, eval, "metrics.status_codes") {
		// "none" counts requests that got no HTTP response at all.
		if code != "none" && (len(code) != 3 || strings.Trim(code, "0123456789") != "") {
			t.Errorf("metrics.status_codes has key %q, want an HTTP status code or none", code)
		}
		if _, ok := n.(float64); !ok {
			t.Errorf("metrics.status_codes[%q] = %#v, want a count", code, n)
		}
	}
	for _, p := range []string{"p50", "p95", "p99"} {
		num(t, eval, "metrics.latency_ms."+p)
	}
	num(t, eval, "metrics.input_tokens")
	num(t, eval, "metrics.output_tokens")

	for i, s := range simulations(t, eval) {
		str(t, s, "task_id")
		num(t, s, "trial")
		num(t, s, "reward")
		if r := str(t, s, "termination_reason"); !slices.Contains(terminationReasons, r) {
			t.Errorf("simulations[%d].termination_reason = %q", i, r)
		}
		obj(t, s, "reward_info")
		msgs := arr(t, s, "messages")
		if len(msgs) == 0 {
			t.Errorf("simulations[%d] has no messages", i)
		}
		for j, mv := range msgs {
			m, ok := mv.(map[string]any)
			if !ok {
				t.Fatalf("simulations[%d].messages[%d] = %#v, want an object", i, j, mv)
			}
			role := str(t, m, "role")
			if !slices.Contains([]string{"assistant", "user", "tool"}, role) {
				t.Errorf("simulations[%d].messages[%d].role = %q", i, j, role)
			}
			str(t, m, "content")
			calls, has := m["tool_calls"]
			if !has {
				continue
			}
			if role != "assistant" {
				t.Errorf("simulations[%d].messages[%d]: a %s message has tool_calls", i, j, role)
			}
			list, ok := calls.([]any)
			if !ok || len(list) == 0 {
				t.Errorf("simulations[%d].messages[%d].tool_calls = %#v, want a non-empty array", i, j, calls)
				continue
			}
			for _, cv := range list {
				c, ok := cv.(map[string]any)
				if !ok {
					t.Fatalf("tool call %#v is not an object", cv)
				}
				if str(t, c, "name") == "" {
					t.Errorf("simulations[%d].messages[%d]: tool call without a name", i, j)
				}
				field(t, c, "arguments")
			}
		}
	}
}

func TestRunBuiltinJSON(t *testing.T) {
	db := tempDB(t)
	r := mustCLI(t, exitOK, "run", "--domain", "mock", "--agent", "builtin", "--format", "json", "--db", db, "--concurrency", "8")
	eval := decodeObject(t, r.stdout)
	checkSchema(t, eval)

	if got := str(t, eval, "status"); got != "completed" {
		t.Errorf("status = %q, want completed", got)
	}
	if got := num(t, eval, "summary.avg_reward"); got != 1 {
		t.Errorf("summary.avg_reward = %v, want 1", got)
	}
	if got := num(t, eval, "summary.pass_hat_k.1"); got != 1 {
		t.Errorf("summary.pass_hat_k[1] = %v, want 1", got)
	}
	if got := num(t, eval, "summary.num_simulations"); got != mockTasks {
		t.Errorf("summary.num_simulations = %v, want %d", got, mockTasks)
	}
	if got := num(t, eval, "summary.termination_reasons.user_stop"); got != mockTasks {
		t.Errorf("summary.termination_reasons.user_stop = %v, want %d", got, mockTasks)
	}
	if e := num(t, eval, "metrics.errors"); e != 0 {
		t.Errorf("metrics.errors = %v, want 0", e)
	}
	reqs := num(t, eval, "metrics.requests")
	if ok := num(t, eval, "metrics.status_codes.200"); reqs == 0 || ok != reqs {
		t.Errorf("metrics: %v requests, %v with status 200; want all of them 200", reqs, ok)
	}
	if num(t, eval, "metrics.input_tokens") <= 0 || num(t, eval, "metrics.output_tokens") <= 0 {
		t.Error("metrics: token totals are zero")
	}
	lat := obj(t, eval, "metrics.latency_ms")
	if !(lat["p50"].(float64) > 0 && lat["p50"].(float64) <= lat["p95"].(float64) && lat["p95"].(float64) <= lat["p99"].(float64)) {
		t.Errorf("metrics.latency_ms = %v, want 0 < p50 <= p95 <= p99", lat)
	}

	sims := simulations(t, eval)
	if len(sims) != mockTasks {
		t.Fatalf("%d simulations, want %d", len(sims), mockTasks)
	}
	toolCalls := 0
	seen := map[simKey]bool{}
	for _, s := range sims {
		k := keyOf(t, s)
		if seen[k] {
			t.Errorf("simulation %v appears twice", k)
		}
		seen[k] = true
		if r := num(t, s, "reward"); r != 1 {
			t.Errorf("simulation %v: reward %v, want 1", k, r)
		}
		if r := str(t, s, "termination_reason"); r != "user_stop" {
			t.Errorf("simulation %v: termination %q, want user_stop", k, r)
		}
		for _, m := range arr(t, s, "messages") {
			if calls, ok := m.(map[string]any)["tool_calls"].([]any); ok {
				toolCalls += len(calls)
			}
		}
	}
	// The reference agent solves the mock tasks with tools: an output that
	// dropped tool calls would still score, but must not pass this test.
	if toolCalls == 0 {
		t.Error("no assistant message has tool_calls")
	}
	if !strings.Contains(r.stderr, str(t, eval, "id")) {
		t.Errorf("stderr does not name the evaluation id:\n%s", r.stderr)
	}
}

// TestRunSorryAgent evaluates an agent that declines everything: it scores
// nothing, yet nothing failed.
func TestRunSorryAgent(t *testing.T) {
	srv := agenttest.Start(t, agenttest.Sorry)
	db := tempDB(t)
	r := mustCLI(t, exitOK, "run", "--agent", srv.URL, "--format", "json", "--db", db, "--concurrency", "8")
	eval := decodeObject(t, r.stdout)
	checkSchema(t, eval)
	if got := num(t, eval, "summary.avg_reward"); got != 0 {
		t.Errorf("summary.avg_reward = %v, want 0", got)
	}
	if got := num(t, eval, "summary.pass_hat_k.1"); got != 0 {
		t.Errorf("summary.pass_hat_k[1] = %v, want 0", got)
	}
	if got := num(t, eval, "metrics.errors"); got != 0 {
		t.Errorf("metrics.errors = %v, want 0", got)
	}
	if got := num(t, eval, "summary.termination_reasons.user_stop"); got != mockTasks {
		t.Errorf("termination_reasons = %v, want user_stop %d", obj(t, eval, "summary.termination_reasons"), mockTasks)
	}
	if got := str(t, eval, "agent.name"); got != "test agent" {
		t.Errorf("agent.name = %q, want the card's name", got)
	}
	sims := simulations(t, eval)
	if len(sims) != mockTasks {
		t.Fatalf("%d simulations, want %d", len(sims), mockTasks)
	}
	for _, s := range sims {
		k := keyOf(t, s)
		if r := num(t, s, "reward"); r != 0 {
			t.Errorf("simulation %v: reward %v, want 0", k, r)
		}
		if r := str(t, s, "termination_reason"); r != "user_stop" {
			t.Errorf("simulation %v: termination %q, want user_stop", k, r)
		}
		said := false
		for _, m := range arr(t, s, "messages") {
			m := m.(map[string]any)
			if m["role"] == "assistant" && m["content"] == agenttest.SorryReply {
				said = true
			}
		}
		if !said {
			t.Errorf("simulation %v: the agent's reply is not in the transcript", k)
		}
	}
}

// TestRunBadInput: every mistake a user can make on the command line gets
// a clear message and exit status 2 (1 when the agent cannot be reached),
// and no output on stdout.
func TestRunBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want []string // substrings of stderr
	}{
		{"unknown domain", []string{"--domain", "nope"}, exitUsage, []string{`"nope"`, "known: mock"}},
		{"unknown task id", []string{"--task-ids", "mock-01,mock-99"}, exitUsage, []string{"mock-99"}},
		{"zero trials", []string{"--num-trials", "0"}, exitUsage, []string{"--num-trials"}},
		{"trials not a number", []string{"--num-trials", "many"}, exitUsage, []string{"--num-trials", "many"}},
		{"format xml", []string{"--format", "xml"}, exitUsage, []string{"--format", "xml"}},
		{"fail-under above 1", []string{"--fail-under", "2"}, exitUsage, []string{"--fail-under"}},
		{"fail-under negative", []string{"--fail-under", "-0.5"}, exitUsage, []string{"--fail-under"}},
		{"zero concurrency", []string{"--concurrency", "0"}, exitUsage, []string{"--concurrency"}},
		{"negative timeout", []string{"--timeout", "-1s"}, exitUsage, []string{"--timeout"}},
		{"bad progress", []string{"--progress", "fancy"}, exitUsage, []string{"--progress", "fancy"}},
		{"unknown profile", []string{"--profile", "nope"}, exitUsage, []string{"--profile"}},
		{"unknown user", []string{"--user", "llm"}, exitUsage, []string{"--user"}},
		{"unknown flag", []string{"--trials", "3"}, exitUsage, []string{"--trials"}},
		{"stray argument", []string{"mock"}, exitUsage, []string{"mock"}},
		{"agent not a URL", []string{"--agent", "localhost-9019"}, exitUsage, []string{"--agent", "localhost-9019"}},
		{"agent URL scheme", []string{"--agent", "ftp://127.0.0.1:9019"}, exitUsage, []string{"--agent", "ftp://127.0.0.1:9019"}},
		{"unknown resume id", []string{"--resume", "00000000-0000"}, exitUsage, []string{"00000000-0000"}},
		{"unreachable agent", []string{"--agent", "http://127.0.0.1:1"}, exitFailure, []string{"cannot connect", "127.0.0.1:1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := tempDB(t)
			args := append([]string{"run", "--db", db}, tc.args...)
			r := cli(t, args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", r.code, tc.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not mention %q:\n%s", w, r.stderr)
				}
			}
			if !strings.HasPrefix(r.stderr, "proctor: ") {
				t.Errorf("stderr does not start with the program's name:\n%s", r.stderr)
			}
			if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
				t.Errorf("stderr shows a panic:\n%s", r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout is not empty:\n%s", r.stdout)
			}
			// A rejected command line evaluates nothing and so stores nothing.
			if tc.code == exitUsage && tc.args[0] != "--resume" {
				if _, err := os.Stat(db); err == nil {
					t.Errorf("a rejected command line created the database %s", db)
				}
			}
		})
	}
}

// TestRunBrokenAgents: agents that fail in every way still get a complete
// evaluation that says how they failed.
func TestRunBrokenAgents(t *testing.T) {
	tests := []struct {
		name        string
		start       func(t *testing.T) string
		args        []string
		termination string
		status      string // a key expected in metrics.status_codes
		errorsToo   bool   // metrics.errors must count the failures
		errContains string // substring of every simulation's error
	}{
		{
			name:        "HTTP 500",
			start:       func(t *testing.T) string { return agenttest.StatusAgent(t, 500).URL },
			termination: "agent_error", status: "500", errorsToo: true, errContains: "500",
		},
		{
			name:        "HTTP 501",
			start:       func(t *testing.T) string { return agenttest.StatusAgent(t, 501).URL },
			termination: "agent_error", status: "501", errorsToo: true, errContains: "501",
		},
		{
			name:        "hangs past --timeout",
			start:       func(t *testing.T) string { return agenttest.HangingAgent(t).URL },
			args:        []string{"--timeout", "300ms", "--concurrency", "17"},
			termination: "timeout", status: "none", errorsToo: true, errContains: "timeout",
		},
		{
			name:        "hangs past --request-timeout",
			start:       func(t *testing.T) string { return agenttest.HangingAgent(t).URL },
			args:        []string{"--request-timeout", "200ms", "--concurrency", "17"},
			termination: "agent_error", status: "none", errorsToo: true, errContains: "timeout",
		},
		{
			name:        "garbage body",
			start:       func(t *testing.T) string { return agenttest.RawAgent(t, "application/json", "this is not JSON {").URL },
			termination: "agent_error", status: "200", errorsToo: true,
		},
		{
			name: "HTML page",
			start: func(t *testing.T) string {
				return agenttest.RawAgent(t, "text/html", "<html><body>It works!</body></html>").URL
			},
			termination: "agent_error", status: "200", errorsToo: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := tc.start(t)
			db := tempDB(t)
			args := append([]string{"run", "--agent", url, "--db", db, "--format", "json", "--concurrency", "8"}, tc.args...)
			start := time.Now()
			// An evaluation in which every simulation failed before an
			// outcome measured nothing: it is failed, with its own exit
			// code. One whose agent was merely too slow is completed.
			code, status := exitOK, "completed"
			if tc.termination == "agent_error" {
				code, status = exitNoOutcome, "failed"
			}
			r := mustCLI(t, code, args...)
			elapsed := time.Since(start)
			eval := decodeObject(t, r.stdout)
			checkSchema(t, eval)
			if got := str(t, eval, "status"); got != status {
				t.Errorf("status = %q, want %s", got, status)
			}
			if status == "failed" && !strings.Contains(r.stderr, "every simulation failed before an outcome") {
				t.Errorf("stderr does not say why the evaluation failed:\n%s", r.stderr)
			}
			if got := num(t, eval, "summary.termination_reasons."+tc.termination); got != mockTasks {
				t.Errorf("termination_reasons = %v, want %s %d", obj(t, eval, "summary.termination_reasons"), tc.termination, mockTasks)
			}
			if got := num(t, eval, "summary.avg_reward"); got != 0 {
				t.Errorf("avg_reward = %v, want 0", got)
			}
			if tc.status != "" {
				codes := obj(t, eval, "metrics.status_codes")
				if n, _ := codes[tc.status].(float64); n < mockTasks {
					t.Errorf("metrics.status_codes = %v, want %q counted for every simulation", codes, tc.status)
				}
			}
			if tc.errorsToo {
				if got := num(t, eval, "metrics.errors"); got < mockTasks {
					t.Errorf("metrics.errors = %v, want at least %d", got, mockTasks)
				}
			}
			sims := simulations(t, eval)
			if len(sims) != mockTasks {
				t.Fatalf("%d simulations, want %d", len(sims), mockTasks)
			}
			for _, s := range sims {
				k := keyOf(t, s)
				if got := str(t, s, "termination_reason"); got != tc.termination {
					t.Errorf("simulation %v: termination %q, want %q", k, got, tc.termination)
				}
				msg, _ := s["error"].(string)
				if msg == "" || !strings.Contains(strings.ToLower(msg), tc.errContains) {
					t.Errorf("simulation %v: error %q, want one mentioning %q", k, msg, tc.errContains)
				}
			}
			if elapsed > 20*time.Second {
				t.Errorf("took %s: the limits did not cut the agent short", elapsed)
			}
			// The table rendering of such an evaluation works too.
			id := str(t, eval, "id")
			tbl := mustCLI(t, exitOK, "results", id, "--db", db)
			if status == "failed" && !strings.Contains(tbl.stdout, "every simulation failed before an outcome") {
				t.Errorf("results table does not say why the evaluation failed:\n%s", tbl.stdout)
			}
			if !strings.Contains(tbl.stdout, tc.termination) {
				t.Errorf("results table does not show %s:\n%s", tc.termination, tbl.stdout)
			}
		})
	}
}

func TestRunFailUnder(t *testing.T) {
	sorry := agenttest.Start(t, agenttest.Sorry).URL
	tests := []struct {
		name, agent, failUnder string
		code                   int
		stderr                 string
	}{
		{"sorry below 0.5", sorry, "0.5", exitFailUnder, "below --fail-under"},
		{"sorry at 0", sorry, "0", exitOK, ""},
		{"builtin at 1", "builtin", "1", exitOK, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mustCLI(t, tc.code, "run", "--agent", tc.agent, "--db", tempDB(t), "--fail-under", tc.failUnder, "--task-ids", "mock-01,mock-02,mock-03")
			if tc.stderr != "" && !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr does not say %q:\n%s", tc.stderr, r.stderr)
			}
			// The result is printed whatever the verdict.
			if !strings.Contains(r.stdout, "pass^1") {
				t.Errorf("stdout has no result table:\n%s", r.stdout)
			}
		})
	}
}

// TestRunOutFile: --out gets the result in its format; stdout sums it up.
func TestRunOutFile(t *testing.T) {
	for _, format := range []string{"json", "table", "markdown"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "result."+format)
			r := mustCLI(t, exitOK, "run", "--db", filepath.Join(dir, "p.db"), "--task-ids", "mock-01,mock-02", "--num-trials", "2", "--format", format, "--out", out)
			// The terminal gets the summary and where the result went, not the result.
			if !strings.Contains(r.stdout, "pass^1") || !strings.Contains(r.stdout, "result       "+out+" ("+format+")") ||
				strings.Contains(r.stdout, "{") || strings.Contains(r.stdout, "mock-01") {
				t.Errorf("stdout with --out is not the summary and the file's name:\n%s", r.stdout)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			switch format {
			case "json":
				eval := decodeObject(t, string(data))
				checkSchema(t, eval)
				if n := len(simulations(t, eval)); n != 4 {
					t.Errorf("%d simulations in the file, want 4", n)
				}
				if got := obj(t, eval, "summary.pass_hat_k"); len(got) != 2 {
					t.Errorf("pass_hat_k = %v, want k=1 and k=2", got)
				}
			case "table":
				for _, w := range []string{"pass^1", "mock-01", "mock-02", "pass^k", "k=2"} {
					if !strings.Contains(string(data), w) {
						t.Errorf("table has no %q:\n%s", w, data)
					}
				}
			case "markdown":
				for _, w := range []string{"## proctor evaluation", "| pass^1 |", "| mock-02 | 2 | 2 |"} {
					if !strings.Contains(string(data), w) {
						t.Errorf("markdown has no %q:\n%s", w, data)
					}
				}
			}
		})
	}
	// A bad --out is found before anything runs.
	for name, out := range map[string]string{"missing directory": filepath.Join("no", "such", "dir", "r.json"), "a directory": "."} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "p.db")
			r := mustCLI(t, exitUsage, "run", "--db", db, "--task-ids", "mock-01", "--out", filepath.Join(dir, out))
			if !strings.Contains(r.stderr, "--out") {
				t.Errorf("stderr does not blame --out:\n%s", r.stderr)
			}
			if _, err := os.Stat(db); err == nil {
				t.Error("the evaluation ran although its result could not be written")
			}
		})
	}
}

func TestMarkdownListsFailures(t *testing.T) {
	srv := agenttest.StatusAgent(t, 503)
	r := mustCLI(t, exitNoOutcome, "run", "--agent", srv.URL, "--db", tempDB(t), "--task-ids", "mock-01", "--format", "markdown")
	for _, w := range []string{"### Failed simulations", "mock-01#0", "agent_error", "503"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("markdown has no %q:\n%s", w, r.stdout)
		}
	}
}

func TestRunTaskSelection(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string // task ids, in order
	}{
		{"first N", []string{"--num-tasks", "3"}, []string{"mock-01", "mock-02", "mock-03"}},
		{"N above the count", []string{"--num-tasks", "99"}, nil},
		{"ids, spaces and duplicates", []string{"--task-ids", "mock-05, mock-02,mock-05"}, []string{"mock-05", "mock-02"}},
		{"ids then N", []string{"--task-ids", "mock-09,mock-08,mock-07", "--num-tasks", "2"}, []string{"mock-09", "mock-08"}},
		{"repeated flag", []string{"--task-ids", "mock-10", "--task-ids", "mock-11"}, []string{"mock-10", "mock-11"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mustCLI(t, exitOK, append([]string{"run", "--db", tempDB(t), "--format", "json"}, tc.args...)...)
			eval := decodeObject(t, r.stdout)
			var got []string
			for _, s := range simulations(t, eval) {
				got = append(got, str(t, s, "task_id"))
			}
			want := tc.want
			if want == nil {
				for i := 1; i <= mockTasks; i++ {
					want = append(want, fmt.Sprintf("mock-%02d", i))
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("simulated %v, want %v", got, want)
			}
			if n := num(t, eval, "summary.num_tasks"); n != float64(len(want)) {
				t.Errorf("summary.num_tasks %v, want %d", n, len(want))
			}
		})
	}
}

// TestAgentCommand serves the reference agent with `proctor agent` and
// evaluates it over its URL.
func TestAgentCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &announceWriter{re: regexp.MustCompile(`http://127\.0\.0\.1:\d+`), found: make(chan string, 1)}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"agent", "--port", "0"}, io.Discard, stderr) }()
	var url string
	select {
	case url = <-stderr.found:
	case code := <-done:
		t.Fatalf("the agent exited with %d before announcing its URL:\n%s", code, stderr.String())
	case <-time.After(10 * time.Second):
		t.Fatalf("the agent did not announce its URL:\n%s", stderr.String())
	}
	r := mustCLI(t, exitOK, "run", "--agent", url, "--db", tempDB(t), "--format", "json", "--task-ids", "mock-01,mock-06")
	eval := decodeObject(t, r.stdout)
	if got := num(t, eval, "summary.avg_reward"); got != 1 {
		t.Errorf("the served reference agent scored %v, want 1", got)
	}
	if b, _ := field(t, eval, "agent").(map[string]any)["builtin"].(bool); b {
		t.Error("an agent evaluated over its URL is reported as built-in")
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("agent exited %d after cancel\n%s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the agent did not stop when its context ended")
	}

	for _, args := range [][]string{{"agent", "--port", "70000"}, {"agent", "--domain", "nope", "--port", "0"}, {"agent", "extra"}} {
		mustCLI(t, exitUsage, args...)
	}
}

// announceWriter is a log that says, once, when a line matching re has been
// written: a server's announcement of its address.
type announceWriter struct {
	lockedBuffer
	re    *regexp.Regexp
	found chan string
	once  sync.Once
}

func (w *announceWriter) Write(p []byte) (int, error) {
	n, err := w.lockedBuffer.Write(p)
	if m := w.re.FindString(w.lockedBuffer.String()); m != "" {
		w.once.Do(func() { w.found <- m })
	}
	return n, err
}
