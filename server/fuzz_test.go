package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// checkParsed checks one parseRequest outcome: a request of a known kind
// with its parameters, free text, or an *skills.InvalidRequestError listing
// at least one violation.
func checkParsed(t *testing.T, req request, err error, fromData bool, input string) {
	t.Helper()
	if err != nil {
		var inv *skills.InvalidRequestError
		if !errors.As(err, &inv) {
			t.Fatalf("error %T %v, want an *skills.InvalidRequestError", err, err)
		}
		if len(inv.Violations) == 0 {
			t.Fatal("an InvalidRequestError without violations")
		}
		for _, v := range inv.Violations {
			if v == "" || !utf8.ValidString(v) {
				t.Fatalf("violation %q: empty or not UTF-8", v)
			}
		}
		return
	}
	switch req.kind {
	case "":
		if fromData {
			t.Fatalf("a JSON object in a data part was taken for free text")
		}
		if req.text != strings.TrimSpace(input) {
			t.Fatalf("free text %q, want %q", req.text, strings.TrimSpace(input))
		}
	case SkillRunEvaluation:
		if req.run == nil {
			t.Fatal("run_evaluation without parameters")
		}
	case SkillGetResults:
		if req.results == nil {
			t.Fatal("get_results without parameters")
		}
	case SkillListDomains:
	case SkillCheckConformance:
		if req.conformance == nil {
			t.Fatal("check_conformance without parameters")
		}
	default:
		t.Fatalf("unknown request kind %q", req.kind)
	}
}

// FuzzParseRequest feeds arbitrary bytes to the message decoding, as a text
// part and, when they decode to a JSON object, as a data part: it never
// panics, and answers a request, free text, or a list of violations. The
// requests it accepts go on to the checks a server makes before running
// anything, which must not panic either.
func FuzzParseRequest(f *testing.F) {
	for _, seed := range []string{
		``,
		`hello, can you test my agent?`,
		`{`,
		`{}`,
		`{"skill": `,
		`{"skill": "list_domains"}`,
		`{"skill": "list_domains", "params": {"x": 1}}`,
		`{"skill": "list_domains", "params": null}`,
		`{"skill": "run_evaluation", "params": {"domain": "mock", "agent_url": "builtin", "num_trials": 2}}`,
		`{"skill": "run_evaluation", "params": {"agent_url": "https://a.example", "task_ids": ["mock-01", ""], "timeout": "30m", "headers": {"X-A": "b"}}}`,
		`{"skill": "run_evaluation", "params": {"agent_url": "builtin", "num_trials": "three"}}`,
		`{"skill": "run_evaluation", "params": {"agent_url": "builtin", "timeout": 1e300, "request_timeout": -1}}`,
		`{"skill": "run_evaluation", "params": {"resume": "01a1fd45", "concurrency": 99999}}`,
		`{"skill": "run_evaluation", "params": []}`,
		`{"skill": "get_results", "params": {"id": "01a1fd45"}}`,
		`{"skill": "get_results", "params": {"domain": "mock", "limit": 501, "status": "odd", "include_transcripts": false}}`,
		`{"skill": 7}`,
		`{"skill": null}`,
		`{"skill": "dance", "extra": true}`,
		`{"participants": {"agent": "https://agent.example.com"}, "config": {"domain": "mock", "num_tasks": 5}}`,
		`{"participants": {"green": "https://a", "purple": "https://b"}}`,
		`{"participants": null, "config": 5}`,
		`{"participants": {"agent": 5}}`,
		`{"participants": {"agent": "http://x"}, "config": {"timeout": "forever", "num_shards": 2, "shard_index": 9}}`,
		`{"skill": "list_domains", "skill": "get_results"}`,
		`{"skill":"` + strings.Repeat("é", 40) + `"}`,
		"\xff\xfe{\"skill\"}",
		`[1, 2, 3]`,
		`{"skill": "run_evaluation", "params": {"agent_url": "builtin", "num_tasks": 1e30}}`,
	} {
		f.Add([]byte(seed))
	}
	reg, err := catalog.Builtin()
	if err != nil {
		f.Fatal(err)
	}
	db, err := store.Open(filepath.Join(f.TempDir(), "fuzz.db"), store.WithNoSync())
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = db.Close() })
	svc := &skills.Service{Domains: reg, Store: db}
	// What the server does with a request before any agent is reached.
	vet := func(t *testing.T, req request) {
		t.Helper()
		var inv *skills.InvalidRequestError
		switch req.kind {
		case SkillRunEvaluation:
			if err := svc.Check(req.run.EvaluationRequest); err != nil && !errors.As(err, &inv) {
				t.Fatalf("Check: %T %v, want nil or an InvalidRequestError", err, err)
			}
		case SkillGetResults:
			if _, _, err := svc.GetResults(context.Background(), *req.results); err != nil && !errors.As(err, &inv) {
				t.Fatalf("GetResults: %T %v, want nil or an InvalidRequestError", err, err)
			}
		}
	}

	f.Fuzz(func(t *testing.T, b []byte) {
		in := string(b)
		req, err := parseRequest(a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(in)))
		checkParsed(t, req, err, false, in)
		if err == nil {
			vet(t, req)
		}
		if trimmed := strings.TrimSpace(in); err == nil && req.kind == "" && strings.HasPrefix(trimmed, "{") && json.Valid([]byte(trimmed)) {
			// Valid JSON objects in text are requests or violations, unless
			// they have neither a skill nor participants.
			var head map[string]json.RawMessage
			if json.Unmarshal([]byte(trimmed), &head) == nil && (head["skill"] != nil || head["participants"] != nil) {
				t.Fatalf("a JSON request in text was taken for free text: %q", trimmed)
			}
		}

		var obj map[string]any
		if json.Unmarshal(b, &obj) != nil || obj == nil {
			return
		}
		req, err = parseRequest(a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(obj)))
		checkParsed(t, req, err, true, "")
		if err == nil {
			vet(t, req)
		}
		// A data part beside text: the data part is the request.
		req2, err2 := parseRequest(a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("please"), a2a.NewDataPart(obj), nil))
		if (err == nil) != (err2 == nil) || req.kind != req2.kind {
			t.Fatalf("a data part alone gives (%q, %v), beside text (%q, %v)", req.kind, err, req2.kind, err2)
		}
	})
}

