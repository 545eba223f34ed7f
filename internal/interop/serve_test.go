//go:build unix

package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdkclient "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/refagent"
	"github.com/proctor-eval/proctor/server"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// The tests in this file are the other direction of the interop tests:
// proctor serve (package agent) is the A2A server, and clients we did not
// write talk to it: the JavaScript SDK's client (testdata/jspeer/client.mjs)
// and a2a-go's own client, on every transport and protocol version the
// server's card lists, streamed and polled.

const (
	// jsClientTimeout bounds one run of client.mjs (it has its own
	// --timeout too, a little shorter, so that it reports what it saw).
	jsClientTimeout = 90 * time.Second
	// taskTimeout bounds following one task with a2a-go's client.
	taskTimeout = 60 * time.Second
	// pollEvery is how often a polling client asks for the task.
	pollEvery = 50 * time.Millisecond
	// authToken is the bearer token of TestServeAuth's server.
	authToken = "s3cret"
)

// Client modes: SendStreamingMessage, or SendMessage then GetTask.
const (
	modeStream = "stream"
	modePoll   = "poll"
)

var clientModes = []string{modeStream, modePoll}

// servedInterfaces are the interfaces proctor serve's card must list, as
// transport flag and protocol version: JSON-RPC and REST at 1.0 and 0.3,
// gRPC at 1.0 only.
var servedInterfaces = []serveCell{
	{transport: string(a2aclient.TransportJSONRPC), protocol: string(a2aclient.Protocol10)},
	{transport: string(a2aclient.TransportREST), protocol: string(a2aclient.Protocol10)},
	{transport: string(a2aclient.TransportGRPC), protocol: string(a2aclient.Protocol10)},
	{transport: string(a2aclient.TransportJSONRPC), protocol: string(a2aclient.Protocol03)},
	{transport: string(a2aclient.TransportREST), protocol: string(a2aclient.Protocol03)},
}

// evalRequest is the run_evaluation every cell asks for: the built-in
// reference agent on two mock tasks, which it solves. Requests are plain
// JSON values (as decoded from JSON): a2a-go's gRPC client converts data
// parts with structpb, which takes no []string.
var evalRequest = jsonObject(`{"skill": "run_evaluation", "params": {"agent_url": "builtin", "task_ids": ["mock-01", "mock-02"]}}`)

// jsonObject decodes a JSON object literal.
func jsonObject(s string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		panic(fmt.Sprintf("jsonObject(%q): %v", s, err))
	}
	return m
}

// serveCell is one interface of proctor serve's card.
type serveCell struct {
	transport, protocol string // as a2aclient's options and client.mjs's flags name them
}

func (c serveCell) name() string { return c.transport + "-" + c.protocol }

// startServe starts proctor serve in process, as `proctor serve` does: the
// built-in domains, a results database in a temporary directory, HTTP and
// gRPC on free loopback ports. It stops when the test ends.
func startServe(t *testing.T, cfg server.Config) *server.Server {
	t.Helper()
	reg, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "proctor.db"), store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host, cfg.Port, cfg.GRPCPort = "127.0.0.1", 0, 0
	srv, err := server.New(cfg, &skills.Service{Domains: reg, Store: db})
	if err != nil {
		_ = db.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("proctor serve: %v", err)
			}
		case <-time.After(15 * time.Second):
			t.Errorf("proctor serve did not stop within 15s")
		}
		_ = db.Close()
	})
	return srv
}

// serveCells resolves the server's agent card with a2a-go's resolver, as a
// client would, checks that it lists every interface of servedInterfaces,
// and returns every interface it lists (one the tests do not know fails).
func serveCells(t *testing.T, srv *server.Server) (*a2a.AgentCard, []serveCell) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	// As a 1.0 client, it says so and gets the 1.0 card (the union card the
	// server sends clients that do not say can hold security schemes in the
	// 0.3 form only, which a2a-go's 1.0 parser rejects).
	card, err := agentcard.DefaultResolver.Resolve(ctx, srv.URL(), agentcard.WithRequestHeader(a2a.SvcParamVersion, "1.0"))
	if err != nil {
		t.Fatalf("resolve the card of %s: %v", srv.URL(), err)
	}
	flags := map[a2a.TransportProtocol]string{}
	for flag, binding := range bindings {
		flags[a2a.TransportProtocol(binding)] = flag
	}
	var cells []serveCell
	for _, iface := range card.SupportedInterfaces {
		flag, ok := flags[iface.ProtocolBinding]
		if !ok {
			t.Errorf("card lists an interface of unknown binding %q at %s", iface.ProtocolBinding, iface.URL)
			continue
		}
		cells = append(cells, serveCell{transport: flag, protocol: string(iface.ProtocolVersion)})
	}
	for _, want := range servedInterfaces {
		if !slices.Contains(cells, want) {
			t.Errorf("card does not list %s %s; it lists %+v", want.transport, want.protocol, cells)
		}
	}
	if len(cells) == 0 {
		t.FailNow()
	}
	return card, cells
}

