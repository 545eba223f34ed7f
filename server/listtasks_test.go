package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/proctor-eval/proctor/domains/catalog"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// listQuery is a ListTasks request, written once for every binding.
type listQuery struct {
	contextID, status, pageToken, after string
	pageSize, historyLength             *int
}

// listOutcome is a ListTasks answer: the page, or "invalid-params" when
// the binding's InvalidParamsError came back, or what else did.
type listOutcome struct {
	tasks []map[string]any
	next  string
	total int
	err   string
}

// lister calls ListTasks on one binding of a server.
type lister func(t *testing.T, q listQuery) listOutcome

func intp(n int) *int { return &n }

func jsonrpcLister(base string) lister {
	return func(t *testing.T, q listQuery) listOutcome {
		t.Helper()
		params := map[string]any{}
		for k, v := range map[string]string{"contextId": q.contextID, "status": q.status, "pageToken": q.pageToken, "statusTimestampAfter": q.after} {
			if v != "" {
				params[k] = v
			}
		}
		if q.pageSize != nil {
			params["pageSize"] = *q.pageSize
		}
		if q.historyLength != nil {
			params["historyLength"] = *q.historyLength
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": params})
		r := post(t, base+PathJSONRPC, bytes.NewReader(body), nil)
		if r.rpc.Error != nil {
			if r.rpc.Error.Code == -32602 {
				return listOutcome{err: "invalid-params"}
			}
			return listOutcome{err: fmt.Sprintf("JSON-RPC error %d %s", r.rpc.Error.Code, r.rpc.Error.Message)}
		}
		return decodeListResult(t, r.rpc.Result)
	}
}

func restLister(base string) lister {
	return func(t *testing.T, q listQuery) listOutcome {
		t.Helper()
		v := url.Values{}
		for k, s := range map[string]string{"contextId": q.contextID, "status": q.status, "pageToken": q.pageToken, "statusTimestampAfter": q.after} {
			if s != "" {
				v.Set(k, s)
			}
		}
		if q.pageSize != nil {
			v.Set("pageSize", strconv.Itoa(*q.pageSize))
		}
		if q.historyLength != nil {
			v.Set("historyLength", strconv.Itoa(*q.historyLength))
		}
		req, err := http.NewRequest(http.MethodGet, base+PathREST+"/tasks?"+v.Encode(), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("A2A-Version", "1.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			var e struct {
				Error struct {
					Code    int
					Status  string
					Details []struct{ Reason string }
				}
			}
			_ = json.Unmarshal(body, &e)
			if resp.StatusCode == http.StatusBadRequest && e.Error.Code == 400 && e.Error.Status == "INVALID_ARGUMENT" &&
				len(e.Error.Details) > 0 && e.Error.Details[len(e.Error.Details)-1].Reason == "INVALID_PARAMS" {
				return listOutcome{err: "invalid-params"}
			}
			return listOutcome{err: fmt.Sprintf("HTTP %d %s", resp.StatusCode, clip(body))}
		}
		return decodeListResult(t, body)
	}
}

func grpcLister(addr string) lister {
	return func(t *testing.T, q listQuery) listOutcome {
		t.Helper()
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		req := &a2apb.ListTasksRequest{ContextId: q.contextID, PageToken: q.pageToken}
		if q.status != "" {
			n, ok := a2apb.TaskState_value[q.status]
			if !ok {
				n = 99 // a value the enum does not have: gRPC's invalid status
			}
			req.Status = a2apb.TaskState(n)
		}
		if q.after != "" {
			ts, err := time.Parse(time.RFC3339Nano, q.after)
			if err != nil {
				t.Fatalf("gRPC cannot send the timestamp %q", q.after)
			}
			req.StatusTimestampAfter = timestamppb.New(ts)
		}
		if q.pageSize != nil {
			n := int32(*q.pageSize)
			req.PageSize = &n
		}
		if q.historyLength != nil {
			n := int32(*q.historyLength)
			req.HistoryLength = &n
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ctx = metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0")
		resp, err := a2apb.NewA2AServiceClient(conn).ListTasks(ctx, req)
		switch {
		case status.Code(err) == codes.InvalidArgument:
			return listOutcome{err: "invalid-params"}
		case err != nil:
			return listOutcome{err: err.Error()}
		}
		// proto3 has no absent nextPageToken: read it from the message.
		out := listOutcome{next: resp.GetNextPageToken(), total: int(resp.GetTotalSize())}
		for _, task := range resp.GetTasks() {
			js, err := protojson.Marshal(task)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(js, &m); err != nil {
				t.Fatal(err)
			}
			out.tasks = append(out.tasks, m)
		}
		return out
	}
}

func decodeListResult(t *testing.T, raw []byte) listOutcome {
	t.Helper()
	var res struct {
		Tasks         []map[string]any `json:"tasks"`
		NextPageToken *string          `json:"nextPageToken"`
		TotalSize     int              `json:"totalSize"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("ListTasks result %s: %v", clip(raw), err)
	}
	if res.NextPageToken == nil {
		t.Errorf("ListTasks result without nextPageToken (§3.1.4: it MUST always be present): %s", clip(raw))
		res.NextPageToken = new(string)
	}
	return listOutcome{tasks: res.Tasks, next: *res.NextPageToken, total: res.TotalSize}
}

// createRejectedTask makes the server create a task (an unknown skill is a
// rejected task, at once) in context ctxID, and returns its id.
func createRejectedTask(t *testing.T, base, ctxID string) string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-` + ctxID + `","contextId":"` + ctxID +
		`","role":"ROLE_USER","parts":[{"data":{"skill":"dance"}}]}}}`
	r := post(t, base+PathJSONRPC, strings.NewReader(body), nil)
	var res struct {
		Task struct{ ID string } `json:"task"`
	}
	if r.rpc.Error != nil || json.Unmarshal(r.rpc.Result, &res) != nil || res.Task.ID == "" {
		t.Fatalf("SendMessage: %s", clip(r.body))
	}
	return res.Task.ID
}

// startWithStore starts proctor serve as `proctor serve` does: tasks in
// the bbolt store, listed to every caller.
func startWithStore(t *testing.T) *Server {
	t.Helper()
	reg, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{Host: "127.0.0.1", TaskStore: db.TaskStore(store.WithAnonymousTaskList())}, &skills.Service{Domains: reg, Store: db})
	if err != nil {
		t.Fatal(err)
	}
	serveInBackground(t, srv, db)
	return srv
}

// TestListTasksTCK reproduces the official A2A TCK's ListTasks error-code
// and validation cases (a2aproject/a2a-tck,
// tests/mandatory/protocol/test_tasks_list_method.py,
// TestEdgeCasesAndErrors and the filter, pagination and history cases)
// on every binding proctor serves at 1.0, with both task stores: invalid
// parameters are InvalidParamsError (-32602, HTTP 400 INVALID_ARGUMENT
// with ErrorInfo INVALID_PARAMS, gRPC INVALID_ARGUMENT), A2A 1.0 §3.3.2.
func TestListTasksTCK(t *testing.T) {
	servers := map[string]*Server{"in-memory store": startServer(t, Config{}), "bbolt store": startWithStore(t)}
	for storeName, srv := range servers {
		base := srv.URL()
		ctxA, ctxB := "ctx-a-"+storeName, "ctx-b-"+storeName
		ctxA, ctxB = strings.ReplaceAll(ctxA, " ", "-"), strings.ReplaceAll(ctxB, " ", "-")
		before := time.Now().UTC().Add(-time.Second).Format(time.RFC3339Nano)
		first := createRejectedTask(t, base, ctxA)
		second := createRejectedTask(t, base, ctxA)
		other := createRejectedTask(t, base, ctxB)
		bindings := map[string]lister{"JSON-RPC": jsonrpcLister(base), "REST": restLister(base), "gRPC": grpcLister(srv.GRPCAddr())}
		for name, list := range bindings {
			t.Run(storeName+"/"+name, func(t *testing.T) {
				for _, tc := range []struct {
					name string
					q    listQuery
					grpc bool
				}{
					{"invalid page token", listQuery{pageToken: "invalid-token-xyz"}, true},
					{"invalid status", listQuery{status: "INVALID_STATUS"}, true},
					{"negative page size", listQuery{pageSize: intp(-1)}, true},
					{"zero page size", listQuery{pageSize: intp(0)}, true},
					{"page size over 100", listQuery{pageSize: intp(101)}, true},
					{"negative history length", listQuery{historyLength: intp(-1)}, true},
					{"invalid timestamp", listQuery{after: "-1"}, false}, // gRPC's timestamp is typed
				} {
					if name == "gRPC" && !tc.grpc {
						continue
					}
					if got := list(t, tc.q); got.err != "invalid-params" {
						t.Errorf("%s: %+v, want InvalidParamsError", tc.name, got)
					}
				}
				checkListBehaviour(t, list, before, ctxA, []string{second, first}, other)
			})
		}
	}
}

// checkListBehaviour checks what ListTasks returns: ctxA holds want
// (newest first), other is in another context.
func checkListBehaviour(t *testing.T, list lister, before, ctxA string, want []string, other string) {
	t.Helper()
	ids := func(o listOutcome) []string {
		var out []string
		for _, task := range o.tasks {
			out = append(out, fmt.Sprint(task["id"]))
		}
		return out
	}
	all := list(t, listQuery{})
	if all.err != "" || all.total < 3 || all.next != "" || !containsAll(ids(all), append(want, other)) {
		t.Errorf("ListTasks: %+v, want every task and an empty nextPageToken", all)
	}
	for _, task := range all.tasks {
		if _, ok := task["artifacts"]; ok {
			t.Errorf("task %v lists artifacts though includeArtifacts is false", task["id"])
		}
	}
	if got := list(t, listQuery{contextID: ctxA}); got.err != "" || strings.Join(ids(got), ",") != strings.Join(want, ",") {
		t.Errorf("contextId filter: %v (%s), want %v newest first", ids(got), got.err, want)
	}
	if got := list(t, listQuery{contextID: ctxA, status: "TASK_STATE_REJECTED"}); got.err != "" || len(got.tasks) != len(want) {
		t.Errorf("status filter: %v (%s), want %v", ids(got), got.err, want)
	}
	if got := list(t, listQuery{contextID: ctxA, status: "TASK_STATE_WORKING"}); got.err != "" || len(got.tasks) != 0 {
		t.Errorf("status filter TASK_STATE_WORKING: %v (%s), want none", ids(got), got.err)
	}
	if got := list(t, listQuery{after: "2999-01-01T00:00:00Z"}); got.err != "" || len(got.tasks) != 0 || got.total != 0 {
		t.Errorf("statusTimestampAfter in the far future: %v (%s), want no task", ids(got), got.err)
	}
	if got := list(t, listQuery{contextID: ctxA, after: before}); got.err != "" || len(got.tasks) != len(want) {
		t.Errorf("statusTimestampAfter before the tasks: %v (%s), want %v", ids(got), got.err, want)
	}
	for _, task := range list(t, listQuery{historyLength: intp(0)}).tasks {
		if h, ok := task["history"].([]any); ok && len(h) > 0 {
			t.Errorf("historyLength 0: task %v has %d history messages", task["id"], len(h))
		}
	}
	page1 := list(t, listQuery{contextID: ctxA, pageSize: intp(1)})
	if page1.err != "" || len(page1.tasks) != 1 || page1.next == "" || page1.total != len(want) {
		t.Fatalf("pageSize 1: %+v, want one task, a nextPageToken and totalSize %d", page1, len(want))
	}
	page2 := list(t, listQuery{contextID: ctxA, pageSize: intp(1), pageToken: page1.next})
	if got := append(ids(page1), ids(page2)...); page2.err != "" || strings.Join(got, ",") != strings.Join(want, ",") || page2.next != "" {
		t.Errorf("two pages of 1: %v then next %q (%s), want %v and an empty nextPageToken", got, page2.next, page2.err, want)
	}
}

func containsAll(have, want []string) bool {
	set := map[string]bool{}
	for _, h := range have {
		set[h] = true
	}
	for _, w := range want {
		if !set[w] {
			return false
		}
	}
	return true
}
