package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/proctor-eval/proctor/ecp"
)

// FuzzSSE feeds arbitrary bytes to the SSE decoder: it must never panic,
// never return an event larger than its limit, and always end.
func FuzzSSE(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n", "data: a\r\n\r\n", "data: a\r\rdata: b\r\r", ": c\nevent: e\nid: 1\ndata: x\ndata: y\n\n",
		"data:{\"jsonrpc\":\"2.0\"}\n\n", "data: \x00\n\n", "id: \x00\ndata: z\n\n", "\r\n\r\n\n", "data",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 256
		rd := newSSEReader(bytes.NewReader(in), max)
		for i := 0; ; i++ {
			ev, err := rd.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, errSSETooLarge) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(ev.Data) > max {
				t.Fatalf("event of %d bytes past the %d limit", len(ev.Data), max)
			}
			if i > len(in) {
				t.Fatal("more events than input bytes")
			}
		}
	})
}

// FuzzEnvelope feeds arbitrary bytes to the JSON-RPC response decoder.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":"1","result":{"task":{"id":"t","status":{"state":"TASK_STATE_COMPLETED"}}}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":2,"id":[],"error":"x"}`, `{"error":{"code":1e400}}`, `null`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		env, err := decodeEnvelope(in)
		if err != nil {
			return
		}
		if env.Error != nil && env.Error.CodeOK && (env.Error.Code > 1<<31 || env.Error.Code < -(1<<31)) {
			t.Fatalf("code %d out of range", env.Error.Code)
		}
		_ = env.Error.describe()
		if env.Result != nil {
			_, _ = decodeObject(env.Result)
		}
	})
}

// FuzzDecodeObject feeds arbitrary JSON to the A2A object decoder (task,
// message and event forms of both protocol versions): it must not panic
// and must bound what it reports.
func FuzzDecodeObject(f *testing.F) {
	for _, s := range []string{
		`{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED","message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"x"}]}},"artifacts":[{"artifactId":"a","parts":[{"data":{}}]}],"history":[]}}`,
		`{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"completed"},"final":true}`,
		`{"message":{"messageId":"m","role":"ROLE_AGENT","content":[{"file":{"fileWithUri":"x"}}]}}`,
		`{"id":"t","status":{"state":"TASK_STATE_CANCELLED","update":{"content":[]}}}`,
		`{"artifactUpdate":{"artifact":{"parts":"x"}}}`, `{"kind":"message","parts":[1,null,{}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		o, err := decodeObject(in)
		if err != nil {
			return
		}
		if len(o.Problems) > 20 {
			t.Fatalf("%d problems: the list must stay bounded", len(o.Problems))
		}
		_ = o.summary()
		_ = formProblems(&o, bindingREST, version03, false)
	})
}

// FuzzECPShapes feeds arbitrary JSON to the readers of agent/initialize
// and agent/step results: they must never panic, and a result they find
// nothing wrong with must be one proctor's runtime reads.
func FuzzECPShapes(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","protocolVersion":"0.1.0","capabilities":{"supports_snapshots":false}}`,
		`{"status":"done","public_output":"hi","private_thought":null,"usage":{"input":1,"output":2}}`,
		`{"status":"paused","tool_calls":[{"id":"1","name":"f","arguments":"{\"a\":1}"}],"usage":{"prompt_tokens":3}}`,
		`{"status":"paused","tool_calls":[{"id":"1","type":"function","function":{"name":"f","arguments":{}}}]}`,
		`{"status":5,"public_output":[],"tool_calls":{},"usage":{"input":-1}}`,
		`[]`, `null`, `"x"`, `{"capabilities":[],"supports_steering":"yes"}`, `{"usage":{"output":1.5}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		_ = readInitialize(in)
		s := readStep(in)
		if s.StatusProblem != "" || s.Fields != "" || s.ToolCalls != "" {
			return
		}
		var res ecp.StepResult
		if err := json.Unmarshal(in, &res); err != nil {
			t.Fatalf("a step result the checks accept does not decode: %v", err)
		}
		switch res.Status {
		case ecp.StatusDone, ecp.StatusPaused, ecp.StatusRunning:
		default:
			t.Fatalf("the checks accept status %q", res.Status)
		}
	})
}