// ---------------------------------------------------------------- outcomes

// outcome is what a client saw of one request, whichever client it was.
type outcome struct {
	states        []string // task states in order, repeats in a row collapsed
	kind          string   // "task" or "message"
	artifactNames []string
	result        map[string]any // the data part of the Result artifact
	resultText    string         // the text parts of the Result artifact
	messageData   map[string]any // the data part of a reply Message or of the final status
	messageText   string         // the text of the reply Message or of the final status
}

// evalResult is the part of an evaluation's JSON the tests look at.
type evalResult struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Domain string `json:"domain"`
	Agent  struct {
		URL     string `json:"url"`
		CardURL string `json:"card_url"`
		Builtin bool   `json:"builtin"`
	} `json:"agent"`
	Summary struct {
		NumSimulations int     `json:"num_simulations"`
		AvgReward      float64 `json:"avg_reward"`
	} `json:"summary"`
}

func decodeEval(t *testing.T, v map[string]any) evalResult {
	t.Helper()
	var ev evalResult
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, &ev)
	}
	if err != nil {
		t.Fatalf("evaluation JSON: %v\n%s", err, jsonString(v))
	}
	return ev
}

// checkEvaluation checks an answered run_evaluation: a task that was
// working before it completed, with an artifact named Result whose results
// JSON scores wantSims simulations with average reward 1. It returns the
// evaluation.
func checkEvaluation(t *testing.T, o outcome, wantSims int) evalResult {
	t.Helper()
	if o.kind != "task" {
		t.Fatalf("run_evaluation answered a %s (%q), want a task", o.kind, o.messageText)
	}
	working := slices.Index(o.states, string(a2a.TaskStateWorking))
	last := len(o.states) - 1
	if last < 0 || o.states[last] != string(a2a.TaskStateCompleted) || working < 0 || working >= last {
		t.Fatalf("states %v (status %q): want %s before %s, which ends them", o.states, o.messageText, a2a.TaskStateWorking, a2a.TaskStateCompleted)
	}
	if !slices.Contains(o.artifactNames, server.ResultArtifact) {
		t.Fatalf("artifacts %q: none named %s", o.artifactNames, server.ResultArtifact)
	}
	if o.result == nil {
		t.Fatalf("the %s artifact has no data part", server.ResultArtifact)
	}
	ev := decodeEval(t, o.result)
	if ev.ID == "" || ev.Status != "completed" || ev.Summary.AvgReward != 1 || ev.Summary.NumSimulations != wantSims {
		t.Errorf("evaluation %q status %q: avg_reward %v over %d simulations; want completed, 1 over %d",
			ev.ID, ev.Status, ev.Summary.AvgReward, ev.Summary.NumSimulations, wantSims)
	}
	if !strings.Contains(o.resultText, "proctor evaluation") {
		t.Errorf("the %s artifact has no Markdown summary: %q", server.ResultArtifact, o.resultText)
	}
	if !strings.Contains(o.messageText, ev.ID) || !strings.Contains(o.messageText, "completed") {
		t.Errorf("final status message %q does not report evaluation %s completed", o.messageText, ev.ID)
	}
	return ev
}

// answeredOnTheSpot reports whether a reply is a task that ended
// completed, as proctor answers the requests it answers on the spot.
func answeredOnTheSpot(o outcome) bool {
	n := len(o.states)
	return o.kind == "task" && n > 0 && strings.HasSuffix(strings.ToLower(o.states[n-1]), "completed")
}

