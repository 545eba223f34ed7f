package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

func lifecycleFlags(db string) []string {
	return []string{"--db", db, "--message", "hello", "--slow-message", agenttest.LifecycleSlow,
		"--multi-turn-message", agenttest.LifecycleAsk}
}

// TestConformanceCommand: a conformant agent exits 0, a non-conformant one
// 3; both reports are stored and shown again by proctor results, in every
// format.
func TestConformanceCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "p.db")
	good := agenttest.StartLifecycle(t, agenttest.LifecycleOptions{Protocols: []string{"1.0"}, Fixed: true})
	r := mustCLI(t, exitOK, append([]string{"conformance", good, "--format", "json"}, lifecycleFlags(db)...)...)
	var rep conformance.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("--format json: %v\n%s", err, r.stdout)
	}
	if rep.Level != conformance.LevelFull || rep.ID == "" || rep.Requests == 0 {
		t.Fatalf("a fixed a2a-go agent: level %s, id %q, %d requests; failed %v", rep.Level, rep.ID, rep.Requests, rep.FailedIDs())
	}
	if !strings.Contains(r.stderr, "conformance "+rep.ID+": full") {
		t.Errorf("stderr: %s", r.stderr)
	}

	// a2a-go as it is (see internal/interop for why it fails these).
	bad := agenttest.StartLifecycle(t, agenttest.LifecycleOptions{Protocols: []string{"1.0"}, Transports: []string{"jsonrpc"}})
	junit := filepath.Join(t.TempDir(), "c.xml")
	r = mustCLI(t, exitNonConformant, append([]string{"conformance", bad, "--format", "junit", "--out", junit}, lifecycleFlags(db)...)...)
	raw, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	// error-invalid-request, subscribe-terminal, list-tasks,
	// version-unsupported (a2a-go serving a 1.0 request without
	// A2A-Version as 1.0 is conformant).
	if err := xml.Unmarshal(raw, &suites); err != nil || suites.Failures != 4 || suites.Tests < 30 {
		t.Fatalf("JUnit: %+v, %v\n%s", suites, err, raw)
	}

	r = mustCLI(t, exitOK, "results", "--conformance", "--db", db)
	if !strings.Contains(r.stdout, good) || !strings.Contains(r.stdout, "non-conformant") || !strings.Contains(r.stdout, "LEVEL") {
		t.Errorf("results --conformance:\n%s", r.stdout)
	}
	r = mustCLI(t, exitOK, "results", rep.ID[:13], "--db", db, "--format", "markdown")
	if !strings.Contains(r.stdout, "**Level: full**") || !strings.Contains(r.stdout, "| category |") {
		t.Errorf("results ID --format markdown:\n%s", r.stdout)
	}
	r = mustCLI(t, exitOK, "results", "--conformance", "--db", db, "--format", "json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 2 || rows[0]["level"] != "non-conformant" {
		t.Errorf("results --conformance --format json: %v, %v", rows, err)
	}
	mustCLI(t, exitUsage, "results", rep.ID, "--db", db, "--format", "tau2")
}

func TestConformanceUsage(t *testing.T) {
	db := filepath.Join(t.TempDir(), "p.db")
	cfg := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(cfg, []byte("mode: test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"conformance"}, "accepts 1 arg"},
		{[]string{"conformance", "ftp://x"}, "URL \"ftp://x\""},
		{[]string{"conformance", "http://a", "--protocol", "2.0", "--transport", "smtp"}, "--protocol \"2.0\""},
		{[]string{"conformance", "http://a", "--format", "yaml"}, "--format \"yaml\""},
		{[]string{"conformance", "http://a", "--timeout", "1h"}, "--timeout 1h0m0s: want at most 10m0s"},
		{[]string{"conformance", "ecp+stdio:./agent", "--transport", "grpc"}, "--transport is for A2A agents"},
		{[]string{"conformance", "ecp+stdio:'./agent"}, "unterminated"},
		{[]string{"conformance", "http://a", "--ecp-config", cfg}, "--ecp-config is for ECP agents"},
		{[]string{"conformance", "ecp+stdio:./agent", "--ecp-config", filepath.Join(t.TempDir(), "none.yaml")}, "--ecp-config"},
	} {
		r := mustCLI(t, exitUsage, append(tc.args, "--db", db)...)
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: stderr %q lacks %q", tc.args, r.stderr, tc.want)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a rejected command created the database")
	}
}

// TestECPConformanceCLI checks ECP agents with proctor conformance: the
// reference agent served by proctor agent --ecp (on stdio and on a
// WebSocket) is full and exits 0; an agent that dies at once is
// non-conformant and exits 3, as an A2A agent would; the reports are
// stored with the others.
func TestECPConformanceCLI(t *testing.T) {
	bin := buildProctor(t)
	db := filepath.Join(t.TempDir(), "p.db")
	for _, target := range []string{"ecp+stdio:'" + bin + "' agent --ecp", startECPListener(t)} {
		r := mustCLI(t, exitOK, "conformance", target, "--format", "json", "--db", db)
		var rep conformance.Report
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%s: %v\n%s", target, err, r.stdout)
		}
		if rep.Level != conformance.LevelFull || rep.AgentProtocol != conformance.AgentProtocolECP || !strings.Contains(rep.AgentName, "reference agent") {
			t.Errorf("%s: level %s, protocol %q, agent %q: want the reference agent, full", target, rep.Level, rep.AgentProtocol, rep.AgentName)
		}
	}
	r := mustCLI(t, exitNonConformant, "conformance", `ecp+stdio:sh -c "read line; exit 1"`, "--db", db)
	if !strings.Contains(r.stdout, "MUST ecp-initialize") || !strings.Contains(r.stderr, "non-conformant") {
		t.Errorf("a dead agent:\nstdout %s\nstderr %s", r.stdout, r.stderr)
	}
	r = mustCLI(t, exitOK, "results", "--conformance", "--db", db)
	if n := strings.Count(r.stdout, "ecp+"); n != 3 {
		t.Errorf("results --conformance lists %d ECP runs, want 3:\n%s", n, r.stdout)
	}
}
