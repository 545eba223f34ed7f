package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/adk/model"
	"google.golang.org/genai"
)

// replyKey carries the fuzzed reply body to fakeReply.
type replyKey struct{}

// fakeReply answers every request with the body in its context, without a
// network: 200, JSON or event stream as the request asked.
type fakeReply struct{}

func (fakeReply) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_ = r.Body.Close()
	}
	body, _ := r.Context().Value(replyKey{}).([]byte)
	ct := "application/json"
	if strings.Contains(r.URL.Path, "stream") || r.URL.Query().Get("alt") == "sse" || r.Header.Get("X-Fuzz-Stream") != "" {
		ct = "text/event-stream"
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {ct}}, Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: r,
	}, nil
}

// FuzzProviderReply sends untrusted reply bodies through each provider's
// whole model (SDK decoding, ADK's Gemini aggregation, the wrappers):
// unstreamed and streamed, a call ends in one response or one
// *ProviderError, never a panic, and a stream's one complete response
// comes last with TurnComplete.
func FuzzProviderReply(f *testing.F) {
	const key = "fuzz-key-0123456789"
	f.Add([]byte(`{"id":"1","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Hi"}}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`), false, false)
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\ndata: [DONE]\n\n"), true, false)
	f.Add([]byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"},{"functionCall":{"id":"a","name":"f","args":{"x":1}}}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2,"totalTokenCount":5}}`), false, true)
	f.Add([]byte("data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"He\"}]}}]}\r\n\r\ndata: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"llo\"}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":3}}\r\n\r\n"), true, true)
	f.Add([]byte(`{"error":{"code":500,"message":"boom"}}`), true, true)
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a.b","stringValue":"x"}],"willContinue":true}}]}}]}`), true, true)
	f.Add([]byte("data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"partialArgs\":[{\"jsonPath\":\"$.\",\"numberValue\":1}],\"willContinue\":false}}]},\"finishReason\":\"STOP\"}]}\r\n\r\n"), true, true)

	ctx := context.Background()
	models := map[bool]model.LLM{}
	for _, gemini := range []bool{false, true} {
		spec := "openai:fuzz-model"
		if gemini {
			spec = "gemini:fuzz-model"
		}
		m, err := New(ctx, spec, Config{APIKey: key, BaseURL: "http://127.0.0.1:1/v1", HTTPClient: &http.Client{Transport: fakeReply{}}, MaxRetries: -1})
		if err != nil {
			f.Fatal(err)
		}
		models[gemini] = m
	}
	f.Fuzz(func(t *testing.T, body []byte, stream, gemini bool) {
		ctx := context.WithValue(ctx, replyKey{}, body)
		req := &model.LLMRequest{Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}}
		finals, errs := 0, 0
		for resp, err := range models[gemini].GenerateContent(ctx, req, stream) {
			if finals+errs > 0 {
				t.Fatal("yielded after the final response or an error")
			}
			switch {
			case err != nil:
				errs++
				var pe *ProviderError
				if !errors.As(err, &pe) || pe.Attempts != 1 || pe.Status != 200 {
					t.Fatalf("error %T %v, want a *ProviderError for HTTP 200", err, err)
				}
				if strings.Contains(err.Error(), key) {
					t.Fatalf("error leaks the key: %v", err)
				}
			case resp == nil:
				t.Fatal("nil response")
			case stream && resp.Partial:
			default:
				finals++
				if stream && !resp.TurnComplete {
					t.Fatal("final streamed response without TurnComplete")
				}
			}
		}
		if finals+errs != 1 {
			t.Fatalf("%d final responses and %d errors", finals, errs)
		}
	})
}
