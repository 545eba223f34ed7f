package llm_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/adk/model"

	"github.com/proctor-eval/proctor/internal/llmtest"
	"github.com/proctor-eval/proctor/llm"
)

// TestRetryAfter checks that a 429 is retried after the wait the server
// asked for, in seconds (Retry-After) or milliseconds (retry-after-ms).
func TestRetryAfter(t *testing.T) {
	cases := []struct {
		retryAfter string
		wait       time.Duration
	}{
		{"1", time.Second},
		{"300ms", 300 * time.Millisecond},
	}
	for _, p := range fakeProviders() {
		for _, tc := range cases {
			for _, stream := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/stream=%v", p.name, tc.retryAfter, stream), func(t *testing.T) {
					t.Parallel() // they mostly sleep
					srv := p.start(t, llmtest.Sequence(
						llmtest.Reply{Status: 429, RetryAfter: tc.retryAfter, ErrorMessage: "slow down"},
						llmtest.Reply{Text: "made it", InputTokens: 4, OutputTokens: 2},
					))
					m := newModel(t, p, srv, llm.Config{MaxRetryWait: 10 * time.Second})
					start := time.Now()
					r := generate(testCtx(t), m, userRequest("hi"), stream)
					elapsed := time.Since(start)
					if r.err != nil {
						t.Fatal(r.err)
					}
					if text(r.final) != "made it" || r.final.UsageMetadata.TotalTokenCount != 6 {
						t.Errorf("final %q usage %+v", text(r.final), r.final.UsageMetadata)
					}
					if elapsed < tc.wait {
						t.Errorf("retried after %v, before the %v the server asked for", elapsed, tc.wait)
					}
					if elapsed > tc.wait+5*time.Second {
						t.Errorf("retried after %v, long after the %v asked for", elapsed, tc.wait)
					}
					if n := len(srv.Requests()); n != 2 {
						t.Errorf("%d requests, want 2", n)
					}
				})
			}
		}
	}
}

// TestRetryWaitCap checks MaxRetryWait caps a long Retry-After.
func TestRetryWaitCap(t *testing.T) {
	for _, p := range fakeProviders() {
		t.Run(p.name, func(t *testing.T) {
			srv := p.start(t, llmtest.Sequence(
				llmtest.Reply{Status: 503, RetryAfter: "3600"},
				llmtest.Reply{Text: "ok"},
			))
			m := newModel(t, p, srv, llm.Config{MaxRetryWait: 20 * time.Millisecond})
			start := time.Now()
			if r := generate(testCtx(t), m, userRequest("hi"), false); r.err != nil {
				t.Fatal(r.err)
			}
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("waited %v despite MaxRetryWait 20ms", elapsed)
			}
		})
	}
}

// TestServerErrorStorm checks that persistent 5xx replies end in a
// *ProviderError after exactly MaxRetries+1 attempts, carrying the status
// and the provider's message, and that non-retryable statuses and
// MaxRetries < 0 make one attempt.
func TestServerErrorStorm(t *testing.T) {
	cases := []struct {
		status, maxRetries, attempts int
	}{
		{500, 3, 4},
		{502, 1, 2},
		{503, 0, 5}, // 0 means the default, 4 retries
		{500, -1, 1},
		{400, 3, 1},
		{401, 3, 1},
	}
	for _, p := range fakeProviders() {
		for _, tc := range cases {
			for _, stream := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%d/retries=%d/stream=%v", p.name, tc.status, tc.maxRetries, stream), func(t *testing.T) {
					srv := p.start(t, func(llmtest.Request) llmtest.Reply {
						return llmtest.Reply{Status: tc.status, ErrorMessage: "the server is on fire"}
					})
					m := newModel(t, p, srv, llm.Config{MaxRetries: tc.maxRetries, MaxRetryWait: time.Millisecond})
					r := generate(testCtx(t), m, userRequest("hi"), stream)
					var pe *llm.ProviderError
					if !errors.As(r.err, &pe) {
						t.Fatalf("err = %T %v, want *ProviderError", r.err, r.err)
					}
					if r.final != nil || len(r.partials) > 0 {
						t.Errorf("responses alongside the error: %+v %+v", r.final, r.partials)
					}
					want := llm.ProviderError{Provider: p.name, Status: tc.status, Message: "the server is on fire", Attempts: tc.attempts}
					if *pe != want {
						t.Errorf("error = %+v, want %+v", *pe, want)
					}
					if n := len(srv.Requests()); n != tc.attempts {
						t.Errorf("server saw %d requests, want %d", n, tc.attempts)
					}
					if !strings.Contains(pe.Error(), fmt.Sprint(tc.status)) || !strings.Contains(pe.Error(), "on fire") {
						t.Errorf("Error() = %q", pe.Error())
					}
					checkNoKey(t, r.err)
				})
			}
		}
	}
}