// checkListDomains checks list_domains' reply: a completed task whose
// status message's data part lists the mock domain and its tasks.
func checkListDomains(t *testing.T, o outcome) {
	t.Helper()
	if !answeredOnTheSpot(o) {
		t.Fatalf("list_domains answered a %s (states %v), want a completed task", o.kind, o.states)
	}
	doms, _ := o.messageData["domains"].([]any)
	for _, d := range doms {
		if m, _ := d.(map[string]any); m["name"] == "mock" {
			if n, _ := m["num_tasks"].(float64); n < 2 {
				t.Errorf("mock domain lists %v tasks", m["num_tasks"])
			}
			if !strings.Contains(o.messageText, "**mock**") {
				t.Errorf("list_domains text %q does not name mock", o.messageText)
			}
			return
		}
	}
	t.Errorf("list_domains data %s: no mock domain", jsonString(o.messageData))
}

// checkGetResults checks get_results' reply for one evaluation: a
// completed task whose status message's data part is that evaluation, as
// run_evaluation's Result gave it.
func checkGetResults(t *testing.T, o outcome, want evalResult) {
	t.Helper()
	if !answeredOnTheSpot(o) {
		t.Fatalf("get_results answered a %s (states %v), want a completed task", o.kind, o.states)
	}
	got := decodeEval(t, o.messageData)
	if got.ID != want.ID || got.Status != want.Status || got.Summary != want.Summary {
		t.Errorf("get_results %s gave %+v, want %+v", want.ID, got, want)
	}
	if !strings.Contains(o.messageText, "proctor evaluation") {
		t.Errorf("get_results text has no Markdown summary: %q", o.messageText)
	}
}

// badEvalRequest is a run_evaluation with two violations.
var badEvalRequest = jsonObject(`{"skill": "run_evaluation", "params": {"agent_url": "ftp://x", "num_trials": 5000}}`)

// checkRejected checks the answer to badEvalRequest: a task rejected at
// once, whose status message lists both violations.
func checkRejected(t *testing.T, o outcome) {
	t.Helper()
	if o.kind != "task" || !slices.Equal(o.states, []string{string(a2a.TaskStateRejected)}) {
		t.Fatalf("a bad run_evaluation answered a %s with states %v (%q), want a task rejected at once", o.kind, o.states, o.messageText)
	}
	for _, want := range []string{`agent_url "ftp://x"`, "num_trials 5000"} {
		if !strings.Contains(o.messageText, want) {
			t.Errorf("rejection %q does not mention %s", o.messageText, want)
		}
	}
}

// ---------------------------------------------------------------- the JavaScript client

// jsPart is a Part as the SDK's toJSON writes it.
type jsPart struct {
	Text *string `json:"text"`
	Data any     `json:"data"`
}

// jsClientOutput is client.mjs's one line of output.
type jsClientOutput struct {
	States    []string `json:"states"`
	FinalKind string   `json:"final_kind"`
	Final     struct {
		// A Task.
		ID     string `json:"id"`
		Status struct {
			State   string `json:"state"`
			Message *struct {
				Parts []jsPart `json:"parts"`
			} `json:"message"`
		} `json:"status"`
		Artifacts []struct {
			Name  string   `json:"name"`
			Parts []jsPart `json:"parts"`
		} `json:"artifacts"`
		// A Message.
		Role  string   `json:"role"`
		Parts []jsPart `json:"parts"`
	} `json:"final"`
	ArtifactNames   []string       `json:"artifact_names"`
	Result          map[string]any `json:"result"`
	MessageText     string         `json:"message_text"`
	Events          []string       `json:"events"`
	ProtocolVersion string         `json:"protocol_version"`
}

func (o jsClientOutput) outcome() outcome {
	out := outcome{states: o.States, kind: o.FinalKind, artifactNames: o.ArtifactNames, result: o.Result, messageText: o.MessageText}
	for _, a := range o.Final.Artifacts {
		if a.Name == server.ResultArtifact {
			for _, p := range a.Parts {
				if p.Text != nil {
					out.resultText += *p.Text
				}
			}
		}
	}
	parts := o.Final.Parts
	if m := o.Final.Status.Message; m != nil && o.FinalKind == "task" {
		parts = m.Parts
	}
	for _, p := range parts {
		if d, ok := p.Data.(map[string]any); ok && out.messageData == nil {
			out.messageData = d
		}
	}
	return out
}

// jsClientError is a run of client.mjs that exited non-zero.
type jsClientError struct {
	args   []string
	err    error
	stderr string
}

