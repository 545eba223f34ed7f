package a2aclient

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// rawSeeds are JSON-RPC results in every shape fromRaw reads, in 1.0 and 0.3
// field styles, plus oddities.
var rawSeeds = []string{
	// 1.0
	`{"message": {"messageId": "m", "contextId": "c", "role": "ROLE_AGENT", "parts": [{"text": "hi"}, {"data": {"k": [1, 2]}}]}}`,
	`{"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}, "artifacts": [{"artifactId": "a", "parts": [{"text": "art"}], "metadata": {"usage": {"input_tokens": 1, "output_tokens": 2}}}]}}`,
	`{"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_INPUT_REQUIRED", "message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "name?"}]}}}}`,
	`{"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}, "history": [{"role": "ROLE_USER", "parts": [{"text": "q"}]}, {"role": "ROLE_AGENT", "parts": [{"text": "a"}]}]}}`,
	`{"task": {"id": "t", "status": {"state": "TASK_STATE_WORKING"}}}`,
	`{"task": {"task": {"task": {"task": {"task": {"task": {"parts": ["deep"]}}}}}}}`,
	// 0.3
	`{"kind": "message", "messageId": "m", "role": "agent", "parts": [{"kind": "text", "text": "hi"}, {"kind": "data", "data": {"data": {"x": 1}}}]}`,
	`{"kind": "task", "id": "t", "contextId": "c", "status": {"state": "completed"}, "artifacts": [{"parts": [{"kind": "text", "text": "art"}, {"kind": "file", "file": {"uri": "u"}}]}]}`,
	`{"kind": "task", "id": "t", "status": {"state": "input-required", "message": {"kind": "message", "role": "agent", "parts": [{"kind": "text", "text": "?"}]}}}`,
	`{"kind": "task", "id": "t", "status": {"state": "cancelled"}, "history": [{"kind": "message", "role": "agent", "parts": [{"kind": "text", "text": "h"}]}, {"role": "user", "parts": []}]}`,
	`{"message": {"kind": "message", "role": "agent", "parts": [{"kind": "text", "text": "wrapped"}]}}`,
	`{"kind": "task", "id": "t", "status": {"state": "unknown"}}`,
	// oddities
	`"bare string"`,
	`"   "`,
	`[{"text": "array"}]`,
	`null`, `42`, `{}`, `{"parts": null}`, `{"parts": [null, 1, "s", {"data": null}, {"data": {"data": null}}, {"text": 5}]}`,
	`{"message": {"message": {"parts": [{"text": "double wrapped"}]}}}`,
	`{"status": "not an object", "artifacts": "nope", "history": {"also": "nope"}}`,
	`{"status": {"state": 7, "message": {"parts": "x"}}, "artifacts": [null, 3, {"parts": [{"text": "ok"}]}]}`,
}

func FuzzFromRaw(f *testing.F) {
	for _, s := range rawSeeds {
		f.Add([]byte(s))
	}
	shapes := map[Shape]bool{ShapeMessage: true, ShapeArtifacts: true, ShapeStatusMessage: true, ShapeHistory: true, ShapeWrapped: true, ShapeEmpty: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, ok := fromRaw(data)
		if !ok {
			if len(out.parts) != 0 || out.isTask {
				t.Fatalf("fromRaw failed but returned %+v", out)
			}
			return
		}
		if !shapes[out.shape] {
			t.Fatalf("unknown shape %q", out.shape)
		}
		if out.shape == ShapeEmpty && len(out.parts) > 0 {
			t.Fatalf("shape %q with %d parts", out.shape, len(out.parts))
		}
		if len(out.parts) > len(data) {
			t.Fatalf("%d parts from %d bytes", len(out.parts), len(data))
		}
		for i, p := range out.parts {
			if p == nil {
				t.Fatalf("part %d is nil", i)
			}
			switch c := p.Content.(type) {
			case a2a.Text:
			case a2a.Data:
				if c.Value == nil {
					t.Fatalf("part %d is a data part without data", i)
				}
			default:
				t.Fatalf("part %d is %T, want text or data", i, p.Content)
			}
		}
		// Bounded: the text proctor makes of the parts is within a small
		// factor of the input (JSON escaping and number formatting can grow
		// a value, never without bound).
		if text := PartsText(out.parts); len(text) > 8*len(data)+len(out.parts) {
			t.Fatalf("%d bytes of text from %d bytes of input", len(text), len(data))
		}
		if len(out.metadata) > len(data) {
			t.Fatalf("%d metadata maps from %d bytes", len(out.metadata), len(data))
		}
		if s := string(out.state); s != "" && !strings.HasPrefix(s, "TASK_STATE_") {
			t.Fatalf("state %q is not normalized", s)
		}
		if !out.isTask && (out.state != "" || out.taskID != "") {
			t.Fatalf("message with task fields %+v", out)
		}
		// The conversation code reads these without checks.
		_ = summarize(out.parts)
		_ = estimatePartTokens(out.parts)
		_ = turnOver(out.state)
		for _, m := range out.metadata {
			_, _ = ReportedUsage(m)
		}
	})
}

