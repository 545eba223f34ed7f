package a2aclient

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/translation"
)

// Regression tests for issue 12: agents built with popular frameworks
// (Mastra, VoltAgent, Gemini CLI's A2A server, tRPC-Agent-Go) and the
// wire shapes they produce.

// startBareCardAgent serves a real a2a-go 0.3 JSON-RPC agent at /a2a whose
// card is 0.2/0.3 style and carries only url: no preferredTransport, and
// no protocolVersion unless version is set.
func startBareCardAgent(t *testing.T, version string, reply agenttest.ReplyFunc) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.Handle("/a2a", a2av0.NewJSONRPCHandler(a2asrv.NewHandler(agenttest.Executor(reply))))
	mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, _ *http.Request) {
		v := ""
		if version != "" {
			v = `"protocolVersion":"` + version + `",`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"name":"mastra agent","description":"a Mastra-style card",` + v +
			`"url":"` + srv.URL + `/a2a","version":"1.0.0","capabilities":{"streaming":false},` +
			`"defaultInputModes":["text"],"defaultOutputModes":["text"],` +
			`"skills":[{"id":"chat","name":"chat","description":"chat","tags":["chat"]}]}`))
	})
	return srv
}

func TestCardWithoutPreferredTransport(t *testing.T) {
	cases := []struct {
		name, version, wantNote string
	}{
		{"no preferredTransport nor protocolVersion", "", "card has no preferredTransport; assumed JSONRPC at url, protocol 0.3.0"},
		{"no preferredTransport", "0.3.0", "card has no preferredTransport; assumed JSONRPC at url"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := startBareCardAgent(t, tc.version, func(_ context.Context, _, text string) string { return "echo: " + text })
			c := dial(t, srv.URL)
			ep := c.Endpoint()
			if ep.URL != srv.URL+"/a2a" || bindingName(ep.ProtocolBinding) != TransportJSONRPC || versionName(ep.ProtocolVersion) != Protocol03 {
				t.Fatalf("endpoint = %+v, want JSONRPC 0.3 at %s/a2a", ep, srv.URL)
			}
			conv := c.NewConversation()
			resp, err := say(t, conv, "hello")
			if err != nil {
				t.Fatal(err)
			}
			if got := partsText(resp.Parts); got != "echo: hello" {
				t.Errorf("reply = %q, want %q", got, "echo: hello")
			}
			if resp.NonConformant != tc.wantNote {
				t.Errorf("NonConformant = %q, want %q", resp.NonConformant, tc.wantNote)
			}
			// The card's deviation is reported once per conversation.
			resp, err = say(t, conv, "again")
			if err != nil {
				t.Fatal(err)
			}
			if got := partsText(resp.Parts); got != "echo: again" || resp.NonConformant != "" {
				t.Errorf("second reply = %q, NonConformant %q; want %q and none", got, resp.NonConformant, "echo: again")
			}
			if notes := c.CardNotes(); len(notes) != 1 || notes[0] != tc.wantNote {
				t.Errorf("CardNotes = %q", notes)
			}
		})
	}
}

// A card that says nothing of its transport still must not be taken for
// one that offers something else: asking for REST fails, naming what the
// card offers.
func TestCardWithoutPreferredTransportWrongTransport(t *testing.T) {
	srv := startBareCardAgent(t, "", agenttest.Sorry)
	_, err := Dial(testCtx(t), srv.URL, WithTransport(TransportREST))
	if err == nil || !strings.Contains(err.Error(), "JSONRPC 0.3.0 at "+srv.URL+"/a2a") {
		t.Fatalf("Dial with REST = %v, want an error naming the JSONRPC 0.3.0 interface", err)
	}
}

// Appended artifact chunks are one text (Mastra streams a tool call in
// pieces); a chunk without append replaces the artifact of its id
// (tRPC-Agent-Go streams chunks, then the whole text again).
func TestStreamedArtifactChunks(t *testing.T) {
	const call = `{"name":"list_tasks","arguments":{}}`
	cases := []struct {
		name   string
		events func(w wire, r peerRequest) []string
		want   string
	}{
		{"appended chunks concatenate", func(w wire, r peerRequest) []string {
			return []string{
				w.task("t1", r.ContextID, "submitted", w.message(r.MessageID, "user", "hi")),
				w.status("t1", r.ContextID, "working", "", false),
				w.artifact("t1", r.ContextID, "a1", `{"name":"list_tasks","argum`, ""),
				w.artifact("t1", r.ContextID, "a1", `ents":{}}`, "true"),
				w.status("t1", r.ContextID, "input-required", "", true),
			}
		}, call},
		{"chunks then the whole text replace", func(w wire, r peerRequest) []string {
			return []string{
				w.task("t1", r.ContextID, "working"),
				w.artifact("t1", r.ContextID, "a1", "Hello, ", "true"),
				w.artifact("t1", r.ContextID, "a1", "how can I help?", "true"),
				w.artifact("t1", r.ContextID, "a1", "Hello, how can I help?", ""),
				w.status("t1", r.ContextID, "completed", "", true),
			}
		}, "Hello, how can I help?"},
		{"chunks then the whole text with append false", func(w wire, r peerRequest) []string {
			return []string{
				w.task("t1", r.ContextID, "working"),
				w.artifact("t1", r.ContextID, "a1", "Hel", "false"),
				w.artifact("t1", r.ContextID, "a1", "lo", "true"),
				w.artifact("t1", r.ContextID, "a1", "Hello", "false"),
				w.status("t1", r.ContextID, "completed", "", true),
			}
		}, "Hello"},
	}
	for _, v := range []ProtocolVersion{Protocol10, Protocol03} {
		for _, tc := range cases {
			t.Run(string(v)+"/"+tc.name, func(t *testing.T) {
				peer := startSSEPeer(t, v, func(r peerRequest) []string { return tc.events(wire{v}, r) }, nil)
				c := dial(t, peer.URL)
				if !c.Streaming() {
					t.Fatal("the client does not stream")
				}
				resp, err := say(t, c.NewConversation(), "hi")
				if err != nil {
					t.Fatal(err)
				}
				if len(resp.Parts) != 1 || resp.Parts[0].Text() != tc.want {
					t.Errorf("parts = %q, want the one text part %q", partsText(resp.Parts), tc.want)
				}
				if tc.want == call {
					reply := translation.ParseReply(resp.Parts)
					if len(reply.ToolCalls) != 1 || reply.ToolCalls[0].Name != "list_tasks" || len(reply.ToolCalls[0].Arguments) != 0 || reply.Text != "" {
						t.Errorf("parsed reply = %+v, want the one tool call list_tasks({})", reply)
					}
				}
				if resp.NonConformant != "" {
					t.Errorf("NonConformant = %q", resp.NonConformant)
				}
				if got := peer.calls(); len(got) != 1 {
					t.Errorf("calls = %v, want the one streaming call", got)
				}
			})
		}
	}
}

