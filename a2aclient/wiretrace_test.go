package a2aclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/internal/agenttest"
)

// readTrace decodes a trace's JSON lines, failing on anything else.
func readTrace(t *testing.T, b []byte) []WireRecord {
	t.Helper()
	var out []WireRecord
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r WireRecord
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("trace line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

// TestWireTraceTransports records conversations with real a2a-go servers
// over every transport, streamed and not: the trace holds each exchange's
// request, response and end (and the stream's events), tied to the
// conversation's context id, and no credential.
func TestWireTraceTransports(t *testing.T) {
	const token, teamSecret = "tok-0123456789", "team-secret-value"
	echo := func(_ context.Context, _, text string) string { return "echo: " + text }
	for _, transport := range []Transport{TransportJSONRPC, TransportREST, TransportGRPC} {
		for _, streaming := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/streaming=%v", transport, streaming), func(t *testing.T) {
				base := agenttest.StartPeer(t, agenttest.Peer{Transport: string(transport), Protocol: string(Protocol10), Streaming: streaming}, echo)
				var buf bytes.Buffer
				trace := NewWireTrace(&buf, WireTraceOptions{})
				h := http.Header{}
				h.Set("Authorization", "Bearer "+token)
				h.Set("X-Team", teamSecret)
				c, err := Dial(testCtx(t), base, WithWireTrace(trace), WithHeaders(h))
				if err != nil {
					t.Fatal(err)
				}
				conv := c.NewConversation(WithConversationHeaders(http.Header{"X-User-Id": {"user-secret-42"}}))
				if _, err := conv.Send(testCtx(t), []*a2a.Part{a2a.NewTextPart("hello trace")}); err != nil {
					t.Fatal(err)
				}
				_ = c.Close()
				if err := trace.Err(); err != nil {
					t.Fatal(err)
				}
				raw := buf.Bytes()
				for _, secret := range []string{token, teamSecret, "user-secret-42"} {
					if bytes.Contains(raw, []byte(secret)) {
						t.Errorf("the trace holds the credential %q", secret)
					}
				}
				checkTurnRecords(t, readTrace(t, raw), conv.ContextID(), transport, streaming)
			})
		}
	}
}

// checkTurnRecords checks the records of the conversation's one turn.
func checkTurnRecords(t *testing.T, recs []WireRecord, contextID string, transport Transport, streaming bool) {
	t.Helper()
	kinds := map[WireKind]int{}
	var request, end *WireRecord
	for i, r := range recs {
		if r.ContextID != contextID {
			if r.Transport != "http" || r.ContextID != "" {
				t.Errorf("record %d has context %q, want %q or the card's none", i, r.ContextID, contextID)
			}
			continue // the card
		}
		kinds[r.Kind]++
		wantTransport := "http"
		if transport == TransportGRPC {
			wantTransport = "grpc"
		}
		if r.Transport != wantTransport {
			t.Errorf("record %d transport %q, want %q", i, r.Transport, wantTransport)
		}
		switch r.Kind {
		case WireRequest:
			if request == nil {
				request = &recs[i]
			}
		case WireEnd:
			end = &recs[i]
		}
	}
	if request == nil || end == nil || kinds[WireResponse] == 0 {
		t.Fatalf("records of the turn by kind: %v", kinds)
	}
	if !strings.Contains(request.Body, "hello trace") {
		t.Errorf("request body %q lacks the message", request.Body)
	}
	for name, vs := range request.Headers {
		if n := strings.ToLower(name); (n == "authorization" || n == "x-team" || n == "x-user-id") && (len(vs) != 1 || vs[0] != Redacted) {
			t.Errorf("request header %s = %v, want redacted", name, vs)
		}
	}
	if streaming && kinds[WireEvent] == 0 {
		t.Errorf("a streamed turn has no event records: %v", kinds)
	}
	reply := end.Body
	if streaming {
		reply = ""
		for _, r := range recs {
			if r.Kind == WireEvent {
				reply += r.Body
			}
		}
	}
	if !strings.Contains(reply, "echo: hello trace") {
		t.Errorf("the trace lacks the reply; end %+v", *end)
	}
	if transport == TransportGRPC {
		// A stream is left after its final event: no code was read.
		if want := map[bool]string{false: "OK", true: ""}[streaming]; end.GRPCCode != want || end.Error != "" {
			t.Errorf("gRPC end code %q error %q, want code %q", end.GRPCCode, end.Error, want)
		}
	} else {
		for _, r := range recs {
			if r.Kind == WireResponse && r.ContextID == contextID && r.Status != http.StatusOK {
				t.Errorf("HTTP response status %d", r.Status)
			}
		}
	}
	if end.ElapsedMS <= 0 {
		t.Errorf("end record without a time: %+v", *end)
	}
}

