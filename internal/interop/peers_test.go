//go:build unix

package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
)

const (
	// jsPeerDir holds server.mjs and its npm project.
	jsPeerDir = "testdata/jspeer"
	// jsSDKVersion is the @a2a-js/sdk version package.json pins.
	jsSDKVersion = "1.3.0"
	// readyTimeout bounds how long a peer may take to print its READY line.
	readyTimeout = 30 * time.Second
	// stopTimeout is how long a peer gets to exit after SIGTERM before its
	// process group is killed.
	stopTimeout = 5 * time.Second
)

// The transports and protocol versions the JavaScript peer serves, as its
// flags and a2aclient's options name them.
var (
	transports = []string{string(a2aclient.TransportJSONRPC), string(a2aclient.TransportREST), string(a2aclient.TransportGRPC)}
	protocols  = []string{string(a2aclient.Protocol10), string(a2aclient.Protocol03)}
)

// bindings maps a transport flag to the protocolBinding an agent card
// declares for it.
var bindings = map[string]string{
	string(a2aclient.TransportJSONRPC): "JSONRPC",
	string(a2aclient.TransportREST):    "HTTP+JSON",
	string(a2aclient.TransportGRPC):    "GRPC",
}

// inCI reports whether the CI environment variable is set: then the peers'
// prerequisites are required rather than a reason to skip.
func inCI() bool {
	v := strings.TrimSpace(os.Getenv("CI"))
	return v != "" && v != "0" && !strings.EqualFold(v, "false")
}

// nodeProject is an npm project under testdata whose scripts are run as
// peers: its directory and the package whose installed version must be the
// one its package-lock.json pins.
type nodeProject struct {
	dir, pkg, version string
}

// jsPeerProject is testdata/jspeer, the @a2a-js/sdk peers.
func jsPeerProject() nodeProject {
	return nodeProject{dir: jsPeerDir, pkg: "@a2a-js/sdk", version: jsSDKVersion}
}

// requireJSPeer returns the path of node, or skips the test (fails it under
// CI) when node or the peer's installed dependencies are missing.
func requireJSPeer(t *testing.T) string {
	t.Helper()
	return requireNodeProject(t, jsPeerProject())
}