// The agent's turn is every agent message since the user's message: Gemini
// CLI's A2A server sends each chunk its model streams as a working status
// message, cut anywhere (mid-word, mid-JSON), and ends in input-required
// with no message of its own. The chunks are one text, joined with nothing
// the agent did not send; a status message that ends the turn is a message
// of its own.
func TestInterimStatusMessages(t *testing.T) {
	chunks := []string{"Let me look at your ta", `sks. {"name":"list_`, `tasks","argum`, `ents":{}}`}
	whole := strings.Join(chunks, "")
	for _, tc := range []struct {
		name, end string // end: the input-required status message's text
		want      []string
	}{
		{"no-end-message", "", []string{whole}},
		{"end-message", "Anything else?", []string{whole, "Anything else?"}},
	} {
		for _, v := range []ProtocolVersion{Protocol10, Protocol03} {
			t.Run(tc.name+"/"+string(v)+"/streaming", func(t *testing.T) {
				turn := 0
				peer := startSSEPeer(t, v, func(r peerRequest) []string {
					w := wire{v}
					turn++
					id := fmt.Sprintf("t%d", turn)
					events := []string{w.task(id, r.ContextID, "submitted", w.message(r.MessageID, "user", "hi"))}
					for i, c := range chunks {
						events = append(events, w.status(id, r.ContextID, "working", w.message(fmt.Sprintf("%s-m%d", id, i), "agent", c), false))
					}
					end := ""
					if tc.end != "" {
						end = w.message(id+"-end", "agent", tc.end)
					}
					return append(events, w.status(id, r.ContextID, "input-required", end, true))
				}, nil)
				conv := dial(t, peer.URL).NewConversation()
				for range 2 { // the second turn must not repeat the first
					resp, err := say(t, conv, "hi")
					if err != nil {
						t.Fatal(err)
					}
					if got := texts(resp.Parts); !slices.Equal(got, tc.want) {
						t.Errorf("parts = %q, want %q", got, tc.want)
					}
					checkTurn(t, resp.Parts)
					if resp.State != a2a.TaskStateInputRequired || resp.NonConformant != "" {
						t.Errorf("state %s, NonConformant %q", resp.State, resp.NonConformant)
					}
				}
			})
			t.Run(tc.name+"/"+string(v)+"/unary", func(t *testing.T) {
				// The task as a server keeps it: the history holds the
				// earlier turn and, in order, this turn's status messages;
				// the message that ended the turn is also the status
				// message.
				peer := startSSEPeer(t, v, nil, func(r peerRequest) string {
					w := wire{v}
					h := []string{
						w.message("u0", "user", "earlier"), w.message("a0", "agent", "an earlier turn"),
						w.message(r.MessageID, "user", "hi"),
					}
					for i, c := range chunks {
						h = append(h, w.message(fmt.Sprintf("m%d", i), "agent", c))
					}
					task := w.task("t1", r.ContextID, "input-required", h...)
					if tc.end != "" {
						h = append(h, w.message("end", "agent", tc.end))
						task = w.taskWithStatus("t1", r.ContextID, "input-required", w.message("end", "agent", tc.end), h...)
					}
					return task
				})
				c := dial(t, peer.URL, WithStreaming(StreamingOff))
				resp, err := say(t, c.NewConversation(), "hi")
				if err != nil {
					t.Fatal(err)
				}
				if got := texts(resp.Parts); !slices.Equal(got, tc.want) {
					t.Errorf("parts = %q, want %q", got, tc.want)
				}
				checkTurn(t, resp.Parts)
				if resp.Shape != ShapeHistory || resp.NonConformant != "" {
					t.Errorf("shape %s, NonConformant %q", resp.Shape, resp.NonConformant)
				}
			})
		}
	}
}

