package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// marker is in every credential the test sends, and nowhere else.
const marker = "S3CR3T"

// testHeader is the header run_evaluation sends to the agent.
const testHeader = "X-Proctor-Test-Key"

// keyedAgent is an agent that serves only requests carrying testHeader
// with a credential, and records the values it received.
func keyedAgent(t *testing.T) (url string, seen func(string) bool) {
	t.Helper()
	var mu sync.Mutex
	got := map[string]bool{}
	rpc := agenttest.Handler(agenttest.Sorry)
	mux := http.NewServeMux()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	url = "http://" + ln.Addr().String()
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(agenttest.Card(url)))
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := r.Header.Get(testHeader)
		if !strings.Contains(v, marker) {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		mu.Lock()
		got[v] = true
		mu.Unlock()
		rpc.ServeHTTP(w, r)
	}))
	return url, func(v string) bool { mu.Lock(); defer mu.Unlock(); return got[v] }
}

// closedPort is a loopback URL nothing listens on: a conformance check of
// it ends at once.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr
}

// wire sends one HTTP request that must succeed and returns the whole
// answer (a stream is read to its end).
func wire(t *testing.T, method, url, token, body string) []byte {
	t.Helper()
	code, b := sendHTTP(t, method, url, token, body)
	if code != http.StatusOK {
		t.Fatalf("%s %s: HTTP %d %s", method, url, code, clip(b))
	}
	return b
}

// taskIDIn finds the task id in an answer (the first "id" beside a
// "contextId", in any of the wire forms).
func taskIDIn(t *testing.T, b []byte) string {
	t.Helper()
	text := string(b)
	for _, line := range strings.Split(text, "\n") { // a stream: its first event
		if rest, ok := strings.CutPrefix(line, "data:"); ok {
			text = rest
			break
		}
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("answer %s: %v", clip(b), err)
	}
	var find func(any) string
	find = func(v any) string {
		switch x := v.(type) {
		case map[string]any:
			if id, ok := x["id"].(string); ok && x["contextId"] != nil && x["status"] != nil {
				return id
			}
			for _, k := range []string{"result", "task"} {
				if id := find(x[k]); id != "" {
					return id
				}
			}
		}
		return ""
	}
	id := find(v)
	if id == "" {
		t.Fatalf("no task in %s", clip(b))
	}
	return id
}