// requireNodeProject returns the path of node, or skips the test (fails it
// under CI) when node or the project's installed dependencies are missing.
func requireNodeProject(t *testing.T, p nodeProject) string {
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if inCI() {
			t.Fatalf("%s (CI is set, so the JavaScript interop tests must run)", msg)
		}
		t.Skipf("%s; skipping the JavaScript interop tests", msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("node is not on PATH (Node.js 20 or later is needed)")
	}
	install := "npm ci --prefix internal/interop/" + filepath.ToSlash(p.dir)
	manifest := filepath.Join(p.dir, "node_modules", filepath.FromSlash(p.pkg), "package.json")
	b, err := os.ReadFile(manifest)
	if err != nil {
		unavailable("%s is missing: run `%s`", manifest, install)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil || pkg.Version != p.version {
		// A stale install would test another version than the one pinned.
		t.Fatalf("%s: installed %s is %q, package-lock.json pins %s: run `%s`",
			manifest, p.pkg, pkg.Version, p.version, install)
	}
	return node
}

// startJSPeer runs the JavaScript peer (node server.mjs) with the given
// transport, protocol version and extra flags, waits for its READY line and
// returns the base URL its agent card is served from. The peer runs in its
// own process group, which t.Cleanup stops (SIGTERM, then SIGKILL); it also
// exits by itself when its stdin, held by this process, closes.
func startJSPeer(t *testing.T, transport, protocol string, extra ...string) (baseURL string) {
	t.Helper()
	return startJSScript(t, append([]string{"server.mjs",
		"--transport", transport, "--protocol", protocol,
		"--port", "0", "--host", "127.0.0.1",
	}, extra...)...)
}

// startJSScript runs a script of testdata/jspeer (args[0]) with node as
// startJSPeer describes, and returns the base URL of its READY line.
func startJSScript(t *testing.T, args ...string) (baseURL string) {
	t.Helper()
	node := requireJSPeer(t)
	return launchPeer(t, "JavaScript peer", jsPeerDir, node, args...).wait(t)
}

// launchNode starts a script of project p with node, as launchPeer does;
// the caller waits for it with wait, so that several peers boot at once.
func launchNode(t *testing.T, p nodeProject, args ...string) *launchedPeer {
	t.Helper()
	node := requireNodeProject(t, p)
	return launchPeer(t, "node peer in "+p.dir, p.dir, node, args...)
}

// startNodePeers runs node once per argument list, all at once, in the
// directory of project p, waits for every READY line and returns their
// URLs in the order of argLists. Each peer runs in its own process group,
// which t.Cleanup stops.
func startNodePeers(t *testing.T, p nodeProject, argLists ...[]string) []string {
	t.Helper()
	peers := make([]*launchedPeer, len(argLists))
	for i, args := range argLists {
		peers[i] = launchNode(t, p, args...)
	}
	urls := make([]string, len(peers))
	for i, peer := range peers {
		urls[i] = peer.wait(t)
	}
	return urls
}

// launchedPeer is a peer process started by launchPeer, not yet known to
// be ready.
type launchedPeer struct {
	what   string // names the peer in failures
	ready  chan string
	exited chan struct{}
	// waitErr is cmd.Wait's error, set before exited closes.
	waitErr error
	stderr  *agenttest.Buffer
}

// launchPeer starts program with args in dir as a peer process: in its own
// process group, which t.Cleanup stops (SIGTERM, then SIGKILL after
// stopTimeout), with its stdin held open by this process (peers exit when
// it closes) and its stdout scanned for the line "READY <base URL>". It
// does not wait for that line: wait does, so that several peers can start
// at once.
func launchPeer(t *testing.T, what, dir, program string, args ...string) *launchedPeer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = stopTimeout
	p := &launchedPeer{what: what + " (" + strings.Join(args, " ") + ")", ready: make(chan string, 1), exited: make(chan struct{}), stderr: &agenttest.Buffer{}}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	// A plain pipe rather than StdoutPipe: Wait must not close it under the
	// reader before the READY line is read.
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cmd.Stdout = stdoutW
	err = cmd.Start()
	stdoutW.Close()
	if err != nil {
		stdout.Close()
		cancel()
		t.Fatalf("start %s: %v", p.what, err)
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(stopTimeout):
			t.Errorf("%s ignored SIGTERM for %s; killing its process group", p.what, stopTimeout)
		}
		cancel() // SIGKILLs the process group if the peer is still running
		<-p.exited
		// Peers start no children, but should anything have been left in
		// their group, it goes too (ESRCH when the group is empty).
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
				select {
				case p.ready <- strings.TrimSpace(line):
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		stdout.Close()
	}()
	return p
}

// wait returns the base URL of the peer's READY line, failing the test when
// the peer exits first or prints none within readyTimeout.
func (p *launchedPeer) wait(t *testing.T) string {
	t.Helper()
	timer := time.NewTimer(readyTimeout)
	defer timer.Stop()
	select {
	case base := <-p.ready:
		if u, err := url.Parse(base); err != nil || u.Scheme != "http" || u.Host == "" {
			t.Fatalf("%s printed READY %q: not an http:// URL\nstderr:\n%s", p.what, base, p.stderr)
		}
		return base
	case <-p.exited:
		t.Fatalf("%s exited before it was ready: %v\nstderr:\n%s", p.what, p.waitErr, p.stderr)
	case <-timer.C:
		t.Fatalf("%s printed no READY line within %s\nstderr:\n%s", p.what, readyTimeout, p.stderr)
	}
	return ""
}

// declaredInterface is one entry of a 1.0 card's supportedInterfaces.
type declaredInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	ProtocolVersion string `json:"protocolVersion"`
}

