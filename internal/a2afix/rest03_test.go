package a2afix

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestREST03RenamesProtoFields: a SendMessageRequest in the 0.3 proto's
// field names reaches a2a-go in JSON names; the keys of metadata and of
// data parts, which are the sender's, and numbers stay as sent.
func TestREST03RenamesProtoFields(t *testing.T) {
	const want = `{"message":{"messageId":"m1","contextId":"c1","taskId":"t1","referenceTaskIds":["t0"],"role":"ROLE_USER",
		"content":[{"text":"hi","metadata":{"part_key":1}},{"data":{"data":{"task_ids":[1,2.50]}}},
		{"file":{"fileWithUri":"https://x/y","mimeType":"text/plain","name":"y"}}],"metadata":{"user_id":"u"},"extensions":["e"]},
		"configuration":{"acceptedOutputModes":["text/plain"],"pushNotification":{"url":"https://x","authentication":{"schemes":["Bearer"]}},"historyLength":3,"blocking":true},
		"metadata":{"trace_id":"x"}}`
	cases := []struct{ name, body string }{
		{"proto names", `{"request":{"message_id":"m1","context_id":"c1","task_id":"t1","reference_task_ids":["t0"],"role":"ROLE_USER",
			"content":[{"text":"hi","metadata":{"part_key":1}},{"data":{"data":{"task_ids":[1,2.50]}}},
			{"file":{"file_with_uri":"https://x/y","mime_type":"text/plain","name":"y"}}],"metadata":{"user_id":"u"},"extensions":["e"]},
			"configuration":{"accepted_output_modes":["text/plain"],"push_notification":{"url":"https://x","authentication":{"schemes":["Bearer"]}},"history_length":3,"blocking":true},
			"metadata":{"trace_id":"x"}}`},
		{"json names", want},
	}
	for _, tc := range cases {
		for _, method := range []string{"send", "stream"} {
			t.Run(tc.name+"/"+method, func(t *testing.T) {
				var got []byte
				h := REST03(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got, _ = io.ReadAll(r.Body) }))
				h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/v1/message:"+method, strings.NewReader(tc.body)))
				if diff := cmp.Diff(decodeJSON(t, want), decodeJSON(t, string(got))); diff != "" {
					t.Errorf("body a2a-go reads (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// decodeJSON decodes s keeping numbers as they are written.
func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}

// TestREST03StreamErrors: a2a-go writes a stream's error as one more event;
// before the first event it becomes the answer's status and body, after it
// an SSE event named "error".
func TestREST03StreamErrors(t *testing.T) {
	const (
		event  = "id: 1\ndata: {\"task\":{\"id\":\"t1\"}}\n\n"
		failed = "id: 2\ndata: {\"error\":{\"code\":404,\"message\":\"task not found\"}}\n\n"
	)
	cases := []struct {
		name   string
		events []string
		want   rest03Recorded
	}{
		{"error first", []string{failed}, rest03Recorded{404, "application/json", `{"error":{"code":404,"message":"task not found"}}`}},
		{"error after an event", []string{event, failed}, rest03Recorded{200, "text/event-stream", event + "event: error\n" + failed}},
		{"events only", []string{event, event}, rest03Recorded{200, "text/event-stream", event + event}},
		{"no events", nil, rest03Recorded{200, "text/event-stream", ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := REST03(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				for _, ev := range tc.events {
					// a2a-go writes an event's id and data lines apart.
					i := strings.Index(ev, "data:")
					_, _ = io.WriteString(w, ev[:i])
					_, _ = io.WriteString(w, ev[i:])
					w.(http.Flusher).Flush()
				}
			}))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/message:stream", strings.NewReader(`{}`)))
			got := rest03Recorded{rec.Code, rec.Header().Get("Content-Type"), rec.Body.String()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}

// rest03Recorded is an answer as a client reads it.
type rest03Recorded struct {
	Status      int
	ContentType string
	Body        string
}
