package a2afix

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/protobuf/types/known/timestamppb"
)

func TestJSONRPCListTasksParams(t *testing.T) {
	for _, tc := range []struct {
		params string
		field  string // "" when valid
	}{
		{``, ""},
		{`null`, ""},
		{`{}`, ""},
		{`{"pageSize":1,"historyLength":0,"status":"TASK_STATE_WORKING","statusTimestampAfter":"2026-01-02T15:04:05.5+01:00","includeArtifacts":true,"contextId":"c","pageToken":"t"}`, ""},
		{`{"pageSize":"100"}`, ""}, // ProtoJSON: an int32 may be a string
		{`{"status":"TASK_STATE_UNSPECIFIED"}`, ""},
		{`{"pageSize":null,"status":null}`, ""},
		{`[]`, "params"},
		{`{"pageSize":0}`, "pageSize"},
		{`{"pageSize":-1}`, "pageSize"},
		{`{"pageSize":101}`, "pageSize"},
		{`{"pageSize":1.5}`, "pageSize"},
		{`{"pageSize":"x"}`, "pageSize"},
		{`{"pageSize":99999999999}`, "pageSize"},
		{`{"historyLength":-1}`, "historyLength"},
		{`{"historyLength":true}`, "historyLength"},
		{`{"status":"INVALID_STATUS"}`, "status"},
		{`{"status":"working"}`, "status"},
		{`{"status":3}`, "status"},
		{`{"statusTimestampAfter":"-1"}`, "statusTimestampAfter"},
		{`{"statusTimestampAfter":1700000000}`, "statusTimestampAfter"},
		{`{"statusTimestampAfter":"2026-01-02"}`, "statusTimestampAfter"},
		{`{"includeArtifacts":"yes"}`, "includeArtifacts"},
		{`{"contextId":7}`, "contextId"},
		{`{"pageToken":{}}`, "pageToken"},
	} {
		v := jsonrpcListTasksViolation(json.RawMessage(tc.params))
		got := ""
		if v != nil {
			got = v.field
		}
		if got != tc.field {
			t.Errorf("%s: violation %+v, want field %q", tc.params, v, tc.field)
		}
	}
}

