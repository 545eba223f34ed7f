package server_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/server"
)

// logBuffer is a log destination written by many goroutines, which a test
// can wait on.
type logBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{} // closed at the next write, when someone waits
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written != nil {
		close(b.written)
		b.written = nil
	}
	return b.buf.Write(p)
}

// Bytes is a copy of what was written so far.
func (b *logBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

func (b *logBuffer) String() string { return string(b.Bytes()) }

// waitFor waits until what was written satisfies done, and returns it; it
// fails t when ten seconds pass first.
func (b *logBuffer) waitFor(t testing.TB, done func([]byte) bool) []byte {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		raw := bytes.Clone(b.buf.Bytes())
		if b.written == nil {
			b.written = make(chan struct{})
		}
		next := b.written
		b.mu.Unlock()
		if done(raw) {
			return raw
		}
		select {
		case <-next:
		case <-deadline.C:
			t.Fatalf("the log did not get the records looked for in 10s:\n%s", raw)
		}
	}
}

// logRecord is every field a record of the server's JSON log may have.
type logRecord struct {
	Time     string  `json:"time"`
	Msg      string  `json:"msg"`
	Failed   bool    `json:"failed"`
	Error    bool    `json:"error"`
	Level    string  `json:"level"`
	Method   string  `json:"method"`
	Binding  string  `json:"binding"`
	Version  string  `json:"version"`
	Tenant   string  `json:"tenant"`
	Status   any     `json:"status"`
	Duration float64 `json:"duration_ms"`
	EvalID   string  `json:"evaluation_id"`
	Domain   string  `json:"domain"`
	AgentURL string  `json:"agent_url"`
	Tasks    int     `json:"tasks"`
	Trials   int     `json:"trials"`
}

// readLog decodes every record of raw, failing t on a field logRecord does
// not know: it counts the request records by "method binding tenant
// status" and returns the evaluation records with their time, duration and
// id blanked (an id is kept as "x").
func readLog(t testing.TB, raw []byte) (map[string]int, []logRecord) {
	t.Helper()
	requests := map[string]int{}
	var evals []logRecord
	for line := range bytes.Lines(raw) {
		var r logRecord
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		switch r.Msg {
		case "a2a request":
			if r.Duration < 0 || r.Version != "1.0" {
				t.Errorf("request record %+v", r)
			}
			requests[strings.Join([]string{r.Method, r.Binding, r.Tenant, jsonText(r.Status)}, " ")]++
		case server.LogEvaluationStart, server.LogEvaluationEnd:
			r.Time, r.Duration, r.EvalID = "", 0, strings.Repeat("x", min(len(r.EvalID), 1))
			evals = append(evals, r)
		default:
			t.Errorf("unexpected record %q", line)
		}
	}
	return requests, evals
}
