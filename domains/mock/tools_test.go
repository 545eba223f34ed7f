package mock

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/domains"
)

func newDomain(t *testing.T) *domains.Domain {
	t.Helper()
	d, err := New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return d
}

func newEnv(t *testing.T) domains.Env {
	t.Helper()
	env, err := newDomain(t).NewEnv(nil)
	if err != nil {
		t.Fatalf("NewEnv: %v", err)
	}
	return env
}

func call(env domains.Env, name string, args map[string]any) domains.ToolResult {
	return env.Call(domains.ToolCall{Name: name, Arguments: args})
}

func hash(t *testing.T, env domains.Env) string {
	t.Helper()
	h, err := env.Hash()
	if err != nil {
		t.Fatalf("Hash: %v", err)
	}
	return h
}

type step struct {
	tool    string
	args    map[string]any
	wantErr string // substring of the error; "" means the call must succeed
	want    string // substring of a successful result
}

// run applies steps in order on a fresh environment and checks each result.
func run(t *testing.T, steps []step) domains.Env {
	t.Helper()
	env := newEnv(t)
	for i, s := range steps {
		res := call(env, s.tool, s.args)
		switch {
		case s.wantErr != "" && !res.Error:
			t.Fatalf("step %d %s(%v): got success %s, want error containing %q", i, s.tool, s.args, res.Content, s.wantErr)
		case s.wantErr != "" && !strings.Contains(res.Content, s.wantErr):
			t.Fatalf("step %d %s(%v): error %q does not contain %q", i, s.tool, s.args, res.Content, s.wantErr)
		case s.wantErr == "" && res.Error:
			t.Fatalf("step %d %s(%v): unexpected error %s", i, s.tool, s.args, res.Content)
		case s.wantErr == "" && !strings.Contains(res.Content, s.want):
			t.Fatalf("step %d %s(%v): result %s does not contain %q", i, s.tool, s.args, res.Content, s.want)
		}
		if res.Error && !strings.HasPrefix(res.Content, "Error: ") {
			t.Fatalf("step %d: error content %q lacks the Error: prefix", i, res.Content)
		}
	}
	return env
}