// TestCredentialsNeverKept sends run_evaluation and run_evalset with a
// header and check_conformance with an auth_token, on every binding and protocol
// version, as a data part and as JSON text: the credentials must reach the
// agent, and appear nowhere else: not in the database file, not in any
// answer, stream or read path (to whichever token asks), not in the logs.
func TestCredentialsNeverKept(t *testing.T) {
	logs := &agenttest.Buffer{}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })

	reg, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "p.db")
	db, err := store.Open(dbPath, store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	const tokenA, tokenB = "caller-a-token", "caller-b-token"
	srv, err := New(Config{Host: "127.0.0.1", AuthTokens: []string{tokenA, tokenB},
		TaskStore: db.TaskStore(store.WithAnonymousTaskList())}, &skills.Service{Domains: reg, Store: db})
	if err != nil {
		t.Fatal(err)
	}
	stop := serveInBackground(t, srv, db)

	agentURL, agentSaw := keyedAgent(t)
	nobody := closedPort(t)
	base := srv.URL()

	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	grpcClient := a2apb.NewA2AServiceClient(conn)
	grpcCtx := func() (context.Context, context.CancelFunc) {
		c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		return metadata.AppendToOutgoingContext(c, "authorization", "Bearer "+tokenA, "a2a-version", "1.0"), cancel
	}

	// everything any caller was shown
	var shown bytes.Buffer
	var taskIDs, evalTasks, evalSetTasks []string
	var headerSecrets []string

	type request struct {
		skill  string
		params map[string]any
	}
	for _, binding := range []string{"jsonrpc-1.0", "rest-1.0", "grpc-1.0", "jsonrpc-0.3", "rest-0.3"} {
		for _, form := range []string{"data", "text", "split-text"} {
			if form == "split-text" && binding != "jsonrpc-1.0" && binding != "jsonrpc-0.3" {
				continue
			}
			headerSecret := fmt.Sprintf("hdr-%s-%s-%s", marker, binding, form)
			tokenSecret := fmt.Sprintf("tok-%s-%s-%s", marker, binding, form)
			headerSecrets = append(headerSecrets, headerSecret)
			evalSetSecret := headerSecret + "-evalset"
			headerSecrets = append(headerSecrets, evalSetSecret)
			for _, r := range []request{
				{"run_evaluation", map[string]any{"agent_url": agentURL, "task_ids": []string{"mock-02"},
					"headers": map[string]any{testHeader: headerSecret}}},
				{"run_evalset", map[string]any{"agent_url": agentURL, "headers": map[string]any{testHeader: evalSetSecret},
					"eval_set": secretsEvalSet}},
				{"check_conformance", map[string]any{"agent_url": nobody, "protocol": "1.0", "auth_token": tokenSecret}},
			} {
				body := map[string]any{"skill": r.skill, "params": r.params}
				js, _ := json.Marshal(body)
				var parts1, parts03 []any
				switch form {
				case "data":
					parts1 = []any{map[string]any{"data": body}}
					parts03 = []any{map[string]any{"kind": "data", "data": body}}
				case "text":
					parts1 = []any{map[string]any{"text": string(js)}}
					parts03 = []any{map[string]any{"kind": "text", "text": string(js)}}
				case "split-text": // the key in one part, the credential in the next
					cut := bytes.LastIndexByte(js[:bytes.Index(js, []byte(marker))], '"')
					parts1 = []any{map[string]any{"text": string(js[:cut])}, map[string]any{"text": string(js[cut:])}}
					parts03 = []any{map[string]any{"kind": "text", "text": string(js[:cut])}, map[string]any{"kind": "text", "text": string(js[cut:])}}
				}
				msg1 := map[string]any{"messageId": "m-" + binding + form + r.skill, "role": "ROLE_USER", "parts": parts1}
				msg03 := map[string]any{"kind": "message", "messageId": "m-" + binding + form + r.skill, "role": "user", "parts": parts03}
				// 0.3 REST speaks the 0.3 protobuf's JSON form.
				content := []any{map[string]any{"data": map[string]any{"data": body}}}
				if form == "text" {
					content = []any{map[string]any{"text": string(js)}}
				}
				msgPB03 := map[string]any{"messageId": "m-" + binding + form + r.skill, "role": "ROLE_USER", "content": content}
				enc := func(v any) string { b, _ := json.Marshal(v); return string(b) }
				var answer []byte
				switch binding {
				case "jsonrpc-1.0": // streamed
					answer = wire(t, "POST", base+PathJSONRPC, tokenA, enc(map[string]any{"jsonrpc": "2.0", "id": 1,
						"method": "SendStreamingMessage", "params": map[string]any{"message": msg1}}))
				case "rest-1.0": // blocking
					answer = wire(t, "POST", base+PathREST+"/message:send", tokenA, enc(map[string]any{"message": msg1}))
				case "jsonrpc-0.3":
					answer = wire(t, "POST", base+PathJSONRPC03, tokenA, enc(map[string]any{"jsonrpc": "2.0", "id": 1,
						"method": "message/send", "params": map[string]any{"message": msg03, "configuration": map[string]any{"blocking": true}}}))
				case "rest-0.3":
					answer = wire(t, "POST", base+PathREST03+"/v1/message:send", tokenA, enc(map[string]any{"message": msgPB03, "configuration": map[string]any{"blocking": true}}))
				case "grpc-1.0":
					var part *a2apb.Part
					if form == "data" {
						st, err := structpb.NewStruct(map[string]any{"skill": r.skill, "params": toJSONAny(t, r.params)})
						if err != nil {
							t.Fatal(err)
						}
						part = &a2apb.Part{Content: &a2apb.Part_Data{Data: structpb.NewStructValue(st)}}
					} else {
						part = &a2apb.Part{Content: &a2apb.Part_Text{Text: string(js)}}
					}
					c, cancel := grpcCtx()
					resp, err := grpcClient.SendMessage(c, &a2apb.SendMessageRequest{Message: &a2apb.Message{
						MessageId: "m-grpc" + form + r.skill, Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{part}}})
					cancel()
					if err != nil {
						t.Fatalf("gRPC SendMessage: %v", err)
					}
					answer, _ = protojson.Marshal(resp)
				}
				shown.Write(answer)
				id := taskIDIn(t, answer)
				taskIDs = append(taskIDs, id)
				switch r.skill {
				case "run_evaluation":
					evalTasks = append(evalTasks, id)
				case "run_evalset":
					evalSetTasks = append(evalSetTasks, id)
				}
			}
		}
	}

	// A running task's subscription, from its first event (the task).
	slow := "slow-" + marker + "-subscribe"
	headerSecrets = append(headerSecrets, slow)
	started := wire(t, "POST", base+PathJSONRPC, tokenA, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-sub","role":"ROLE_USER","parts":[{"data":{"skill":"run_evaluation","params":{"agent_url":%q,"task_ids":["mock-01","mock-02"],"num_trials":3,"headers":{%q:%q}}}}]},"configuration":{"returnImmediately":true}}}`,
		agentURL, testHeader, slow))
	shown.Write(started)
	subID := taskIDIn(t, started)
	shown.Write(wire(t, "POST", base+PathJSONRPC, tokenA, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"SubscribeToTask","params":{"id":%q}}`, subID)))
	taskIDs, evalTasks = append(taskIDs, subID), append(evalTasks, subID)

	// Every read path, every task, asked by the other caller.
	for _, id := range taskIDs {
		shown.Write(wire(t, "POST", base+PathJSONRPC, tokenB, fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"GetTask","params":{"id":%q,"historyLength":100}}`, id)))
		shown.Write(wire(t, "GET", base+PathREST+"/tasks/"+id+"?historyLength=100", tokenB, ""))
		shown.Write(wire(t, "POST", base+PathJSONRPC03, tokenB, fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"id":%q,"historyLength":100}}`, id)))
		shown.Write(wire(t, "GET", base+PathREST03+"/v1/tasks/"+id+"?historyLength=100", tokenB, ""))
		c, cancel := grpcCtx()
		n := int32(100)
		task, err := grpcClient.GetTask(c, &a2apb.GetTaskRequest{Id: id, HistoryLength: &n})
		cancel()
		if err != nil {
			t.Fatalf("gRPC GetTask %s: %v", id, err)
		}
		b, _ := protojson.Marshal(task)
		shown.Write(b)
	}
	shown.Write(wire(t, "GET", base+PathREST+"/tasks?historyLength=100&pageSize=100", tokenB, ""))
	shown.Write(wire(t, "POST", base+PathJSONRPC, tokenB, `{"jsonrpc":"2.0","id":5,"method":"ListTasks","params":{"historyLength":100,"pageSize":100}}`))
	c, cancelList := grpcCtx()
	n := int32(100)
	list, err := grpcClient.ListTasks(c, &a2apb.ListTasksRequest{HistoryLength: &n, PageSize: &n})
	cancelList()
	if err != nil {
		t.Fatalf("gRPC ListTasks: %v", err)
	}
	b, _ := protojson.Marshal(list)
	shown.Write(b)

	// The evaluations ran with the real values, and recorded the name.
	for _, s := range headerSecrets {
		if !agentSaw(s) {
			t.Errorf("the agent never received header value %q: the evaluation lost its credential", s)
		}
	}
	for _, id := range evalTasks {
		var task struct {
			Result struct {
				Status struct {
					Message struct {
						Parts []struct {
							Data map[string]any `json:"data"`
						} `json:"parts"`
					} `json:"message"`
				} `json:"status"`
			} `json:"result"`
		}
		raw := wire(t, "POST", base+PathJSONRPC, tokenA, fmt.Sprintf(`{"jsonrpc":"2.0","id":6,"method":"GetTask","params":{"id":%q}}`, id))
		_ = json.Unmarshal(raw, &task)
		var evalID string
		for _, p := range task.Result.Status.Message.Parts {
			if s, ok := p.Data["evaluation_id"].(string); ok {
				evalID = s
			}
		}
		if evalID == "" {
			if id == subID {
				continue // still running: its evaluation is checked below with the rest
			}
			t.Fatalf("task %s: no evaluation id in %s", id, clip(raw))
		}
		eval, err := evaluation.Load(context.Background(), db, evalID)
		if err != nil {
			t.Fatal(err)
		}
		if names := eval.Config.HeaderNames; len(names) != 1 || names[0] != testHeader {
			t.Errorf("evaluation %s records header names %v, want [%s]", evalID, names, testHeader)
		}
	}

	// The eval-set runs ran with the real values and recorded the name;
	// get_results shows each run to the other caller.
	for _, id := range evalSetTasks {
		raw := wire(t, "POST", base+PathJSONRPC, tokenA, fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":%q}}`, id))
		m := regexp.MustCompile(`"eval_set_run_id":"([^"]+)"`).FindSubmatch(raw)
		if m == nil {
			t.Fatalf("task %s: no eval-set run id in %s", id, clip(raw))
		}
		run, err := evaluation.LoadEvalSetRun(context.Background(), db, string(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		if names := run.Config.HeaderNames; len(names) != 1 || names[0] != testHeader {
			t.Errorf("eval-set run %s records header names %v, want [%s]", run.ID, names, testHeader)
		}
		shown.Write(wire(t, "POST", base+PathJSONRPC, tokenB, fmt.Sprintf(`{"jsonrpc":"2.0","id":8,"method":"SendMessage","params":{"message":{"messageId":"m-get-%s","role":"ROLE_USER","parts":[{"data":{"skill":"get_results","params":{"id":%q}}}]}}}`, m[1], m[1])))
	}
	if len(evalSetTasks) == 0 {
		t.Fatal("no run_evalset task was sent")
	}

	text := shown.String()
	if !strings.Contains(text, testHeader) || !strings.Contains(text, "auth_token") {
		t.Fatalf("the answers do not show the requests at all: the test reads the wrong things\n%s", clip([]byte(text)))
	}
	if i := strings.Index(text, marker); i >= 0 {
		t.Errorf("a credential was shown to a caller: …%s…", text[max(i-300, 0):min(i+100, len(text))])
	} else if !strings.Contains(text, Redacted) {
		t.Errorf("the requests are shown without their credentials' names marked %s", Redacted)
	}
	stop()
	raw, err := os.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(testHeader)) {
		t.Fatal("the database does not hold the requests: the test reads the wrong file")
	}
	if i := bytes.Index(raw, []byte(marker)); i >= 0 {
		t.Errorf("a credential is in the database file: …%q…", raw[max(i-200, 0):min(i+60, len(raw))])
	}
	if l := logs.String(); strings.Contains(l, marker) {
		t.Errorf("a credential is in the logs:\n%s", l)
	}
}