// TestMalformedReplies feeds each provider broken replies, unstreamed and
// mid-stream: each must end in a returned *ProviderError, never a panic or
// a quietly short answer.
func TestMalformedReplies(t *testing.T) {
	openaiChunk := `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}` + "\n\n"
	geminiChunk := `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]},"index":0}]}` + "\r\n\r\n"
	cases := []struct {
		name           string
		stream         bool
		openai, gemini string
	}{
		{"not json", false, `{"choices": [`, `{"candidates": [`},
		{"html", false, `<html>502 Bad Gateway</html>`, `<html>502 Bad Gateway</html>`},
		{"blank body", false, " ", " "},
		{"wrong types", false, `{"choices":{}}`, `{"candidates":{}}`}, // genai panics on this one
		{"wrong types mid-stream", true, "data: {\"choices\":{}}\n\n", "data: {\"candidates\":{}}\r\n\r\n"},
		{"no choices", false, `{"id":"x","object":"chat.completion","model":"m","choices":[]}`, `{"candidates":[]}`},
		{"error object", false, `{"error":{"message":"overloaded"}}`, `{"error":{"code":500,"message":"overloaded"}}`},
		{"malformed mid-stream", true, openaiChunk + "data: {\"choices\": [\n\n", geminiChunk + "data: {\"candidates\": [\r\n\r\n"},
		{"error event mid-stream", true, openaiChunk + `data: {"error":{"message":"overloaded"}}` + "\n\n", geminiChunk + `{"error":{"code":500,"message":"overloaded","status":"INTERNAL"}}` + "\r\n\r\n"},
		{"truncated stream", true, openaiChunk, geminiChunk},
		{"blank stream", true, " ", " "},
		{"garbage stream", true, "\x00\xff\xfe not sse at all", "\x00\xff\xfe not sse at all"},
		{"stream of empty choices", true, `data: {"id":"x","choices":[]}` + "\n\ndata: [DONE]\n\n", `data: {"candidates":[]}` + "\r\n\r\n"},
	}
	for _, p := range fakeProviders() {
		for _, tc := range cases {
			t.Run(p.name+"/"+tc.name, func(t *testing.T) {
				raw := tc.openai
				if p.name == "gemini" {
					raw = tc.gemini
				}
				srv := p.start(t, func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Raw: raw} })
				m := newModel(t, p, srv, llm.Config{})
				r := generate(testCtx(t), m, userRequest("hi"), tc.stream)
				if r.err == nil {
					t.Fatalf("no error; final %+v", r.final)
				}
				if r.final != nil {
					t.Errorf("a final response alongside the error: %+v", r.final)
				}
				var pe *llm.ProviderError
				if !errors.As(r.err, &pe) || pe.Status != 200 || pe.Attempts != 1 || pe.Message == "" {
					t.Errorf("err = %#v (%v), want a *ProviderError for HTTP 200 after 1 attempt", r.err, r.err)
				}
				if strings.Contains(tc.name, "error") && !strings.Contains(r.err.Error(), "overloaded") {
					t.Errorf("error %q does not carry the provider's message", r.err)
				}
				t.Logf("%v", r.err)
			})
		}
	}
}