func TestTools(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"find user", []step{{tool: "find_user_by_email", args: map[string]any{"email": "jane.park@example.com"}, want: `"user_id":"u-1001"`}}},
		{"find user case and space insensitive", []step{{tool: "find_user_by_email", args: map[string]any{"email": "  Jane.Park@Example.com "}, want: `"u-1001"`}}},
		{"find unknown email", []step{{tool: "find_user_by_email", args: map[string]any{"email": "nobody@example.com"}, wantErr: "no user found"}}},
		{"find missing email", []step{{tool: "find_user_by_email", args: map[string]any{}, wantErr: `missing required argument "email"`}}},
		{"find email wrong type", []step{{tool: "find_user_by_email", args: map[string]any{"email": 42.0}, wantErr: "must be a string"}}},

		{"get user", []step{{tool: "get_user", args: map[string]any{"user_id": "u-1003"}, want: `"plan_name":"Free","max_open_tasks":3,"open_tasks":3`}}},
		{"get unknown user", []step{{tool: "get_user", args: map[string]any{"user_id": "u-9999"}, wantErr: "unknown user_id"}}},
		{"get user empty id", []step{{tool: "get_user", args: map[string]any{"user_id": " "}, wantErr: "must not be empty"}}},

		{"list all", []step{{tool: "list_tasks", args: map[string]any{"user_id": "u-1002"}, want: `"count":4`}}},
		{"list filtered", []step{{tool: "list_tasks", args: map[string]any{"user_id": "u-1005", "status": "in_progress"}, want: `"count":2`}}},
		{"list null status means all", []step{{tool: "list_tasks", args: map[string]any{"user_id": "u-1001", "status": nil}, want: `"count":3`}}},
		{"list empty result is an empty array", []step{
			{tool: "list_tasks", args: map[string]any{"user_id": "u-1004", "status": "in_progress"}, want: `"count":0,"tasks":[]`},
		}},
		{"list bad status", []step{{tool: "list_tasks", args: map[string]any{"user_id": "u-1001", "status": "finished"}, wantErr: "invalid status"}}},
		{"list unknown user", []step{{tool: "list_tasks", args: map[string]any{"user_id": "u-0"}, wantErr: "unknown user_id"}}},

		{"create", []step{
			{tool: "create_task", args: map[string]any{"user_id": "u-1001", "title": "Order catering", "priority": "medium"},
				want: `{"task_id":"T-1022","user_id":"u-1001","title":"Order catering","priority":"medium","status":"open","created_at":"2025-06-02T09:00:00Z","updated_at":"2025-06-02T09:00:00Z"}`},
			{tool: "create_task", args: map[string]any{"user_id": "u-1002", "title": "Second", "priority": "low"}, want: `"task_id":"T-1023"`},
		}},
		{"create bad priority", []step{{tool: "create_task", args: map[string]any{"user_id": "u-1001", "title": "X", "priority": "urgent"}, wantErr: "invalid priority"}}},
		{"create missing title", []step{{tool: "create_task", args: map[string]any{"user_id": "u-1001", "priority": "low"}, wantErr: `"title"`}}},
		{"create unknown user", []step{{tool: "create_task", args: map[string]any{"user_id": "u-42", "title": "X", "priority": "low"}, wantErr: "unknown user_id"}}},
		{"create too long title", []step{{tool: "create_task", args: map[string]any{"user_id": "u-1005", "title": strings.Repeat("x", 201), "priority": "low"}, wantErr: "too long"}}},
		{"create at plan limit", []step{{tool: "create_task", args: map[string]any{"user_id": "u-1003", "title": "Update dependencies", "priority": "high"}, wantErr: "the Free plan allows at most 3 open tasks"}}},
		{"create up to plan limit", []step{
			{tool: "create_task", args: map[string]any{"user_id": "u-1001", "title": "Third", "priority": "low"}, want: "T-1022"},
			{tool: "create_task", args: map[string]any{"user_id": "u-1001", "title": "Fourth", "priority": "low"}, wantErr: "plan limit reached"},
		}},
		{"done frees a slot", []step{
			{tool: "update_task_status", args: map[string]any{"task_id": "T-1008", "status": "done"}, want: `"status":"done"`},
			{tool: "create_task", args: map[string]any{"user_id": "u-1003", "title": "Update dependencies", "priority": "high"}, want: "T-1022"},
		}},
		{"in progress still counts as open", []step{
			{tool: "update_task_status", args: map[string]any{"task_id": "T-1008", "status": "in_progress"}, want: `"status":"in_progress"`},
			{tool: "create_task", args: map[string]any{"user_id": "u-1003", "title": "X", "priority": "high"}, wantErr: "plan limit reached"},
		}},

		{"update", []step{{tool: "update_task_status", args: map[string]any{"task_id": "T-1004", "status": "done"}, want: `"status":"done","created_at":"2025-05-02T07:45:00Z","updated_at":"2025-06-02T09:00:00Z"`}}},
		{"update bad status", []step{{tool: "update_task_status", args: map[string]any{"task_id": "T-1004", "status": "closed"}, wantErr: "invalid status"}}},
		{"update unknown task", []step{{tool: "update_task_status", args: map[string]any{"task_id": "T-9", "status": "done"}, wantErr: "unknown task_id"}}},
		{"update same status is a no-op", []step{{tool: "update_task_status", args: map[string]any{"task_id": "T-1003", "status": "done"}, want: `"updated_at":"2025-05-28T11:15:00Z"`}}},
		{"reopen with room", []step{{tool: "update_task_status", args: map[string]any{"task_id": "T-1003", "status": "open"}, want: `"status":"open"`}}},
		{"reopen at plan limit", []step{{tool: "update_task_status", args: map[string]any{"task_id": "T-1011", "status": "open"}, wantErr: "cannot reopen T-1011: plan limit reached"}}},

		{"delete", []step{
			{tool: "delete_task", args: map[string]any{"task_id": "T-1014"}, want: `"deleted":true`},
			{tool: "delete_task", args: map[string]any{"task_id": "T-1014"}, wantErr: "unknown task_id"},
			{tool: "list_tasks", args: map[string]any{"user_id": "u-1004"}, want: `"count":2`},
		}},
		{"delete missing id", []step{{tool: "delete_task", args: map[string]any{"task_id": nil}, wantErr: "missing required argument"}}},

		{"transfer", []step{{tool: "transfer_to_human_agents", args: map[string]any{"summary": "refund"}, want: TransferMessage}}},
		{"transfer without summary", []step{{tool: "transfer_to_human_agents", args: map[string]any{}, wantErr: `"summary"`}}},

		{"unknown tool", []step{{tool: "reset_password", args: map[string]any{}, wantErr: "unknown tool"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { run(t, tc.steps) })
	}
}

