package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"google.golang.org/adk/model"
)

// DefaultBaseURL is OpenAI's API, used when no option.WithBaseURL is given.
const DefaultBaseURL = "https://api.openai.com/v1/"

// chatModel is a model.LLM speaking chat completions.
type chatModel struct {
	name string
	svc  oai.ChatCompletionService
}

// New returns a model.LLM that calls modelName through the chat completions
// endpoint of an OpenAI-compatible API. Options configure the endpoint and
// transport: typically option.WithAPIKey, option.WithBaseURL,
// option.WithHTTPClient and option.WithMaxRetries. New reads no environment
// variables; the base URL defaults to DefaultBaseURL.
func New(modelName string, opts ...option.RequestOption) model.LLM {
	all := append([]option.RequestOption{option.WithBaseURL(DefaultBaseURL)}, opts...)
	return &chatModel{name: modelName, svc: oai.NewChatCompletionService(all...)}
}

// Name returns the model name given to New.
func (m *chatModel) Name() string { return m.name }

// GenerateContent sends req as one chat completion. Unstreamed, it yields
// one response. Streamed, it yields a partial response (Partial: true) per
// text delta and then the aggregated final response (TurnComplete: true),
// as ADK's Gemini model does. Failures are yielded as the only or last
// error; nothing the server sends makes it panic.
func (m *chatModel) GenerateContent(ctx context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		if req == nil {
			yield(nil, errors.New("openai: nil request"))
			return
		}
		name := req.Model
		if name == "" {
			name = m.name
		}
		params, err := buildParams(name, req)
		if err != nil {
			yield(nil, fmt.Errorf("openai: request: %w", err))
			return
		}
		// The body is read here, not by the SDK, so that a stream's end
		// ("data: [DONE]" or not) and every size bound are ours to check.
		var raw *http.Response
		opts := []option.RequestOption{option.WithResponseBodyInto(&raw)}
		if stream {
			params.StreamOptions.IncludeUsage = param.NewOpt(true)
			opts = append(opts, option.WithJSONSet("stream", true))
		}
		if _, err := m.svc.New(ctx, params, opts...); err != nil {
			yield(nil, fmt.Errorf("openai: %w", err))
			return
		}
		if raw == nil || raw.Body == nil {
			yield(nil, errors.New("openai: no response"))
			return
		}
		defer raw.Body.Close()

		if stream && !isJSON(raw.Header.Get("Content-Type")) {
			for resp, err := range streamResponses(raw.Body) {
				if err != nil {
					err = fmt.Errorf("openai: %w", err)
				}
				if !yield(resp, err) || err != nil {
					return
				}
			}
			return
		}
		// Unstreamed, or a server that answered a stream request with one
		// JSON document (some compatible servers ignore "stream").
		body, err := io.ReadAll(io.LimitReader(raw.Body, maxResponseBytes+1))
		if err != nil {
			yield(nil, fmt.Errorf("openai: reading response: %w", err))
			return
		}
		resp, err := decodeResponse(body)
		if err != nil {
			yield(nil, fmt.Errorf("openai: %w", err))
			return
		}
		resp.TurnComplete = stream
		yield(resp, nil)
	}
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}
