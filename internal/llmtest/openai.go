package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// NewOpenAI starts a fake OpenAI chat completions server: POST
// {URL}/chat/completions, answered with a chat.completion JSON document or,
// for "stream": true, chat.completion.chunk events ending in data: [DONE],
// with a usage chunk before it when stream_options.include_usage is set;
// and POST {URL}/embeddings (see Embedding). Its URL ends in /v1, like OpenAI's. It stops when the test ends.
func NewOpenAI(t testing.TB, script func(Request) Reply) *Server {
	t.Helper()
	s := newServer(t, "openai", script, func(s *Server) http.Handler {
		mux := http.NewServeMux()
		mux.HandleFunc("POST /v1/chat/completions", s.serveOpenAI)
		mux.HandleFunc("POST /v1/embeddings", s.serveEmbeddings)
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			s.badRequest(w, "unexpected %s %s", r.Method, r.URL.Path)
		})
		return mux
	})
	s.URL += "/v1"
	return s
}

type openaiRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Temperature any `json:"temperature"`
	Seed        any `json:"seed"`
}

// openaiText reads a message's content: a string, or text parts.
func openaiText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

func (s *Server) serveOpenAI(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		s.badRequest(w, "reading body: %v", err)
		return
	}
	var in openaiRequest
	if err := json.Unmarshal(raw, &in); err != nil {
		s.badRequest(w, "request is not JSON: %v", err)
		return
	}
	req := Request{
		Provider: "openai", Model: in.Model, Stream: in.Stream,
		Temperature: float(in.Temperature), Seed: integer(in.Seed),
		Header: r.Header.Clone(), Raw: raw,
	}
	for _, tool := range in.Tools {
		req.Tools = append(req.Tools, tool.Function.Name)
	}
	names := map[string]string{} // tool call ID -> function name
	var system []string
	for i, m := range in.Messages {
		switch m.Role {
		case "system", "developer":
			system = append(system, openaiText(m.Content))
		case "user":
			req.Messages = append(req.Messages, Message{Role: "user", Text: openaiText(m.Content)})
		case "assistant":
			msg := Message{Role: "assistant", Text: openaiText(m.Content)}
			for _, tc := range m.ToolCalls {
				var args map[string]any
				if err := json.Unmarshal([]byte(tc.Function.Arguments), &args); err != nil {
					s.badRequest(w, "messages[%d]: tool call arguments %q are not a JSON object", i, tc.Function.Arguments)
					return
				}
				if tc.ID == "" {
					s.badRequest(w, "messages[%d]: tool call without an id", i)
					return
				}
				names[tc.ID] = tc.Function.Name
				msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Args: args})
			}
			req.Messages = append(req.Messages, msg)
		case "tool":
			name, ok := names[m.ToolCallID]
			if !ok {
				s.badRequest(w, "messages[%d]: tool message for unknown tool_call_id %q", i, m.ToolCallID)
				return
			}
			req.Messages = append(req.Messages, Message{Role: "tool", ToolCallID: m.ToolCallID, ToolName: name, ToolResult: openaiText(m.Content)})
		default:
			s.badRequest(w, "messages[%d]: unknown role %q", i, m.Role)
			return
		}
	}
	req.System = strings.Join(system, "\n")

	reply := s.record(r.Context(), req)
	switch {
	case reply.isError():
		s.writeOpenAIError(w, reply)
	case reply.Raw != "":
		if in.Stream {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(reply.status())
		_, _ = io.WriteString(w, reply.Raw)
	case in.Stream:
		s.streamOpenAI(w, in.Model, reply, in.StreamOptions.IncludeUsage)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.status())
		_ = json.NewEncoder(w).Encode(openaiCompletion(in.Model, reply))
	}
}

func openaiErrorType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit_exceeded"
	case status == http.StatusUnauthorized:
		return "invalid_request_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

func openaiToolCalls(calls []ToolCall) []map[string]any {
	out := make([]map[string]any, 0, len(calls))
	for i, tc := range calls {
		args, _ := json.Marshal(tc.Args)
		if tc.Args == nil {
			args = []byte("{}")
		}
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_fake_%d", i)
		}
		out = append(out, map[string]any{
			"id": id, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": string(args)},
		})
	}
	return out
}

func openaiUsage(r Reply) map[string]any {
	return map[string]any{
		"prompt_tokens": r.InputTokens, "completion_tokens": r.OutputTokens,
		"total_tokens": r.InputTokens + r.OutputTokens,
	}
}

func openaiFinish(r Reply) string {
	if len(r.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func openaiCompletion(model string, r Reply) map[string]any {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if r.Text != "" {
		msg["content"] = r.Text
	}
	if len(r.ToolCalls) > 0 {
		msg["tool_calls"] = openaiToolCalls(r.ToolCalls)
	}
	return map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": openaiFinish(r)}},
		"usage":   openaiUsage(r),
	}
}

func (s *Server) streamOpenAI(w http.ResponseWriter, model string, r Reply, includeUsage bool) {
	out := newSSE(w, r.status(), "\n\n")
	created := time.Now().Unix()
	chunk := func(delta map[string]any, finish any) {
		c := map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		}
		if includeUsage {
			c["usage"] = nil
		}
		b, _ := json.Marshal(c)
		out.data(b)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, piece := range chunks(r.Text, r.Chunks) {
		chunk(map[string]any{"content": piece}, nil)
	}
	for i, tc := range openaiToolCalls(r.ToolCalls) {
		fn := tc["function"].(map[string]any)
		args := fn["arguments"].(string)
		chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": tc["id"], "type": "function",
			"function": map[string]any{"name": fn["name"], "arguments": ""},
		}}}, nil)
		for _, piece := range chunks(args, 2) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": piece},
			}}}, nil)
		}
	}
	chunk(map[string]any{}, openaiFinish(r))
	if includeUsage {
		b, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{}, "usage": openaiUsage(r),
		})
		out.data(b)
	}
	out.data([]byte("[DONE]"))
}