func (e *jsClientError) Error() string {
	return fmt.Sprintf("node %s: %v\nstderr:\n%s", strings.Join(e.args, " "), e.err, e.stderr)
}

// runJSClient runs client.mjs against the agent at baseURL; args are its
// further flags. It returns the parsed output line, or a *jsClientError when
// the client exits non-zero; output that is not one JSON line fails the test.
func runJSClient(t *testing.T, baseURL string, args ...string) (jsClientOutput, error) {
	t.Helper()
	node := requireJSPeer(t)
	args = append([]string{"client.mjs", "--card-url", baseURL,
		"--timeout", fmt.Sprint(int((jsClientTimeout - 10*time.Second).Seconds()))}, args...)
	ctx, cancel := context.WithTimeout(t.Context(), jsClientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = jsPeerDir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = stopTimeout
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		// client.mjs starts no children; should anything be left in its
		// group, it goes too (ESRCH when the group is empty).
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		if ctx.Err() != nil {
			t.Fatalf("node %s: no answer within %s\nstderr:\n%s", strings.Join(args, " "), jsClientTimeout, stderr.String())
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("node %s: %v", strings.Join(args, " "), err)
		}
		return jsClientOutput{}, &jsClientError{args: args, err: err, stderr: stderr.String()}
	}
	line := strings.TrimSpace(stdout.String())
	var out jsClientOutput
	if strings.Contains(line, "\n") || json.Unmarshal([]byte(line), &out) != nil {
		t.Fatalf("node %s: stdout is not one JSON line:\n%s\nstderr:\n%s", strings.Join(args, " "), stdout.String(), stderr.String())
	}
	return out, nil
}

// jsSend runs client.mjs for one request on a cell and mode, failing the
// test when it fails. request is sent as a data part, or as a text part when
// it is a string.
func jsSend(t *testing.T, baseURL string, cell serveCell, mode string, request any, extra ...string) outcome {
	t.Helper()
	out, err := runJSClient(t, baseURL, jsArgs(t, cell, mode, request, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	if out.ProtocolVersion != cell.protocol {
		t.Errorf("the SDK's client speaks protocol %q, want %s", out.ProtocolVersion, cell.protocol)
	}
	if mode == modeStream && out.FinalKind == "task" && (len(out.Events) == 0 || out.Events[0] != "task") {
		t.Errorf("stream events %v: want a task first", out.Events)
	}
	return out.outcome()
}

func jsArgs(t *testing.T, cell serveCell, mode string, request any, extra ...string) []string {
	t.Helper()
	args := []string{"--transport", cell.transport, "--protocol", cell.protocol, "--mode", mode}
	if s, ok := request.(string); ok {
		args = append(args, "--text", s)
	} else {
		b, err := json.Marshal(request)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, "--request", string(b))
	}
	return append(args, extra...)
}

// TestServeJSClient drives proctor serve with the JavaScript SDK's client
// on every interface its card lists, streamed and polled: an evaluation of
// the built-in agent followed to completion, list_domains, get_results for
// the evaluation just run and (streamed) a request that is rejected.
func TestServeJSClient(t *testing.T) {
	requireJSPeer(t)
	srv := startServe(t, server.Config{})
	_, cells := serveCells(t, srv)
	for _, cell := range cells {
		for _, mode := range clientModes {
			t.Run(cell.name()+"-"+mode, func(t *testing.T) {
				t.Parallel()
				ev := checkEvaluation(t, jsSend(t, srv.URL(), cell, mode, evalRequest), 2)
				if !ev.Agent.Builtin {
					t.Errorf("evaluation %s: agent %+v, want the built-in one", ev.ID, ev.Agent)
				}
				checkListDomains(t, jsSend(t, srv.URL(), cell, mode, map[string]any{"skill": string(server.SkillListDomains)}))
				checkGetResults(t, jsSend(t, srv.URL(), cell, mode, map[string]any{
					"skill": string(server.SkillGetResults), "params": map[string]any{"id": ev.ID}}), ev)
				if mode == modeStream {
					checkRejected(t, jsSend(t, srv.URL(), cell, mode, badEvalRequest))
				}
			})
		}
	}
}

// ---------------------------------------------------------------- a2a-go's client

// goFactoryOption registers a2a-go's own transport for a cell, and only it,
// so that the factory can only pick the cell's interface.
func goFactoryOption(t *testing.T, cell serveCell) sdkclient.FactoryOption {
	t.Helper()
	dial := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	switch cell.transport + " " + cell.protocol {
	case string(a2aclient.TransportJSONRPC) + " " + string(a2aclient.Protocol10):
		return sdkclient.WithJSONRPCTransport(nil)
	case string(a2aclient.TransportREST) + " " + string(a2aclient.Protocol10):
		return sdkclient.WithRESTTransport(nil)
	case string(a2aclient.TransportGRPC) + " " + string(a2aclient.Protocol10):
		return grpcv1.WithGRPCTransport(dial...)
	case string(a2aclient.TransportJSONRPC) + " " + string(a2aclient.Protocol03):
		return sdkclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolJSONRPC,
			a2av0.NewJSONRPCTransportFactory(a2av0.JSONRPCTransportConfig{}))
	case string(a2aclient.TransportREST) + " " + string(a2aclient.Protocol03):
		return sdkclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolHTTPJSON,
			a2av0.NewRESTTransportFactory(a2av0.RESTTransportConfig{}))
	case string(a2aclient.TransportGRPC) + " " + string(a2aclient.Protocol03):
		return sdkclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolGRPC, grpcv0.NewGRPCTransportFactory(dial...))
	}
	t.Fatalf("no a2a-go transport for %s", cell.name())
	return nil
}

