package llm_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/adk/model"
	"google.golang.org/genai"

	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
)

// testKey is the API key every test model uses; no error may contain it.
const testKey = "sk-test-5eCr3T-0123456789abcdef"

// fakeProvider is one provider under test: its fake server and where its
// API key travels.
type fakeProvider struct {
	name  string
	model string
	start func(testing.TB, func(llmtest.Request) llmtest.Reply) *llmtest.Server
	// key returns the API key as the request carried it.
	key func(http.Header) string
}

func fakeProviders() []fakeProvider {
	return []fakeProvider{
		{
			name: "openai", model: "gpt-test", start: llmtest.NewOpenAI,
			key: func(h http.Header) string { return strings.TrimPrefix(h.Get("Authorization"), "Bearer ") },
		},
		{
			name: "gemini", model: "gemini-test", start: llmtest.NewGemini,
			key: func(h http.Header) string { return h.Get("x-goog-api-key") },
		},
	}
}

// testCtx is bounded well below the test binary's timeout, so a hang is a
// failed test rather than a killed binary.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newModel returns the provider's model pointed at srv, with fast retries
// unless cfg says otherwise.
func newModel(t *testing.T, p fakeProvider, srv *llmtest.Server, cfg llm.Config) model.LLM {
	t.Helper()
	cfg.APIKey = testKey
	cfg.BaseURL = srv.URL
	if cfg.MaxRetryWait == 0 {
		cfg.MaxRetryWait = 5 * time.Millisecond
	}
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	m, err := llm.New(testCtx(t), p.name+":"+p.model, cfg)
	if err != nil {
		t.Fatalf("llm.New: %v", err)
	}
	return m
}

// result is everything one GenerateContent call yielded.
type result struct {
	partials []*model.LLMResponse
	final    *model.LLMResponse
	err      error
	finals   int
}

// generate runs one call to the end and sorts what it yielded.
func generate(ctx context.Context, m model.LLM, req *model.LLMRequest, stream bool) result {
	var r result
	for resp, err := range m.GenerateContent(ctx, req, stream) {
		switch {
		case err != nil:
			r.err = err
		case resp.Partial:
			r.partials = append(r.partials, resp)
		default:
			r.final = resp
			r.finals++
		}
	}
	return r
}

// text joins a response's text parts.
func text(resp *model.LLMResponse) string {
	if resp == nil || resp.Content == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range resp.Content.Parts {
		if p != nil && !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// calls returns a response's function calls.
func calls(resp *model.LLMResponse) []*genai.FunctionCall {
	if resp == nil || resp.Content == nil {
		return nil
	}
	var out []*genai.FunctionCall
	for _, p := range resp.Content.Parts {
		if p != nil && p.FunctionCall != nil {
			out = append(out, p.FunctionCall)
		}
	}
	return out
}

// userRequest is a one-turn request saying text.
func userRequest(text string) *model.LLMRequest {
	return &model.LLMRequest{Contents: []*genai.Content{genai.NewContentFromText(text, genai.RoleUser)}}
}

// checkNoKey fails if err's text contains the API key.
func checkNoKey(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), testKey) {
		t.Errorf("error leaks the API key: %v", err)
	}
}