// TestMalformedToolArguments checks that a tool call whose arguments are
// not a JSON object is an error response, as Gemini reports one, not a
// panic or a call with no arguments.
func TestMalformedToolArguments(t *testing.T) {
	body := `{"id":"x","object":"chat.completion","model":"gpt-test","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_order","arguments":"{\"order_id\": \"A1"}}]}}],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}`
	stream := `data: {"id":"x","object":"chat.completion.chunk","model":"gpt-test","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"get_order","arguments":"[1,"}}]},"finish_reason":null}]}` + "\n\n" +
		`data: {"id":"x","object":"chat.completion.chunk","model":"gpt-test","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n" +
		"data: [DONE]\n\n"
	p := fakeProviders()[0]
	for _, tc := range []struct {
		stream bool
		raw    string
	}{{false, body}, {true, stream}} {
		t.Run(fmt.Sprintf("stream=%v", tc.stream), func(t *testing.T) {
			srv := p.start(t, func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Raw: tc.raw} })
			r := generate(testCtx(t), newModel(t, p, srv, llm.Config{}), userRequest("hi"), tc.stream)
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.final.ErrorCode != "MALFORMED_FUNCTION_CALL" || !strings.Contains(r.final.ErrorMessage, "get_order") || len(calls(r.final)) != 0 {
				t.Errorf("final = code %q message %q calls %v", r.final.ErrorCode, r.final.ErrorMessage, calls(r.final))
			}
		})
	}
}

// TestOversizedReply checks the bound on what a hostile server can make
// the client hold.
func TestOversizedReply(t *testing.T) {
	huge := `{"choices":[{"index":0,"message":{"role":"assistant","content":"` + strings.Repeat("a", 9<<20) + `"}}]}`
	for _, p := range fakeProviders() {
		t.Run(p.name, func(t *testing.T) {
			srv := p.start(t, func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Raw: huge} })
			r := generate(testCtx(t), newModel(t, p, srv, llm.Config{}), userRequest("hi"), false)
			var pe *llm.ProviderError
			if !errors.As(r.err, &pe) || !strings.Contains(pe.Message, "exceeds") {
				t.Errorf("err = %v, want a ProviderError about the size", r.err)
			}
		})
	}
}

// TestConnectionFailures checks refused and reset connections are retried
// and, persisting, end in a *ProviderError with status 0.
func TestConnectionFailures(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		_ = ln.Close()
		for _, p := range fakeProviders() {
			m, err := llm.New(testCtx(t), p.name+":"+p.model, llm.Config{
				APIKey: testKey, BaseURL: "http://" + addr + "/v1", MaxRetries: 2, MaxRetryWait: time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			r := generate(testCtx(t), m, userRequest("hi"), false)
			var pe *llm.ProviderError
			if !errors.As(r.err, &pe) || pe.Status != 0 || pe.Attempts != 3 {
				t.Errorf("%s: err = %#v, want a ProviderError with status 0 after 3 attempts", p.name, r.err)
			}
			checkNoKey(t, r.err)
		}
	})
	t.Run("reset then fine", func(t *testing.T) {
		for _, p := range fakeProviders() {
			fake := p.start(t, llmtest.Sequence(llmtest.Reply{Text: "after the reset"}))
			var resets atomic.Int32
			proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if resets.Add(1) <= 2 {
					conn, _, err := w.(http.Hijacker).Hijack()
					if err == nil {
						if tcp, ok := conn.(*net.TCPConn); ok {
							_ = tcp.SetLinger(0) // close with RST
						}
						_ = conn.Close()
					}
					return
				}
				(&httpProxy{target: fake.URL}).ServeHTTP(w, r)
			}))
			t.Cleanup(proxy.Close)
			base := proxy.URL + strings.TrimPrefix(fake.URL, strings.SplitN(fake.URL, "/v1", 2)[0])
			m, err := llm.New(testCtx(t), p.name+":"+p.model, llm.Config{APIKey: testKey, BaseURL: base, MaxRetryWait: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			r := generate(testCtx(t), m, userRequest("hi"), true)
			if r.err != nil || text(r.final) != "after the reset" {
				t.Errorf("%s: %q, %v", p.name, text(r.final), r.err)
			}
			if n := resets.Load(); n != 3 {
				t.Errorf("%s: %d connections, want 2 reset and 1 served", p.name, n)
			}
		}
	})
}

// httpProxy forwards a request to target's host, keeping its path.
type httpProxy struct{ target string }

func (p *httpProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := strings.TrimPrefix(strings.TrimPrefix(p.target, "http://"), "https://")
	host, _, _ = strings.Cut(host, "/")
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host, out.Host = "http", host, host
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n])
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

// TestCancelledDuringWait checks a cancelled context ends a retry wait at
// once, with an error that is the context's, not a ProviderError.
func TestCancelledDuringWait(t *testing.T) {
	for _, p := range fakeProviders() {
		t.Run(p.name, func(t *testing.T) {
			srv := p.start(t, func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: 429, RetryAfter: "30"} })
			m := newModel(t, p, srv, llm.Config{MaxRetryWait: time.Minute})
			ctx, cancel := context.WithTimeout(testCtx(t), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			r := generate(ctx, m, userRequest("hi"), false)
			if !errors.Is(r.err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want the context's deadline", r.err)
			}
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("took %v to notice the cancellation", elapsed)
			}
		})
	}
}

// TestNeverRetryAStartedStream checks that once a 200 stream's headers
// arrived, a broken stream is an error, not a replay.
func TestNeverRetryAStartedStream(t *testing.T) {
	for _, p := range fakeProviders() {
		t.Run(p.name, func(t *testing.T) {
			var calls atomic.Int32
			m := rawModel(t, p, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				_, _ = io.WriteString(w, "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hel\"}]}}]}\n\n")
				w.(http.Flusher).Flush()
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					if tcp, ok := conn.(*net.TCPConn); ok {
						_ = tcp.SetLinger(0)
					}
					_ = conn.Close()
				}
			})
			r := generate(testCtx(t), m, userRequest("hi"), true)
			if r.err == nil || r.final != nil {
				t.Errorf("final %+v err %v, want an error", r.final, r.err)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

// rawModel returns the provider's model pointed at a server run by h.
func rawModel(t *testing.T, p fakeProvider, h http.HandlerFunc) model.LLM {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	base := srv.URL
	if p.name == "openai" {
		base += "/v1"
	}
	m, err := llm.New(testCtx(t), p.name+":"+p.model, llm.Config{APIKey: testKey, BaseURL: base, MaxRetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestEmptyBody checks a 200 with no body at all is an error.
func TestEmptyBody(t *testing.T) {
	for _, p := range fakeProviders() {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", p.name, stream), func(t *testing.T) {
				m := rawModel(t, p, func(w http.ResponseWriter, r *http.Request) {
					if stream {
						w.Header().Set("Content-Type", "text/event-stream")
					} else {
						w.Header().Set("Content-Type", "application/json")
					}
					w.WriteHeader(http.StatusOK)
				})
				r := generate(testCtx(t), m, userRequest("hi"), stream)
				var pe *llm.ProviderError
				if !errors.As(r.err, &pe) || pe.Status != 200 || r.final != nil {
					t.Errorf("final %+v, err %v: want a ProviderError", r.final, r.err)
				}
			})
		}
	}
}
