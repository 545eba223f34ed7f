package llm_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
)

func TestParseSpec(t *testing.T) {
	cases := []struct {
		spec, provider, model string
		ok                    bool
	}{
		{"openai:gpt-4.1", "openai", "gpt-4.1", true},
		{"gemini:gemini-2.5-flash", "gemini", "gemini-2.5-flash", true},
		{" OpenAI : gpt-4o-mini ", "openai", "gpt-4o-mini", true},
		{"openai:ft:gpt-4.1:acme::abc123", "openai", "ft:gpt-4.1:acme::abc123", true},
		{"openai:llama3:8b", "openai", "llama3:8b", true},
		{"mystery:model", "mystery", "model", true}, // New rejects it
		{"gpt-4.1", "", "", false},
		{"openai:", "", "", false},
		{":gpt-4.1", "", "", false},
		{"", "", "", false},
	}
	for _, tc := range cases {
		provider, model, err := llm.ParseSpec(tc.spec)
		if provider != tc.provider || model != tc.model || (err == nil) != tc.ok {
			t.Errorf("ParseSpec(%q) = %q, %q, %v", tc.spec, provider, model, err)
		}
	}
}

func TestProviders(t *testing.T) {
	if diff := cmp.Diff([]string{"gemini", "openai"}, llm.Providers()); diff != "" {
		t.Errorf("Providers() (-want +got):\n%s", diff)
	}
	llm.Providers()[0] = "changed"
	if llm.Providers()[0] != "gemini" {
		t.Error("Providers shares its slice")
	}
}

func TestNewErrors(t *testing.T) {
	noEnv := func(string) string { return "" }
	cases := []struct {
		spec string
		cfg  llm.Config
		want []string // substrings of the error
	}{
		{"anthropic:claude", llm.Config{APIKey: "k"}, []string{`unknown provider "anthropic"`, "gemini, openai"}},
		{"openai:", llm.Config{APIKey: "k"}, []string{"provider:model"}},
		{"gpt-4.1", llm.Config{APIKey: "k"}, []string{"provider:model"}},
		{"openai:gpt-4.1", llm.Config{Getenv: noEnv}, []string{"OPENAI_API_KEY"}},
		{"gemini:gemini-2.5-flash", llm.Config{Getenv: noEnv}, []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}},
		{"openai:gpt-4.1", llm.Config{APIKey: "k", BaseURL: "ftp://example.com"}, []string{"base URL"}},
		{"gemini:gemini-2.5-flash", llm.Config{APIKey: "k", BaseURL: "not a url"}, []string{"base URL"}},
	}
	for _, tc := range cases {
		m, err := llm.New(testCtx(t), tc.spec, tc.cfg)
		if err == nil {
			t.Errorf("New(%q) = %v, want an error", tc.spec, m.Name())
			continue
		}
		// Users read these: they name environment variables and flags,
		// never proctor's Go API.
		if strings.Contains(err.Error(), "Config.") {
			t.Errorf("New(%q) error %q names a Go field", tc.spec, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("New(%q) error %q does not mention %q", tc.spec, err, w)
			}
		}
	}
}

// TestNewFromEnvironment checks keys and base URLs come from the
// environment when Config leaves them empty, in the documented order.
func TestNewFromEnvironment(t *testing.T) {
	cases := []struct {
		provider string
		env      map[string]string
		wantKey  string
	}{
		{"openai", map[string]string{"OPENAI_API_KEY": "env-openai"}, "env-openai"},
		{"gemini", map[string]string{"GEMINI_API_KEY": "env-gemini", "GOOGLE_API_KEY": "env-google"}, "env-gemini"},
		{"gemini", map[string]string{"GOOGLE_API_KEY": "env-google"}, "env-google"},
	}
	for _, tc := range cases {
		var p fakeProvider
		for _, fp := range fakeProviders() {
			if fp.name == tc.provider {
				p = fp
			}
		}
		srv := p.start(t, llmtest.Sequence(llmtest.Reply{Text: "from env"}))
		env := map[string]string{"OPENAI_BASE_URL": srv.URL, "GOOGLE_GEMINI_BASE_URL": srv.URL}
		for k, v := range tc.env {
			env[k] = v
		}
		m, err := llm.New(testCtx(t), tc.provider+":"+p.model, llm.Config{Getenv: func(k string) string { return env[k] }})
		if err != nil {
			t.Fatal(err)
		}
		if m.Name() != p.model {
			t.Errorf("Name() = %q, want %q", m.Name(), p.model)
		}
		if r := generate(testCtx(t), m, userRequest("hi"), false); r.err != nil || text(r.final) != "from env" {
			t.Fatalf("%s: %q %v", tc.provider, text(r.final), r.err)
		}
		if got := p.key(srv.Requests()[0].Header); got != tc.wantKey {
			t.Errorf("%s with %v sent key %q, want %q", tc.provider, tc.env, got, tc.wantKey)
		}
	}
}

type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// TestNewUsesHTTPClient checks the configured client carries the calls and
// is not modified.
func TestNewUsesHTTPClient(t *testing.T) {
	for _, p := range fakeProviders() {
		srv := p.start(t, llmtest.Sequence(llmtest.Reply{Status: 503}, llmtest.Reply{Text: "ok"}))
		ct := &countingTransport{}
		client := &http.Client{Transport: ct}
		m := newModel(t, p, srv, llm.Config{HTTPClient: client})
		if r := generate(testCtx(t), m, userRequest("hi"), false); r.err != nil {
			t.Fatal(r.err)
		}
		if n := ct.n.Load(); n != 2 {
			t.Errorf("%s: the client's transport carried %d requests, want 2", p.name, n)
		}
		if client.Transport != ct {
			t.Errorf("%s: New modified the caller's client", p.name)
		}
	}
}