// checkTurn checks that the interim messages' turn parses to its tool call
// (every part's text is asserted by the caller).
func checkTurn(t *testing.T, parts []*a2a.Part) {
	t.Helper()
	reply := translation.ParseReply(parts)
	if len(reply.ToolCalls) != 1 || reply.ToolCalls[0].Name != "list_tasks" || len(reply.ToolCalls[0].Arguments) != 0 {
		t.Errorf("parsed tool calls = %+v, want list_tasks({})", reply.ToolCalls)
	}
}

func texts(parts []*a2a.Part) []string {
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		out = append(out, p.Text())
	}
	return out
}

// a2a-go files an input-required status message into the history only
// when the next status arrives, after the user's next message: the next
// turn must not report it again.
func TestInputRequiredTurnsOverA2AGo(t *testing.T) {
	exec := execFunc(func(_ context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
		if ec.StoredTask == nil {
			if yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, agentMsg(ec, "What is your name?")), nil)
			}
			return
		}
		name := ec.Message.Parts[0].Text()
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, agentMsg(ec, "Looking up "+name+".")), nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, agentMsg(ec, "Thanks, "+name)), nil)
	})
	for _, mode := range []StreamingMode{StreamingOff, StreamingOn} {
		t.Run(string(mode), func(t *testing.T) {
			srv := startExecutor(t, exec)
			conv := dial(t, srv.URL, WithStreaming(mode)).NewConversation()
			for _, turn := range []struct{ say, want string }{
				{"book", "What is your name?"},
				{"Ada", "Looking up Ada.\nThanks, Ada"},
				{"Bob", "Looking up Bob.\nThanks, Bob"},
			} {
				resp, err := say(t, conv, turn.say)
				if err != nil {
					t.Fatal(err)
				}
				if got := partsText(resp.Parts); got != turn.want {
					t.Errorf("reply to %q = %q, want %q", turn.say, got, turn.want)
				}
			}
		})
	}
}

