package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/ecp"
)

// transports names the two ways to reach a test agent.
var transports = []struct {
	name   string
	target func(t *testing.T, fault ecpFault) string
}{
	{"stdio", func(_ *testing.T, fault ecpFault) string { return stdioTarget(string(fault)) }},
	{"websocket", wsTarget},
}

// runECP checks target and fails the test if the run itself fails.
func runECP(t *testing.T, target string, opts ...conformance.Option) *conformance.Report {
	t.Helper()
	rep, err := conformance.RunECP(context.Background(), target, opts...)
	if err != nil {
		t.Fatalf("RunECP(%s): %v", target, err)
	}
	return rep
}

// resultOf returns the result of requirement id.
func resultOf(rep *conformance.Report, id string) conformance.Result {
	for _, r := range rep.Results {
		if r.ID == id {
			return r
		}
	}
	return conformance.Result{}
}

// TestECPBrokenAgents checks agents that each break one requirement, over
// stdio and over WebSocket: exactly the requirements they break fail (a
// crash takes survival with it), and no agent process is left behind.
func TestECPBrokenAgents(t *testing.T) {
	tests := []struct {
		fault ecpFault
		want  []string
	}{
		{faultNone, nil},
		{faultToolCalls, nil},
		{faultNoName, []string{conformance.ReqECPInitialize}},
		{faultVersion, []string{conformance.ReqECPInitVersion}},
		{faultNoCapabilities, []string{conformance.ReqECPInitCapabilities}},
		{faultStringFlag, []string{conformance.ReqECPInitCapabilities}},
		{faultCrashInit, []string{conformance.ReqECPInitialize}},
		{faultResetFalse, []string{conformance.ReqECPReset}},
		{faultResetKeeps, []string{conformance.ReqECPResetClears}},
		{faultBadStatus, []string{conformance.ReqECPStepStatus}},
		{faultOutputNumber, []string{conformance.ReqECPStepFields}},
		{faultNoUsage, []string{conformance.ReqECPStepUsage}},
		{faultBadToolCall, []string{conformance.ReqECPStepToolCalls}},
		{faultPausedNoCalls, []string{conformance.ReqECPStepPaused}},
		{faultMethodCode, []string{conformance.ReqECPMethodNotFound}},
		{faultLenientParams, []string{conformance.ReqECPInvalidParams}},
		{faultLenientVersion, []string{conformance.ReqECPInvalidRequest}},
		{faultSilentParse, []string{conformance.ReqECPParseError}},
		{faultCrashUnknown, []string{conformance.ReqECPMethodNotFound, conformance.ReqECPSurvives}},
		{faultCrashParse, []string{conformance.ReqECPParseError, conformance.ReqECPSurvives}},
		{faultWrongID, []string{conformance.ReqECPEnvelope}},
		{faultNoJSONRPC, []string{conformance.ReqECPEnvelope}},
		{faultHangStep, []string{conformance.ReqECPInvalidParams, conformance.ReqECPStepBeforeInit, conformance.ReqECPStepStatus}},
		{faultGarbage, []string{conformance.ReqECPStepBeforeInit, conformance.ReqECPStepStatus}},
		{faultEarlyStepCrash, []string{conformance.ReqECPStepBeforeInit}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Run("agents", func(t *testing.T) {
				for _, tt := range tests {
					t.Run(string(tt.fault), func(t *testing.T) {
						t.Parallel()
						// Silent agents cost a request timeout per silence.
						rep := runECP(t, tr.target(t, tt.fault), conformance.WithRequestTimeout(3*time.Second))
						if diff := cmp.Diff(tt.want, rep.FailedIDs()); diff != "" {
							t.Errorf("failed requirements (-want +got):\n%s\n%s", diff, failures(rep))
						}
						wantLevel := conformance.LevelOf(rep.Summary)
						if rep.Level != wantLevel || (len(tt.want) == 0) != (rep.Level == conformance.LevelFull) {
							t.Errorf("level %s with failures %v", rep.Level, tt.want)
						}
					})
				}
			})
			requireNoChildren(t)
		})
	}
}

// failures lists a report's failures, for test messages.
func failures(rep *conformance.Report) string {
	var b strings.Builder
	for _, f := range rep.Failed() {
		b.WriteString(f.ID + ": " + f.Message + "\n")
	}
	return b.String()
}

// TestECPToolCallsRead checks that the tool-call checks run when a step
// calls tools, in both shapes proctor reads.
func TestECPToolCallsRead(t *testing.T) {
	rep := runECP(t, stdioTarget(string(faultToolCalls)))
	for _, id := range []string{conformance.ReqECPStepToolCalls, conformance.ReqECPStepPaused, conformance.ReqECPResetClears} {
		if r := resultOf(rep, id); r.Status != conformance.Pass {
			t.Errorf("%s: %s (%s), want pass", id, r.Status, r.Message)
		}
	}
	if r := resultOf(rep, conformance.ReqECPStepToolCalls); r.Message != "6 tool calls read" {
		t.Errorf("tool calls: %q, want 6 read (two per step, three steps)", r.Message)
	}
}

