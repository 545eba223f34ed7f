package evaluation_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/internal/tracing"
	"github.com/proctor-eval/proctor/internal/tracing/otlptest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
)

// benchPeerEnv makes the test binary BenchmarkTracing's peer: the agent and
// the OTLP receiver, in a process of their own.
const benchPeerEnv = "PROCTOR_TRACING_BENCH_PEER"

func TestMain(m *testing.M) {
	if os.Getenv(benchPeerEnv) != "" {
		os.Exit(servePeer())
	}
	os.Exit(m.Run())
}

// servePeer serves a lean agent and a deferred OTLP receiver on loopback,
// prints their URLs, and when its stdin ends prints how many spans arrived.
func servePeer() int {
	agent := agenttest.ServeWithCard(agenttest.LeanHandler(counterAgent))
	defer agent.Close()
	recv, srv := otlptest.Serve(true)
	defer srv.Close()
	fmt.Printf("%s\n%s\n", agent.URL, recv.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
	fmt.Println(recv.Count())
	return 0
}

// benchPeer is the running peer process.
type benchPeer struct {
	cmd               *exec.Cmd
	stdin             io.WriteCloser
	out               *bufio.Reader
	agentURL, otlpURL string
}

func startBenchPeer(b *testing.B) *benchPeer {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchPeerEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	p := &benchPeer{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	p.agentURL, p.otlpURL = p.line(b), p.line(b)
	return p
}

func (p *benchPeer) line(b *testing.B) string {
	s, err := p.out.ReadString('\n')
	if err != nil {
		b.Fatalf("benchmark peer: %v", err)
	}
	return strings.TrimSpace(s)
}

// spans ends the peer's wait and returns the spans its receiver got.
func (p *benchPeer) spans(b *testing.B) int {
	_ = p.stdin.Close()
	n, err := strconv.Atoi(p.line(b))
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// cpuTime is the CPU this process has used, user and system.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTracing runs b.N simulations (three agent requests and a tool
// call each) through the Runner, untraced ("off") and traced ("on":
// exported over OTLP/HTTP by the batch processor to a loopback receiver,
// the flush at the end included), and reports proctor's CPU per
// simulation. The agent (a lean JSON-RPC one) and the receiver run in a
// child process, so the CPU measured is proctor's alone.
func BenchmarkTracing(b *testing.B) {
	b.Run("off", func(b *testing.B) { benchTracing(b, false) })
	b.Run("on", func(b *testing.B) { benchTracing(b, true) })
}

func benchTracing(b *testing.B, on bool) {
	d, task := benchTask(b)
	peer := startBenchPeer(b)
	var tp trace.TracerProvider
	var tr *tracing.Tracing
	if on {
		var err error
		tr, err = tracing.Start(context.Background(), tracing.Options{Getenv: func(k string) string {
			return map[string]string{tracing.EnvEndpoint: peer.otlpURL}[k]
		}})
		if err != nil {
			b.Fatal(err)
		}
		tp = tr.Provider()
	}
	client := dial(b, peer.agentURL, a2aclient.WithTracerProvider(tp))
	runner := &evaluation.Runner{
		Simulator: rollout.NewSimulator(d, agentbeats(b), rollout.Limits{}).WithTracerProvider(tp),
		Scorer:    scoring.NewScorer(d, false), Agent: rollout.ClientAgent(client),
		Concurrency: 1, TracerProvider: tp,
	}
	eval := evaluation.NewEvaluation("bench", result.Config{Domain: d.Name, NumTrials: b.N}, result.AgentInfo{URL: peer.agentURL})
	b.ResetTimer()
	start := cpuTime(b)
	if err := runner.Run(context.Background(), eval, []*domains.Task{task}); err != nil {
		b.Fatal(err)
	}
	tr.Shutdown(context.Background())
	cpu := cpuTime(b) - start
	b.StopTimer()
	if eval.Summary.PassHatK["1"] != 1 {
		b.Fatalf("simulations failed: %+v", eval.Summary)
	}
	if n := peer.spans(b); on && n < 5*b.N {
		b.Fatalf("receiver got %d spans for %d simulations, want at least 5 each", n, b.N)
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/sim")
}
