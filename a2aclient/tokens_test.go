package a2aclient

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

// usageStyles are the documented ways agents report usage, each meaning 12
// input and 34 output tokens.
var usageStyles = []struct {
	name string
	meta string
}{
	{"usage input/output", `{"usage": {"input_tokens": 12, "output_tokens": 34}}`},
	{"usage prompt/completion", `{"usage": {"prompt_tokens": 12, "completion_tokens": 34, "total_tokens": 46}}`},
	{"token_usage input/output", `{"token_usage": {"input_tokens": 12, "output_tokens": 34}}`},
	{"token_usage prompt/completion", `{"token_usage": {"prompt_tokens": 12, "completion_tokens": 34}}`},
	{"adk camelCase", `{"adk_usage_metadata": {"promptTokenCount": 12, "candidatesTokenCount": 34, "totalTokenCount": 46}}`},
	{"adk snake_case", `{"adk_usage_metadata": {"prompt_token_count": 12, "candidates_token_count": 34}}`},
	{"usage_metadata", `{"usage_metadata": {"prompt_token_count": 12, "candidates_token_count": 34}}`},
	{"usageMetadata", `{"usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 34}}`},
	{"beside other metadata", `{"trace_id": "abc", "usage": {"input_tokens": 12, "output_tokens": 34}}`},
	{"AI SDK camelCase", `{"usage": {"inputTokens": 12, "outputTokens": 34, "totalTokens": 46}}`},
	{"VoltAgent", `{"finishReason": "stop", "usage": {"promptTokens": 12, "completionTokens": 34, "totalTokens": 46}}`},
	{"Mastra", `{"execution": {"toolCalls": [], "usage": {"inputTokens": 12, "outputTokens": 34, "totalTokens": 46}, "finishReason": "stop"}}`},
}

func TestReportedTokensFromServer(t *testing.T) {
	for _, st := range usageStyles {
		t.Run(st.name, func(t *testing.T) {
			meta := mustJSON(t, st.meta).(map[string]any)
			srv := startExecutor(t, func(_ context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
				m := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("a reply of some length"))
				m.ContextID, m.Metadata = ec.ContextID, meta
				yield(m, nil)
			})
			resp, err := say(t, dial(t, srv.URL).NewConversation(), "a question")
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			m := resp.Metrics
			if m.InputTokens != 12 || m.OutputTokens != 34 || m.TokensEstimated {
				t.Errorf("tokens %d in / %d out, estimated %v; want 12 / 34 reported", m.InputTokens, m.OutputTokens, m.TokensEstimated)
			}
		})
	}
}

