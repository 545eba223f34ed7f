package conformance

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readAllSSE(t *testing.T, in string, max int) ([]sseEvent, error) {
	t.Helper()
	rd := newSSEReader(strings.NewReader(in), max)
	var out []sseEvent
	for {
		ev, err := rd.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		out = append(out, ev)
	}
}

func TestSSEReader(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"lf", "data: a\n\ndata: b\n\n", []string{"a", "b"}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}},
		{"cr", "data: a\r\rdata: b\r\r", []string{"a", "b"}},
		{"multi-line data joins with LF", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"comments and unknown fields", ": keep-alive\nretry: 10\nfoo: bar\ndata: x\n\n", []string{"x"}},
		{"no space after colon", "data:x\n\n", []string{"x"}},
		{"event without data is not dispatched", "event: ping\n\ndata: y\n\n", []string{"y"}},
		{"a cut-off last event is dropped", "data: a\n\ndata: b", []string{"a"}},
		{"a last event without the blank line is dropped", "data: a\n\ndata: b\n", []string{"a"}},
		{"empty", "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := readAllSSE(t, tc.in, 1<<10)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range evs {
				got = append(got, string(e.Data))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("got %q, want %q (-want +got):\n%s", got, tc.want, diff)
			}
		})
	}
	if _, err := readAllSSE(t, "data: "+strings.Repeat("x", 100)+"\n\n", 50); !errors.Is(err, errSSETooLarge) {
		t.Errorf("an oversized line: %v, want errSSETooLarge", err)
	}
	if _, err := readAllSSE(t, strings.Repeat("data: 0123456789\n", 10)+"\n", 50); !errors.Is(err, errSSETooLarge) {
		t.Errorf("an oversized event: %v, want errSSETooLarge", err)
	}
}