// goClient makes a2a-go's client for a cell from the card, with nothing but
// the cell's transport registered.
func goClient(t *testing.T, card *a2a.AgentCard, cell serveCell, opts ...sdkclient.FactoryOption) *sdkclient.Client {
	t.Helper()
	opts = append([]sdkclient.FactoryOption{sdkclient.WithDefaultsDisabled(), goFactoryOption(t, cell)}, opts...)
	c, err := sdkclient.NewFromCard(t.Context(), card, opts...)
	if err != nil {
		t.Fatalf("a2a-go client for %s: %v", cell.name(), err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

// goSend sends one message with a2a-go's client and follows the task it
// starts to a terminal state: streamed, or polled with GetTask. request is
// sent as a data part, or as a text part when it is a string.
func goSend(t *testing.T, c *sdkclient.Client, mode string, request any) outcome {
	t.Helper()
	var part *a2a.Part
	if s, ok := request.(string); ok {
		part = a2a.NewTextPart(s)
	} else {
		part = a2a.NewDataPart(request)
	}
	req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, part)}
	if mode == modePoll {
		// Polling means asking for the task at once: a blocking send
		// waits for it to end.
		req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
	}
	ctx, cancel := context.WithTimeout(t.Context(), taskTimeout)
	defer cancel()
	var (
		o    outcome
		task *a2a.Task
		msg  *a2a.Message
	)
	saw := func(s a2a.TaskState) {
		if n := len(o.states); n == 0 || o.states[n-1] != string(s) {
			o.states = append(o.states, string(s))
		}
	}
	switch mode {
	case modeStream:
		for ev, err := range c.SendStreamingMessage(ctx, req) {
			if err != nil {
				t.Fatalf("SendStreamingMessage: %v (states so far %v)", err, o.states)
			}
			switch e := ev.(type) {
			case *a2a.Message:
				msg = e
			case *a2a.Task:
				task = e
				saw(e.Status.State)
			case *a2a.TaskStatusUpdateEvent:
				if task == nil {
					t.Fatalf("status update %s before the task", e.Status.State)
				}
				task.Status = e.Status
				saw(e.Status.State)
			case *a2a.TaskArtifactUpdateEvent:
				if task == nil {
					t.Fatal("artifact update before the task")
				}
				applyArtifact(task, e)
			default:
				t.Fatalf("unexpected stream event %T", ev)
			}
			if msg != nil || task.Status.State.Terminal() {
				break
			}
		}
	case modePoll:
		res, err := c.SendMessage(ctx, req)
		if err != nil {
			t.Fatalf("SendMessage: %v", err)
		}
		switch r := res.(type) {
		case *a2a.Message:
			msg = r
		case *a2a.Task:
			task = r
			saw(task.Status.State)
			for !task.Status.State.Terminal() {
				select {
				case <-ctx.Done():
					t.Fatalf("task %s still %s after %s", task.ID, task.Status.State, taskTimeout)
				case <-time.After(pollEvery):
				}
				if task, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID}); err != nil {
					t.Fatalf("GetTask: %v", err)
				}
				saw(task.Status.State)
			}
		default:
			t.Fatalf("SendMessage answered %T", res)
		}
	default:
		t.Fatalf("unknown mode %q", mode)
	}

	switch {
	case msg != nil:
		o.kind = "message"
		o.messageText, o.messageData = partsText(msg.Parts), partsData(msg.Parts)
	case task != nil:
		o.kind = "task"
		if task.Status.Message != nil {
			o.messageText, o.messageData = partsText(task.Status.Message.Parts), partsData(task.Status.Message.Parts)
		}
		for _, a := range task.Artifacts {
			o.artifactNames = append(o.artifactNames, a.Name)
			if a.Name == server.ResultArtifact {
				o.result, o.resultText = partsData(a.Parts), partsText(a.Parts)
			}
		}
	default:
		t.Fatal("no task and no message")
	}
	return o
}

