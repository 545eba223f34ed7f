package a2aclient

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

func TestPartsText(t *testing.T) {
	tests := []struct {
		name  string
		parts []*a2a.Part
		want  string
	}{
		{"none", nil, ""},
		{"text", []*a2a.Part{a2a.NewTextPart("a"), a2a.NewTextPart("b")}, "a\nb"},
		{"data as JSON", []*a2a.Part{a2a.NewDataPart(map[string]any{"name": "respond", "arguments": map[string]any{"x": 1}})}, `{"arguments":{"x":1},"name":"respond"}`},
		{"mixed", []*a2a.Part{a2a.NewTextPart("see:"), a2a.NewDataPart([]any{1, 2})}, "see:\n[1,2]"},
	}
	for _, tt := range tests {
		if got := PartsText(tt.parts); got != tt.want {
			t.Errorf("%s: PartsText = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestSummariesStayValidUTF8: error texts cut long agent messages; the cut
// must not split a character.
func TestSummariesStayValidUTF8(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("é", 400),       // 2-byte runes across the 500-byte cut
		"x" + strings.Repeat("日", 300), // 3-byte runes, offset by one
		strings.Repeat("🙂", 200),       // 4-byte runes
	} {
		sum := summarize([]*a2a.Part{a2a.NewTextPart(s)})
		if !utf8.ValidString(sum) || len(sum) > 500+len("…") || !strings.HasSuffix(sum, "…") {
			t.Errorf("summarize cut %q... into invalid or over-long text (%d bytes)", s[:8], len(sum))
		}
		line := firstLine(s)
		if !utf8.ValidString(line) || len(line) > 200+len("…") {
			t.Errorf("firstLine cut %q... into invalid or over-long text (%d bytes)", s[:8], len(line))
		}
	}
	if got := firstLine("one\ntwo"); got != "one" {
		t.Errorf("firstLine = %q", got)
	}
	if got := summarize([]*a2a.Part{a2a.NewTextPart("  \n ")}); got != "(no message)" {
		t.Errorf("summarize(blank) = %q", got)
	}
}

func TestNormalizeState(t *testing.T) {
	for in, want := range map[string]a2a.TaskState{
		"TASK_STATE_COMPLETED":      a2a.TaskStateCompleted,
		"completed":                 a2a.TaskStateCompleted,
		" Completed ":               a2a.TaskStateCompleted,
		"input-required":            a2a.TaskStateInputRequired,
		"TASK_STATE_INPUT_REQUIRED": a2a.TaskStateInputRequired,
		"auth-required":             a2a.TaskStateAuthRequired,
		"working":                   a2a.TaskStateWorking,
		"submitted":                 a2a.TaskStateSubmitted,
		"failed":                    a2a.TaskStateFailed,
		"rejected":                  a2a.TaskStateRejected,
		"canceled":                  a2a.TaskStateCanceled,
		"cancelled":                 a2a.TaskStateCanceled,
		"TASK_STATE_CANCELLED":      a2a.TaskStateCanceled,
		"":                          a2a.TaskStateUnspecified,
		"TASK_STATE_UNSPECIFIED":    a2a.TaskStateUnspecified,
		"unknown":                   a2a.TaskStateUnspecified,
	} {
		if got := normalizeState(in); got != want {
			t.Errorf("normalizeState(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestUnknownStateIsNotPolled: a task whose state proctor cannot read is
// returned as it is, not polled until the request times out.
func TestUnknownStateIsNotPolled(t *testing.T) {
	for _, state := range []string{"unknown", "TASK_STATE_UNSPECIFIED", ""} {
		t.Run(state, func(t *testing.T) {
			result := mustJSON(t, `{"kind": "task", "id": "t", "status": {"state": "`+state+`"},
				"artifacts": [{"parts": [{"kind": "text", "text": "here"}]}]}`)
			srv := agenttest.RawResultAgent(t, func(string) any { return result })
			resp, err := say(t, dial(t, srv.URL, WithRequestTimeout(2*time.Second)).NewConversation(), "q")
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			if resp.State != a2a.TaskStateUnspecified || partsText(resp.Parts) != "here" || resp.Metrics.LatencyMS > 1000 {
				t.Errorf("state %q text %q after %vms", resp.State, partsText(resp.Parts), resp.Metrics.LatencyMS)
			}
		})
	}
}
