package a2aclient

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/internal/agenttest"
)

// eventView is what TestEventsMatrix compares of an Event.
type eventView struct {
	Source    EventSource
	State     a2a.TaskState
	Text      string
	PartMeta  []map[string]any
	Thoughts  []bool
	Metadata  map[string]any
	HasParts  int
	ArtifactN string
}

func viewEvents(events []Event) []eventView {
	var out []eventView
	for _, e := range events {
		v := eventView{Source: e.Source, State: e.State, Text: PartsText(e.Parts), Metadata: e.Metadata, HasParts: len(e.Parts), ArtifactN: e.Name}
		for _, p := range e.Parts {
			v.PartMeta = append(v.PartMeta, p.Metadata)
			v.Thoughts = append(v.Thoughts, IsThought(p))
		}
		out = append(out, v)
	}
	return out
}

// toolTurn is an agent turn as ADK streams one: an interim working status
// message, an artifact with a thought and a function call, an answer
// artifact in two appended chunks, then completed with no message.
func toolTurn(ec *a2asrv.ExecutorContext) []a2a.Event {
	thought := a2a.NewTextPart("the user wants the weather")
	thought.SetMeta("adk_thought", true)
	call := a2a.NewDataPart(map[string]any{"id": "c1", "name": "get_weather", "args": map[string]any{"city": "Paris"}})
	call.SetMeta("adk_type", "function_call")
	tools := a2a.NewArtifactEvent(ec, thought, call)
	tools.Artifact.Name = "tools"
	answer := a2a.NewArtifactEvent(ec, a2a.NewTextPart("Sunny"))
	answer.Artifact.Name = "answer"
	answer.Artifact.Metadata = map[string]any{"k": "v"}
	more := a2a.NewArtifactUpdateEvent(ec, answer.Artifact.ID, a2a.NewTextPart(" in Paris"))
	more.Append = true
	return []a2a.Event{
		a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, agentMsg(ec, "looking it up")),
		tools, answer, more,
		a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil),
	}
}

// TestEventsMatrix reads a whole turn (an interim status message, a thought,
// a function call, an answer in chunks) from real a2a-go servers on every
// transport and protocol version, streamed and not: Events holds all of it
// in order with its metadata, Parts the answer as before.
func TestEventsMatrix(t *testing.T) {
	thoughtMeta := map[string]any{"adk_thought": true}
	callMeta := map[string]any{"adk_type": "function_call"}
	tools := eventView{Source: EventArtifact, Text: "the user wants the weather\n" + `{"args":{"city":"Paris"},"id":"c1","name":"get_weather"}`,
		PartMeta: []map[string]any{thoughtMeta, callMeta}, Thoughts: []bool{true, false}, HasParts: 2, ArtifactN: "tools"}
	answer := eventView{Source: EventArtifact, Text: "Sunny in Paris", PartMeta: []map[string]any{nil}, Thoughts: []bool{false},
		Metadata: map[string]any{"k": "v"}, HasParts: 1, ArtifactN: "answer"}
	interim := func(streamed bool) eventView {
		v := eventView{Source: EventHistory, Text: "looking it up", PartMeta: []map[string]any{nil}, Thoughts: []bool{false}, HasParts: 1}
		if streamed {
			v.Source, v.State = EventStatus, a2a.TaskStateWorking
		}
		return v
	}
	exec := taskExec(toolTurn)
	for _, transport := range []Transport{TransportJSONRPC, TransportREST, TransportGRPC} {
		for _, protocol := range []ProtocolVersion{Protocol10, Protocol03} {
			for _, streaming := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/streaming=%v", transport, protocol, streaming), func(t *testing.T) {
					base := agenttest.StartExecutorPeer(t, agenttest.Peer{Transport: string(transport), Protocol: string(protocol), Streaming: streaming}, exec)
					resp, err := say(t, dial(t, base).NewConversation(), "weather in Paris?")
					if err != nil {
						t.Fatal(err)
					}
					// a2a-go's server stores an appended chunk as a part of
					// its own; read, it continues the text, as streamed.
					want := []eventView{interim(streaming), tools, answer}
					if diff := cmp.Diff(want, viewEvents(resp.Events)); diff != "" {
						t.Errorf("events (-want +got):\n%s", diff)
					}
					// The answer reads the same whether it streamed or not.
					if got, want := PartsText(resp.Parts), tools.Text+"\n"+answer.Text; got != want || resp.Shape != ShapeArtifacts {
						t.Errorf("parts %q (%s), want %q (artifacts)", got, resp.Shape, want)
					}
				})
			}
		}
	}
}

