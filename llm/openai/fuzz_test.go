package openai

import (
	"bytes"
	"testing"

	"google.golang.org/genai"
)

// FuzzDecodeReply feeds untrusted bytes to both decoders, as an unstreamed
// reply and as an event stream: they may fail, never panic, and a stream
// ends in either one complete response or one error.
func FuzzDecodeReply(f *testing.F) {
	f.Add([]byte(`{"id":"1","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"Hi","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]}}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`))
	f.Add([]byte(chunk(`{"role":"assistant","content":"He"}`, "") + chunk(`{"content":"llo"}`, "") +
		chunk(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":"{\"q\":"}}]}`, "") +
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}`, "") + chunk(`{}`, "tool_calls") +
		`data: {"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":5,"total_tokens":12}}` + "\n\ndata: [DONE]\n\n"))
	f.Add([]byte(chunk(`{"content":"x"}`, "") + `data: {"error":{"message":"boom"}}` + "\n\n"))
	f.Add([]byte("event: error\ndata: {}\n\n"))
	f.Add([]byte(`{"error":{"message":"boom"}}`))
	f.Add([]byte(`{"choices":[{"message":{"tool_calls":[{"index":-9,"function":{"arguments":"[1"}}]}}]}`))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":9223372036854775807}]}}]}\n\ndata: [DONE]\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if resp, err := decodeResponse(data); err == nil {
			if resp == nil || resp.Content == nil || resp.Content.Role != genai.RoleModel {
				t.Fatalf("decodeResponse: no error and response %+v", resp)
			}
		}
		finals, errs := 0, 0
		for resp, err := range streamResponses(bytes.NewReader(data)) {
			if finals+errs > 0 {
				t.Fatal("stream yielded after its final response or error")
			}
			switch {
			case err != nil:
				errs++
			case resp == nil || resp.Content == nil:
				t.Fatalf("stream yielded %+v", resp)
			case !resp.Partial:
				finals++
				if !resp.TurnComplete {
					t.Fatal("final response without TurnComplete")
				}
			}
		}
		if finals+errs != 1 {
			t.Fatalf("stream ended with %d final responses and %d errors", finals, errs)
		}
	})
}
