package refagent

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/conformance"
)

// proctor's own reference agent passes proctor's own conformance check on
// the binding it serves (JSON-RPC, protocol 1.0): it answers a malformed
// request -32600 and lists tasks without credentials, as its card
// declares no security (issue 12).
func TestConformance(t *testing.T) {
	a, _ := mockAgent(t)
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = a.Handler("http://" + srv.Listener.Addr().String() + "/")
	srv.Start()
	t.Cleanup(srv.Close)

	rep, err := conformance.Run(t.Context(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, r := range rep.Failed() {
		failed = append(failed, r.ID+" ["+strings.Join(r.Transports, ",")+"]: "+r.Message)
	}
	if rep.Level != conformance.LevelFull || len(failed) > 0 {
		t.Errorf("level %s, failed:\n%s", rep.Level, strings.Join(failed, "\n"))
	}
	var checked []string
	for _, in := range rep.Interfaces {
		if in.Checked {
			checked = append(checked, in.Name)
		}
	}
	if got := strings.Join(checked, ","); got != "JSONRPC 1.0" {
		t.Errorf("checked interfaces %q, want JSONRPC 1.0", got)
	}
}

// ListTasks works without credentials, as the card asks for none, and lists
// the caller's tasks.
func TestListTasksWithoutCredentials(t *testing.T) {
	a, _ := mockAgent(t)
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = a.Handler("http://" + srv.Listener.Addr().String() + "/")
	srv.Start()
	t.Cleanup(srv.Close)
	call := func(body string) (out struct {
		Result map[string]any  `json:"result"`
		Error  *map[string]any `json:"error"`
	}) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := call(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`); out.Error != nil {
		t.Fatalf("SendMessage: error %v", *out.Error)
	}
	out := call(`{"jsonrpc":"2.0","id":2,"method":"ListTasks","params":{}}`)
	if out.Error != nil {
		t.Fatalf("ListTasks: error %v", *out.Error)
	}
	if _, ok := out.Result["tasks"]; !ok {
		t.Errorf("ListTasks result %v has no tasks", out.Result)
	}
	if bad := call(`{"jsonrpc":"2.0","id":3,"method":123}`); bad.Error == nil || (*bad.Error)["code"] != -32600.0 {
		t.Errorf("{\"method\": 123}: error %v, want code -32600", bad.Error)
	}
}

// The official A2A TCK's ListTasks error-code and validation cases
// (a2aproject/a2a-tck, test_tasks_list_method.py TestEdgeCasesAndErrors),
// and version negotiation (A2A 1.0 §3.6.2), on the reference agent's
// JSON-RPC interface.
func TestListTasksTCKAndVersions(t *testing.T) {
	a, _ := mockAgent(t)
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = a.Handler("http://" + srv.Listener.Addr().String() + "/")
	srv.Start()
	t.Cleanup(srv.Close)
	call := func(version, body string) (out struct {
		Result map[string]any `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if version != "" {
			req.Header.Set("A2A-Version", version)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	sent := call("1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`)
	if sent.Error != nil {
		t.Fatalf("SendMessage: error %d", sent.Error.Code)
	}
	task, _ := sent.Result["task"].(map[string]any)
	if task == nil || task["id"] == nil {
		t.Fatalf("SendMessage: %+v, want a task", sent.Result)
	}
	for name, params := range map[string]string{
		"invalid page token": `{"pageToken":"invalid-token-xyz"}`, "invalid status": `{"status":"INVALID_STATUS"}`,
		"negative page size": `{"pageSize":-1}`, "zero page size": `{"pageSize":0}`, "page size over 100": `{"pageSize":101}`,
		"negative history length": `{"historyLength":-1}`, "invalid timestamp": `{"statusTimestampAfter":"-1"}`,
	} {
		if out := call("1.0", `{"jsonrpc":"2.0","id":2,"method":"ListTasks","params":`+params+`}`); out.Error == nil || out.Error.Code != -32602 {
			t.Errorf("%s: %+v, want error -32602", name, out)
		}
	}
	// The reply is a task: ListTasks lists it, and a filter that leaves it
	// out gives an empty array; both with the (required) empty
	// nextPageToken.
	for params, want := range map[string]int{`{}`: 1, `{"statusTimestampAfter":"2999-01-01T00:00:00Z","pageSize":100,"historyLength":0}`: 0} {
		out := call("1.0", `{"jsonrpc":"2.0","id":3,"method":"ListTasks","params":`+params+`}`)
		tasks, ok := out.Result["tasks"].([]any)
		if out.Error != nil || !ok || len(tasks) != want || out.Result["nextPageToken"] != "" {
			t.Errorf("ListTasks %s: %+v, want %d task(s) and nextPageToken \"\"", params, out, want)
			continue
		}
		if want == 1 && tasks[0].(map[string]any)["id"] != task["id"] {
			t.Errorf("ListTasks %s lists %v, want the task %v", params, tasks[0].(map[string]any)["id"], task["id"])
		}
	}
	// An explicit version other than 1.0 is refused; without one, the
	// method says the version: 1.0's is served (the agent keeps no tasks:
	// TaskNotFoundError), 0.3's refused.
	got := map[string]int{}
	for _, v := range []string{"9.9", "0.3", "", "1.0"} {
		for _, m := range []string{"GetTask", "tasks/get"} {
			out := call(v, `{"jsonrpc":"2.0","id":5,"method":"`+m+`","params":{"id":"nope"}}`)
			if out.Error == nil {
				t.Fatalf("A2A-Version %q, %s: %+v, want an error", v, m, out)
			}
			got[v+" "+m] = out.Error.Code
		}
	}
	want := map[string]int{"9.9 GetTask": -32009, "9.9 tasks/get": -32009, "0.3 GetTask": -32009, "0.3 tasks/get": -32009,
		" GetTask": -32001, " tasks/get": -32009, "1.0 GetTask": -32001, "1.0 tasks/get": -32601}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("error codes by A2A-Version and method (-want +got):\n%s", diff)
	}
}
