package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"sort"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"google.golang.org/adk/model"
	"google.golang.org/genai"
)

const (
	// maxResponseBytes bounds an unstreamed response body.
	maxResponseBytes = 8 << 20
	// maxStreamBytes bounds a whole streamed response body.
	maxStreamBytes = 64 << 20
	// maxEventBytes bounds one server-sent event line.
	maxEventBytes = 8 << 20
	// maxToolCalls bounds the tool calls of one response.
	maxToolCalls = 256
)

// errTruncated is returned when a stream ends without its "data: [DONE]"
// terminator: the answer and its usage may be incomplete.
var errTruncated = errors.New("stream ended before data: [DONE]")

// errMalformedCall is the ErrorCode of a response whose tool call arguments
// are not a JSON object; it is Gemini's finish reason for the same failure.
const errMalformedCall = string(genai.FinishReasonMalformedFunctionCall)

// decodeResponse converts an unstreamed chat completion body into an ADK
// response. A body that is not a chat completion, or has no choices, is an
// error; a tool call whose arguments are not a JSON object is an error
// response (ErrorCode MALFORMED_FUNCTION_CALL), as Gemini reports it.
func decodeResponse(body []byte) (*model.LLMResponse, error) {
	if len(body) > maxResponseBytes {
		return nil, fmt.Errorf("response exceeds %d bytes", maxResponseBytes)
	}
	if msg, ok := errorEvent(body); ok {
		return nil, fmt.Errorf("error reply: %s", msg)
	}
	var c oai.ChatCompletion
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, fmt.Errorf("malformed response: %w", err)
	}
	if !c.JSON.Choices.Valid() || len(c.Choices) == 0 {
		return nil, errors.New("malformed response: no choices")
	}
	choice := c.Choices[0]
	var acc accumulator
	acc.text.WriteString(choice.Message.Content)
	acc.text.WriteString(choice.Message.Refusal)
	for i, tc := range choice.Message.ToolCalls {
		if i >= maxToolCalls {
			return nil, fmt.Errorf("malformed response: more than %d tool calls", maxToolCalls)
		}
		acc.calls = append(acc.calls, &callAcc{index: int64(i), id: tc.ID, kind: tc.Type, name: tc.Function.Name})
		acc.calls[i].args.WriteString(tc.Function.Arguments)
	}
	acc.finish = choice.FinishReason
	acc.model = c.Model
	if c.JSON.Usage.Valid() {
		acc.usage = usageMetadata(c.Usage)
	}
	return acc.response(), nil
}

// errorEvent reports whether body is an error object, {"error": ...}, and
// its message.
func errorEvent(body []byte) (string, bool) {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || len(e.Error) == 0 || string(e.Error) == "null" {
		return "", false
	}
	var detail struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(e.Error, &detail) == nil && detail.Message != "" {
		return detail.Message, true
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil && s != "" {
		return s, true
	}
	return string(e.Error), true
}

// streamResponses reads a chat completions event stream. It yields a partial
// response (Partial: true) for every text delta, then one final response
// with the whole content, the usage and TurnComplete: true. Error events,
// malformed chunks, a stream without choices and a stream that ends before
// "data: [DONE]" (errTruncated) end it with an error instead.
func streamResponses(r io.Reader) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		final, err := decodeStream(r, func(partial *model.LLMResponse) bool { return yield(partial, nil) })
		if errors.Is(err, errStopped) {
			return
		}
		if err != nil {
			yield(nil, err)
			return
		}
		yield(final, nil)
	}
}

var errStopped = errors.New("consumer stopped")

func decodeStream(r io.Reader, partial func(*model.LLMResponse) bool) (*model.LLMResponse, error) {
	sc := bufio.NewScanner(&capped{r: r, left: maxStreamBytes})
	sc.Buffer(make([]byte, 0, 4096), maxEventBytes)
	var acc accumulator
	var data []byte
	var event string
	sawChoice, done := false, false

	dispatch := func() error {
		defer func() { data, event = data[:0], "" }()
		if len(data) == 0 {
			return nil
		}
		payload := bytes.TrimSuffix(data, []byte("\n"))
		if string(bytes.TrimSpace(payload)) == "[DONE]" {
			done = true
			return nil
		}
		if msg, ok := errorEvent(payload); ok {
			return fmt.Errorf("error event in stream: %s", msg)
		}
		if event == "error" {
			return fmt.Errorf("error event in stream: %s", payload)
		}
		var chunk oai.ChatCompletionChunk
		if err := json.Unmarshal(payload, &chunk); err != nil {
			return fmt.Errorf("malformed stream chunk: %w", err)
		}
		if chunk.Model != "" {
			acc.model = chunk.Model
		}
		if chunk.JSON.Usage.Valid() {
			acc.usage = usageMetadata(chunk.Usage)
		}
		for _, choice := range chunk.Choices {
			if choice.Index != 0 {
				continue
			}
			sawChoice = true
			if choice.FinishReason != "" {
				acc.finish = choice.FinishReason
			}
			d := choice.Delta
			if err := acc.addToolDeltas(d.ToolCalls); err != nil {
				return err
			}
			text := d.Content + d.Refusal
			if text == "" {
				continue
			}
			acc.text.WriteString(text)
			if !partial(&model.LLMResponse{
				Content:      &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: text}}},
				Partial:      true,
				ModelVersion: acc.model,
			}) {
				return errStopped
			}
		}
		return nil
	}

	for !done && sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if err := dispatch(); err != nil {
				return nil, err
			}
			continue
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(name) {
		case "data":
			if len(data)+len(value) > maxEventBytes {
				return nil, fmt.Errorf("stream event exceeds %d bytes", maxEventBytes)
			}
			data = append(data, value...)
			data = append(data, '\n')
		case "event":
			event = string(value)
		}
	}
	if !done {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("reading stream: %w", err)
		}
		// A final event without its blank line still counts.
		if err := dispatch(); err != nil {
			return nil, err
		}
	}
	if !done {
		return nil, errTruncated
	}
	if !sawChoice {
		return nil, errors.New("malformed stream: no choices")
	}
	final := acc.response()
	final.TurnComplete = true
	return final, nil
}