// applyArtifact adds an artifact update to a task as a streaming client
// must: a chunk with Append extends the artifact with the same ID.
func applyArtifact(task *a2a.Task, e *a2a.TaskArtifactUpdateEvent) {
	for i, a := range task.Artifacts {
		if a.ID == e.Artifact.ID {
			if e.Append {
				a.Parts = append(a.Parts, e.Artifact.Parts...)
			} else {
				task.Artifacts[i] = e.Artifact
			}
			return
		}
	}
	task.Artifacts = append(task.Artifacts, e.Artifact)
}

func partsText(parts []*a2a.Part) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

func partsData(parts []*a2a.Part) map[string]any {
	for _, p := range parts {
		if d, ok := p.Data().(map[string]any); ok {
			return d
		}
	}
	return nil
}

// TestServeGoClient drives proctor serve with a2a-go's own client, made by
// sdkclient.NewFromCard from the card resolved from the server, on every
// interface the card lists, streamed and polled: all three skills and a
// rejected request.
func TestServeGoClient(t *testing.T) {
	srv := startServe(t, server.Config{})
	card, cells := serveCells(t, srv)
	for _, cell := range cells {
		for _, mode := range clientModes {
			t.Run(cell.name()+"-"+mode, func(t *testing.T) {
				t.Parallel()
				c := goClient(t, card, cell)
				ev := checkEvaluation(t, goSend(t, c, mode, evalRequest), 2)
				checkListDomains(t, goSend(t, c, mode, map[string]any{"skill": string(server.SkillListDomains)}))
				checkGetResults(t, goSend(t, c, mode, map[string]any{
					"skill": string(server.SkillGetResults), "params": map[string]any{"id": ev.ID}}), ev)
				checkRejected(t, goSend(t, c, mode, badEvalRequest))
			})
		}
	}
}

// ---------------------------------------------------------------- AgentBeats

// startRefAgent serves proctor's reference agent for the mock domain on a
// loopback port, as a separate A2A server, and returns its base URL.
func startRefAgent(t *testing.T) string {
	t.Helper()
	reg, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	d, err := reg.Get("mock")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := refagent.BaseURL(ln.Addr())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- refagent.Serve(ctx, ln, d) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("reference agent: %v", err)
		}
	})
	return url
}

// assessment is an AgentBeats assessment request for the participant at
// url, as the text AgentBeats' green-agent tooling sends.
func assessment(url string) string {
	return fmt.Sprintf(`{"participants": {"agent": %q}, "config": {"domain": "mock", "num_tasks": 2}}`, url)
}

// checkAssessment checks an assessment's outcome: completed, with the
// Result artifact scoring the participant (not the built-in agent) 1 over
// two simulations.
func checkAssessment(t *testing.T, o outcome, participant string) {
	t.Helper()
	ev := checkEvaluation(t, o, 2)
	host := strings.TrimSuffix(strings.TrimPrefix(participant, "http://"), "/")
	if ev.Agent.Builtin || ev.Domain != "mock" || !strings.Contains(ev.Agent.URL+" "+ev.Agent.CardURL, host) {
		t.Errorf("evaluation %s: domain %q, agent %+v; want mock and the participant at %s", ev.ID, ev.Domain, ev.Agent, participant)
	}
}

