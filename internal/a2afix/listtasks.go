package a2afix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
)

// ListTasks' page sizes and history length: the bounds of page_size
// (a2a.proto ListTasksRequest), and the defaults a2a-go's in-memory task
// store applies, which proctor's task stores apply alike.
const (
	minPageSize = 1
	// MaxPageSize is the largest page a ListTasks request may ask for.
	MaxPageSize = 100
	// DefaultPageSize is the page of a request that asks for none.
	DefaultPageSize = 50
	// DefaultHistoryLength is how many of a listed task's last messages
	// are kept when the request does not say.
	DefaultHistoryLength = 100
)

// TrimListedTask keeps of t, a task ListTasks answers with, the history
// and artifacts req asks for: the last DefaultHistoryLength messages unless
// HistoryLength says how many (0 none, a negative number all), the
// artifacts only if IncludeArtifacts.
func TrimListedTask(t *a2a.Task, req *a2a.ListTasksRequest) {
	historyLength := DefaultHistoryLength
	if req.HistoryLength != nil {
		historyLength = *req.HistoryLength
	}
	if historyLength == 0 {
		t.History = []*a2a.Message{}
	} else if historyLength > 0 && len(t.History) > historyLength {
		t.History = t.History[len(t.History)-historyLength:]
	}
	if !req.IncludeArtifacts {
		t.Artifacts = nil
	}
}

// violation is a request parameter that failed validation.
type violation struct {
	field string
	why   string
}

// err is the violation as A2A's InvalidParamsError (JSON-RPC -32602,
// HTTP 400, gRPC INVALID_ARGUMENT), naming the parameter (§3.3.2: servers
// SHOULD specify which parameter failed and why).
func (v violation) err() error {
	return a2a.NewError(a2a.ErrInvalidParams, "invalid params: "+v.field+": "+v.why)
}

// taskStates are the states a ListTasks status filter may name; the
// unspecified state means no filter.
var taskStates = []a2a.TaskState{
	a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired,
	a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected,
}

func validState(s a2a.TaskState) bool {
	if s == a2a.TaskStateUnspecified {
		return true
	}
	for _, v := range taskStates {
		if s == v {
			return true
		}
	}
	return false
}

func stateList() string {
	names := make([]string, len(taskStates))
	for i, s := range taskStates {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// listTasksViolation checks a decoded ListTasks request: what every
// binding's decoder lets through. An explicit page size of 0 cannot be
// told from an absent one here; the transport wrappers catch it.
func listTasksViolation(req *a2a.ListTasksRequest) *violation {
	switch {
	case req.PageSize != 0 && (req.PageSize < minPageSize || req.PageSize > MaxPageSize):
		return pageSizeViolation(int64(req.PageSize))
	case req.HistoryLength != nil && *req.HistoryLength < 0:
		return &violation{"historyLength", fmt.Sprintf("must be 0 or more, got %d", *req.HistoryLength)}
	case !validState(req.Status):
		return statusViolation(string(req.Status))
	}
	return nil
}

func pageSizeViolation(n int64) *violation {
	return &violation{"pageSize", fmt.Sprintf("must be between %d and %d inclusive, got %d", minPageSize, MaxPageSize, n)}
}

func statusViolation(s string) *violation {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return &violation{"status", fmt.Sprintf("%q is not a task state; want one of %s", s, stateList())}
}

// jsonrpcListTasksViolation checks ListTasks params as they arrived in
// JSON (ProtoJSON: integers may also be written as strings), before
// a2a-go's decoder, which answers a bad timestamp -32700.
func jsonrpcListTasksViolation(params json.RawMessage) *violation {
	if len(bytes.TrimSpace(params)) == 0 || kind(params) == 'n' {
		return nil
	}
	var m map[string]json.RawMessage
	if kind(params) != '{' || json.Unmarshal(params, &m) != nil {
		return &violation{"params", "must be a ListTasksRequest object"}
	}
	// Go's decoder matches member names case-insensitively: so does this.
	for key, raw := range m {
		if kind(raw) == 'n' {
			continue
		}
		for _, field := range listTasksFields {
			if strings.EqualFold(key, field.name) {
				if v := field.check(raw); v != nil {
					return v
				}
			}
		}
	}
	return nil
}

// listTasksFields are ListTasks' params and their checks.
var listTasksFields = []struct {
	name  string
	check func(json.RawMessage) *violation
}{
	{"tenant", stringParam("tenant")},
	{"contextId", stringParam("contextId")},
	{"pageToken", stringParam("pageToken")},
	{"status", checkStatusParam},
	{"pageSize", checkPageSizeParam},
	{"historyLength", checkHistoryParam},
	{"statusTimestampAfter", checkTimestampParam},
	{"includeArtifacts", func(raw json.RawMessage) *violation {
		if kind(raw) != 'b' {
			return &violation{"includeArtifacts", "must be true or false"}
		}
		return nil
	}},
}

func stringParam(name string) func(json.RawMessage) *violation {
	return func(raw json.RawMessage) *violation {
		if kind(raw) != '"' {
			return &violation{name, "must be a string"}
		}
		return nil
	}
}

func checkStatusParam(raw json.RawMessage) *violation {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return &violation{"status", "must be a task state name, such as " + string(a2a.TaskStateWorking)}
	}
	if s != "TASK_STATE_UNSPECIFIED" && !validState(a2a.TaskState(s)) {
		return statusViolation(s)
	}
	return nil
}

func checkPageSizeParam(raw json.RawMessage) *violation {
	n, err := jsonInteger(raw)
	if err != nil {
		return &violation{"pageSize", err.Error()}
	}
	if n < minPageSize || n > MaxPageSize {
		return pageSizeViolation(n)
	}
	return nil
}

func checkHistoryParam(raw json.RawMessage) *violation {
	n, err := jsonInteger(raw)
	if err != nil {
		return &violation{"historyLength", err.Error()}
	}
	if n < 0 {
		return &violation{"historyLength", fmt.Sprintf("must be 0 or more, got %d", n)}
	}
	return nil
}

func checkTimestampParam(raw json.RawMessage) *violation {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return &violation{"statusTimestampAfter", "must be an RFC 3339 timestamp string, such as 2026-01-02T15:04:05Z"}
	}
	return timestampViolation(s)
}