// secretsEvalSet is a one-case tRPC-Agent-Go eval set for keyedAgent.
var secretsEvalSet = map[string]any{"evalSetId": "secrets", "evalCases": []any{map[string]any{"evalId": "hello",
	"conversation": []any{map[string]any{"userContent": map[string]any{"role": "user", "content": "hello"}}}}}}

// toJSONAny turns v into plain JSON values (structpb takes no []string).
func toJSONAny(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.NewDecoder(bufio.NewReader(bytes.NewReader(b))).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRedactMessage: the forms a credential can take in a request that
// parseRequest runs (encoding/json matches keys without regard to case,
// reads escapes, keeps the last of duplicate keys), and a message sent to
// an existing task, which a2a-go writes to the store itself.
func TestRedactMessage(t *testing.T) {
	for _, text := range []string{
		`{"skill":"check_conformance","params":{"AUTH_TOKEN":"x-S3CR3T"}}`,
		`{"skill":"check_conformance","params":{"auth\u005ftoken":"x-S3CR3T"}}`,
		`{"skill":"check_conformance","params":{"auth_token":"a","auth_token":"x-S3CR3T"}}`,
		`{"skill":"run_evaluation","params":{"Headers":{"A":"x-S3CR3T"}}}`,
		`{"skill":"run_evaluation","params":{"headers":"x-S3CR3T"}}`,
		`{"skill":"run_evalset","params":{"agent_url":"http://a","eval_set":{"evalSetId":"s"},"HEADERS":{"A":"x-S3CR3T"}}}`,
		`{"participants":{"agent":"http://a"},"config":{"headers":{"A":"x-S3CR3T"}}}`,
	} {
		req, err := parseRequest(a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)))
		if req.kind == freeText && err == nil {
			t.Fatalf("%s: not a request", text)
		}
		for _, msg := range []*a2a.Message{
			a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)),
			a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(toJSONAny(t, json.RawMessage(text)))),
		} {
			before, _ := json.Marshal(msg)
			got, _ := json.Marshal(redactMessage(msg))
			if bytes.Contains(got, []byte(marker)) || !bytes.Contains(got, []byte(Redacted)) {
				t.Errorf("%s: redacted to %s", text, got)
			}
			if after, _ := json.Marshal(msg); !bytes.Equal(before, after) {
				t.Errorf("%s: the message itself changed: %s", text, after)
			}
		}
	}

	// The store redacts what a2a-go writes without the executor.
	mem := redactingStore{taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{})}
	task := &a2a.Task{ID: a2a.NewTaskID(), ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
	ctx := context.Background()
	v, err := mem.Create(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	follow := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"skill": "check_conformance", "params": map[string]any{"auth_token": "x-" + marker}}))
	task.History = append(task.History, follow)
	if _, err := mem.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: follow, PrevVersion: v}); err != nil {
		t.Fatal(err)
	}
	stored, err := mem.Get(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	for what, v := range map[string]any{"stored": stored.Task, "the caller's task": task} {
		if b, _ := json.Marshal(v); bytes.Contains(b, []byte(marker)) {
			t.Errorf("%s holds the credential: %s", what, b)
		}
	}
	if b, _ := json.Marshal(follow); !bytes.Contains(b, []byte(marker)) {
		t.Error("the message the executor parses was changed")
	}
}