// capped reads at most left bytes from r, then fails.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("stream exceeds %d bytes", maxStreamBytes)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// accumulator gathers one choice's text, tool calls, finish reason and usage.
type accumulator struct {
	text   strings.Builder
	calls  []*callAcc
	finish string
	model  string
	usage  *genai.GenerateContentResponseUsageMetadata
}

type callAcc struct {
	index          int64
	id, kind, name string
	args           strings.Builder
}

// addToolDeltas merges streamed tool call fragments, keyed by their index.
// (The deprecated function_call is not read: requests declare tools, so
// replies call them with tool_calls.)
func (a *accumulator) addToolDeltas(deltas []oai.ChatCompletionChunkChoiceDeltaToolCall) error {
	for _, d := range deltas {
		var call *callAcc
		for _, c := range a.calls {
			if c.index == d.Index {
				call = c
				break
			}
		}
		if call == nil {
			if len(a.calls) >= maxToolCalls {
				return fmt.Errorf("malformed stream: more than %d tool calls", maxToolCalls)
			}
			call = &callAcc{index: d.Index}
			a.calls = append(a.calls, call)
		}
		if d.ID != "" {
			call.id = d.ID
		}
		if d.Type != "" {
			call.kind = d.Type
		}
		if d.Function.Name != "" && call.name == "" {
			call.name = d.Function.Name
		}
		call.args.WriteString(d.Function.Arguments)
	}
	return nil
}

// response builds the ADK response: text first, then the function calls in
// index order. Malformed tool calls make it an error response.
func (a *accumulator) response() *model.LLMResponse {
	resp := &model.LLMResponse{
		Content:       &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{}},
		UsageMetadata: a.usage,
		ModelVersion:  a.model,
		FinishReason:  finishReason(a.finish),
	}
	if a.text.Len() > 0 {
		resp.Content.Parts = append(resp.Content.Parts, &genai.Part{Text: a.text.String()})
	}
	calls := append([]*callAcc(nil), a.calls...)
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].index < calls[j].index })
	parts := make([]*genai.Part, 0, len(calls))
	for _, c := range calls {
		fc, err := c.functionCall()
		if err != nil {
			// The text stands; the calls, which cannot be run, do not.
			resp.ErrorCode = errMalformedCall
			resp.ErrorMessage = err.Error()
			resp.FinishReason = genai.FinishReasonMalformedFunctionCall
			return resp
		}
		parts = append(parts, &genai.Part{FunctionCall: fc})
	}
	resp.Content.Parts = append(resp.Content.Parts, parts...)
	return resp
}

func (c *callAcc) functionCall() (*genai.FunctionCall, error) {
	if c.kind != "" && c.kind != "function" {
		return nil, fmt.Errorf("tool call of type %q is not a function call", c.kind)
	}
	if c.name == "" {
		return nil, errors.New("tool call without a function name")
	}
	args := map[string]any{}
	if raw := strings.TrimSpace(c.args.String()); raw != "" {
		if err := json.Unmarshal([]byte(raw), &args); err != nil || args == nil {
			return nil, fmt.Errorf("tool call %q: arguments are not a JSON object: %.200q", c.name, raw)
		}
	}
	return &genai.FunctionCall{ID: c.id, Name: c.name, Args: args}, nil
}

// finishReason maps OpenAI's finish reasons onto genai's. A tool call is a
// normal stop, as it is for Gemini.
func finishReason(r string) genai.FinishReason {
	switch r {
	case "":
		return ""
	case "stop", "tool_calls", "function_call":
		return genai.FinishReasonStop
	case "length":
		return genai.FinishReasonMaxTokens
	case "content_filter":
		return genai.FinishReasonSafety
	default:
		return genai.FinishReasonOther
	}
}

// usageMetadata maps OpenAI usage onto genai's, whose meaning it keeps:
// CandidatesTokenCount excludes reasoning tokens, which are reported as
// ThoughtsTokenCount, so prompt + candidates + thoughts = total as for
// Gemini. Without reasoning, CandidatesTokenCount is completion_tokens.
func usageMetadata(u oai.CompletionUsage) *genai.GenerateContentResponseUsageMetadata {
	reasoning := clamp(u.CompletionTokensDetails.ReasoningTokens)
	completion := clamp(u.CompletionTokens)
	if reasoning > completion {
		reasoning = completion
	}
	total := clamp(u.TotalTokens)
	if total == 0 {
		total = clamp(u.PromptTokens + u.CompletionTokens)
	}
	return &genai.GenerateContentResponseUsageMetadata{
		PromptTokenCount:        clamp(u.PromptTokens),
		CandidatesTokenCount:    completion - reasoning,
		ThoughtsTokenCount:      reasoning,
		CachedContentTokenCount: clamp(u.PromptTokensDetails.CachedTokens),
		TotalTokenCount:         total,
	}
}

func clamp(n int64) int32 {
	switch {
	case n < 0:
		return 0
	case n > math.MaxInt32:
		return math.MaxInt32
	}
	return int32(n)
}
