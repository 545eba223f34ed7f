package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// rest03Answer is what a test reads of an HTTP+JSON 0.3 answer.
type rest03Answer struct {
	Status      int
	ContentType string
	Body        string
}

// postREST03 posts body to the 0.3 HTTP+JSON method (message:send,
// message:stream) and reads the whole answer.
func postREST03(t *testing.T, base, method, body string) rest03Answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+PathREST03+"/v1/message:"+method, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if method == "stream" {
		req.Header.Set("Accept", "text/event-stream")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rest03Answer{resp.StatusCode, resp.Header.Get("Content-Type"), string(b)}
}

// TestREST03ProtoFieldNames: the 0.3 HTTP+JSON interface reads a
// SendMessageRequest written with the proto's field names, as a2a-python
// 1.x's compat client sends it ("request", "message_id", snake_case
// throughout), as well as with the JSON names, streamed or not (issue 25).
func TestREST03ProtoFieldNames(t *testing.T) {
	srv := startServer(t, Config{})
	const (
		jsonNames = `{"message":{"messageId":"m-%s","contextId":"c-%s","role":"ROLE_USER",` +
			`"content":[{"data":{"data":{"skill":"list_domains"}}}]},"configuration":{"acceptedOutputModes":["text/plain"],"blocking":true}}`
		protoNames = `{"request":{"message_id":"m-%s","context_id":"c-%s","role":"ROLE_USER",` +
			`"content":[{"data":{"data":{"skill":"list_domains"}}}]},"configuration":{"accepted_output_modes":["text/plain"],"blocking":true}}`
	)
	for _, form := range []struct{ name, body string }{{"json names", jsonNames}, {"proto names", protoNames}} {
		for _, method := range []string{"send", "stream"} {
			t.Run(form.name+"/"+method, func(t *testing.T) {
				id := strings.ReplaceAll(form.name, " ", "-") + "-" + method
				got := postREST03(t, srv.URL(), method, strings.ReplaceAll(form.body, "%s", id))
				if got.Status != http.StatusOK || !strings.Contains(got.Body, `"num_tasks"`) || !strings.Contains(got.Body, `"c-`+id+`"`) {
					t.Errorf("answer %d %s: %s; want 200 with list_domains' reply in context c-%s", got.Status, got.ContentType, got.Body, id)
				}
			})
		}
	}
}

// TestREST03StreamErrors: a stream that fails before its first event is
// answered as message:send answers the same failure, with its HTTP status
// and the error object, not as a 200 event stream whose one event is the
// error, which 0.3 clients cannot read as an event.
func TestREST03StreamErrors(t *testing.T) {
	srv := startServer(t, Config{})
	for _, method := range []string{"send", "stream"} {
		t.Run(method, func(t *testing.T) {
			got := postREST03(t, srv.URL(), method, `{"configuration":{"blocking":true}}`)
			var body struct {
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(got.Body), &body); err != nil {
				t.Fatalf("answer %d %s is not one JSON error object: %v\n%s", got.Status, got.ContentType, err, got.Body)
			}
			want := rest03Answer{Status: http.StatusBadRequest, ContentType: "json"}
			got.ContentType = strings.TrimPrefix(strings.TrimPrefix(got.ContentType, "application/"), "problem+")
			got.Body = ""
			if diff := cmp.Diff(want, got); diff != "" || body.Error.Code != http.StatusBadRequest || !strings.Contains(body.Error.Message, "message is required") {
				t.Errorf("answer (-want +got):\n%s\nerror %+v", diff, body.Error)
			}
		})
	}
}
