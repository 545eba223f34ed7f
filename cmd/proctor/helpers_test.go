package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// cliResult is what one in-process invocation of the program produced.
type cliResult struct {
	code           int
	stdout, stderr string
}

// lockedBuffer is a bytes.Buffer safe for the concurrent writes of progress
// reporting and reads of a test watching it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// cli runs the program in-process with a deadline, as a user would from a
// shell. The deadline catches hangs: the slowest run (50 airline tasks with
// the race detector, beside other packages' tests on 2 cores) takes about
// 25 s alone and twice that under load.
func cli(t *testing.T, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return cliCtx(ctx, t, args...)
}

func cliCtx(ctx context.Context, t *testing.T, args ...string) cliResult {
	t.Helper()
	var stdout, stderr lockedBuffer
	code := run(ctx, args, &stdout, &stderr)
	r := cliResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
	if ctx.Err() != nil && code != exitInterrupt {
		t.Fatalf("proctor %s: did not finish before the test's deadline\nstderr:\n%s", strings.Join(args, " "), r.stderr)
	}
	return r
}

// mustCLI runs the program and fails the test unless it exits with want.
func mustCLI(t *testing.T, want int, args ...string) cliResult {
	t.Helper()
	r := cli(t, args...)
	if r.code != want {
		t.Fatalf("proctor %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, want, clip(r.stdout), r.stderr)
	}
	return r
}

func clip(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "\n[...]"
	}
	return s
}

// tempDB returns the path of a fresh results database for one test.
func tempDB(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "proctor.db")
}

// decodeObject decodes a JSON object into generic maps, so that tests check
// the wire names and not the Go structs.
func decodeObject(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("output is not a JSON object: %v\n%s", err, clip(s))
	}
	return m
}

func decodeArray(t *testing.T, s string) []any {
	t.Helper()
	var a []any
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		t.Fatalf("output is not a JSON array: %v\n%s", err, clip(s))
	}
	return a
}

// field walks a dotted path of object keys ("metrics.latency_ms.p50") and
// fails the test when a key is missing.
func field(t *testing.T, m map[string]any, path string) any {
	t.Helper()
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("%s: %q is not inside an object (got %T)", path, k, cur)
		}
		v, ok := obj[k]
		if !ok {
			t.Fatalf("JSON has no %q (missing %q; keys: %v)", path, k, keys(obj))
		}
		cur = v
	}
	return cur
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func num(t *testing.T, m map[string]any, path string) float64 {
	t.Helper()
	v, ok := field(t, m, path).(float64)
	if !ok {
		t.Fatalf("%s = %#v, want a number", path, field(t, m, path))
	}
	return v
}

func str(t *testing.T, m map[string]any, path string) string {
	t.Helper()
	v, ok := field(t, m, path).(string)
	if !ok {
		t.Fatalf("%s = %#v, want a string", path, field(t, m, path))
	}
	return v
}

func obj(t *testing.T, m map[string]any, path string) map[string]any {
	t.Helper()
	v, ok := field(t, m, path).(map[string]any)
	if !ok {
		t.Fatalf("%s = %#v, want an object", path, field(t, m, path))
	}
	return v
}

func arr(t *testing.T, m map[string]any, path string) []any {
	t.Helper()
	v, ok := field(t, m, path).([]any)
	if !ok {
		t.Fatalf("%s = %#v, want an array", path, field(t, m, path))
	}
	return v
}

// simulations returns the simulations of an evaluation's JSON as objects.
func simulations(t *testing.T, eval map[string]any) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i, s := range arr(t, eval, "simulations") {
		m, ok := s.(map[string]any)
		if !ok {
			t.Fatalf("simulations[%d] = %#v, want an object", i, s)
		}
		out = append(out, m)
	}
	return out
}

// simKey identifies a simulation by task and trial.
type simKey struct {
	task  string
	trial int
}

func keyOf(t *testing.T, s map[string]any) simKey {
	t.Helper()
	return simKey{str(t, s, "task_id"), int(num(t, s, "trial"))}
}

// contextCounter is an agent's reply wrapper that counts the requests it
// gets per A2A context id, so tests can tell which conversations ran.
type contextCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func newContextCounter() *contextCounter { return &contextCounter{counts: map[string]int{}} }

func (c *contextCounter) wrap(reply func(context.Context, string, string) string) func(context.Context, string, string) string {
	return func(ctx context.Context, contextID, text string) string {
		c.mu.Lock()
		c.counts[contextID]++
		c.mu.Unlock()
		return reply(ctx, contextID, text)
	}
}

func (c *contextCounter) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}