// TestServeAgentBeats plays the AgentBeats flow: the assessment request as
// a text part, streamed, the results read from the task's artifacts once it
// completes; the participant is the reference agent on its own server. The
// JavaScript SDK's client plays AgentBeats' tooling (JSON-RPC, both
// versions, and REST); a2a-go's client every interface.
func TestServeAgentBeats(t *testing.T) {
	participant := startRefAgent(t)
	srv := startServe(t, server.Config{})
	card, cells := serveCells(t, srv)
	for _, cell := range cells {
		t.Run("a2a-go-"+cell.name(), func(t *testing.T) {
			t.Parallel()
			checkAssessment(t, goSend(t, goClient(t, card, cell), modeStream, assessment(participant)), participant)
		})
	}
	for _, cell := range cells {
		if cell.transport == string(a2aclient.TransportGRPC) {
			continue
		}
		t.Run("js-"+cell.name(), func(t *testing.T) {
			t.Parallel()
			checkAssessment(t, jsSend(t, srv.URL(), cell, modeStream, assessment(participant)), participant)
		})
	}
}

// gatewayWire sends requests as the AgentBeats gateway's run_assessment
// does: to the card's base URL (the root path), without A2A-Version, as
// A2A 0.3 clients send them. It counts the requests it sent.
type gatewayWire struct {
	t    *testing.T
	sent atomic.Int64
}

func (g *gatewayWire) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Del(a2a.SvcParamVersion)
	if r.URL.Path != "/" {
		g.t.Errorf("the gateway posts to the base URL, not to %s", r.URL.Path)
	}
	g.sent.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// TestServeAgentBeatsGateway plays the AgentBeats gateway: it takes the
// card's URL to be proctor's base URL and posts A2A 0.3 JSON-RPC
// (message/stream, or message/send then tasks/get) there without
// A2A-Version, with the assessment request as text. proctor serves the
// root path and the evaluation reaches the participant.
func TestServeAgentBeatsGateway(t *testing.T) {
	participant := startRefAgent(t)
	srv := startServe(t, server.Config{})
	card := &a2a.AgentCard{Name: "proctor", Capabilities: a2a.AgentCapabilities{Streaming: true},
		SupportedInterfaces: []*a2a.AgentInterface{{URL: srv.URL() + "/", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version}}}
	for _, mode := range clientModes {
		t.Run(mode, func(t *testing.T) {
			wire := &gatewayWire{t: t}
			c, err := sdkclient.NewFromCard(t.Context(), card, sdkclient.WithDefaultsDisabled(),
				sdkclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolJSONRPC,
					a2av0.NewJSONRPCTransportFactory(a2av0.JSONRPCTransportConfig{Client: &http.Client{Transport: wire}})))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Destroy() })
			checkAssessment(t, goSend(t, c, mode, assessment(participant)), participant)
			if wire.sent.Load() == 0 {
				t.Error("no request went through the gateway's wire")
			}
		})
	}
}

// ---------------------------------------------------------------- authentication

// unauthenticated matches what a client reports when the server refused
// its credentials.
var unauthenticated = regexp.MustCompile(`(?i)\b401\b|unauthenticated`)

// TestServeAuth: a server with bearer tokens refuses the JavaScript SDK's
// client on every interface, without a token (streamed) or with a wrong one
// (polled), and serves it an evaluation with the right one (streamed, and
// polled, so GetTask carries the token too).
func TestServeAuth(t *testing.T) {
	requireJSPeer(t)
	srv := startServe(t, server.Config{AuthTokens: []string{authToken}})
	_, cells := serveCells(t, srv)
	for _, cell := range cells {
		t.Run(cell.name(), func(t *testing.T) {
			t.Parallel()
			refused := func(mode string, extra ...string) {
				t.Helper()
				out, err := runJSClient(t, srv.URL(), jsArgs(t, cell, mode, map[string]any{"skill": string(server.SkillListDomains)}, extra...)...)
				var jsErr *jsClientError
				if !errors.As(err, &jsErr) {
					t.Errorf("%s %v: the client succeeded (%+v), want it refused", mode, extra, out)
					return
				}
				if !unauthenticated.MatchString(jsErr.stderr) {
					t.Errorf("%s %v: the client's error does not say 401 or unauthenticated:\n%s", mode, extra, jsErr.stderr)
				}
			}
			refused(modeStream)
			refused(modePoll, "--auth-token", "wrong")
			for _, mode := range clientModes {
				checkEvaluation(t, jsSend(t, srv.URL(), cell, mode, evalRequest, "--auth-token", authToken), 2)
			}
		})
	}
}