func TestRESTListTasksQuery(t *testing.T) {
	for _, tc := range []struct{ query, field string }{
		{"", ""},
		{"pageSize=1&historyLength=0&status=TASK_STATE_COMPLETED&statusTimestampAfter=2026-01-02T15:04:05Z&includeArtifacts=true", ""},
		{"pageSize=0", "pageSize"},
		{"pageSize=", "pageSize"},
		{"pageSize=-1", "pageSize"},
		{"pageSize=101", "pageSize"},
		{"pageSize=abc", "pageSize"},
		{"historyLength=-1", "historyLength"},
		{"status=INVALID_STATUS", "status"},
		{"statusTimestampAfter=-1", "statusTimestampAfter"},
		{"includeArtifacts=maybe", "includeArtifacts"},
	} {
		q, err := url.ParseQuery(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		v := restListTasksViolation(q)
		got := ""
		if v != nil {
			got = v.field
		}
		if got != tc.field {
			t.Errorf("%q: violation %+v, want field %q", tc.query, v, tc.field)
		}
	}
}

func TestGRPCListTasksRequest(t *testing.T) {
	n := func(v int32) *int32 { return &v }
	for _, tc := range []struct {
		name  string
		req   *a2apb.ListTasksRequest
		field string
	}{
		{"empty", &a2apb.ListTasksRequest{}, ""},
		{"valid", &a2apb.ListTasksRequest{PageSize: n(100), HistoryLength: n(0), Status: a2apb.TaskState_TASK_STATE_WORKING, StatusTimestampAfter: timestamppb.Now()}, ""},
		{"page size 0", &a2apb.ListTasksRequest{PageSize: n(0)}, "pageSize"},
		{"page size 101", &a2apb.ListTasksRequest{PageSize: n(101)}, "pageSize"},
		{"negative history", &a2apb.ListTasksRequest{HistoryLength: n(-1)}, "history_length"},
		{"unknown state", &a2apb.ListTasksRequest{Status: 99}, "status"},
		{"bad timestamp", &a2apb.ListTasksRequest{StatusTimestampAfter: &timestamppb.Timestamp{Nanos: -1}}, "status_timestamp_after"},
	} {
		v := grpcListTasksViolation(tc.req)
		got := ""
		if v != nil {
			got = v.field
		}
		if got != tc.field {
			t.Errorf("%s: violation %+v, want field %q", tc.name, v, tc.field)
		}
	}
}

// listHandler answers ListTasks as a store might.
type listHandler struct {
	fakeHandler
	err  error
	resp *a2a.ListTasksResponse
}

func (h listHandler) ListTasks(context.Context, *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	return h.resp, h.err
}

func TestHandlerListTasks(t *testing.T) {
	ctx := context.Background()
	neg := -2
	for _, tc := range []struct {
		name string
		req  *a2a.ListTasksRequest
		h    listHandler
		want error
	}{
		{"valid", &a2a.ListTasksRequest{PageSize: 5}, listHandler{resp: &a2a.ListTasksResponse{}}, nil},
		{"page size", &a2a.ListTasksRequest{PageSize: 500}, listHandler{}, a2a.ErrInvalidParams},
		{"history", &a2a.ListTasksRequest{HistoryLength: &neg}, listHandler{}, a2a.ErrInvalidParams},
		{"status", &a2a.ListTasksRequest{Status: "running"}, listHandler{}, a2a.ErrInvalidParams},
		{"store: bad token", &a2a.ListTasksRequest{PageToken: "x"}, listHandler{err: a2a.ErrParseError}, a2a.ErrInvalidParams},
		{"store: bad page size", &a2a.ListTasksRequest{}, listHandler{err: a2a.ErrInvalidRequest}, a2a.ErrInvalidParams},
		{"store: other", &a2a.ListTasksRequest{}, listHandler{err: a2a.ErrUnauthenticated}, a2a.ErrUnauthenticated},
	} {
		resp, err := Handler(tc.h).ListTasks(ctx, tc.req)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
		if errors.Is(err, a2a.ErrInvalidParams) && (errors.Is(err, a2a.ErrParseError) || errors.Is(err, a2a.ErrInvalidRequest)) {
			t.Errorf("%s: %v wraps two A2A errors: the binding's code would be either", tc.name, err)
		}
		if err == nil && resp.Tasks == nil {
			t.Errorf("%s: tasks is null, want []", tc.name)
		}
	}
	refused := withRefusal(ctx, a2a.ErrVersionNotSupported)
	if _, err := Handler(listHandler{resp: &a2a.ListTasksResponse{}}).ListTasks(refused, &a2a.ListTasksRequest{}); !errors.Is(err, a2a.ErrVersionNotSupported) {
		t.Errorf("a refused request: %v, want the refusal", err)
	}
}

func TestVersionRefusal(t *testing.T) {
	for _, tc := range []struct {
		served  a2a.ProtocolVersion
		asked   string
		refused bool
	}{
		{"1.0", "1.0", false},
		{"1.0", "1.0.7", false},
		{"1.0", " 1.0 ", false},
		{"1.0", "", false}, // served as the interface's version
		{"1.0", "0.3", true},
		{"1.0", "9.9", true},
		{"1.0", "1", true},
		{"1.0", "1.1", true},
		{"1.0", "v1.0", true},
		{"1.0", "1.0.0.0", true},
		{"0.3", "", false},
		{"0.3", "0.3", false},
		{"0.3", "0.3.0", false},
		{"0.3", "1.0", true},
	} {
		err := versionRefusal(tc.served, tc.asked)
		if (err != nil) != tc.refused || (err != nil && !errors.Is(err, a2a.ErrVersionNotSupported)) {
			t.Errorf("interface %s, A2A-Version %q: %v, want refused %v", tc.served, tc.asked, err, tc.refused)
		}
	}
}

// FuzzListTasksParams: the parameter checks never panic, and a request
// they accept is one a2a-go's decoder reads.
func FuzzListTasksParams(f *testing.F) {
	for _, s := range []string{`{}`, `{"pageSize":"5"}`, `{"statusTimestampAfter":"2026-01-02T15:04:05Z"}`, `{"status":"TASK_STATE_WORKING","historyLength":3}`, `[1]`, `"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		if jsonrpcListTasksViolation(json.RawMessage(params)) == nil && json.Valid([]byte(params)) && kind(json.RawMessage(params)) == '{' {
			var m map[string]json.RawMessage
			_ = json.Unmarshal([]byte(params), &m)
			delete(m, "pageSize") // ProtoJSON strings, which a2a-go's int does not read
			delete(m, "historyLength")
			b, _ := json.Marshal(m)
			var req a2a.ListTasksRequest
			if err := json.Unmarshal(b, &req); err != nil {
				t.Errorf("accepted %s, which a2a-go cannot decode: %v", params, err)
			}
		}
		if q, err := url.ParseQuery(params); err == nil {
			_ = restListTasksViolation(q)
		}
	})
}