// A 0.3 task event without "kind" is read, and flagged, with streaming on
// as without it.
func TestEventWithoutKind(t *testing.T) {
	w := wire{Protocol03}
	noKind := func(ev string) string { return strings.Replace(ev, `"kind":"task",`, "", 1) }
	reply := w.message("m1", "agent", `{"name":"list_tasks","arguments":{}}`)
	taskEvent := func(r peerRequest, state string) string {
		return noKind(w.task("t1", r.ContextID, state, w.message(r.MessageID, "user", "hi"), reply))
	}
	peer := startSSEPeer(t, Protocol03, func(r peerRequest) []string {
		return []string{
			taskEvent(r, "working"),
			w.status("t1", r.ContextID, "input-required", "", true),
		}
	}, func(r peerRequest) string { return taskEvent(r, "input-required") })
	for _, mode := range []StreamingMode{StreamingOn, StreamingOff} {
		t.Run(string(mode), func(t *testing.T) {
			resp, err := say(t, dial(t, peer.URL, WithStreaming(mode)).NewConversation(), "hi")
			if err != nil {
				t.Fatal(err)
			}
			if got := texts(resp.Parts); !slices.Equal(got, []string{`{"name":"list_tasks","arguments":{}}`}) {
				t.Errorf("parts = %q", got)
			}
			if r := translation.ParseReply(resp.Parts); len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "list_tasks" {
				t.Errorf("tool calls = %+v, want list_tasks", r.ToolCalls)
			}
			if resp.State != a2a.TaskStateInputRequired || resp.TaskID != "t1" {
				t.Errorf("state %s task %q, want input-required t1", resp.State, resp.TaskID)
			}
			want := "a task reply has no kind; read as one"
			if mode == StreamingOn {
				want = "a streamed task event has no kind; read as one"
			}
			if !strings.Contains(resp.NonConformant, want) {
				t.Errorf("NonConformant = %q, want it to say %q", resp.NonConformant, want)
			}
		})
	}
}

// cookieVisitors wraps an agent's handler like tRPC-Agent-Go's server/a2a
// does without a user header: a request without the visitor cookie gets a
// new one, and the Cookie header of every request is recorded in order.
type cookieVisitors struct {
	next http.Handler
	mu   sync.Mutex
	seen []string
	n    int
}

func (v *cookieVisitors) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v.mu.Lock()
	v.seen = append(v.seen, r.Header.Get("Cookie"))
	if _, err := r.Cookie("visitor"); err != nil {
		v.n++
		http.SetCookie(w, &http.Cookie{Name: "visitor", Value: fmt.Sprint(v.n), Path: "/", HttpOnly: true})
	}
	v.mu.Unlock()
	v.next.ServeHTTP(w, r)
}

func (v *cookieVisitors) cookies() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.seen)
}

// A conversation sends back the cookies the agent set on its earlier
// turns, and only its own: tRPC-Agent-Go's server/a2a keys sessions by
// context id and an anonymous-user cookie, so a client that drops the
// cookie meets an agent that forgot every earlier turn.
func TestConversationCookies(t *testing.T) {
	for _, mode := range []StreamingMode{StreamingOff, StreamingOn} {
		t.Run(string(mode), func(t *testing.T) {
			v := &cookieVisitors{next: a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(agenttest.Executor(
				func(_ context.Context, _, text string) string { return "ok: " + text })))}
			srv := serveRPC(t, v)
			c := dial(t, srv.URL, WithStreaming(mode))
			a, b := c.NewConversation(), c.NewConversation()
			for _, turn := range []struct {
				conv *Conversation
				text string
			}{{a, "a1"}, {b, "b1"}, {a, "a2"}, {b, "b2"}, {a, "a3"}} {
				resp, err := say(t, turn.conv, turn.text)
				if err != nil {
					t.Fatal(err)
				}
				if got := partsText(resp.Parts); got != "ok: "+turn.text {
					t.Errorf("reply %q, want %q", got, "ok: "+turn.text)
				}
			}
			want := []string{"", "", "visitor=1", "visitor=2", "visitor=1"}
			if diff := cmp.Diff(want, v.cookies()); diff != "" {
				t.Errorf("Cookie headers the agent received (-want +got):\n%s", diff)
			}
		})
	}
}

