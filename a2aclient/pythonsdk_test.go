package a2aclient

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/translation"
)

// pythonSDKChunks cuts s as an agent streaming its reply would: 7
// characters a chunk, mid-word and mid-JSON.
func pythonSDKChunks(s string) []string {
	var out []string
	for len(s) > 7 {
		out = append(out, s[:7])
		s = s[7:]
	}
	return append(out, s)
}

// pythonSDKPeer answers like an agent on the official Python A2A SDK
// (a2a-sdk 0.3.26, and 1.1.0's 0.3 and 1.0 interfaces) that reports
// progress in a working status message and streams its reply as appended
// artifact chunks. Streamed: the status update, then one artifact update a
// chunk (append false on the first, true after, lastChunk on the last),
// then completed. Unstreamed: the SDK's task manager has folded the chunks
// into one artifact of as many text parts, and moved the working message
// into the history.
func pythonSDKPeer(t *testing.T, v ProtocolVersion, reply string) *ssePeer {
	w := wire{v}
	chunks := pythonSDKChunks(reply)
	const interim = "Processing your question..."
	artifactParts := make([]string, len(chunks))
	for i, c := range chunks {
		artifactParts[i] = w.text(c)
	}
	stream := func(req peerRequest) []string {
		ctx := req.ContextID
		evs := []string{w.task("t1", ctx, "submitted", w.message(req.MessageID, "user", "hi")),
			w.status("t1", ctx, "working", w.message("m-interim", "agent", interim), false)}
		for i, c := range chunks {
			ev := w.artifact("t1", ctx, "a1", c, fmt.Sprint(i > 0))
			if i == len(chunks)-1 {
				ev = strings.Replace(ev, `"append":true`, `"append":true,"lastChunk":true`, 1)
			}
			evs = append(evs, ev)
		}
		return append(evs, w.status("t1", ctx, "completed", "", true))
	}
	unary := func(req peerRequest) string {
		task := w.task("t1", req.ContextID, "completed", w.message(req.MessageID, "user", "hi"), w.message("m-interim", "agent", interim))
		arts := fmt.Sprintf(`,"artifacts":[{"artifactId":"a1","parts":[%s]}]`, strings.Join(artifactParts, ","))
		if v == Protocol03 {
			return strings.TrimSuffix(task, "}") + arts + "}"
		}
		return strings.TrimSuffix(task, "}}") + arts + "}}"
	}
	return startSSEPeer(t, v, stream, unary)
}

// TestPythonSDKChunkedReply: an agent on the Python SDK that streams a
// tool call in 7-character chunks is read exactly, streamed or not: the
// same text, the tool call parsed, and its working message as interim
// text; before, unstreamed, its chunks were joined with newlines and the
// tool call lost.
func TestPythonSDKChunkedReply(t *testing.T) {
	const call = `{"name": "find_user_by_email", "arguments": {"email": "ada@example.com"}}`
	type reading struct {
		Text    string
		Call    string
		Interim []string
	}
	want := reading{Text: call, Call: "find_user_by_email", Interim: []string{"Processing your question..."}}
	for _, v := range []ProtocolVersion{Protocol03, Protocol10} {
		for _, mode := range []StreamingMode{StreamingOn, StreamingOff} {
			t.Run(fmt.Sprintf("%s/%s", v, mode), func(t *testing.T) {
				peer := pythonSDKPeer(t, v, call)
				resp, err := say(t, dial(t, peer.URL, WithStreaming(mode)).NewConversation(), "find ada")
				if err != nil {
					t.Fatal(err)
				}
				got := reading{Text: PartsText(resp.Parts), Interim: resp.Interim()}
				if calls := translation.ParseReply(resp.Parts).ToolCalls; len(calls) == 1 {
					got.Call = calls[0].Name
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("read (-want +got):\n%s", diff)
				}
				method := map[StreamingMode]map[ProtocolVersion]string{StreamingOn: {Protocol03: "message/stream", Protocol10: "SendStreamingMessage"},
					StreamingOff: {Protocol03: "message/send", Protocol10: "SendMessage"}}[mode][v]
				if calls := peer.calls(); len(calls) != 1 || calls[0] != method {
					t.Errorf("the peer was called %v, want [%s]", calls, method)
				}
			})
		}
	}
}
