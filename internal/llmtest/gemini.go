package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// NewGemini starts a fake Gemini API server: POST
// {URL}/v1beta/models/{model}:generateContent, answered with a
// GenerateContentResponse JSON document, and
// {URL}/v1beta/models/{model}:streamGenerateContent?alt=sse, answered with
// one "data: {...}" event per chunk, the last carrying the finish reason and
// the usage. It stops when the test ends.
func NewGemini(t testing.TB, script func(Request) Reply) *Server {
	t.Helper()
	return newServer(t, "gemini", script, func(s *Server) http.Handler {
		mux := http.NewServeMux()
		mux.HandleFunc("POST /v1beta/models/{call}", s.serveGemini)
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			s.badRequest(w, "unexpected %s %s", r.Method, r.URL.Path)
		})
		return mux
	})
}

type geminiPart struct {
	Text         string `json:"text"`
	Thought      bool   `json:"thought"`
	FunctionCall *struct {
		ID   string         `json:"id"`
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string         `json:"id"`
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	} `json:"functionResponse"`
}

type geminiRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	SystemInstruction *struct {
		Parts []geminiPart `json:"parts"`
	} `json:"systemInstruction"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		Temperature any `json:"temperature"`
		Seed        any `json:"seed"`
	} `json:"generationConfig"`
}

func (s *Server) serveGemini(w http.ResponseWriter, r *http.Request) {
	model, method, ok := strings.Cut(r.PathValue("call"), ":")
	stream := method == "streamGenerateContent"
	if !ok || (method != "generateContent" && !stream) {
		s.badRequest(w, "unexpected path %s", r.URL.Path)
		return
	}
	if stream && r.URL.Query().Get("alt") != "sse" {
		s.badRequest(w, "streamGenerateContent without alt=sse")
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		s.badRequest(w, "reading body: %v", err)
		return
	}
	var in geminiRequest
	if err := json.Unmarshal(raw, &in); err != nil {
		s.badRequest(w, "request is not JSON: %v", err)
		return
	}
	req := Request{
		Provider: "gemini", Model: model, Stream: stream,
		Temperature: float(in.GenerationConfig.Temperature), Seed: integer(in.GenerationConfig.Seed),
		Header: r.Header.Clone(), Raw: raw,
	}
	for _, tool := range in.Tools {
		for _, fd := range tool.FunctionDeclarations {
			req.Tools = append(req.Tools, fd.Name)
		}
	}
	if in.SystemInstruction != nil {
		req.System = geminiText(in.SystemInstruction.Parts)
	}
	for i, c := range in.Contents {
		switch c.Role {
		case "user", "":
			// Function responses first, as tool messages; then the text.
			for _, p := range c.Parts {
				if fr := p.FunctionResponse; fr != nil {
					result, _ := json.Marshal(fr.Response)
					req.Messages = append(req.Messages, Message{Role: "tool", ToolCallID: fr.ID, ToolName: fr.Name, ToolResult: string(result)})
				}
			}
			if text := geminiText(c.Parts); text != "" {
				req.Messages = append(req.Messages, Message{Role: "user", Text: text})
			}
		case "model":
			msg := Message{Role: "assistant", Text: geminiText(c.Parts)}
			for _, p := range c.Parts {
				if fc := p.FunctionCall; fc != nil {
					msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: fc.ID, Name: fc.Name, Args: fc.Args})
				}
			}
			req.Messages = append(req.Messages, msg)
		default:
			s.badRequest(w, "contents[%d]: unknown role %q", i, c.Role)
			return
		}
	}

	reply := s.record(r.Context(), req)
	switch {
	case reply.isError():
		reply.setRetryAfter(w.Header())
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(reply.Status)
		body, _ := json.Marshal(map[string]any{"error": map[string]any{
			"code": reply.Status, "message": reply.ErrorMessage, "status": geminiStatus(reply.Status),
		}})
		_, _ = w.Write(body)
	case reply.Raw != "":
		if stream {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		}
		w.WriteHeader(reply.status())
		_, _ = io.WriteString(w, reply.Raw)
	case stream:
		s.streamGemini(w, model, reply)
	default:
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(reply.status())
		parts := geminiParts(reply.Text, reply.ToolCalls)
		_ = json.NewEncoder(w).Encode(geminiResponse(model, parts, "STOP", geminiUsage(reply)))
	}
}

// geminiText joins a content's text parts, thoughts excluded.
func geminiText(parts []geminiPart) string {
	var texts []string
	for _, p := range parts {
		if p.Text != "" && !p.Thought {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "")
}

func geminiStatus(code int) string {
	switch code {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED"
	}
	return "INTERNAL"
}

func geminiParts(text string, calls []ToolCall) []any {
	parts := []any{}
	if text != "" {
		parts = append(parts, map[string]any{"text": text})
	}
	for _, tc := range calls {
		fc := map[string]any{"name": tc.Name, "args": tc.Args}
		if tc.Args == nil {
			fc["args"] = map[string]any{}
		}
		if tc.ID != "" {
			fc["id"] = tc.ID
		}
		parts = append(parts, map[string]any{"functionCall": fc})
	}
	return parts
}

func geminiUsage(r Reply) map[string]any {
	return map[string]any{
		"promptTokenCount": r.InputTokens, "candidatesTokenCount": r.OutputTokens,
		"totalTokenCount": r.InputTokens + r.OutputTokens,
	}
}

func geminiResponse(model string, parts []any, finish string, usage map[string]any) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	if finish != "" {
		cand["finishReason"] = finish
	}
	resp := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": "fake"}
	if usage != nil {
		resp["usageMetadata"] = usage
	}
	return resp
}

// streamGemini sends the text in chunks, then the function calls and the
// finish reason with the whole usage, as the Gemini API does; earlier
// chunks carry only the prompt's token count.
func (s *Server) streamGemini(w http.ResponseWriter, model string, r Reply) {
	out := newSSE(w, r.status(), "\r\n\r\n")
	pieces := chunks(r.Text, r.Chunks)
	send := func(parts []any, finish string, usage map[string]any) {
		b, _ := json.Marshal(geminiResponse(model, parts, finish, usage))
		out.data(b)
	}
	prompt := map[string]any{"promptTokenCount": r.InputTokens}
	last := len(pieces) - 1
	if len(r.ToolCalls) > 0 {
		last = -1
	}
	for i, piece := range pieces {
		if i == last {
			send(geminiParts(piece, nil), "STOP", geminiUsage(r))
			return
		}
		send(geminiParts(piece, nil), "", prompt)
	}
	send(geminiParts("", r.ToolCalls), "STOP", geminiUsage(r))
}