// ---------------------------------------------------------------- hostile requests on the wire

// startServer serves a Server with cfg on free loopback ports until the
// test ends.
func startServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	reg, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host = "127.0.0.1"
	srv, err := New(cfg, &skills.Service{Domains: reg, Store: db})
	if err != nil {
		t.Fatal(err)
	}
	serveInBackground(t, srv, db)
	return srv
}

// wireReply is a decoded HTTP answer of an A2A endpoint.
type wireReply struct {
	status int
	body   []byte
	rpc    struct {
		ID     any             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
}

// state and text of a JSON-RPC 1.0 SendMessage result: a task's status or
// a message.
func (r wireReply) outcome(t *testing.T) (kind, state, text string) {
	t.Helper()
	var res struct {
		Task *struct {
			Status struct {
				State   string          `json:"state"`
				Message json.RawMessage `json:"message"`
			} `json:"status"`
		} `json:"task"`
		Message json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(r.rpc.Result, &res); err != nil {
		t.Fatalf("result %s: %v", clip(r.body), err)
	}
	msgText := func(raw json.RawMessage) string {
		var m struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		}
		_ = json.Unmarshal(raw, &m)
		var b strings.Builder
		for _, p := range m.Parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	switch {
	case res.Task != nil:
		return "task", res.Task.Status.State, msgText(res.Task.Status.Message)
	case res.Message != nil:
		return "message", "", msgText(res.Message)
	}
	t.Fatalf("result is neither a task nor a message: %s", clip(r.body))
	return
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

func post(t *testing.T, url string, body io.Reader, header http.Header) wireReply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	// Each interface serves one version; no header would mean 0.3.
	req.Header.Set("A2A-Version", "1.0")
	if strings.Contains(url, "/v0.3/") {
		req.Header.Set("A2A-Version", "0.3")
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	var r wireReply
	r.status = resp.StatusCode
	r.body, _ = io.ReadAll(resp.Body)
	_ = json.Unmarshal(r.body, &r.rpc)
	return r
}

// sendMessage is a JSON-RPC 1.0 SendMessage request carrying parts (JSON).
func sendMessage(parts string) string {
	return `{"jsonrpc":"2.0","id":42,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":` + parts + `}}}`
}

func dataPartJSON(v any) string {
	b, err := json.Marshal(map[string]any{"data": v})
	if err != nil {
		panic(err)
	}
	return "[" + string(b) + "]"
}

func textPartJSON(s string) string {
	b, err := json.Marshal(map[string]any{"text": s})
	if err != nil {
		panic(err)
	}
	return "[" + string(b) + "]"
}

// serverAlive checks that the server still answers /healthz and a real
// request.
func serverAlive(t *testing.T, srv *Server, header http.Header) {
	t.Helper()
	resp, err := http.Get(srv.URL() + PathHealth)
	if err != nil {
		t.Fatalf("/healthz after hostile requests: %v", err)
	}
	var h map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if resp.StatusCode != 200 || h["status"] != "ok" {
		t.Fatalf("/healthz after hostile requests: %d %v", resp.StatusCode, h)
	}
	r := post(t, srv.URL()+PathJSONRPC, strings.NewReader(sendMessage(dataPartJSON(map[string]any{"skill": "list_domains"}))), header)
	if r.status != 200 || r.rpc.Error != nil {
		t.Fatalf("list_domains after hostile requests: %d %s", r.status, clip(r.body))
	}
}

// TestHostileRequests sends malformed, mistyped, unknown and oversized
// requests: each gets the right A2A error or rejection, and the server keeps
// serving.
func TestHostileRequests(t *testing.T) {
	srv := startServer(t, Config{GRPCPort: -1})
	rpcURL := srv.URL() + PathJSONRPC
	huge := strings.Repeat("a", int(DefaultMaxRequestBytes)) // a body over the limit with the envelope

	type want struct {
		status  int    // HTTP status; 0 means 200
		rpcCode int    // JSON-RPC error code; 0 means a result
		kind    string // with a result: "task" or "message"
		state   string // with a task: its state
		text    string // in the error message, or the reply's text
	}
	cases := []struct {
		name string
		path string // default the JSON-RPC 1.0 endpoint
		body string
		want want
	}{
		{"truncated JSON", "", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{`, want{rpcCode: -32700}},
		{"empty body", "", ``, want{rpcCode: -32700}},
		// JSON-RPC 2.0 §7: an array that is no batch of requests is an
		// invalid request (a2a-go itself says -32602; internal/a2afix).
		{"not an object", "", `[1,2,3]`, want{rpcCode: -32600}},
		{"method of the wrong type", "", `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`, want{rpcCode: -32600}},
		{"unknown method", "", `{"jsonrpc":"2.0","id":1,"method":"Dance","params":{}}`, want{rpcCode: -32601}},
		{"wrong jsonrpc version", "", `{"jsonrpc":"1.0","id":1,"method":"SendMessage","params":{}}`, want{rpcCode: -32600}},
		{"message of the wrong type", "", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":5}}`, want{rpcCode: -32602}},
		{"no message", "", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}`, want{rpcCode: -32602}},
		{"no parts", "", sendMessage(`[]`), want{rpcCode: -32602}},
		// Refused before anything decodes it (see TestNestingLimit).
		{"nesting beyond the decoder's depth", "", sendMessage(`[{"data":{"skill":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}]`), want{rpcCode: -32600, text: "nested deeper than 64"}},
		{"unknown task", "", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"no-such-task"}}`, want{rpcCode: -32001}},
		{"cancel an unknown task", "", `{"jsonrpc":"2.0","id":1,"method":"CancelTask","params":{"id":"no-such-task"}}`, want{rpcCode: -32001}},

		{"unknown skill", "", sendMessage(dataPartJSON(map[string]any{"skill": "dance"})),
			want{kind: "task", state: "TASK_STATE_REJECTED", text: `unknown skill "dance"`}},
		{"skill of the wrong type", "", sendMessage(dataPartJSON(map[string]any{"skill": 7})),
			want{kind: "task", state: "TASK_STATE_REJECTED", text: "skill must be a string"}},
		{"unknown key beside the skill", "", sendMessage(dataPartJSON(map[string]any{"skill": "list_domains", "colour": "red"})),
			want{kind: "task", state: "TASK_STATE_REJECTED", text: `unknown key "colour"`}},
		{"list_domains with params", "", sendMessage(dataPartJSON(map[string]any{"skill": "list_domains", "params": map[string]any{"x": 1}})),
			want{kind: "task", state: "TASK_STATE_REJECTED", text: "list_domains takes none"}},
		{"params of the wrong type", "", sendMessage(dataPartJSON(map[string]any{"skill": "run_evaluation", "params": []int{1}})),
			want{kind: "task", state: "TASK_STATE_REJECTED", text: "params:"}},
		{"a param of the wrong type", "", sendMessage(dataPartJSON(map[string]any{"skill": "run_evaluation", "params": map[string]any{"agent_url": "builtin", "num_trials": "three"}})),
			want{kind: "task", state: "TASK_STATE_REJECTED", text: "num_trials: want a int"}},
		{"out-of-range params", "", sendMessage(dataPartJSON(map[string]any{"skill": "run_evaluation", "params": map[string]any{"agent_url": "builtin", "num_trials": 5000, "concurrency": -1}})),
			want{kind: "task", state: "TASK_STATE_REJECTED", text: "concurrency -1: at least 0\n- num_trials 5000: at most 1000"}},
		{"a duration that is none", "", sendMessage(dataPartJSON(map[string]any{"skill": "run_evaluation", "params": map[string]any{"agent_url": "builtin", "timeout": "forever"}})),
			want{kind: "task", state: "TASK_STATE_REJECTED", text: `duration "forever"`}},
		{"get_results of an unknown id", "", sendMessage(dataPartJSON(map[string]any{"skill": "get_results", "params": map[string]any{"id": "ffffffff-ffff"}})),
			want{kind: "task", state: "TASK_STATE_REJECTED", text: "id:"}},
		{"get_results with a limit of the wrong type", "", sendMessage(dataPartJSON(map[string]any{"skill": "get_results", "params": map[string]any{"limit": "ten"}})),
			want{kind: "task", state: "TASK_STATE_REJECTED", text: "limit: want a int"}},
		{"an assessment without the agent", "", sendMessage(dataPartJSON(map[string]any{"participants": map[string]any{"a": "http://x", "b": "http://y"}})),
			want{kind: "task", state: "TASK_STATE_REJECTED", text: "got roles: a, b"}},
		{"a data part that is no request", "", sendMessage(dataPartJSON(map[string]any{"hello": "world"})),
			want{kind: "task", state: "TASK_STATE_REJECTED", text: `{"skill": ..., "params": {...}}`}},
		{"a data part that is an array", "", sendMessage(dataPartJSON([]int{1, 2})),
			want{kind: "task", state: "TASK_STATE_COMPLETED", text: "no text I could read"}},
		{"text that merely starts with a brace", "", sendMessage(textPartJSON(`{"skill": `)),
			want{kind: "task", state: "TASK_STATE_COMPLETED", text: "I take these requests"}},
		{"text holding an unknown skill", "", sendMessage(textPartJSON(`{"skill": "dance"}`)),
			want{kind: "task", state: "TASK_STATE_REJECTED", text: `unknown skill "dance"`}},
		{"a request over the JSON bound, under the body limit", "", sendMessage(textPartJSON(`{"skill": "list_domains", "params": {"x": "` + strings.Repeat("a", maxRequestJSON) + `"}}`)),
			want{kind: "task", state: "TASK_STATE_REJECTED", text: fmt.Sprintf("at most %d", maxRequestJSON)}},
		{"many small parts", "", sendMessage("[" + strings.Repeat(`{"text":"a"},`, 20000) + `{"text":"b"}]`),
			want{kind: "task", state: "TASK_STATE_COMPLETED", text: "I take these requests"}},

		{"a body over the limit", "", sendMessage(textPartJSON(huge)), want{status: http.StatusRequestEntityTooLarge}},
		{"a body over the limit, REST", PathREST + "/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","parts":` + textPartJSON(huge) + `}}`,
			want{status: http.StatusRequestEntityTooLarge}},
		{"a body over the limit, protocol 0.3", PathJSONRPC03, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":` + huge + `}`,
			want{status: http.StatusRequestEntityTooLarge}},
		{"truncated JSON, REST", PathREST + "/message:send", `{"message":`, want{status: http.StatusBadRequest}},
		{"unknown skill, REST", PathREST + "/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","parts":` + dataPartJSON(map[string]any{"skill": "dance"}) + `}}`,
			want{kind: "task", state: "TASK_STATE_REJECTED", text: `unknown skill "dance"`}},
		{"message of the wrong type, protocol 0.3", PathJSONRPC03, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":5}}`, want{rpcCode: -32602}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if path == "" {
				path = PathJSONRPC
			}
			r := post(t, srv.URL()+path, strings.NewReader(tc.body), nil)
			wantStatus := tc.want.status
			if wantStatus == 0 {
				wantStatus = http.StatusOK
			}
			if r.status != wantStatus {
				t.Fatalf("HTTP %d, want %d: %s", r.status, wantStatus, clip(r.body))
			}
			if wantStatus != http.StatusOK || strings.Contains(path, "/rest") {
				if wantStatus == http.StatusOK {
					// A REST reply is the result itself.
					r.rpc.Result = r.body
					kind, state, text := r.outcome(t)
					if kind != tc.want.kind || state != tc.want.state || !strings.Contains(text, tc.want.text) {
						t.Errorf("got %s %s %q, want %s %s with %q", kind, state, text, tc.want.kind, tc.want.state, tc.want.text)
					}
				}
				return
			}
			if tc.want.rpcCode != 0 {
				if r.rpc.Error == nil || r.rpc.Error.Code != tc.want.rpcCode {
					t.Fatalf("want JSON-RPC error %d, got %s", tc.want.rpcCode, clip(r.body))
				}
				return
			}
			if r.rpc.Error != nil {
				t.Fatalf("JSON-RPC error %d %s, want a result", r.rpc.Error.Code, r.rpc.Error.Message)
			}
			if id, _ := r.rpc.ID.(float64); id != 42 {
				t.Errorf("reply id %v, want 42", r.rpc.ID)
			}
			kind, state, text := r.outcome(t)
			if kind != tc.want.kind || state != tc.want.state || !strings.Contains(text, tc.want.text) {
				t.Errorf("got %s %s %q, want %s %s with %q", kind, state, text, tc.want.kind, tc.want.state, tc.want.text)
			}
		})
	}

	// A body over the limit without a Content-Length (chunked) is cut at
	// the limit and answered 413, as one that states its length (every
	// binding: TestBodyLimits).
	t.Run("a chunked body over the limit", func(t *testing.T) {
		body := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"`),
			strings.NewReader(huge), strings.NewReader(`"}]}}}`))
		r := post(t, rpcURL, struct{ io.Reader }{body}, nil) // hides the length
		if r.status != http.StatusRequestEntityTooLarge {
			t.Fatalf("HTTP %d %s, want 413", r.status, clip(r.body))
		}
	})

	serverAlive(t, srv, nil)
}