func FuzzReportedUsage(f *testing.F) {
	for _, st := range usageStyles {
		f.Add([]byte(st.meta))
	}
	for _, s := range []string{
		`{"usage": {"input_tokens": -1, "output_tokens": "x"}}`,
		`{"usage": {"input_tokens": 1e308, "output_tokens": 1.5}}`,
		`{"usage": {"input_tokens": null}}`,
		`{"token_usage": [1, 2]}`,
		`{"adk_usage_metadata": {"promptTokenCount": 9007199254740993}}`,
		`{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var meta map[string]any
		if err := json.Unmarshal(data, &meta); err != nil {
			return
		}
		u, ok := ReportedUsage(meta)
		if !ok {
			if u != (Usage{}) {
				t.Fatalf("not reported, but usage %+v", u)
			}
			return
		}
		if u.InputTokens < 0 || u.OutputTokens < 0 || u.InputTokens > maxCount || u.OutputTokens > maxCount {
			t.Fatalf("implausible usage %+v", u)
		}
		// Whatever was reported is in the metadata, under one of the keys.
		found := false
		execution, _ := meta["execution"].(map[string]any)
		for _, m := range []any{meta["usage"], meta["token_usage"], execution["usage"], meta["adk_usage_metadata"], meta["usage_metadata"], meta["usageMetadata"]} {
			m, _ := m.(map[string]any)
			for _, pair := range [][2]string{
				{"input_tokens", "output_tokens"}, {"prompt_tokens", "completion_tokens"}, {"inputTokens", "outputTokens"},
				{"promptTokens", "completionTokens"}, {"promptTokenCount", "candidatesTokenCount"}, {"prompt_token_count", "candidates_token_count"},
			} {
				in, _ := m[pair[0]].(float64)
				out, _ := m[pair[1]].(float64)
				if (m[pair[0]] != nil || m[pair[1]] != nil) && int64(in) == u.InputTokens && int64(out) == u.OutputTokens {
					found = true
				}
			}
		}
		if !found {
			t.Fatalf("usage %+v is not in %s", u, data)
		}
		// Decoding is deterministic.
		if u2, ok2 := ReportedUsage(meta); u2 != u || !ok2 {
			t.Fatalf("second read %+v, %v differs from %+v", u2, ok2, u)
		}
	})
}

// FuzzRSFilter feeds arbitrary event streams through rsFilter, in one
// read and byte by byte: it must never panic, must give the same bytes
// either way, must drop nothing but record separators, must change no
// stream without them, and must leave no data line whose value starts with
// one.
func FuzzRSFilter(f *testing.F) {
	for _, s := range []string{
		"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"id\":\"t\",\"status\":{\"state\":\"working\"}}}\n\n",
		"data: \x1e{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"task\",\"id\":\"t\",\"status\":{}}}\n\n",
		"data:\x1e\x1e{\"taskId\":\"t\",\"artifact\":{}}\r\n\r\n",
		"event: x\ndata: \x1e\n: comment \x1e\ndata: [1,2]\rdata:  \x1e\n",
		"data: \x1e", "dat\x1ea: \x1e", "\x1e\x1e\x1e",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		read := func(r io.Reader) []byte {
			out, err := io.ReadAll(newRSFilter(io.NopCloser(r), &exchange{}))
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		out := read(bytes.NewReader(stream))
		if bytewise := read(iotest.OneByteReader(bytes.NewReader(stream))); !bytes.Equal(bytewise, out) {
			t.Fatalf("read byte by byte %q, at once %q", bytewise, out)
		}
		rs := string(rune(recordSeparator))
		if !bytes.Equal(bytes.ReplaceAll(out, []byte(rs), nil), bytes.ReplaceAll(stream, []byte(rs), nil)) {
			t.Fatalf("dropped more than record separators:\n in %q\nout %q", stream, out)
		}
		if !bytes.Contains(stream, []byte(rs)) && !bytes.Equal(out, stream) {
			t.Fatalf("changed a stream without record separators:\n in %q\nout %q", stream, out)
		}
		for line := range bytes.Lines(out) {
			value, ok := bytes.CutPrefix(line, []byte("data:"))
			if ok && bytes.HasPrefix(bytes.TrimPrefix(value, []byte(" ")), []byte(rs)) {
				t.Fatalf("data line %q still starts with a record separator", line)
			}
		}
	})
}
