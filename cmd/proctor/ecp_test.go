package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/refagent"
	"github.com/proctor-eval/proctor/result"
)

// TestECPPrivateThoughtsStayPrivate evaluates the reference agent served
// by proctor agent --ecp, with an LLM user on a fake provider: every agent
// message's private thought is stored in the transcript, and none reaches
// the user simulator's model.
func TestECPPrivateThoughtsStayPrivate(t *testing.T) {
	bin := buildProctor(t)
	srv := llmtest.NewOpenAI(t, scriptedLLMUser(t))
	t.Setenv("OPENAI_API_KEY", fakeUserSecret)
	dir := t.TempDir()
	out := filepath.Join(dir, "ev.json")
	mustCLI(t, 0, "run", "--domain", "mock", "--agent", "ecp+stdio:'"+bin+"' agent --ecp",
		"--task-ids", "mock-01,mock-05,mock-11", "--user", "llm", "--user-model", "openai:gpt-4.1-mini",
		"--llm-base-url", srv.URL, "--db", filepath.Join(dir, "p.db"), "--format", "json", "--progress", "none", "--out", out)
	ev := readEval(t, out)
	if ev.Summary.PassHatK["1"] != 1 || ev.Agent.Transport != "ecp+stdio" || !strings.Contains(ev.Agent.Name, "reference agent") {
		t.Errorf("pass^1 %v, agent %+v: want 1 from the reference agent over ecp+stdio", ev.Summary.PassHatK["1"], ev.Agent)
	}
	thoughts := 0
	for _, s := range ev.Simulations {
		for _, m := range s.Messages {
			if strings.Contains(m.Content, refagent.ThoughtMarker) {
				t.Errorf("%s turn %d: a private thought in the content: %q", s.ID, m.Turn, m.Content)
			}
			if m.Role == result.RoleAssistant && strings.HasPrefix(m.PrivateThought, refagent.ThoughtMarker) {
				thoughts++
			}
		}
	}
	if thoughts == 0 {
		t.Fatal("no private thought stored in the transcripts")
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the LLM user made no requests")
	}
	for i, r := range reqs {
		if strings.Contains(string(r.Raw), refagent.ThoughtMarker) || strings.Contains(string(r.Raw), "private") {
			t.Errorf("request %d to the user's model carries a private thought: %s", i, clip(string(r.Raw)))
		}
	}
}

// TestECPOverWebSocketCLI evaluates proctor agent --ecp-listen through
// --agent ecp+ws://: the same rewards as the built-in agent over A2A.
func TestECPOverWebSocketCLI(t *testing.T) {
	agentRef := startECPListener(t)

	dir := t.TempDir()
	db := filepath.Join(dir, "p.db")
	rewards := func(agentRef string) map[string]float64 {
		out := filepath.Join(dir, "out.json")
		mustCLI(t, 0, "run", "--domain", "mock", "--agent", agentRef, "--profile", "structured", "--db", db, "--format", "json", "--progress", "none", "--out", out)
		got := map[string]float64{}
		for _, s := range readEval(t, out).Simulations {
			got[s.ID] = s.Reward
		}
		return got
	}
	want := rewards("builtin")
	if diff := cmp.Diff(want, rewards(agentRef)); diff != "" {
		t.Errorf("rewards over ECP WebSocket differ from A2A (-a2a +ecp):\n%s", diff)
	}
}

// startECPListener starts proctor agent --ecp-listen on a free loopback
// port and returns the ecp+ws:// reference it announces on stderr. The
// process is killed when the test ends.
func startECPListener(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, buildProctor(t), "agent", "--ecp-listen", "127.0.0.1:0")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		if _, ref, ok := strings.Cut(sc.Text(), "over ECP at "); ok {
			go func() { _, _ = io.Copy(io.Discard, pipe) }()
			return strings.Fields(ref)[0]
		}
	}
	t.Fatal("proctor agent --ecp-listen did not announce its address")
	return ""
}