// TestMissingTokens: with tokens configured, every A2A endpoint refuses a
// request without a valid one (401 and, on JSON-RPC, error -31401; gRPC
// Unauthenticated), before reading what it asks; the card and /healthz stay
// public.
func TestMissingTokens(t *testing.T) {
	const token = "s3cret"
	srv := startServer(t, Config{AuthTokens: []string{token, "second-token"}})
	listDomains := sendMessage(dataPartJSON(map[string]any{"skill": "list_domains"}))
	cases := []struct {
		name   string
		path   string
		auth   string // the Authorization header, "" for none
		body   string
		wantOK bool
	}{
		{"no token", PathJSONRPC, "", listDomains, false},
		{"wrong token", PathJSONRPC, "Bearer nope", listDomains, false},
		{"empty bearer", PathJSONRPC, "Bearer ", listDomains, false},
		{"token prefix", PathJSONRPC, "Bearer s3cre", listDomains, false},
		{"token with a suffix", PathJSONRPC, "Bearer s3cret2", listDomains, false},
		{"basic scheme", PathJSONRPC, "Basic czNjcmV0Og==", listDomains, false},
		{"bare token", PathJSONRPC, token, listDomains, false},
		{"no token, malformed body", PathJSONRPC, "", `{"jsonrpc":`, false},
		{"no token, protocol 0.3", PathJSONRPC03, "", `{"jsonrpc":"2.0","id":42,"method":"message/send","params":{}}`, false},
		{"no token, REST", PathREST + "/message:send", "", `{"message":{}}`, false},
		{"no token, REST 0.3", PathREST03 + "/message:send", "", `{"message":{}}`, false},
		{"the token", PathJSONRPC, "Bearer " + token, listDomains, true},
		{"the second token", PathJSONRPC, "Bearer second-token", listDomains, true},
		// RFC 7235: the authentication scheme is case-insensitive.
		{"lower-case scheme", PathJSONRPC, "bearer " + token, listDomains, true},
		{"upper-case scheme", PathJSONRPC, "BEARER " + token, listDomains, true},
		{"two spaces after the scheme", PathJSONRPC, "Bearer  " + token, listDomains, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.auth != "" {
				h.Set("Authorization", tc.auth)
			}
			r := post(t, srv.URL()+tc.path, strings.NewReader(tc.body), h)
			if tc.wantOK {
				if r.status != 200 || r.rpc.Error != nil {
					t.Fatalf("HTTP %d %s, want the request served", r.status, clip(r.body))
				}
				return
			}
			if r.status != http.StatusUnauthorized {
				t.Fatalf("HTTP %d %s, want 401", r.status, clip(r.body))
			}
			if strings.HasSuffix(tc.path, "jsonrpc") {
				if r.rpc.Error == nil || r.rpc.Error.Code != -31401 {
					t.Errorf("body %s, want JSON-RPC error -31401", clip(r.body))
				}
				if id, _ := r.rpc.ID.(float64); strings.Contains(tc.body, `"id":42`) && id != 42 {
					t.Errorf("reply id %v, want the request's 42", r.rpc.ID)
				}
			} else if !bytes.Contains(r.body, []byte("UNAUTHENTICATED")) {
				t.Errorf("body %s, want an UNAUTHENTICATED error", clip(r.body))
			}
		})
	}

	// gRPC: the interceptors refuse calls without a token.
	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	grpcClient := a2apb.NewA2AServiceClient(conn)
	data, err := structpb.NewStruct(map[string]any{"skill": "list_domains"})
	if err != nil {
		t.Fatal(err)
	}
	msg := &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m1", Role: a2apb.Role_ROLE_USER,
		Parts: []*a2apb.Part{{Content: &a2apb.Part_Data{Data: structpb.NewStructValue(data)}}}}}
	for _, tc := range []struct {
		name string
		md   []string
		want codes.Code
	}{
		{"gRPC without a token", nil, codes.Unauthenticated},
		{"gRPC with a wrong token", []string{"authorization", "Bearer nope"}, codes.Unauthenticated},
		{"gRPC with the token", []string{"authorization", "Bearer " + token}, codes.OK},
		{"gRPC with a lower-case scheme", []string{"authorization", "bearer " + token}, codes.OK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ctx = metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0")
			if tc.md != nil {
				ctx = metadata.AppendToOutgoingContext(ctx, tc.md...)
			}
			_, err := grpcClient.SendMessage(ctx, msg)
			if got := status.Code(err); got != tc.want {
				t.Errorf("code %s (%v), want %s", got, err, tc.want)
			}
			// The stream is guarded too.
			stream, err := grpcClient.SendStreamingMessage(ctx, msg)
			if err == nil {
				_, err = stream.Recv()
			}
			if tc.want != codes.OK && status.Code(err) != tc.want {
				t.Errorf("stream: code %s (%v), want %s", status.Code(err), err, tc.want)
			}
		})
	}
	// Oversized gRPC messages are refused, not read.
	t.Run("gRPC message over the limit", func(t *testing.T) {
		big, _ := structpb.NewStruct(map[string]any{"skill": "list_domains", "x": strings.Repeat("a", int(DefaultMaxRequestBytes))})
		ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+token)
		_, err := grpcClient.SendMessage(ctx, &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m2", Role: a2apb.Role_ROLE_USER,
			Parts: []*a2apb.Part{{Content: &a2apb.Part_Data{Data: structpb.NewStructValue(big)}}}}})
		if status.Code(err) != codes.ResourceExhausted {
			t.Errorf("code %s (%v), want ResourceExhausted", status.Code(err), err)
		}
	})

	// The card and health need no token.
	for _, p := range []string{"/.well-known/agent-card.json", PathHealth} {
		resp, err := http.Get(srv.URL() + p)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", p, resp, err)
		}
		resp.Body.Close()
	}
	serverAlive(t, srv, http.Header{"Authorization": {"Bearer " + token}})
}