// rawCard holds the fields of both card generations that say where and how
// an agent is reached: 1.0's supportedInterfaces, 0.3's url,
// preferredTransport and protocolVersion.
type rawCard struct {
	Name                string              `json:"name"`
	SupportedInterfaces []declaredInterface `json:"supportedInterfaces"`
	URL                 string              `json:"url"`
	PreferredTransport  string              `json:"preferredTransport"`
	ProtocolVersion     string              `json:"protocolVersion"`
}

// fetchCard GETs the agent card under baseURL with plain net/http, sending
// an A2A-Version header when version is not empty.
func fetchCard(t *testing.T, baseURL, version string) rawCard {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(baseURL, "/")+"/.well-known/agent-card.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	if version != "" {
		req.Header.Set("A2A-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatalf("GET %s: %v", req.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s (A2A-Version %q): HTTP %d: %s", req.URL, version, resp.StatusCode, body)
	}
	var card rawCard
	if err := json.Unmarshal(body, &card); err != nil {
		t.Fatalf("GET %s: not a JSON agent card: %v\n%s", req.URL, err, body)
	}
	if card.Name == "" {
		t.Fatalf("GET %s: card has no name:\n%s", req.URL, body)
	}
	return card
}

// checkInterfaceURL checks that an interface URL has the form its binding
// needs: an http:// URL on the peer's host for JSON-RPC and REST, a bare
// host:port (what grpc-go and grpc-js dial) for gRPC.
func checkInterfaceURL(t *testing.T, baseURL, binding, raw string) {
	t.Helper()
	base, err := url.Parse(baseURL)
	if err != nil {
		t.Fatal(err)
	}
	if binding == "GRPC" {
		host, port, err := net.SplitHostPort(raw)
		if err != nil || host != base.Hostname() || port == "" || port == base.Port() {
			t.Errorf("GRPC interface URL %q: want host:port on %s, on a port other than the card's %s", raw, base.Hostname(), base.Port())
		}
		return
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Host != base.Host || u.Path == "" || u.Path == "/" {
		t.Errorf("%s interface URL %q: want an http:// URL with a path on %s", binding, raw, base.Host)
	}
}

// checkDeclaredInterface resolves the peer's card and checks that the only
// interface it declares is the transport and protocol version asked for.
// It reads the card twice: as a client that sends no A2A-Version header
// (what proctor does; a 0.3 peer then answers with a 0.3-shaped card) and
// as a 1.0 client (A2A-Version: 1.0, which gets the 1.0 card).
func checkDeclaredInterface(t *testing.T, baseURL, transport, protocol string) {
	t.Helper()
	binding := bindings[transport]
	want := func(ifaces []declaredInterface, how string) {
		t.Helper()
		if len(ifaces) != 1 {
			t.Fatalf("card (%s) declares %d interfaces %+v, want one %s %s", how, len(ifaces), ifaces, binding, protocol)
		}
		got := ifaces[0]
		if got.ProtocolBinding != binding || got.ProtocolVersion != protocol {
			t.Errorf("card (%s) declares %s %s at %s, want %s %s", how, got.ProtocolBinding, got.ProtocolVersion, got.URL, binding, protocol)
		}
		checkInterfaceURL(t, baseURL, binding, got.URL)
	}

	plain := fetchCard(t, baseURL, "")
	switch protocol {
	case string(a2aclient.Protocol10):
		if plain.URL != "" || plain.PreferredTransport != "" || plain.ProtocolVersion != "" {
			t.Errorf("1.0 card carries 0.3 fields: url %q, preferredTransport %q, protocolVersion %q", plain.URL, plain.PreferredTransport, plain.ProtocolVersion)
		}
		want(plain.SupportedInterfaces, "no A2A-Version header")
	case string(a2aclient.Protocol03):
		if plain.ProtocolVersion != protocol || plain.PreferredTransport != binding {
			t.Errorf("0.3 card declares protocolVersion %q, preferredTransport %q; want %q, %q", plain.ProtocolVersion, plain.PreferredTransport, protocol, binding)
		}
		checkInterfaceURL(t, baseURL, binding, plain.URL)
		// The SDK's compat layer embeds the 1.0 interface list in the 0.3
		// card; when it does, it must say the same.
		if plain.SupportedInterfaces != nil {
			want(plain.SupportedInterfaces, "no A2A-Version header, embedded supportedInterfaces")
			if plain.SupportedInterfaces[0].URL != plain.URL {
				t.Errorf("0.3 card: url %q but embedded interface URL %q", plain.URL, plain.SupportedInterfaces[0].URL)
			}
		}
	default:
		t.Fatalf("unknown protocol %q", protocol)
	}

	v1 := fetchCard(t, baseURL, string(a2aclient.Protocol10))
	if v1.URL != "" {
		t.Errorf("card asked for with A2A-Version: 1.0 carries the 0.3 field url %q", v1.URL)
	}
	want(v1.SupportedInterfaces, "A2A-Version: 1.0")
}

// TestJSPeerCards starts the JavaScript peer in each of the six
// configurations and checks that its card declares what was asked.
func TestJSPeerCards(t *testing.T) {
	for _, transport := range transports {
		for _, protocol := range protocols {
			t.Run(transport+"-"+protocol, func(t *testing.T) {
				t.Parallel()
				base := startJSPeer(t, transport, protocol)
				checkDeclaredInterface(t, base, transport, protocol)
			})
		}
	}
}

// TestJSPeerCardVersionDispatch pins down how the SDK's compat layer picks
// the card it serves when a peer offers both versions: by the A2A-Version
// request header, a missing header counting as 0.3. proctor fetches cards
// without that header, so it sees the 0.3 card with the full 1.0 interface
// list embedded.
func TestJSPeerCardVersionDispatch(t *testing.T) {
	base := startJSPeer(t, string(a2aclient.TransportJSONRPC), "both")
	versions := func(ifaces []declaredInterface) []string {
		var out []string
		for _, i := range ifaces {
			if i.ProtocolBinding != "JSONRPC" {
				t.Errorf("interface %+v: want JSONRPC", i)
			}
			out = append(out, i.ProtocolVersion)
		}
		return out
	}

	plain := fetchCard(t, base, "")
	if plain.ProtocolVersion != string(a2aclient.Protocol03) || plain.PreferredTransport != "JSONRPC" || plain.URL == "" {
		t.Errorf("card without A2A-Version: protocolVersion %q, preferredTransport %q, url %q; want the 0.3 shape", plain.ProtocolVersion, plain.PreferredTransport, plain.URL)
	}
	if got := versions(plain.SupportedInterfaces); !slices.Equal(got, []string{"1.0", "0.3"}) {
		t.Errorf("card without A2A-Version embeds interface versions %v, want [1.0 0.3]", got)
	}

	v1 := fetchCard(t, base, string(a2aclient.Protocol10))
	if v1.URL != "" || v1.ProtocolVersion != "" {
		t.Errorf("card for A2A-Version 1.0 carries 0.3 fields (url %q, protocolVersion %q)", v1.URL, v1.ProtocolVersion)
	}
	if got := versions(v1.SupportedInterfaces); !slices.Equal(got, []string{"1.0", "0.3"}) {
		t.Errorf("card for A2A-Version 1.0 declares interface versions %v, want [1.0 0.3]", got)
	}
	checkInterfaceURL(t, base, "JSONRPC", plain.URL)
}

// mockTask returns the mock domain, its task mock-01 and the agentbeats
// profile: what every interop simulation runs.
func mockTask(t *testing.T) (*domains.Domain, *domains.Task, agent.ProfileName) {
	t.Helper()
	reg, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	d, err := reg.Get("mock")
	if err != nil {
		t.Fatal(err)
	}
	task, ok := d.Task("mock-01")
	if !ok {
		t.Fatal("mock domain has no task mock-01")
	}
	return d, task, agent.ProfileAgentBeats
}

// simulate dials the agent at baseURL with opts and plays task mock-01
// against it with the scripted user. It fails the test when the client
// cannot be made; the simulation's own outcome is for the caller to judge.
func simulate(t *testing.T, baseURL string, opts ...a2aclient.Option) (result.Simulation, *a2aclient.Client) {
	t.Helper()
	d, task, profile := mockTask(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	opts = append([]a2aclient.Option{a2aclient.WithRequestTimeout(30 * time.Second)}, opts...)
	client, err := a2aclient.Dial(ctx, baseURL, opts...)
	if err != nil {
		t.Fatalf("Dial %s: %v", baseURL, err)
	}
	t.Cleanup(func() { _ = client.Close() })
	user, err := rollout.NewScriptedUser(task)
	if err != nil {
		t.Fatal(err)
	}
	sim, aborted := evaluation.Simulate(ctx, rollout.NewSimulator(d, profile, rollout.Limits{}), scoring.NewScorer(d, false), task, 0, a2aagent.New(client), user)
	if aborted {
		t.Fatalf("simulation aborted: %v", ctx.Err())
	}
	return sim, client
}

// checkSolved fails the test unless the simulation earned reward 1 and ended
// with the scripted user's stop.
func checkSolved(t *testing.T, sim result.Simulation) {
	t.Helper()
	if sim.Reward == 1 && sim.TerminationReason == result.TermUserStop {
		return
	}
	t.Errorf("reward %v, termination %s (error %q); want reward 1, %s\nreward info: %s\ntranscript:\n%s",
		sim.Reward, sim.TerminationReason, sim.Error, result.TermUserStop, jsonString(sim.RewardInfo), formatTranscript(sim.Messages))
}

// checkEndpoint fails the test unless the client talks to the interface
// asked for.
func checkEndpoint(t *testing.T, client *a2aclient.Client, transport, protocol string) {
	t.Helper()
	ep := client.Endpoint()
	if string(ep.ProtocolBinding) != bindings[transport] || string(ep.ProtocolVersion) != protocol {
		t.Errorf("client uses %s %s at %s, want %s %s", ep.ProtocolBinding, ep.ProtocolVersion, ep.URL, bindings[transport], protocol)
	}
}

// TestJSPeerSimulation runs a full simulation of task mock-01 against the
// JavaScript peer over JSON-RPC at protocol 1.0, with the client's defaults:
// the card's preferred interface, streaming as the card allows.
func TestJSPeerSimulation(t *testing.T) {
	base := startJSPeer(t, string(a2aclient.TransportJSONRPC), string(a2aclient.Protocol10))
	sim, client := simulate(t, base)
	checkEndpoint(t, client, string(a2aclient.TransportJSONRPC), string(a2aclient.Protocol10))
	checkSolved(t, sim)
	if len(sim.NonConformant) > 0 {
		t.Errorf("the SDK's replies were flagged non-conformant: %v", sim.NonConformant)
	}
}

// TestJSPeerStopsWithStdin checks the peer's guarantee that it never
// outlives the process that started it: closing its stdin ends it.
func TestJSPeerStopsWithStdin(t *testing.T) {
	node := requireJSPeer(t)
	cmd := exec.Command(node, "server.mjs", "--transport", "rest", "--protocol", "1.0", "--port", "0")
	cmd.Dir = jsPeerDir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &agenttest.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if !strings.HasPrefix(line, "READY ") {
		t.Fatalf("first line %q (%v), want READY <url>\nstderr:\n%s", line, err, stderr)
	}
	_ = stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("peer exited with %v after its stdin closed, want status 0\nstderr:\n%s", err, stderr)
		}
	case <-time.After(stopTimeout):
		t.Fatalf("peer still running %s after its stdin closed", stopTimeout)
	}
}

func jsonString(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// formatTranscript renders messages one per line for failure output.
func formatTranscript(msgs []result.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "  %-9s %q", m.Role, m.Content)
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, " call %s %s(%s)", c.ID, c.Name, jsonCompact(c.Arguments))
		}
		if m.Name != "" {
			fmt.Fprintf(&b, " [%s %s]", m.Name, m.ToolCallID)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func jsonCompact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