// TestECPConfigFile checks --ecp-config: a YAML file is read, and a
// reference to an unset variable is refused before anything starts.
func TestECPConfigFile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "agent.yaml")
	if err := os.WriteFile(cfg, []byte("mode: test\napi_key:\n  $env: PROCTOR_TEST_UNSET_KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := cli(t, "run", "--domain", "mock", "--agent", "ecp+stdio:true", "--ecp-config", cfg, "--db", filepath.Join(dir, "p.db"))
	if r.code != exitUsage || !strings.Contains(r.stderr, "PROCTOR_TEST_UNSET_KEY is not set") {
		t.Errorf("exit %d, stderr %q: want a usage error naming the unset variable", r.code, r.stderr)
	}
	r = cli(t, "run", "--domain", "mock", "--agent", "ecp+stdio:'unterminated", "--db", filepath.Join(dir, "p.db"))
	if r.code != exitUsage || !strings.Contains(r.stderr, "unterminated") {
		t.Errorf("exit %d, stderr %q: want a usage error about the quote", r.code, r.stderr)
	}
}

// TestECPAgentDiesWithProctor kills proctor (SIGKILL: no deferred code
// runs) while it waits for an ECP agent that never answers: the kernel
// kills the agent too (Pdeathsig), and no agent process is left running.
func TestECPAgentDiesWithProctor(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil || runtime.GOOS != "linux" {
		t.Skip("needs Linux (Pdeathsig) and /proc")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command to stand in for a silent agent")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd, _, stderr, _, _ := startProctor(ctx, t, 1, "run", "--domain", "mock", "--agent", "ecp+stdio:"+sleep+" 3600",
		"--db", filepath.Join(t.TempDir(), "p.db"), "--progress", "none")
	agent := 0
	for agent == 0 {
		if ctx.Err() != nil {
			t.Fatalf("the agent never started:\n%s", stderr.String())
		}
		agent = childOf(cmd.Process.Pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for processRunning(agent) {
		if ctx.Err() != nil {
			t.Fatalf("agent %d still running after proctor was killed", agent)
		}
		runtime.Gosched()
	}
}

// childOf returns the pid of a child of parent, 0 if it has none.
func childOf(parent int) int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(parent) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			return pid
		}
	}
	return 0
}

// processRunning reports whether pid exists and is not a zombie.
func processRunning(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}

// TestECPAllowToolsCLI checks --ecp-allow-tools: a name the domain lacks
// is a usage error that lists the domain's tools; the flag overrides the
// --ecp-config file's allow_tools, and a refused call shows in the table
// as a policy violation.
func TestECPAllowToolsCLI(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "p.db")
	r := cli(t, "run", "--domain", "mock", "--agent", "ecp+stdio:true", "--ecp-allow-tools", "list_tasks,drop_table", "--db", db)
	if r.code != exitUsage || !strings.Contains(r.stderr, `no tool "drop_table" in domain mock; its tools are find_user_by_email, get_user, list_tasks`) {
		t.Errorf("exit %d, stderr %q: want a usage error listing the domain's tools", r.code, r.stderr)
	}
	cfg := filepath.Join(dir, "agent.yaml")
	if err := os.WriteFile(cfg, []byte("allow_tools: [find_user_by_email, create_task]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := buildProctor(t)
	r = mustCLI(t, 0, "run", "--domain", "mock", "--agent", "ecp+stdio:'"+bin+"' agent --ecp", "--task-ids", "mock-02",
		"--ecp-config", cfg, "--ecp-allow-tools", "find_user_by_email,list_tasks", "--db", db, "--progress", "none")
	if !strings.Contains(r.stdout, "policy violations") || !strings.Contains(r.stdout, "1 in 1 simulations: create_task 1") {
		t.Errorf("table without the policy violation:\n%s", r.stdout)
	}
}

// TestECPStderrLog checks --ecp-stderr: a stdio agent's stderr lines go
// to proctor's stderr by default, or to a file, labelled with the agent's
// pid; the error of an agent that dies quotes its stderr either way.
func TestECPStderrLog(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "p.db")
	agent := `ecp+stdio:sh -c 'echo "agent: no model key, bye" >&2; exit 2'`
	r := cli(t, "run", "--domain", "mock", "--agent", agent, "--db", db, "--progress", "none")
	if r.code == 0 || !regexp.MustCompile(`(?m)^ecp agent \[pid \d+\]: agent: no model key, bye$`).MatchString(r.stderr) {
		t.Errorf("exit %d, stderr:\n%s\nwant a failure with the agent's line in proctor's log", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "exited with status 2; stderr: agent: no model key, bye") {
		t.Errorf("stderr:\n%s\nwant the agent's error to quote its stderr", r.stderr)
	}
	logFile := filepath.Join(dir, "agents.log")
	r = cli(t, "run", "--domain", "mock", "--agent", agent, "--db", db, "--progress", "none", "--ecp-stderr", logFile)
	if strings.Contains(r.stderr, "ecp agent [") {
		t.Errorf("stderr:\n%s\nwant the agent's lines in %s only", r.stderr, logFile)
	}
	b, err := os.ReadFile(logFile)
	if err != nil || !regexp.MustCompile(`^ecp agent \[pid \d+\]: agent: no model key, bye\n$`).Match(b) {
		t.Errorf("--ecp-stderr file %q (%v): want the agent's line", b, err)
	}
}

// TestServeLogsAgentStderr: proctor serve logs a stdio agent's lines with
// the evaluation, the simulation and the pid.
func TestServeLogsAgentStderr(t *testing.T) {
	var log strings.Builder
	s := serveECPSettings(nil, false, &log)
	s.Stderr("ev1", ecp.StderrLine{PID: 7, Simulation: "mock-01#0", Text: "warming up"})
	s.Stderr("ev1", ecp.StderrLine{PID: 7, Text: "xxxx", Cut: true})
	want := "proctor: evaluation ev1: ecp agent [mock-01#0 pid 7]: warming up\n" +
		"proctor: evaluation ev1: ecp agent [pid 7]: xxxx [line cut]\n"
	if diff := cmp.Diff(want, log.String()); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}