// TestECPReferenceAgent checks proctor's reference agent over ECP, as
// ecp.Serve and ecp.WebSocketHandler serve it: full conformance, with the
// tool-call checks exercised by a message that makes it call a tool.
func TestECPReferenceAgent(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			rep := runECP(t, tr.target(t, "refagent"),
				conformance.WithMessages(conformance.Messages{Basic: "Hi, this is jane.park@example.com"}))
			if rep.Level != conformance.LevelFull || rep.Summary.Skipped != 0 {
				t.Errorf("level %s, %d skipped: want full, none skipped\n%s", rep.Level, rep.Summary.Skipped, failures(rep))
			}
			if !strings.Contains(rep.AgentName, "reference agent") || rep.AgentProtocol != conformance.AgentProtocolECP {
				t.Errorf("agent %q, protocol %q", rep.AgentName, rep.AgentProtocol)
			}
			if got, want := rep.Summary.Total, len(conformance.ECPRequirements()); got != want {
				t.Errorf("%d results, want one per requirement (%d)", got, want)
			}
		})
	}
	requireNoChildren(t)
}

// TestECPExampleAgents checks the example agents of examples/ecp (Python,
// standard library only; Node.js, no dependencies): full conformance.
func TestECPExampleAgents(t *testing.T) {
	for _, tt := range []struct{ interpreter, file string }{{"python3", "taskly_agent.py"}, {"node", "taskly_agent.js"}} {
		t.Run(tt.interpreter, func(t *testing.T) {
			path, err := exec.LookPath(tt.interpreter)
			if err != nil {
				t.Skipf("%s is not installed: the %s example is not checked", tt.interpreter, tt.file)
			}
			script, err := filepath.Abs(filepath.Join("..", "examples", "ecp", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			rep := runECP(t, ecp.SchemeStdio+strconv.Quote(path)+" "+strconv.Quote(script),
				conformance.WithMessages(conformance.Messages{Basic: "Hi, this is jane.park@example.com"}))
			if rep.Level != conformance.LevelFull || rep.Summary.Skipped != 0 {
				t.Errorf("level %s, %d skipped: want full, none skipped\n%s", rep.Level, rep.Summary.Skipped, failures(rep))
			}
		})
	}
	requireNoChildren(t)
}

// TestECPReportFormats renders a failing ECP report in every format: each
// names ECP, its categories and the failure with its exchange.
func TestECPReportFormats(t *testing.T) {
	rep := runECP(t, wsTarget(t, faultMethodCode))
	for _, format := range conformance.Formats() {
		var b bytes.Buffer
		if err := conformance.Write(&b, format, rep); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		out := b.String()
		for _, want := range []string{conformance.ReqECPMethodNotFound} {
			if !strings.Contains(out, want) {
				t.Errorf("%s output lacks %q:\n%s", format, want, out)
			}
		}
		switch format {
		case conformance.FormatMarkdown:
			if !strings.Contains(out, "## ECP conformance") || !strings.Contains(out, "| ecp-errors | 5 | 1 | 0 |") || strings.Contains(out, "agent-card") {
				t.Errorf("markdown:\n%s", out)
			}
		case conformance.FormatJUnit:
			var suites struct {
				Name   string `xml:"name,attr"`
				Suites []struct {
					Name string `xml:"name,attr"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal(b.Bytes(), &suites); err != nil || !strings.HasPrefix(suites.Name, "ECP conformance") || len(suites.Suites) != 3 {
				t.Errorf("junit %+v (%v):\n%s", suites, err, out)
			}
			if !strings.Contains(out, "proctor/noSuchMethod") {
				t.Errorf("junit lacks the failing exchange:\n%s", out)
			}
		case conformance.FormatJSON:
			var back conformance.Report
			if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.AgentProtocol != conformance.AgentProtocolECP {
				t.Errorf("json: %v, agent_protocol %q", err, back.AgentProtocol)
			}
		}
	}
}

// TestECPRunBounded checks that a run against an agent that never answers
// ends within its timeout, and that bad targets and A2A options are refused.
func TestECPRunBounded(t *testing.T) {
	start := time.Now()
	rep := runECP(t, stdioTarget(string(faultHangStep)), conformance.WithTimeout(2*time.Second))
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the run took %s past its 2s limit", took)
	}
	if r := resultOf(rep, conformance.ReqECPStepStatus); r.Status != conformance.Fail {
		t.Errorf("step status %s: want a failure", r.Status)
	}
	requireNoChildren(t)

	for _, tt := range []struct {
		target string
		opt    conformance.Option
		want   string
	}{
		{"http://localhost:1", nil, "not an ECP target"},
		{"ecp+stdio:", nil, "empty command"},
		{"ecp+stdio:'unterminated", nil, "quote"},
		{stdioTarget("none"), conformance.WithTransport(conformance.TransportGRPC), "A2A"},
		{stdioTarget("none"), conformance.WithAuthToken("x"), "auth token"},
	} {
		_, err := conformance.RunECP(context.Background(), tt.target, tt.opt)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("RunECP(%q): %v, want an error saying %q", tt.target, err, tt.want)
		}
	}
}

// TestECPDeniedTarget checks the private-target guard on WebSocket agents.
func TestECPDeniedTarget(t *testing.T) {
	_, err := conformance.RunECP(context.Background(), wsTarget(t, faultNone), conformance.WithDenyPrivateTargets())
	if !errors.Is(err, conformance.ErrDeniedTarget) {
		t.Fatalf("RunECP with the guard on loopback: %v, want a refusal", err)
	}
}

// requireNoChildren fails the test if a child process of the test is left
// (every agent a run launched must be killed and reaped by its end).
func requireNoChildren(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Log("no /proc: process check skipped")
		return
	}
	me := strconv.Itoa(os.Getpid())
	var left []string
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // ended meanwhile
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == me {
			left = append(left, path+" state "+fields[0])
		}
	}
	if len(left) > 0 {
		t.Errorf("child processes left: %v", left)
	}
}
