//go:build unix

package interop

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/rollout"
)

// trpcEvalTool is testdata/trpcpeer's eval-case script (evaltool.go): the
// framework runs get_weather itself.
const trpcEvalTool trpcMode = "evaltool"

// Texts of the evaltool script.
const (
	trpcEvalQuestion = "What's the weather in Paris?"
	trpcEvalRecall   = "Do you remember what I asked first?"
	trpcEvalAnswer   = "It is sunny in Paris, 21 degrees."
	trpcEvalThought  = "The tool says sunny and 21."
)

// TestTRPCCases plays a two-turn eval case against tRPC-Agent-Go's
// server/a2a, streamed and not: the tool call (arguments sent as JSON
// text), the tool's response, the thought, the answers and the second
// turn's memory of the first (the session keyed by context id and the
// X-User-ID header proctor sends) are recorded exactly.
func TestTRPCCases(t *testing.T) {
	bin := buildTRPCPeer(t)
	base := startTRPCPeers(t, bin, trpcEvalTool)[trpcEvalTool]
	ctxMsgs := []*evalset.Message{{Role: evalset.RoleSystem, Content: "The user lives in Lyon."}}
	user := func(s string) *evalset.Message { return &evalset.Message{Role: evalset.RoleUser, Content: s} }
	answer := func(s, thought string) *evalset.Message {
		return &evalset.Message{Role: evalset.RoleAssistant, Content: s, ReasoningContent: thought}
	}
	for _, streaming := range streamingModes {
		t.Run("streaming-"+streaming, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			client, err := a2aclient.Dial(ctx, base, a2aclient.WithStreaming(a2aclient.StreamingMode(streaming)))
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			c := &evalset.Case{ID: "weather", ContextMessages: ctxMsgs, SessionInput: &evalset.SessionInput{UserID: "alice"},
				Conversation: []*evalset.Invocation{
					{ID: "inv-1", UserContent: user(trpcEvalQuestion)},
					{ID: "inv-2", UserContent: user(trpcEvalRecall)},
				}}
			rec, err := rollout.NewCasePlayer(rollout.CaseOptions{}).Play(ctx, a2aagent.New(client), c)
			if err != nil || rec.Error != "" {
				t.Fatalf("err %v, recording error %q", err, rec.Error)
			}
			want := []*evalset.Invocation{
				{ID: "inv-1", ContextMessages: ctxMsgs, UserContent: user(trpcEvalQuestion),
					Tools: []*evalset.Tool{{ID: "call-1", Name: "get_weather", Arguments: map[string]any{"city": "Paris"},
						Result: map[string]any{"forecast": "sunny", "temp_c": float64(21)}}},
					FinalResponse: answer(trpcEvalAnswer, trpcEvalThought)},
				{ID: "inv-2", ContextMessages: ctxMsgs, UserContent: user(trpcEvalRecall),
					FinalResponse: answer("You first asked: "+trpcEvalQuestion, "")},
			}
			if diff := cmp.Diff(want, rec.Actual, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("actual invocations (-want +got):\n%s", diff)
			}
			if len(rec.Turns) != 2 || rec.Turns[0].Status != "200" || len(rec.Turns[0].Thoughts) != 1 || rec.Turns[0].Thoughts[0] != trpcEvalThought {
				t.Errorf("turns %+v; want 2, HTTP 200, the thought on the first", rec.Turns)
			}
			if diff := cmp.Diff([]string{trpcCardNote}, rec.NonConformant); diff != "" {
				t.Errorf("non-conformant notes (-want +got):\n%s", diff)
			}
		})
	}
}
