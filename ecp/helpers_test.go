package ecp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/refagent"
)

// agentModeEnv makes the test binary an ECP agent of the named mode.
const agentModeEnv = "PROCTOR_ECP_TEST_AGENT"

func TestMain(m *testing.M) {
	if mode := os.Getenv(agentModeEnv); mode != "" {
		os.Exit(runTestAgent(mode))
	}
	os.Exit(m.Run())
}

// agentTarget is the ecp+stdio: target that runs this test binary as an
// agent of mode.
func agentTarget(t testing.TB, mode string) string {
	t.Helper()
	t.Setenv(agentModeEnv, mode)
	return ecp.SchemeStdio + strconv.Quote(os.Args[0])
}

// runTestAgent serves one of the test agents on stdin/stdout.
func runTestAgent(mode string) int {
	ctx := context.Background()
	switch mode {
	case "refagent", "lsp":
		d, err := mock.New()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		a, err := refagent.New(d)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		var out io.Writer = os.Stdout
		if mode == "lsp" {
			out = &lspWriter{w: os.Stdout}
		}
		if err := ecp.Serve(ctx, os.Stdin, out, a.ECP(), 0); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	case "echo":
		return echoAgent()
	case "trace":
		return traceAgent()
	}
	return misbehave(mode)
}

// lspWriter turns newline-delimited messages into Content-Length frames:
// an agent that always answers LSP-style, whatever it is written to in.
type lspWriter struct{ w io.Writer }

func (l *lspWriter) Write(p []byte) (int, error) {
	if strings.HasPrefix(string(p), "Content-Length:") {
		return l.w.Write(p)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		if _, err := fmt.Fprintf(l.w, "Content-Length: %d\r\n\r\n%s", len(line), line); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// echoAgent answers every line with a fixed step result for the same id,
// as cheaply as a JSON-RPC peer can: the floor the benchmark compares to.
func echoAgent() int {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadSlice('\n')
		if err != nil {
			return 0
		}
		id := jsonID(line)
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"name":"echo","status":"done","public_output":"ok"}}`+"\n", id)
		out.Flush()
	}
}

// jsonID finds the "id" of a request written by proctor (a number).
func jsonID(line []byte) string {
	s := string(line)
	i := strings.Index(s, `"id":`)
	if i < 0 {
		return "null"
	}
	s = s[i+5:]
	j := strings.IndexAny(s, ",}")
	return s[:j]
}

// misbehave answers initialize and reset, then misbehaves on agent/step as
// mode says: crash, noisy (floods stderr, then crashes), hang, garbage, oversized, spawn (starts a child in its
// group, then hangs), error (a SafetyViolation), refuse (reset false).
func misbehave(mode string) int {
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return 0
		}
		id := jsonID([]byte(line))
		switch {
		case strings.Contains(line, `"agent/initialize"`):
			if mode == "noisy" {
				fmt.Fprintln(os.Stderr, "noisy: starting")
			}
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"name":"%s","protocolVersion":"0.1.0"}}`+"\n", id, mode)
		case strings.Contains(line, `"agent/reset"`) && mode == "refuse":
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":false}`+"\n", id)
		case strings.Contains(line, `"agent/reset"`):
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":true}`+"\n", id)
		default:
			return misbehaveOnStep(mode, id)
		}
	}
}

func misbehaveOnStep(mode, id string) int {
	switch mode {
	case "crash":
		fmt.Fprintln(os.Stderr, "agent: out of cheese, giving up")
		return 3
	case "noisy":
		return noisyCrash()
	case "garbage":
		fmt.Println("hello, I am not JSON")
	case "oversized":
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"status":"done","public_output":"%s"}}`+"\n", id, strings.Repeat("x", 2<<20))
	case "error":
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32002,"message":"guardrail tripped"}}`+"\n", id)
	case "spawn":
		spawnChild()
	}
	select {} // hang (and, for the others, wait to be killed)
}

// noisyCrash writes a line, a line too long to log, more than the log
// takes, and a last line, then exits 3.
func noisyCrash() int {
	w := bufio.NewWriter(os.Stderr)
	fmt.Fprintln(w, "noisy: stepping")
	fmt.Fprintln(w, strings.Repeat("y", 3*ecp.MaxStderrLine))
	for i := 0; i < 2*ecp.MaxStderrLogged/100; i++ {
		fmt.Fprintf(w, "%099d\n", i)
	}
	fmt.Fprint(w, "noisy: out of patience, giving up")
	w.Flush()
	return 3
}

// spawnChild starts a copy of this binary that hangs, in the agent's
// process group, and says its pid on stderr.
func spawnChild() {
	attr := &os.ProcAttr{Env: append(os.Environ(), agentModeEnv+"=hang"), Files: []*os.File{nil, nil, os.Stderr}}
	p, err := os.StartProcess(os.Args[0], []string{os.Args[0]}, attr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "spawn:", err)
		return
	}
	fmt.Fprintln(os.Stderr, "child", p.Pid)
}

// groupMembers lists the processes of process group pgid from /proc,
// but for zombies already handed to init (orphans of a killed agent: init
// reaps them, proctor cannot).
func groupMembers(pgid int) []string {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []string
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // the process ended meanwhile
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces.
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 3 || fields[2] != strconv.Itoa(pgid) {
			continue
		}
		if fields[0] == "Z" && fields[1] == "1" {
			continue
		}
		out = append(out, fmt.Sprintf("%s state %s ppid %s", path, fields[0], fields[1]))
	}
	return out
}

// requireNoProcs fails the test if a process of group pgid is left. A
// killed group takes a moment to vanish: /proc is read until it is empty,
// for at most five seconds.
func requireNoProcs(t testing.TB, pgid int) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Log("no /proc: process check skipped")
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := groupMembers(pgid)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes left in group %d: %v", pgid, left)
			return
		}
		runtime.Gosched()
	}
}
