package a2afix

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

func TestJSONRPCEnvelope(t *testing.T) {
	passed := false
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		passed = true
		b, _ := io.ReadAll(r.Body)
		_, _ = w.Write(b) // echo: the body must reach the handler whole
	})
	h := JSONRPC(next)
	cases := []struct {
		body   string
		passes bool
		id     string
	}{
		{`{"jsonrpc":"2.0","id":"1","method":"GetTask","params":{"id":"x"}}`, true, ""},
		{`{"jsonrpc":"2.0","method":"GetTask"}`, true, ""},
		{`{"jsonrpc":"2.0","id":7,"method":"GetTask","params":[]}`, true, ""},
		{`{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`, true, ""}, // a parse error: a2a-go's
		{`{"jsonrpc": "2.0", "method": 1, "params": "bar"}`, false, "null"},
		{`{"jsonrpc":"2.0","id":"a","method":1}`, false, `"a"`},
		{`{"jsonrpc":"2.0","id":"a","method":"GetTask","params":"x"}`, false, `"a"`},
		{`{"jsonrpc":2,"id":3,"method":"GetTask"}`, false, "3"},
		{`{"id":"a","method":"GetTask"}`, false, `"a"`},
		{`{"jsonrpc":"2.0","id":{},"method":"GetTask"}`, false, "null"},
		{`[1,2,3]`, false, "null"},
		{`"x"`, false, "null"},
	}
	for _, tc := range cases {
		passed = false
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body)))
		if passed != tc.passes {
			t.Errorf("%s: passed to the handler %v, want %v", tc.body, passed, tc.passes)
			continue
		}
		if tc.passes {
			if rec.Body.String() != tc.body {
				t.Errorf("%s: the handler read %q", tc.body, rec.Body.String())
			}
			continue
		}
		var resp struct {
			ID    json.RawMessage `json:"id"`
			Error struct{ Code int }
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || resp.Error.Code != -32600 || string(resp.ID) != tc.id {
			t.Errorf("%s: answered %s, want -32600 with id %s", tc.body, rec.Body.String(), tc.id)
		}
	}
}

type fakeHandler struct {
	a2asrv.RequestHandler
	state a2a.TaskState
}

func (f fakeHandler) GetTask(context.Context, *a2a.GetTaskRequest) (*a2a.Task, error) {
	if f.state == "" {
		return nil, a2a.ErrTaskNotFound
	}
	return &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: f.state}}, nil
}

func (f fakeHandler) SubscribeToTask(context.Context, *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) { yield(&a2a.Task{ID: "t"}, nil) }
}

func TestSubscribeToFinishedTask(t *testing.T) {
	for state, wantErr := range map[a2a.TaskState]error{
		a2a.TaskStateCompleted: a2a.ErrUnsupportedOperation,
		a2a.TaskStateCanceled:  a2a.ErrUnsupportedOperation,
		a2a.TaskStateWorking:   nil,
		"":                     a2a.ErrTaskNotFound, // unknown, or another owner's: GetTask's answer
	} {
		for _, err := range Handler(fakeHandler{state: state}).SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: "t"}) {
			if !errors.Is(err, wantErr) && !(wantErr == nil && err == nil) {
				t.Errorf("%q: %v, want %v", state, err, wantErr)
			}
			break
		}
	}
}