// TestReportedTokensInTasks puts usage wherever a task can carry metadata.
func TestReportedTokensInTasks(t *testing.T) {
	const usage = `{"usage": {"input_tokens": 12, "output_tokens": 34}}`
	tests := []struct {
		name   string
		result string
	}{
		{"task metadata", `{"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}, "metadata": ` + usage + `,
			"artifacts": [{"artifactId": "a", "parts": [{"text": "x"}]}]}}`},
		{"artifact metadata", `{"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"},
			"artifacts": [{"artifactId": "a", "parts": [{"text": "x"}], "metadata": ` + usage + `}]}}`},
		{"status message metadata", `{"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED",
			"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "x"}], "metadata": ` + usage + `}}}}`},
		{"history message metadata", `{"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"},
			"history": [{"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "x"}], "metadata": ` + usage + `}]}}`},
		{"0.3 message metadata", `{"kind": "message", "role": "agent", "parts": [{"kind": "text", "text": "x"}], "metadata": ` + usage + `}`},
		{"0.3 task metadata", `{"kind": "task", "id": "t", "status": {"state": "completed"}, "metadata": ` + usage + `,
			"artifacts": [{"parts": [{"kind": "text", "text": "x"}]}]}`},
		{"0.3 artifact metadata", `{"kind": "task", "id": "t", "status": {"state": "completed"},
			"artifacts": [{"parts": [{"kind": "text", "text": "x"}], "metadata": ` + usage + `}]}`},
		{"0.3 status message metadata", `{"kind": "task", "id": "t", "status": {"state": "completed",
			"message": {"kind": "message", "role": "agent", "parts": [{"kind": "text", "text": "x"}], "metadata": ` + usage + `}}}`},
		{"0.3 history message metadata", `{"kind": "task", "id": "t", "status": {"state": "completed"},
			"history": [{"kind": "message", "role": "agent", "parts": [{"kind": "text", "text": "x"}], "metadata": ` + usage + `}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			result := mustJSON(t, tt.result)
			srv := agenttest.RawResultAgent(t, func(string) any { return result })
			resp, err := say(t, dial(t, srv.URL).NewConversation(), "q")
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			if partsText(resp.Parts) != "x" {
				t.Fatalf("reply %q, want x", partsText(resp.Parts))
			}
			m := resp.Metrics
			if m.InputTokens != 12 || m.OutputTokens != 34 || m.TokensEstimated {
				t.Errorf("tokens %d in / %d out, estimated %v; want 12 / 34 reported", m.InputTokens, m.OutputTokens, m.TokensEstimated)
			}
		})
	}
}

func TestEstimatedTokens(t *testing.T) {
	reply := strings.Repeat("The agent's answer is long enough. ", 10)
	srv := agenttest.Start(t, func(context.Context, string, string) string { return reply })
	sent := "Please book me a flight to Zürich 🛫, tomorrow morning."
	resp, err := say(t, dial(t, srv.URL).NewConversation(), sent)
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	m := resp.Metrics
	if !m.TokensEstimated {
		t.Error("TokensEstimated = false without reported usage")
	}
	for _, c := range []struct {
		name string
		got  int64
		text string
	}{{"input", m.InputTokens, sent}, {"output", m.OutputTokens, reply}} {
		chars := utf8.RuneCountInString(c.text)
		if lo, hi := int64(chars/4), int64(chars/4+1); c.got < lo || c.got > hi {
			t.Errorf("%s tokens = %d for %d characters, want about chars/4 (%d..%d)", c.name, c.got, chars, lo, hi)
		}
		if c.got != EstimateTokens(c.text) {
			t.Errorf("%s tokens = %d, EstimateTokens says %d", c.name, c.got, EstimateTokens(c.text))
		}
	}
}

func TestEstimateTokens(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int64
	}{
		{"", 0}, {"a", 1}, {"abcd", 1}, {"abcde", 2}, {strings.Repeat("x", 400), 100},
		{"日本語です", 2}, // runes, not bytes
	} {
		if got := EstimateTokens(tt.s); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
	// The estimate of parts is the estimate of their text.
	parts := []*a2a.Part{a2a.NewTextPart("hello"), a2a.NewDataPart(map[string]any{"k": "v"}), a2a.NewTextPart("wörld")}
	if got, want := estimatePartTokens(parts), EstimateTokens(PartsText(parts)); got != want {
		t.Errorf("estimatePartTokens = %d, EstimateTokens(PartsText) = %d", got, want)
	}
}

func TestReportedUsage(t *testing.T) {
	tests := []struct {
		name string
		meta map[string]any
		want Usage
		ok   bool
	}{
		{name: "nil", meta: nil},
		{name: "empty", meta: map[string]any{}},
		{name: "unrelated", meta: map[string]any{"foo": map[string]any{"input_tokens": 1.0}}},
		{name: "usage not an object", meta: map[string]any{"usage": "12 in, 34 out"}},
		{name: "usage empty", meta: map[string]any{"usage": map[string]any{}}},
		{name: "negative", meta: map[string]any{"usage": map[string]any{"input_tokens": -1.0, "output_tokens": 5.0}}},
		{name: "negative output", meta: map[string]any{"usage": map[string]any{"input_tokens": 1.0, "output_tokens": -5.0}}},
		{name: "strings", meta: map[string]any{"usage": map[string]any{"input_tokens": "12", "output_tokens": "34"}}},
		{name: "one string", meta: map[string]any{"usage": map[string]any{"input_tokens": 12.0, "output_tokens": "34"}}},
		{name: "NaN", meta: map[string]any{"usage": map[string]any{"input_tokens": math.NaN(), "output_tokens": 3.0}}},
		{name: "infinity", meta: map[string]any{"token_usage": map[string]any{"prompt_tokens": math.Inf(1), "completion_tokens": 3.0}}},
		{name: "fraction", meta: map[string]any{"usage": map[string]any{"input_tokens": 1.5, "output_tokens": 3.0}}},
		{name: "huge", meta: map[string]any{"usage": map[string]any{"input_tokens": 1e300, "output_tokens": 3.0}}},
		{name: "bools", meta: map[string]any{"usage": map[string]any{"input_tokens": true, "output_tokens": false}}},
		{name: "nested objects", meta: map[string]any{"usage": map[string]any{"input_tokens": map[string]any{"n": 1.0}, "output_tokens": []any{2.0}}}},
		{name: "negative int", meta: map[string]any{"usage": map[string]any{"input_tokens": -3, "output_tokens": 4}}},
		{name: "both null", meta: map[string]any{"usage": map[string]any{"input_tokens": nil, "output_tokens": nil}}},
		{name: "adk strings", meta: map[string]any{"adk_usage_metadata": map[string]any{"promptTokenCount": "a", "candidatesTokenCount": "b"}}},

		{name: "float64", meta: map[string]any{"usage": map[string]any{"input_tokens": 12.0, "output_tokens": 34.0}}, want: Usage{12, 34}, ok: true},
		{name: "ints", meta: map[string]any{"usage": map[string]any{"input_tokens": 12, "output_tokens": int64(34)}}, want: Usage{12, 34}, ok: true},
		{name: "json.Number", meta: map[string]any{"usage": map[string]any{"input_tokens": json.Number("12"), "output_tokens": json.Number("34")}}, want: Usage{12, 34}, ok: true},
		{name: "zeros", meta: map[string]any{"usage": map[string]any{"input_tokens": 0.0, "output_tokens": 0.0}}, want: Usage{0, 0}, ok: true},
		// protobuf JSON leaves zero counts out
		{name: "adk without candidates", meta: map[string]any{"adk_usage_metadata": map[string]any{"promptTokenCount": 7.0}}, want: Usage{7, 0}, ok: true},
		{name: "output only", meta: map[string]any{"usage": map[string]any{"output_tokens": 9.0}}, want: Usage{0, 9}, ok: true},
		{name: "null output", meta: map[string]any{"usage": map[string]any{"input_tokens": 5.0, "output_tokens": nil}}, want: Usage{5, 0}, ok: true},
		// A broken pair does not hide a good one.
		{name: "bad input naming, good openai naming", meta: map[string]any{"usage": map[string]any{"input_tokens": "x", "prompt_tokens": 3.0, "completion_tokens": 4.0}}, want: Usage{3, 4}, ok: true},
		{name: "bad usage, good token_usage", meta: map[string]any{"usage": map[string]any{"input_tokens": -1.0}, "token_usage": map[string]any{"input_tokens": 1.0, "output_tokens": 2.0}}, want: Usage{1, 2}, ok: true},
		// What the frameworks send, as they send it.
		{name: "VoltAgent", meta: map[string]any{"finishReason": "stop", "usage": map[string]any{"promptTokens": 10.0, "completionTokens": 5.0, "totalTokens": 15.0, "cachedInputTokens": 0.0, "reasoningTokens": 0.0}}, want: Usage{10, 5}, ok: true},
		{name: "Mastra", meta: map[string]any{"resourceId": "refuse", "execution": map[string]any{"toolCalls": []any{}, "usage": map[string]any{"inputTokens": 10.0, "outputTokens": 5.0, "totalTokens": 15.0, "raw": map[string]any{"inputTokens": map[string]any{"total": 10.0}}}}}, want: Usage{10, 5}, ok: true},
		{name: "AI SDK usage", meta: map[string]any{"usage": map[string]any{"inputTokens": 3.0, "outputTokens": 4.0}}, want: Usage{3, 4}, ok: true},
		{name: "execution not an object", meta: map[string]any{"execution": "done"}},
		{name: "execution without usage", meta: map[string]any{"execution": map[string]any{"inputTokens": 3.0}}},
		{name: "AI SDK v5 object counts", meta: map[string]any{"usage": map[string]any{"inputTokens": map[string]any{"total": 10.0}, "outputTokens": map[string]any{"total": 5.0}}}},
		// snake_case is tried before camelCase under the same key.
		{name: "both namings", meta: map[string]any{"usage": map[string]any{"input_tokens": 1.0, "output_tokens": 2.0, "inputTokens": 9.0, "outputTokens": 9.0}}, want: Usage{1, 2}, ok: true},
		{name: "usage wins over execution.usage", meta: map[string]any{"usage": map[string]any{"promptTokens": 1.0}, "execution": map[string]any{"usage": map[string]any{"inputTokens": 9.0}}}, want: Usage{1, 0}, ok: true},
		{name: "usage wins over adk", meta: map[string]any{"usage": map[string]any{"input_tokens": 1.0, "output_tokens": 2.0}, "adk_usage_metadata": map[string]any{"promptTokenCount": 9.0, "candidatesTokenCount": 9.0}}, want: Usage{1, 2}, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ReportedUsage(tt.meta)
			if ok != tt.ok || got != tt.want {
				t.Errorf("ReportedUsage(%v) = %+v, %v; want %+v, %v", tt.meta, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestMalformedUsageFallsBackToEstimate: an agent reporting garbage usage
// gets the estimate, flagged as such, not zeros presented as real.
func TestMalformedUsageFallsBackToEstimate(t *testing.T) {
	result := mustJSON(t, `{"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "twelve chars"}],
		"metadata": {"usage": {"input_tokens": "many", "output_tokens": -3}}}}`)
	srv := agenttest.RawResultAgent(t, func(string) any { return result })
	resp, err := say(t, dial(t, srv.URL).NewConversation(), "abcdefgh")
	if err != nil {
		t.Fatal(err)
	}
	m := resp.Metrics
	if !m.TokensEstimated || m.InputTokens != 2 || m.OutputTokens != 3 {
		t.Errorf("tokens %d in / %d out, estimated %v; want the estimate 2 / 3", m.InputTokens, m.OutputTokens, m.TokensEstimated)
	}
}
