package llm

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"
	"google.golang.org/adk/model"
	"google.golang.org/adk/model/gemini"
	"google.golang.org/genai"

	"github.com/proctor-eval/proctor/llm/openai"
)

// Provider names, the part of a model spec before the colon.
const (
	ProviderGemini = "gemini"
	ProviderOpenAI = "openai"
)

// DefaultGeminiBaseURL is the Gemini API, used when neither Config.BaseURL
// nor GOOGLE_GEMINI_BASE_URL is set.
const DefaultGeminiBaseURL = "https://generativelanguage.googleapis.com/"

// Config configures New. Zero values take defaults or the environment.
type Config struct {
	// APIKey is the provider's key. If empty: for openai, OPENAI_API_KEY;
	// for gemini, GEMINI_API_KEY, then GOOGLE_API_KEY.
	APIKey string
	// BaseURL is the API's base URL. If empty: OPENAI_BASE_URL or
	// GOOGLE_GEMINI_BASE_URL, else the provider's public API.
	BaseURL string
	// HTTPClient is the base client (tests pass one); New wraps a copy's
	// transport with retries and leaves the original untouched.
	HTTPClient *http.Client
	// MaxRetries is how many times a failed request is retried (on
	// 408/409/429/5xx, refused and reset connections): 0 means 4, a
	// negative number none.
	MaxRetries int
	// MaxRetryWait caps one wait between attempts, Retry-After included:
	// 0 means 30s.
	MaxRetryWait time.Duration
	// Getenv reads the environment; nil means os.Getenv (tests inject).
	Getenv func(string) string
}

// Providers lists the provider names New knows, sorted.
func Providers() []string { return []string{ProviderGemini, ProviderOpenAI} }

// ParseSpec splits a model spec "provider:model" at its first colon, so
// model names may contain colons ("openai:ft:gpt-4.1:acme::id"). The
// provider is case-insensitive and returned in lower case. An empty
// provider or model is an error; an unknown provider is not (New rejects
// it).
func ParseSpec(spec string) (provider, modelName string, err error) {
	provider, modelName, ok := strings.Cut(strings.TrimSpace(spec), ":")
	provider = strings.ToLower(strings.TrimSpace(provider))
	modelName = strings.TrimSpace(modelName)
	if !ok || provider == "" || modelName == "" {
		return "", "", fmt.Errorf("llm: model spec %q: want provider:model, e.g. openai:gpt-4.1 or gemini:gemini-2.5-flash", spec)
	}
	return provider, modelName, nil
}

// New returns the model a spec names: "openai:gpt-4.1" (any
// OpenAI-compatible chat completions API), "gemini:gemini-2.5-flash" (the
// Gemini API). An unknown provider, an empty model or a missing API key is
// an error naming what to set. New makes no network call.
//
// The model's calls retry as Config says. A call that fails once its
// request was sent fails with a *ProviderError; a cancelled call with an
// error wrapping the context's. Streamed calls yield partial text responses
// and then one complete response with TurnComplete set; a stream that
// breaks off yields an error instead of the complete response.
func New(ctx context.Context, spec string, cfg Config) (model.LLM, error) {
	provider, name, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	switch provider {
	case ProviderOpenAI:
		key := first(cfg.APIKey, getenv("OPENAI_API_KEY"))
		if key == "" {
			return nil, fmt.Errorf("llm: %s: no API key: set OPENAI_API_KEY (for a local OpenAI-compatible server that checks no key, any value)", spec)
		}
		base, err := baseURL(spec, first(cfg.BaseURL, getenv("OPENAI_BASE_URL"), openai.DefaultBaseURL))
		if err != nil {
			return nil, err
		}
		inner := openai.New(name,
			option.WithAPIKey(key),
			option.WithBaseURL(base),
			option.WithHTTPClient(httpClient(cfg)),
			option.WithMaxRetries(0), // one retry policy: ours
		)
		return &providerModel{provider: provider, inner: inner, key: redactor(key)}, nil

	case ProviderGemini:
		key := first(cfg.APIKey, getenv("GEMINI_API_KEY"), getenv("GOOGLE_API_KEY"))
		if key == "" {
			return nil, fmt.Errorf("llm: %s: no API key: set GEMINI_API_KEY or GOOGLE_API_KEY", spec)
		}
		base, err := baseURL(spec, first(cfg.BaseURL, getenv("GOOGLE_GEMINI_BASE_URL"), DefaultGeminiBaseURL))
		if err != nil {
			return nil, err
		}
		inner, err := gemini.NewModel(ctx, name, &genai.ClientConfig{
			Backend:     genai.BackendGeminiAPI,
			APIKey:      key,
			HTTPClient:  httpClient(cfg),
			HTTPOptions: genai.HTTPOptions{BaseURL: base},
		})
		if err != nil {
			return nil, &redactedError{msg: redactor(key).redact(fmt.Sprintf("llm: %s: %v", spec, err)), err: err}
		}
		return &geminiModel{providerModel{provider: provider, inner: inner, key: redactor(key), needFinish: true}}, nil
	}
	return nil, fmt.Errorf("llm: model spec %q: unknown provider %q (known: %s)", spec, provider, strings.Join(Providers(), ", "))
}

func first(values ...string) string {
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

func baseURL(spec, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("llm: %s: base URL %q is not an http(s) URL", spec, raw)
	}
	return raw, nil
}

// httpClient copies the configured client with the retry transport around
// its transport.
func httpClient(cfg Config) *http.Client {
	c := &http.Client{}
	if cfg.HTTPClient != nil {
		*c = *cfg.HTTPClient
	}
	c.Transport = newRetryTransport(c.Transport, cfg.MaxRetries, cfg.MaxRetryWait)
	return c
}
