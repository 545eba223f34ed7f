package llm_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/proctor-eval/proctor/llm"
	"google.golang.org/adk/model"
	"google.golang.org/genai"
)

// counting is a model.LLM that answers every call with a numbered text and
// reports usage; it counts its calls.
type counting struct {
	calls atomic.Int64
	fail  bool
}

func (c *counting) Name() string { return "fake-model" }

func (c *counting) GenerateContent(_ context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		n := c.calls.Add(1)
		if c.fail {
			yield(nil, errors.New("provider said no"))
			return
		}
		text := fmt.Sprintf("reply %d to %q", n, req.Contents[len(req.Contents)-1].Parts[0].Text)
		if stream && !yield(&model.LLMResponse{Content: genai.NewContentFromText(text[:3], genai.RoleModel), Partial: true}, nil) {
			return
		}
		yield(&model.LLMResponse{Content: genai.NewContentFromText(text, genai.RoleModel), TurnComplete: true,
			UsageMetadata: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 1000, CandidatesTokenCount: 500}}, nil)
	}
}

func ask(t *testing.T, ctx context.Context, m model.LLM, text string, stream bool) (string, error) {
	t.Helper()
	req := &model.LLMRequest{Contents: []*genai.Content{genai.NewContentFromText(text, genai.RoleUser)},
		Config: &genai.GenerateContentConfig{HTTPOptions: &genai.HTTPOptions{Headers: map[string][]string{"Authorization": {"Bearer sk-secret-123"}}}}}
	var out string
	for r, err := range m.GenerateContent(ctx, req, stream) {
		if err != nil {
			return out, err
		}
		if !r.Partial {
			out = r.Content.Parts[0].Text
		}
	}
	return out, nil
}

func TestCassetteRecordThenReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	rec, err := llm.OpenCassette(path, llm.ModeRecord)
	if err != nil {
		t.Fatal(err)
	}
	inner := &counting{}
	m := rec.Wrap(inner, "fake-model")
	ctxA := llm.WithCallKey(context.Background(), "task-1", "0", "user")
	ctxB := llm.WithCallKey(context.Background(), "task-1", "1", "user")
	var recorded []string
	for _, c := range []struct {
		ctx    context.Context
		text   string
		stream bool
	}{{ctxA, "hello", false}, {ctxB, "hello", true}, {ctxA, "hello", false}, {ctxA, "bye", true}} {
		s, err := ask(t, c.ctx, m, c.text, c.stream)
		if err != nil {
			t.Fatal(err)
		}
		recorded = append(recorded, s)
	}
	if err := rec.Save(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), "sk-secret-123") {
		t.Fatal("the cassette holds a credential from the request's HTTP options")
	}

	rep, err := llm.OpenCassette(path, llm.ModeReplay)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Len() != 4 {
		t.Fatalf("replay cassette has %d entries, want 4", rep.Len())
	}
	rm := rep.Wrap(nil, "fake-model")
	// Replayed in another order: each call finds its own reply by key,
	// request and occurrence.
	order := []int{3, 1, 0, 2}
	ctxs := []context.Context{ctxA, ctxB, ctxA, ctxA}
	texts := []string{"hello", "hello", "hello", "bye"}
	for _, i := range order {
		got, err := ask(t, ctxs[i], rm, texts[i], false)
		if err != nil {
			t.Fatal(err)
		}
		// Calls 0 and 2 are the same request under the same key: their
		// replies come back in occurrence order, whatever was asked between.
		if got != recorded[i] {
			t.Fatalf("out-of-order replay of call %d = %q, recorded %q", i, got, recorded[i])
		}
	}
	// Exact check in recording order on a fresh replay.
	rep2, _ := llm.OpenCassette(path, llm.ModeReplay)
	rm2 := rep2.Wrap(nil, "fake-model")
	for i := range recorded {
		got, err := ask(t, ctxs[i], rm2, texts[i], i%2 == 1)
		if err != nil {
			t.Fatal(err)
		}
		if got != recorded[i] {
			t.Fatalf("replay %d = %q, recorded %q", i, got, recorded[i])
		}
	}
	if inner.calls.Load() != 4 {
		t.Fatalf("the model was called %d times, want 4 (replays must not reach it)", inner.calls.Load())
	}

	_, err = ask(t, ctxA, rm2, "something new", false)
	if !errors.Is(err, llm.ErrCassetteMiss) || !strings.Contains(err.Error(), "task-1/0/user") || !strings.Contains(err.Error(), "something new") {
		t.Fatalf("a replay miss should be ErrCassetteMiss naming the call and its message, got %v", err)
	}
}

func TestCassetteReplaysErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	rec, _ := llm.OpenCassette(path, llm.ModeRecord)
	if _, err := ask(t, context.Background(), rec.Wrap(&counting{fail: true}, "m"), "x", false); err == nil {
		t.Fatal("want the model's error")
	}
	if err := rec.Save(); err != nil {
		t.Fatal(err)
	}
	rep, err := llm.OpenCassette(path, llm.ModeReplay)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ask(t, context.Background(), rep.Wrap(nil, "m"), "x", false); err == nil || !strings.Contains(err.Error(), "provider said no") {
		t.Fatalf("replay should return the recorded error, got %v", err)
	}
}

func TestOpenCassetteErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, path string
		mode       llm.Mode
		want       string
	}{
		{"missing file", filepath.Join(dir, "nope.json"), llm.ModeReplay, "no such file"},
		{"missing dir", filepath.Join(dir, "no", "c.json"), llm.ModeRecord, "does not exist"},
		{"bad mode", filepath.Join(dir, "c.json"), "rewind", "unknown mode"},
		{"garbage", write("g.json", "{not json"), llm.ModeReplay, "not a cassette"},
		{"wrong format", write("f.json", `{"proctor_llm_cassette": 9, "entries": []}`), llm.ModeReplay, "format 9"},
		{"empty entry", write("e.json", `{"proctor_llm_cassette": 1, "entries": [{"key":"k","request_sha256":"ab","n":0,"responses":[]}]}`), llm.ModeReplay, "neither"},
		{"null response", write("n.json", `{"proctor_llm_cassette": 1, "entries": [{"key":"k","request_sha256":"ab","n":0,"responses":[null]}]}`), llm.ModeReplay, "null response"},
		{"duplicate", write("d.json", `{"proctor_llm_cassette": 1, "entries": [{"key":"k","request_sha256":"ab","n":0,"error":"x"},{"key":"k","request_sha256":"ab","n":0,"error":"y"}]}`), llm.ModeReplay, "twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := llm.OpenCassette(tc.path, tc.mode)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func FuzzOpenCassette(f *testing.F) {
	f.Add([]byte(`{"proctor_llm_cassette": 1, "entries": [{"key":"k","request_sha256":"ab","n":0,"responses":[{"Content":{"role":"model","parts":[{"text":"hi"}]}}]}]}`))
	f.Add([]byte(`{"proctor_llm_cassette": 1, "entries": [null]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "c.json")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := llm.OpenCassette(p, llm.ModeReplay)
		if err != nil {
			return
		}
		m := c.Wrap(nil, "m")
		for range m.GenerateContent(llm.WithCallKey(context.Background(), "k"), &model.LLMRequest{}, false) {
		}
	})
}