// An HTTP client with a Jar of its own keeps the cookies instead: every
// conversation then shares them.
func TestConversationCookiesCallerJar(t *testing.T) {
	v := &cookieVisitors{next: a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(agenttest.Executor(
		func(_ context.Context, _, text string) string { return text })))}
	srv := serveRPC(t, v)
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, srv.URL, WithHTTPClient(&http.Client{Jar: jar}))
	for _, conv := range []*Conversation{c.NewConversation(), c.NewConversation()} {
		if _, err := say(t, conv, "hi"); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"", "visitor=1"}, v.cookies()); diff != "" {
		t.Errorf("Cookie headers the agent received (-want +got):\n%s", diff)
	}
}

// What an agent may store in a conversation's cookies is bounded.
func TestConversationJarBounds(t *testing.T) {
	u, err := url.Parse("http://127.0.0.1:9/")
	if err != nil {
		t.Fatal(err)
	}
	j := newConversationJar()
	resp := &http.Response{Header: http.Header{}}
	resp.Header.Add("Set-Cookie", "huge="+strings.Repeat("x", maxCookieBytes))
	for i := range maxCookies + 10 {
		resp.Header.Add("Set-Cookie", fmt.Sprintf("c%02d=%d", i, i))
	}
	j.keep(u, resp)
	got := j.cookies(u)
	if len(got) != maxCookies {
		t.Errorf("%d cookies kept, want %d", len(got), maxCookies)
	}
	if j.holds(u, "huge") {
		t.Error("a cookie over maxCookieBytes was kept")
	}
	// With the jar full, a cookie it holds can still change.
	j.keep(u, &http.Response{Header: http.Header{"Set-Cookie": {"c00=new", "extra=1"}}})
	req := httptest.NewRequest(http.MethodGet, u.String(), nil)
	j.addTo(req)
	if c, err := req.Cookie("c00"); err != nil || c.Value != "new" {
		t.Errorf("c00 = %v (%v), want the new value", c, err)
	}
	if j.holds(u, "extra") {
		t.Error("a new cookie was kept although the jar was full")
	}
}

// VoltAgent's SSE writer puts a record separator byte (0x1E, the framing of
// RFC 7464 JSON text sequences) before the JSON of every event. The byte is
// dropped and the deviation recorded, on both protocol versions, so that
// the tool call streamed in appended chunks still reads whole.
func TestRecordSeparatorBeforeEventData(t *testing.T) {
	for _, v := range []ProtocolVersion{Protocol10, Protocol03} {
		for _, tc := range []struct {
			name, prefix, wantNote string
		}{
			{"plain", "", ""},
			{"record separator", "\x1e", noteRecordSeparator},
			{"two record separators", "\x1e\x1e", noteRecordSeparator},
		} {
			t.Run(string(v)+"/"+tc.name, func(t *testing.T) {
				w := wire{v}
				peer := startFramedSSEPeer(t, v, tc.prefix, func(r peerRequest) []string {
					return []string{
						w.task("t1", r.ContextID, "working", w.message(r.MessageID, "user", "hi")),
						w.artifact("t1", r.ContextID, "a1", `{"name":"list_tasks",`, ""),
						w.artifact("t1", r.ContextID, "a1", `"arguments":{}}`, "true"),
						w.status("t1", r.ContextID, "completed", "", true),
					}
				}, nil)
				resp, err := say(t, dial(t, peer.URL, WithStreaming(StreamingOn)).NewConversation(), "hi")
				if err != nil {
					t.Fatal(err)
				}
				if got := texts(resp.Parts); !slices.Equal(got, []string{`{"name":"list_tasks","arguments":{}}`}) {
					t.Errorf("parts = %q", got)
				}
				checkTurn(t, resp.Parts)
				if resp.NonConformant != tc.wantNote {
					t.Errorf("NonConformant = %q, want %q", resp.NonConformant, tc.wantNote)
				}
			})
		}
	}
}
