package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

// readWireTrace decodes a trace file's records.
func readWireTrace(t *testing.T, path string) ([]a2aclient.WireRecord, string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("wire trace: %v", err)
	}
	var recs []a2aclient.WireRecord
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r a2aclient.WireRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("trace line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs, string(raw)
}

// TestTraceWireRun records an evaluation of a real a2a-go agent behind a
// token into a directory: the file is named by the evaluation's id, holds
// every simulation's exchanges under its context id, and not the token.
func TestTraceWireRun(t *testing.T) {
	const secret = "s3cret-token-value"
	srv := guardedAgent(t, secret)
	dir := t.TempDir()
	t.Setenv(envBearerToken, secret)
	res := mustCLI(t, exitOK, "run", "--agent", srv.URL, "--db", tempDB(t), "--task-ids", "mock-01,mock-02",
		"--header", "X-Team=blue", "--format", "json", "--progress", "none", "--trace-wire", dir)
	eval := decodeObject(t, res.stdout)
	id := str(t, eval, "id")
	path := filepath.Join(dir, id+".wire.jsonl")
	if !strings.Contains(res.stderr, path) {
		t.Errorf("stderr does not say where the trace is (%s):\n%s", path, res.stderr)
	}
	recs, raw := readWireTrace(t, path)
	if strings.Contains(raw, secret) || strings.Contains(raw, "blue") {
		t.Error("a credential is in the wire trace")
	}
	requests := map[string]int{}
	for _, r := range recs {
		if r.Kind == a2aclient.WireRequest {
			requests[r.ContextID]++
		}
	}
	for key, ctxID := range contextIDs(t, eval) {
		if requests[ctxID] == 0 {
			t.Errorf("simulation %v (context %s) has no exchange in the trace", key, ctxID)
		}
	}
	if requests[""] == 0 {
		t.Error("the agent card's request is not in the trace")
	}
}

// TestTraceWireEvalSet records an eval-set run into a file named with the
// {id} placeholder.
func TestTraceWireEvalSet(t *testing.T) {
	agent := agenttest.StartCalculator(t, agenttest.CalculatorOptions{})
	dir := t.TempDir()
	r := mustCLI(t, exitCaseFailed, "evalset", "run", "--agent", agent.URL, "--db", tempDB(t), "--format", "json",
		"--progress", "none", "--trace-wire", filepath.Join(dir, "trace-{id}.jsonl"), writeCalcSet(t))
	id := str(t, decodeObject(t, r.stdout), "id")
	recs, _ := readWireTrace(t, filepath.Join(dir, "trace-"+id+".jsonl"))
	ends := 0
	for _, rec := range recs {
		if rec.Kind == a2aclient.WireEnd && rec.ContextID != "" {
			ends++
		}
	}
	if ends < 4 {
		t.Errorf("%d finished exchanges in the trace of an eval-set run of 4 cases", ends)
	}
	// A directory that does not exist is refused before anything runs.
	bad := mustCLI(t, exitUsage, "run", "--agent", "builtin", "--db", tempDB(t), "--trace-wire", filepath.Join(dir, "no", "such", "x.jsonl"))
	if !strings.Contains(bad.stderr, "does not exist") {
		t.Errorf("missing trace directory: %s", bad.stderr)
	}
	// An ECP agent's exchanges are not A2A: refused, not silently untraced.
	ecpRun := mustCLI(t, exitUsage, "run", "--agent", "ecp+ws://127.0.0.1:1/agent", "--db", tempDB(t), "--trace-wire", dir)
	if !strings.Contains(ecpRun.stderr, "ECP agent") {
		t.Errorf("--trace-wire with an ECP agent: %s", ecpRun.stderr)
	}
}

// TestTraceWireView: proctor view --trace-wire shows a simulation's
// recorded exchanges with a real a2a-go agent beside its conversation,
// with the credentials still redacted.
func TestTraceWireView(t *testing.T) {
	const secret = "s3cret-token-value"
	srv := guardedAgent(t, secret)
	dir := t.TempDir()
	db := tempDB(t)
	t.Setenv(envBearerToken, secret)
	res := mustCLI(t, exitOK, "run", "--agent", srv.URL, "--db", db, "--task-ids", "mock-01",
		"--header", "X-Team=blue", "--format", "json", "--progress", "none", "--trace-wire", dir)
	id := str(t, decodeObject(t, res.stdout), "id")
	url := startCLI(t, `http://127\.0\.0\.1:\d+/`, "view", "--db", db, "--port", "0", "--trace-wire", dir)
	code, body := fetch(t, url+"eval/"+id+"/sim?id=mock-01%230", "")
	if code != http.StatusOK {
		t.Fatalf("simulation page: status %d\n%s", code, clip(body))
	}
	for _, want := range []string{`id="wire-trace"`, "POST", a2aclient.Redacted, "Authorization: " + a2aclient.Redacted, "SendMessage"} {
		if !strings.Contains(body, want) {
			t.Errorf("the simulation page's wire trace lacks %q", want)
		}
	}
	if strings.Contains(body, secret) || strings.Contains(body, "blue") {
		t.Error("a credential is on the page")
	}
	if strings.Contains(body, `id="wire-note"`) {
		t.Errorf("the wire trace has a note: %s", body[strings.Index(body, `id="wire-note"`):][:300])
	}
}