// TestFailuresLeaveStateUnchanged checks that every failing call is free of
// side effects: a failed expected action must not move the DB hash.
func TestFailuresLeaveStateUnchanged(t *testing.T) {
	env := newEnv(t)
	before := hash(t, env)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"create_task", map[string]any{"user_id": "u-1003", "title": "X", "priority": "high"}},
		{"create_task", map[string]any{"user_id": "u-1001", "title": "X", "priority": "urgent"}},
		{"update_task_status", map[string]any{"task_id": "T-1011", "status": "open"}},
		{"update_task_status", map[string]any{"task_id": "T-1001", "status": "closed"}},
		{"delete_task", map[string]any{"task_id": "T-0"}},
		{"find_user_by_email", map[string]any{"email": "x@example.com"}},
	} {
		if res := call(env, c.tool, c.args); !res.Error {
			t.Fatalf("%s(%v) succeeded: %s", c.tool, c.args, res.Content)
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"find_user_by_email", map[string]any{"email": "jane.park@example.com"}},
		{"get_user", map[string]any{"user_id": "u-1001"}},
		{"list_tasks", map[string]any{"user_id": "u-1001"}},
		{"transfer_to_human_agents", map[string]any{"summary": "billing"}},
		{"update_task_status", map[string]any{"task_id": "T-1003", "status": "done"}},
	} {
		if res := call(env, c.tool, c.args); res.Error {
			t.Fatalf("%s(%v): %s", c.tool, c.args, res.Content)
		}
	}
	if after := hash(t, env); after != before {
		t.Error("failed calls or reads changed the database")
	}
}

func TestDeterminism(t *testing.T) {
	calls := []step{
		{tool: "create_task", args: map[string]any{"user_id": "u-1005", "title": "A", "priority": "high"}},
		{tool: "update_task_status", args: map[string]any{"task_id": "T-1015", "status": "done"}},
		{tool: "create_task", args: map[string]any{"user_id": "u-1002", "title": "B", "priority": "low"}},
		{tool: "delete_task", args: map[string]any{"task_id": "T-1001"}},
		{tool: "list_tasks", args: map[string]any{"user_id": "u-1005"}},
	}
	var outs [2][]string
	var hashes [2]string
	for i := range 2 {
		env := newEnv(t)
		for _, c := range calls {
			outs[i] = append(outs[i], call(env, c.tool, c.args).Content)
		}
		hashes[i] = hash(t, env)
	}
	for j := range calls {
		if outs[0][j] != outs[1][j] {
			t.Errorf("call %d: %s then %s", j, outs[0][j], outs[1][j])
		}
	}
	if hashes[0] != hashes[1] {
		t.Error("same calls, different hashes")
	}
	if !strings.Contains(outs[1][2], `"task_id":"T-1023"`) {
		t.Errorf("second created task: %s, want id T-1023", outs[1][2])
	}
	if fresh := hash(t, newEnv(t)); fresh == hashes[0] {
		t.Error("writes did not change the hash")
	}
}

func TestEnvsAreIsolated(t *testing.T) {
	d := newDomain(t)
	a, _ := d.NewEnv(nil)
	b, _ := d.NewEnv(nil)
	call(a, "delete_task", map[string]any{"task_id": "T-1001"})
	if res := call(b, "list_tasks", map[string]any{"user_id": "u-1001"}); !strings.Contains(res.Content, "T-1001") {
		t.Error("a deletion in one environment leaked into another")
	}
}

func TestToolSpecs(t *testing.T) {
	d := newDomain(t)
	want := []string{"find_user_by_email", "get_user", "list_tasks", "create_task", "update_task_status", "delete_task", "transfer_to_human_agents"}
	if got := d.ToolNames(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("tools %v, want %v", got, want)
	}
	for _, s := range d.Tools {
		var schema struct {
			Type       string `json:"type"`
			Properties map[string]struct {
				Type        string `json:"type"`
				Description string `json:"description"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(s.Parameters, &schema); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if s.Description == "" || len(schema.Properties) == 0 || len(schema.Required) == 0 {
			t.Errorf("%s: incomplete spec", s.Name)
		}
		for name, p := range schema.Properties {
			if p.Type == "" || p.Description == "" {
				t.Errorf("%s.%s: missing type or description", s.Name, name)
			}
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", s.Name, r)
			}
		}
	}
}
