package refagent

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