// jsonInteger reads a 32-bit integer written as a JSON number or, as
// ProtoJSON allows, a string.
func jsonInteger(raw json.RawMessage) (int64, error) {
	text := string(bytes.TrimSpace(raw))
	if kind(raw) == '"' {
		if json.Unmarshal(raw, &text) != nil {
			return 0, fmt.Errorf("must be an integer")
		}
	} else if kind(raw) != '0' {
		return 0, fmt.Errorf("must be an integer, got a %s", jsonKindName(kind(raw)))
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
		return 0, fmt.Errorf("must be a 32-bit integer, got %.40q", text)
	}
	return n, nil
}

func jsonKindName(k byte) string {
	switch k {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 'b':
		return "boolean"
	}
	return "value that is not a number"
}

func timestampViolation(s string) *violation {
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		if len(s) > 40 {
			s = s[:40] + "..."
		}
		return &violation{"statusTimestampAfter", fmt.Sprintf("%q is not an RFC 3339 timestamp such as 2026-01-02T15:04:05Z", s)}
	}
	return nil
}

// restListTasksViolation checks the query of GET /tasks before a2a-go's
// parser, which answers what it cannot parse with -32600's HTTP form.
func restListTasksViolation(q url.Values) *violation {
	if s := q.Get("status"); s != "" && s != "TASK_STATE_UNSPECIFIED" && !validState(a2a.TaskState(s)) {
		return statusViolation(s)
	}
	if _, ok := q["pageSize"]; ok {
		n, err := strconv.ParseInt(q.Get("pageSize"), 10, 32)
		if err != nil {
			return &violation{"pageSize", fmt.Sprintf("must be an integer, got %.40q", q.Get("pageSize"))}
		}
		if n < minPageSize || n > MaxPageSize {
			return pageSizeViolation(n)
		}
	}
	if s := q.Get("historyLength"); s != "" {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return &violation{"historyLength", fmt.Sprintf("must be an integer, got %.40q", s)}
		}
		if n < 0 {
			return &violation{"historyLength", fmt.Sprintf("must be 0 or more, got %d", n)}
		}
	}
	if s := q.Get("statusTimestampAfter"); s != "" {
		if v := timestampViolation(s); v != nil {
			return v
		}
	}
	if s := q.Get("includeArtifacts"); s != "" {
		if _, err := strconv.ParseBool(s); err != nil {
			return &violation{"includeArtifacts", fmt.Sprintf("must be true or false, got %.40q", s)}
		}
	}
	return nil
}

// grpcListTasksViolation checks a gRPC ListTasks request before a2a-go's
// conversion, which drops a negative history length, reads an explicit
// page size 0 as none, and an unknown state as no filter.
func grpcListTasksViolation(req *a2apb.ListTasksRequest) *violation {
	if req.PageSize != nil && (*req.PageSize < minPageSize || *req.PageSize > MaxPageSize) {
		return pageSizeViolation(int64(*req.PageSize))
	}
	if req.HistoryLength != nil && *req.HistoryLength < 0 {
		return &violation{"history_length", fmt.Sprintf("must be 0 or more, got %d", *req.HistoryLength)}
	}
	if req.Status.Descriptor().Values().ByNumber(req.Status.Number()) == nil {
		return &violation{"status", fmt.Sprintf("%d is not a TaskState value", int32(req.Status))}
	}
	if ts := req.GetStatusTimestampAfter(); ts != nil {
		if err := ts.CheckValid(); err != nil {
			return &violation{"status_timestamp_after", err.Error()}
		}
	}
	return nil
}