// TestWireTraceBodyCap cuts a long message to the cap and says so.
func TestWireTraceBodyCap(t *testing.T) {
	base := agenttest.StartPeer(t, agenttest.Peer{Transport: string(TransportJSONRPC), Protocol: string(Protocol10)}, agenttest.Sorry)
	var buf bytes.Buffer
	trace := NewWireTrace(&buf, WireTraceOptions{MaxBodyBytes: 256})
	c := dial(t, base, WithWireTrace(trace))
	long := strings.Repeat("x", 4000)
	if _, err := c.NewConversation().Send(testCtx(t), []*a2a.Part{a2a.NewTextPart(long)}); err != nil {
		t.Fatal(err)
	}
	for _, r := range readTrace(t, buf.Bytes()) {
		if len(r.Body) > 256 {
			t.Errorf("%s record body of %d bytes over the 256 cap", r.Kind, len(r.Body))
		}
		if r.Kind == WireRequest && r.ContextID != "" && (!r.Truncated || r.BodyBytes < 4000) {
			t.Errorf("the long request is not marked cut: %+v", r)
		}
	}
}

// FuzzWireTraceBody feeds an agent's reply, cut into reads of any size,
// through the trace's body reader, as a stream and as a whole reply: the
// bytes pass unchanged, every record is a JSON line and no body exceeds
// the cap.
func FuzzWireTraceBody(f *testing.F) {
	f.Add([]byte("data: {\"a\":1}\n\ndata: {\"b\":2}\r\n\r\n: comment\n\ndata: x"), uint8(3), true)
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"result\":{}}"), uint8(7), false)
	f.Add(bytes.Repeat([]byte("data: y\n"), 100), uint8(1), true)
	f.Fuzz(func(t *testing.T, body []byte, chunk uint8, stream bool) {
		var buf bytes.Buffer
		trace := NewWireTrace(&buf, WireTraceOptions{MaxBodyBytes: 32})
		tb := &traceBody{rc: io.NopCloser(bytes.NewReader(body)), trace: trace, rec: WireRecord{Exchange: 1, Transport: "http"}, start: time.Now(), stream: stream}
		var got []byte
		p := make([]byte, int(chunk)+1)
		for {
			n, err := tb.Read(p)
			got = append(got, p[:n]...)
			if err != nil {
				break
			}
		}
		_ = tb.Close()
		if !bytes.Equal(got, body) {
			t.Fatalf("the reader changed the body")
		}
		ends := 0
		for _, r := range readTrace(t, buf.Bytes()) {
			if n := utf8.RuneCountInString(r.Body); n > 32 {
				t.Errorf("%s body of %d characters over the cap", r.Kind, n)
			}
			if r.Kind == WireEnd {
				ends++
				if r.BodyBytes != int64(len(body)) {
					t.Errorf("end body_bytes %d, want %d", r.BodyBytes, len(body))
				}
			}
		}
		if ends != 1 {
			t.Errorf("%d end records, want 1", ends)
		}
	})
}
