package evaluation_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/internal/cputime"
	"github.com/proctor-eval/proctor/internal/tracing"
	"github.com/proctor-eval/proctor/internal/tracing/otlptest"
	"github.com/proctor-eval/proctor/refagent"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
)

// benchPeerEnv makes the test binary BenchmarkTracing's peer: the agent and
// the OTLP receiver, in a process of their own.
const benchPeerEnv = "PROCTOR_TRACING_BENCH_PEER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(benchPeerEnv); mode != "" {
		os.Exit(servePeer(mode))
	}
	os.Exit(m.Run())
}

// servePeer serves an agent (mode "counter": a lean agent for the counter
// domain; "mock": the reference agent of the mock domain, on a2a-go's
// server) and a deferred OTLP receiver on loopback, prints their URLs, and
// when its stdin ends prints how many spans arrived.
func servePeer(mode string) int {
	agentURL, stop, err := peerAgent(mode)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	recv, srv := otlptest.Serve(true)
	defer srv.Close()
	fmt.Printf("%s\n%s\n", agentURL, recv.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
	fmt.Println(recv.Count())
	return 0
}

func peerAgent(mode string) (string, func(), error) {
	if mode == "counter" {
		srv := agenttest.ServeWithCard(agenttest.LeanHandler(counterAgent))
		return srv.URL, srv.Close, nil
	}
	d, err := mock.New()
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = refagent.Serve(ctx, ln, d) }()
	return refagent.BaseURL(ln.Addr()), cancel, nil
}

// benchPeer is the running peer process.
type benchPeer struct {
	cmd               *exec.Cmd
	stdin             io.WriteCloser
	out               *bufio.Reader
	agentURL, otlpURL string
}

func startBenchPeer(b *testing.B, mode string) *benchPeer {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchPeerEnv+"="+mode)
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

// BenchmarkTracing runs simulations through two Runners side by side, one
// untraced and one traced (spans exported over OTLP/HTTP by the batch
// processor to a loopback receiver), and reports proctor's CPU per
// simulation for each and their ratio. The two alternate in rounds of
// tracingRound simulations, the order flipping each round, and the traced
// side's spans are flushed inside its round, so drift in the machine's
// load and the garbage one side leaves the other fall on both alike.
// "counter" is a minimal simulation (three agent requests and a tool
// call, scored on a one-field database) against a lean agent, the worst
// case for tracing's share; "mock" is the mock domain's mock-01 against
// the reference agent on a2a-go's server. The agent and the receiver run
// in a child process, so the CPU measured is proctor's alone.
func BenchmarkTracing(b *testing.B) {
	for _, mode := range []string{"counter", "mock"} {
		b.Run(mode, func(b *testing.B) { benchTracing(b, mode) })
	}
}

// tracingRound is how many simulations each side of BenchmarkTracing runs
// before the other has its turn.
const tracingRound = 100

func benchTracing(b *testing.B, mode string) {
	d, task := benchDomain(b, mode)
	peer := startBenchPeer(b, mode)
	tr, err := tracing.Start(context.Background(), tracing.Options{Getenv: func(k string) string {
		return map[string]string{tracing.EnvEndpoint: peer.otlpURL}[k]
	}})
	if err != nil {
		b.Fatal(err)
	}
	off, on := benchRunner(b, d, peer.agentURL, nil), benchRunner(b, d, peer.agentURL, tr.Provider())
	var cpuOff, cpuOn time.Duration
	b.ResetTimer()
	for done, round := 0, 0; done < b.N; round++ {
		n := min(tracingRound, b.N-done)
		untraced := func() { cpuOff += cpuOf(b, func() { benchRound(b, off, d, task, n) }) }
		traced := func() {
			cpuOn += cpuOf(b, func() { benchRound(b, on, d, task, n); tr.Flush(context.Background()) })
		}
		if round%2 == 0 {
			untraced()
			traced()
		} else {
			traced()
			untraced()
		}
		done += n
	}
	b.StopTimer()
	tr.Shutdown(context.Background())
	if n := peer.spans(b); n < 5*b.N {
		b.Fatalf("receiver got %d spans for %d traced simulations, want at least 5 each", n, b.N)
	}
	b.ReportMetric(float64(cpuOff.Nanoseconds())/float64(b.N), "off-cpu-ns/sim")
	b.ReportMetric(float64(cpuOn.Nanoseconds())/float64(b.N), "on-cpu-ns/sim")
	b.ReportMetric(float64(cpuOn)/float64(cpuOff), "on/off")
}

// benchRunner is a Runner of one simulation at a time against the agent at
// url, traced by tp (nil: untraced).
func benchRunner(b *testing.B, d *domains.Domain, url string, tp trace.TracerProvider) *evaluation.Runner {
	client := dial(b, url, a2aclient.WithTracerProvider(tp))
	return &evaluation.Runner{
		Simulator: rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}).WithTracerProvider(tp),
		Scorer:    scoring.NewScorer(d, false), Agent: a2aagent.New(client),
		Concurrency: 1, TracerProvider: tp,
	}
}

// benchRound runs n trials of task and fails the benchmark unless every
// one passed.
func benchRound(b *testing.B, r *evaluation.Runner, d *domains.Domain, task *domains.Task, n int) {
	eval := evaluation.NewEvaluation("bench", result.Config{Domain: d.Name, NumTrials: n}, result.AgentInfo{URL: "bench"})
	if err := r.Run(context.Background(), eval, []*domains.Task{task}); err != nil {
		b.Fatal(err)
	}
	if eval.Summary.PassHatK["1"] != 1 {
		b.Fatalf("simulations failed: %+v", eval.Summary)
	}
}

// cpuOf is the CPU time the process spends while run runs.
func cpuOf(b *testing.B, run func()) time.Duration {
	start := cputime.Process(b)
	run()
	return cputime.Process(b) - start
}

// benchDomain is the domain and task a BenchmarkTracing mode plays.
func benchDomain(b *testing.B, mode string) (*domains.Domain, *domains.Task) {
	if mode == "counter" {
		return benchTask(b)
	}
	d, err := mock.New()
	if err != nil {
		b.Fatal(err)
	}
	task, ok := d.Task("mock-01")
	if !ok {
		b.Fatal("mock has no task mock-01")
	}
	return d, task
}