func TestDecodeEnvelope(t *testing.T) {
	cases := []struct {
		name     string
		body     string
		problems int
		code     int
	}{
		{"result", `{"jsonrpc":"2.0","id":"1","result":{}}`, 0, 0},
		{"error", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, 0, -32700},
		{"no version", `{"id":"1","result":{}}`, 1, 0},
		{"wrong version", `{"jsonrpc":"1.0","id":"1","result":{}}`, 1, 0},
		{"both", `{"jsonrpc":"2.0","id":"1","result":{},"error":{"code":1,"message":"x"}}`, 1, 1},
		{"neither", `{"jsonrpc":"2.0","id":"1"}`, 1, 0},
		{"no id", `{"jsonrpc":"2.0","result":{}}`, 1, 0},
		{"object id", `{"jsonrpc":"2.0","id":{},"result":{}}`, 1, 0},
		{"string code", `{"jsonrpc":"2.0","id":"1","error":{"code":"-32601","message":"x"}}`, 1, 0},
		{"fractional code", `{"jsonrpc":"2.0","id":"1","error":{"code":-32601.5,"message":"x"}}`, 1, 0},
		{"no message", `{"jsonrpc":"2.0","id":"1","error":{"code":-32601}}`, 1, -32601},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env, err := decodeEnvelope([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if len(env.Problems) != tc.problems {
				t.Errorf("problems %q, want %d", env.Problems, tc.problems)
			}
			if tc.code != 0 && (env.Error == nil || env.Error.Code != tc.code) {
				t.Errorf("error %+v, want code %d", env.Error, tc.code)
			}
		})
	}
	for _, bad := range []string{"", "null", "[]", "{", `"x"`} {
		if _, err := decodeEnvelope([]byte(bad)); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
	// VoltAgent's SSE writer frames each event as a JSON text sequence:
	// the failure must name the byte.
	_, err := decodeEnvelope([]byte("\x1e" + `{"jsonrpc":"2.0","id":"1","result":{}}`))
	if err == nil || !strings.Contains(err.Error(), "record separator byte (0x1E") {
		t.Errorf("a response after a record separator: error %v, want it to name the byte", err)
	}
}

func TestDecodeObject(t *testing.T) {
	cases := []struct {
		name                      string
		raw                       string
		kind, form, names, state  string
		history, artifacts, probs int
	}{
		{"1.0 wrapped task", `{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"},
			"artifacts":[{"artifactId":"a","parts":[{"text":"hi"}]}],"history":[{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}]}}`,
			kindTask, formWrapped, namesEnum, "completed", 1, 1, 0},
		{"1.0 bare task (GetTask)", `{"id":"t","contextId":"c","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}`,
			kindTask, formBare, namesEnum, "input-required", 0, 0, 0},
		{"0.3 tagged task", `{"kind":"task","id":"t","contextId":"c","status":{"state":"completed"},"history":[]}`,
			kindTask, formTagged, namesPlain, "completed", 0, 0, 0},
		{"0.3 proto JSON canceled", `{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_CANCELLED"}}}`,
			kindTask, formWrapped, namesEnum, "canceled", 0, 0, 0},
		{"1.0 message", `{"message":{"messageId":"m","contextId":"c","role":"ROLE_AGENT","parts":[{"data":{"a":1}}]}}`,
			kindMessage, formWrapped, namesEnum, "", 0, 0, 0},
		{"0.3 message with proto content", `{"message":{"messageId":"m","role":"ROLE_AGENT","content":[{"text":"x"}]}}`,
			kindMessage, formWrapped, namesEnum, "", 0, 0, 0},
		{"0.3 status update", `{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working"},"final":false}`,
			kindStatus, formTagged, namesPlain, "working", 0, 0, 0},
		{"1.0 artifact update", `{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}`,
			kindArtifact, formWrapped, "", "", 0, 0, 0},
		{"task without id or state", `{"task":{"status":{}}}`, kindTask, formWrapped, "", "", 0, 0, 2},
		{"bad state", `{"task":{"id":"t","status":{"state":"done"}}}`, kindTask, formWrapped, namesPlain, "done", 0, 0, 1},
		{"two wrapper members", `{"task":{"id":"t","status":{"state":"TASK_STATE_WORKING"}},"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"x"}]}}`,
			kindMessage, formWrapped, namesEnum, "", 0, 0, 1},
		{"mixed names", `{"message":{"messageId":"m","role":"agent","parts":[{"text":"x"}]},"x":1}`, kindMessage, formWrapped, namesPlain, "", 0, 0, 0},
		{"message without parts", `{"kind":"message","messageId":"m","role":"agent"}`, kindMessage, formTagged, namesPlain, "", 0, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := decodeObject([]byte(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			if o.Kind != tc.kind || o.Form != tc.form || o.Names != tc.names || o.State != tc.state ||
				o.History != tc.history || o.Artifacts != tc.artifacts || len(o.Problems) != tc.probs {
				t.Errorf("got kind %s form %s names %q state %q history %d artifacts %d problems %q",
					o.Kind, o.Form, o.Names, o.State, o.History, o.Artifacts, o.Problems)
			}
		})
	}
	for _, bad := range []string{"", "[]", "null", `{"kind":"dance"}`, `{"foo":1}`, `{"kind":5}`} {
		if o, err := decodeObject([]byte(bad)); err == nil {
			t.Errorf("%q decoded as %+v", bad, o)
		}
	}
}

func TestFormProblems(t *testing.T) {
	v03, _ := decodeObject([]byte(`{"kind":"task","id":"t","status":{"state":"completed"}}`))
	if p := formProblems(&v03, bindingJSONRPC, version10, false); len(p) != 2 {
		t.Errorf("a 0.3 task on JSON-RPC 1.0: %q, want the form and the names", p)
	}
	if p := formProblems(&v03, bindingJSONRPC, version03, false); len(p) != 0 {
		t.Errorf("a 0.3 task on JSON-RPC 0.3: %q", p)
	}
	if p := formProblems(&v03, bindingREST, version03, true); len(p) != 0 {
		t.Errorf("a 0.3 task on HTTP+JSON 0.3: %q", p)
	}
	bare, _ := decodeObject([]byte(`{"id":"t","status":{"state":"TASK_STATE_COMPLETED"}}`))
	if p := formProblems(&bare, bindingREST, version10, true); len(p) != 0 {
		t.Errorf("a bare task from GetTask: %q", p)
	}
	if p := formProblems(&bare, bindingREST, version10, false); len(p) != 1 {
		t.Errorf("a bare task from SendMessage: %q, want the missing wrapper", p)
	}
}
