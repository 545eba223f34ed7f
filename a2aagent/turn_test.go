package a2aagent

import (
	"encoding/json"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/evalset"
)

func dataPart(meta map[string]any, data map[string]any) *a2a.Part {
	p := a2a.NewDataPart(data)
	p.Metadata = meta
	return p
}

func textPart(text string, meta map[string]any) *a2a.Part {
	p := a2a.NewTextPart(text)
	p.Metadata = meta
	return p
}

// TestReadTurn reads the conventions of tRPC-Agent-Go (metadata "type",
// arguments and results as JSON text) and ADK ("adk_type", objects), calls
// matched by id, else name, else order; thoughts apart from the answer.
func TestReadTurn(t *testing.T) {
	trpcCall := func(id, name, args string) *a2a.Part {
		return dataPart(map[string]any{"type": "function_call"}, map[string]any{"id": id, "type": "function", "name": name, "args": args})
	}
	trpcResp := func(id, name, resp string) *a2a.Part {
		return dataPart(map[string]any{"type": "function_response"}, map[string]any{"id": id, "name": name, "response": resp})
	}
	adkCall := dataPart(map[string]any{"adk_type": "function_call"}, map[string]any{"id": "a1", "name": "lookup", "args": map[string]any{"q": json.Number("2")}})
	adkResp := dataPart(map[string]any{"adk_type": "function_response"}, map[string]any{"name": "lookup", "response": map[string]any{"result": "ok"}})
	thought := textPart("hmm", map[string]any{"thought": true})
	tests := []struct {
		name   string
		events []a2aclient.Event
		parts  []*a2a.Part
		want   turnReading
	}{{
		name: "tRPC, matched by id out of order",
		events: []a2aclient.Event{
			{Source: a2aclient.EventHistory, Parts: []*a2a.Part{textPart("Let me check.", nil), trpcCall("c1", "f", `{"x":1}`), trpcCall("c2", "g", "")}},
			{Source: a2aclient.EventHistory, Parts: []*a2a.Part{trpcResp("c2", "g", "plain"), trpcResp("c1", "f", `{"ok":true}`)}},
			{Source: a2aclient.EventArtifact, Parts: []*a2a.Part{thought, textPart("Done.", nil)}},
		},
		parts: []*a2a.Part{thought, textPart("Done.", nil)},
		want: turnReading{
			tools: []*evalset.Tool{
				{ID: "c1", Name: "f", Arguments: map[string]any{"x": float64(1)}, Result: map[string]any{"ok": true}},
				{ID: "c2", Name: "g", Arguments: map[string]any{}, Result: "plain"},
			},
			thoughts:      []string{"hmm"},
			final:         &evalset.Message{Role: evalset.RoleAssistant, Content: "Done.", ReasoningContent: "hmm"},
			intermediates: []*evalset.Message{{Role: evalset.RoleAssistant, Content: "Let me check."}},
		},
	}, {
		name: "ADK, response without id matched by name; orphan response kept",
		events: []a2aclient.Event{
			{Source: a2aclient.EventArtifact, Parts: []*a2a.Part{adkCall}},
			{Source: a2aclient.EventArtifact, Parts: []*a2a.Part{adkResp, trpcResp("zz", "other", "1")}},
		},
		parts: []*a2a.Part{adkCall, adkResp},
		want: turnReading{tools: []*evalset.Tool{
			{ID: "a1", Name: "lookup", Arguments: map[string]any{"q": float64(2)}, Result: map[string]any{"result": "ok"}},
			{ID: "zz", Name: "other", Result: float64(1)},
		}},
	}, {
		name: "interim chunks make up the answer; a data answer is JSON",
		events: []a2aclient.Event{
			{Source: a2aclient.EventStatus, Parts: []*a2a.Part{textPart("Sun", nil)}},
			{Source: a2aclient.EventStatus, Parts: []*a2a.Part{textPart("ny", nil)}},
			{Source: a2aclient.EventStatus, Parts: []*a2a.Part{textPart("working on it", nil)}},
		},
		parts: []*a2a.Part{textPart("Sunny", nil), a2a.NewDataPart(map[string]any{"t": 21})},
		want: turnReading{
			final:         &evalset.Message{Role: evalset.RoleAssistant, Content: "Sunny\n{\"t\":21}"},
			intermediates: []*evalset.Message{{Role: evalset.RoleAssistant, Content: "working on it"}},
		},
	}, {
		name:   "a turn that ends on a call has no final answer",
		events: []a2aclient.Event{{Source: a2aclient.EventArtifact, Parts: []*a2a.Part{trpcCall("c1", "f", "not json")}}},
		parts:  []*a2a.Part{trpcCall("c1", "f", "not json")},
		want:   turnReading{tools: []*evalset.Tool{{ID: "c1", Name: "f", Arguments: "not json"}}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := readTurn(&a2aclient.Response{Events: tc.events, Parts: tc.parts})
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(turnReading{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzReadTurn feeds readTurn data and text parts of any shape, as an
// agent may send them: it must not panic, and every response it reads
// becomes a tool.
func FuzzReadTurn(f *testing.F) {
	f.Add(`{"id":"c1","name":"f","args":"{\"x\":1}"}`, "function_call", "text", true)
	f.Add(`{"id":1,"name":["x"],"response":{"a":[1,2]}}`, "function_response", "", false)
	f.Add(`[1,2,3]`, "function_call", "x", true)
	f.Add(`null`, "adk_type", "", false)
	f.Fuzz(func(t *testing.T, data, kind, text string, thought bool) {
		var v any
		if json.Unmarshal([]byte(data), &v) != nil {
			return
		}
		parts := []*a2a.Part{
			dataPart(map[string]any{"type": kind}, nil),
			dataPart(map[string]any{"adk_type": kind}, nil),
			textPart(text, map[string]any{"adk_thought": thought}),
		}
		parts[0].Content = a2a.Data{Value: v}
		parts[1].Content = a2a.Data{Value: v}
		r := readTurn(&a2aclient.Response{Events: []a2aclient.Event{{Parts: parts}}, Parts: parts})
		if kind == kindFunctionResponse && v != nil && len(r.tools) == 0 {
			t.Errorf("responses read into no tool")
		}
	})
}