// TestEventsInputRequired reads a turn that hands the conversation back
// in input-required, then its continuation: the second turn's Events hold
// only what the agent said after the second message.
func TestEventsInputRequired(t *testing.T) {
	exec := func(_ context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
		if ec.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				return
			}
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, agentMsg(ec, "which city?")), nil)
			return
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, agentMsg(ec, "checking "+ec.Message.Parts[0].Text())), nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, agentMsg(ec, "sunny")), nil)
	}
	for _, streaming := range []StreamingMode{StreamingOff, StreamingOn} {
		t.Run(string(streaming), func(t *testing.T) {
			conv := dial(t, startExecutor(t, exec).URL, WithStreaming(streaming)).NewConversation()
			first, err := say(t, conv, "weather?")
			if err != nil {
				t.Fatal(err)
			}
			wantFirst := []eventView{{Source: EventStatus, State: a2a.TaskStateInputRequired, Text: "which city?", PartMeta: []map[string]any{nil}, Thoughts: []bool{false}, HasParts: 1}}
			if diff := cmp.Diff(wantFirst, viewEvents(first.Events)); diff != "" {
				t.Errorf("first turn (-want +got):\n%s", diff)
			}
			second, err := say(t, conv, "Paris")
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, e := range second.Events {
				texts = append(texts, PartsText(e.Parts))
			}
			if diff := cmp.Diff([]string{"checking Paris", "sunny"}, texts); diff != "" {
				t.Errorf("second turn's events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConversationHeaders sends a conversation's own headers with each of
// its requests, beside the client's, and not with another conversation's.
func TestConversationHeaders(t *testing.T) {
	var rec recorder
	srv := serveRPC(t, rec.wrap(a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(agenttest.Executor(agenttest.Sorry)))))
	c := dial(t, srv.URL, WithHeaders(http.Header{"X-Client": {"c"}}))
	alice := c.NewConversation(WithConversationHeaders(http.Header{"X-User-Id": {"alice"}}))
	plain := c.NewConversation()
	for _, conv := range []*Conversation{alice, plain, alice} {
		if _, err := say(t, conv, "hi"); err != nil {
			t.Fatal(err)
		}
	}
	var got [][2]string
	for _, call := range rec.all() {
		got = append(got, [2]string{call.Header.Get("X-Client"), call.Header.Get("X-User-ID")})
	}
	want := [][2]string{{"c", "alice"}, {"c", ""}, {"c", "alice"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headers (client, user) per request (-want +got):\n%s", diff)
	}
}

// TestEventsFromRaw reads the Events of a result a2a-go's types rejected:
// part and message metadata survive the tolerant reading.
func TestEventsFromRaw(t *testing.T) {
	result := []byte(`{"task":{"id":"t1","status":{"state":"completed"},
		"history":[{"role":"user","messageId":"u1","parts":[{"text":"hi"}]},
		  {"role":"agent","messageId":"m1","metadata":{"k":"v"},"parts":[{"kind":"data","data":{"name":"f","args":"{}"},"metadata":{"type":"function_call"}}]}],
		"artifacts":[{"artifactId":"a1","name":"answer","parts":[{"kind":"text","text":"done","metadata":{"thought":false}}]}]}}`)
	out, ok := fromRaw(result)
	if !ok {
		t.Fatal("fromRaw refused the result")
	}
	want := []eventView{
		{Source: EventHistory, Text: `{"args":"{}","name":"f"}`, PartMeta: []map[string]any{{"type": "function_call"}}, Thoughts: []bool{false},
			Metadata: map[string]any{"k": "v"}, HasParts: 1},
		{Source: EventArtifact, Text: "done", PartMeta: []map[string]any{{"thought": false}}, Thoughts: []bool{false}, HasParts: 1, ArtifactN: "answer"},
	}
	if diff := cmp.Diff(want, viewEvents(out.events)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestTurnLogIDlessArtifacts reads tRPC-Agent-Go's stream shape: artifact
// updates without an id, a tool's response among empty ones; the empty
// ones change nothing and the response stays an Event of its own.
func TestTurnLogIDlessArtifacts(t *testing.T) {
	upd := func(id string, parts ...*a2a.Part) *a2a.TaskArtifactUpdateEvent {
		return &a2a.TaskArtifactUpdateEvent{Artifact: &a2a.Artifact{ID: a2a.ArtifactID(id), Parts: parts}}
	}
	var l turnLog
	for _, e := range []*a2a.TaskArtifactUpdateEvent{
		upd(""), upd("r1", a2a.NewTextPart("call")), upd("", a2a.NewTextPart("response")), upd(""),
		upd("r2", a2a.NewTextPart("partial")), upd("r2", a2a.NewTextPart("answer")), upd(""),
	} {
		l.artifactUpdate(e)
	}
	l.task(&a2a.Task{Artifacts: []*a2a.Artifact{{ID: "r1", Parts: []*a2a.Part{a2a.NewTextPart("call")}}, {Parts: []*a2a.Part{a2a.NewTextPart("response")}},
		{ID: "r2", Parts: []*a2a.Part{a2a.NewTextPart("answer")}}}}, turnStart{})
	var got []string
	for _, e := range l.list() {
		got = append(got, e.ID+":"+PartsText(e.Parts))
	}
	if diff := cmp.Diff([]string{"r1:call", ":response", "r2:answer"}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestTurnLogRepeats checks that a repeated Event is logged once, whether
// the log searches its Events in place (a short turn) or through its index
// (from indexFrom Events on): messages by id, untitled ones by text,
// artifacts by id with the latest parts.
func TestTurnLogRepeats(t *testing.T) {
	msg := func(id, text string) Event {
		return Event{Source: EventMessage, ID: id, Parts: []*a2a.Part{a2a.NewTextPart(text)}}
	}
	art := func(id, text string) Event {
		return Event{Source: EventArtifact, ID: id, Parts: []*a2a.Part{a2a.NewTextPart(text)}}
	}
	for _, distinct := range []int{1, indexFrom - 2, indexFrom + 3} {
		t.Run(fmt.Sprintf("distinct=%d", distinct), func(t *testing.T) {
			var l turnLog
			var want []string
			for i := range distinct {
				l.add(msg(fmt.Sprint("m", i), "text"))
				want = append(want, fmt.Sprintf("message m%d:text", i))
			}
			for _, ev := range []Event{
				msg("", "untitled"), art("a", "old"), msg("m0", "again"), msg("", "untitled"),
				art("a", "new"), art("a", "newer"), msg("", "other"), art("m0", "artifact"),
			} {
				l.add(ev)
			}
			want = append(want, "message :untitled", "artifact a:newer", "message :other", "artifact m0:artifact")
			var got []string
			for _, e := range l.list() {
				got = append(got, fmt.Sprintf("%s %s:%s", e.Source, e.ID, PartsText(e.Parts)))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}
