package ecp_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/ecp"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		line    string
		want    []string
		wantErr string
	}{
		{line: "python3 agent.py", want: []string{"python3", "agent.py"}},
		{line: "  node\t'my agent.js'  --x=1 ", want: []string{"node", "my agent.js", "--x=1"}},
		{line: `a "b \"c\" $d \x" e\ f`, want: []string{"a", `b "c" $d \x`, "e f"}},
		{line: `a '' ""`, want: []string{"a", "", ""}},
		{line: `a|b;c>d`, want: []string{"a|b;c>d"}},
		{line: "", wantErr: "empty command line"},
		{line: `a 'b`, wantErr: "unterminated ' quote"},
		{line: `a "b`, wantErr: `unterminated " quote`},
		{line: `a \`, wantErr: "ends with a backslash"},
	}
	for _, tt := range tests {
		got, err := ecp.SplitCommand(tt.line)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("SplitCommand(%q) = %q, %v; want error %q", tt.line, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("SplitCommand(%q): %v", tt.line, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("SplitCommand(%q) (-want +got):\n%s", tt.line, diff)
		}
	}
}

// TestStdioFramings steps the reference agent over stdio in each framing:
// newline-delimited, Content-Length detected from the agent's answers, and
// Content-Length forced from the first message.
func TestStdioFramings(t *testing.T) {
	tests := []struct {
		name    string
		mode    string
		framing ecp.Framing
	}{
		{"newline", "refagent", ecp.FramingAuto},
		{"content-length detected", "lsp", ecp.FramingAuto},
		{"content-length forced", "refagent", ecp.FramingContentLength},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			c, err := ecp.Dial(ctx, agentTarget(t, tt.mode), ecp.Options{Framing: tt.framing, RequestTimeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			pid := c.PID()
			defer func() { c.Close(); requireNoProcs(t, pid) }()
			if !strings.Contains(c.Info.Name, "reference agent") {
				t.Errorf("initialize name = %q", c.Info.Name)
			}
			for range 2 { // the second step comes after a reset
				if err := c.Reset(ctx); err != nil {
					t.Fatal(err)
				}
				res, err := c.Step(ctx, ecp.StepParams{Input: "Hi, I'm jane.park@example.com. List my tasks.",
					Context: ecp.StepContext{Kind: ecp.KindUser, Policy: "be nice", Tools: []byte(`[{"type":"function","function":{"name":"find_user_by_email"}}]`)}})
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != ecp.StatusPaused || len(res.ToolCalls) != 1 || res.ToolCalls[0].Name != "find_user_by_email" {
					t.Errorf("step = %+v, want paused with a find_user_by_email call", res)
				}
			}
			v, err := c.Inspect(ctx, "steps")
			if err != nil || string(v) != "1" {
				t.Errorf("inspect steps = %s, %v; want 1 (reset clears the count)", v, err)
			}
		})
	}
}

// TestMisbehavingAgents checks that every kind of broken agent gives a
// CallError saying what it did, and leaves no process behind.
func TestMisbehavingAgents(t *testing.T) {
	tests := []struct {
		mode       string
		wantKind   ecp.FailureKind
		wantSubstr []string
		wantIs     error
	}{
		{mode: "crash", wantKind: ecp.FailCrashed, wantSubstr: []string{"exited with status 3", "out of cheese"}},
		{mode: "hang", wantKind: ecp.FailTimeout, wantSubstr: []string{"no answer within"}},
		{mode: "garbage", wantKind: ecp.FailNotJSON, wantSubstr: []string{"hello, I am not JSON"}},
		{mode: "oversized", wantKind: ecp.FailTooLarge},
		{mode: "spawn", wantKind: ecp.FailTimeout, wantSubstr: []string{"child"}},
		{mode: "error", wantKind: ecp.FailRPCError, wantSubstr: []string{"SafetyViolation", "guardrail tripped"}, wantIs: ecp.ErrSafetyViolation},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			ctx := context.Background()
			c, err := ecp.Dial(ctx, agentTarget(t, tt.mode), ecp.Options{RequestTimeout: 2 * time.Second, MaxResponseBytes: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			pid := c.PID()
			if err := c.Reset(ctx); err != nil {
				t.Fatal(err)
			}
			_, err = c.Step(ctx, ecp.StepParams{Input: "hello"})
			var ce *ecp.CallError
			if !errors.As(err, &ce) || ce.Kind != tt.wantKind {
				t.Fatalf("step error = %v, want a CallError of kind %s", err, tt.wantKind)
			}
			for _, s := range tt.wantSubstr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.wantIs)
			}
			if (tt.wantKind == ecp.FailRPCError) != (c.Broken() == nil) {
				t.Errorf("Broken() = %v: only a JSON-RPC error response leaves the agent usable", c.Broken())
			}
			c.Close()
			requireNoProcs(t, pid)
		})
	}
}

// TestResetRefused checks that a reset answered false is a failure that
// kills the agent.
func TestResetRefused(t *testing.T) {
	ctx := context.Background()
	c, err := ecp.Dial(ctx, agentTarget(t, "refuse"), ecp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pid := c.PID()
	err = c.Reset(ctx)
	var ce *ecp.CallError
	if !errors.As(err, &ce) || ce.Kind != ecp.FailRefused {
		t.Fatalf("reset error = %v, want kind refused", err)
	}
	if c.Broken() == nil {
		t.Error("a refused reset left the client usable")
	}
	c.Close()
	requireNoProcs(t, pid)
}

func TestDialErrors(t *testing.T) {
	for _, target := range []string{"ecp+stdio:", "ecp+stdio:'unterminated", "ecp+ws://", "http://x"} {
		if _, err := ecp.Dial(context.Background(), target, ecp.Options{}); err == nil {
			t.Errorf("Dial(%q) succeeded", target)
		}
	}
	_, err := ecp.Dial(context.Background(), "ecp+stdio:/nonexistent/agent", ecp.Options{})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/agent") {
		t.Errorf("Dial of a missing command = %v, want an error naming it", err)
	}
}

// TestExchange sends messages as written with Client.Exchange to an agent
// started without initializing: malformed ones get the agent's answer as
// it is, and a silent agent is bounded by the request timeout and killed.
func TestExchange(t *testing.T) {
	ctx := context.Background()
	tgt, err := ecp.ParseTarget(agentTarget(t, "refagent"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := tgt.Start(ctx, ecp.Options{RequestTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tt := range []struct{ msg, want string }{
		{`{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`, `"id":null,"error":{"code":-32700`},
		{`{"jsonrpc":"1.0","id":7,"method":"agent/reset"}`, `"id":7,"error":{"code":-32600`},
		{`{"jsonrpc":"2.0","id":"x","method":"agent/reset"}`, `"id":"x","result":true`},
	} {
		got, err := c.Exchange(ctx, "probe", []byte(tt.msg))
		if err != nil || !strings.Contains(string(got), tt.want) {
			t.Errorf("Exchange(%s) = %s, %v; want %s", tt.msg, got, err, tt.want)
		}
	}
	pid := c.PID()
	c.Close()
	requireNoProcs(t, pid)

	tgt, err = ecp.ParseTarget(agentTarget(t, "hang"))
	if err != nil {
		t.Fatal(err)
	}
	if c, err = tgt.Start(ctx, ecp.Options{RequestTimeout: 200 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Exchange(ctx, "probe", []byte(`{"jsonrpc":"2.0","id":1,"method":"agent/step","params":{}}`))
	var ce *ecp.CallError
	if !errors.As(err, &ce) || ce.Kind != ecp.FailTimeout || c.Broken() == nil {
		t.Fatalf("Exchange with a silent agent: %v, want a timeout that breaks the client", err)
	}
	requireNoProcs(t, c.PID())
}
