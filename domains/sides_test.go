package domains

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

type boxDB struct {
	Items map[string]any `json:"items"`
	List  []string       `json:"list"`
}

type noteDB struct {
	Notes []string `json:"notes"`
}

func boxDomain(t *testing.T, tasks ...Task) (*Domain, error) {
	t.Helper()
	tb := NewToolbox[boxDB]()
	tb.Register("put", "Put.", `{"type":"object","properties":{}}`, func(db *boxDB, a Args) (any, error) {
		k, err := a.String("key")
		if err != nil {
			return nil, err
		}
		db.Items[k] = a["value"]
		return "ok", nil
	})
	tb.RegisterEnvFunc("has", func(db *boxDB, a Args) (any, error) { _, ok := db.Items[a["key"].(string)]; return ok, nil })
	ub := NewToolbox[noteDB]()
	ub.Register("note", "Note.", `{"type":"object","properties":{}}`, func(db *noteDB, a Args) (any, error) {
		s, err := a.String("text")
		if err != nil {
			return nil, err
		}
		db.Notes = append(db.Notes, s)
		return "noted", nil
	})
	return NewDomain(Spec[boxDB]{Name: "box", DB: []byte(`{"items":{"a":{"x":1,"y":2}},"list":["p"]}`), Tools: tb,
		User: NewSide([]byte(`{"notes":[]}`), ub), Tasks: tasks})
}

func TestInitialStateTwoSides(t *testing.T) {
	var task Task
	err := json.Unmarshal([]byte(`{"id":"t","initial_state":{
		"initialization_data":{"agent_data":{"items":{"a":{"y":3}},"list":["q"]},"user_data":{"notes":["n0"]}},
		"initialization_actions":[{"env_type":"user","func_name":"note","arguments":{"text":"n1"}},{"name":"put","arguments":{"key":"b","value":1}}],
		"message_history":[{"role":"assistant","tool_calls":[{"id":"c","name":"put","arguments":{"key":"c","value":2}}]},{"role":"tool","id":"c","content":"ok"},
			{"role":"user","tool_calls":[{"id":"d","name":"note","arguments":{"text":"n2"}}]}]},
		"evaluation_criteria":{"env_assertions":[{"func_name":"has","arguments":{"key":"c"}}]}}`), &task)
	if err != nil {
		t.Fatal(err)
	}
	d, err := boxDomain(t, task)
	if err != nil {
		t.Fatal(err)
	}
	e, err := d.NewEnv(&d.Tasks[0])
	if err != nil {
		t.Fatal(err)
	}
	x := e.(*env)
	agent := x.agent.(*toolEnv[boxDB]).db
	user := x.user.(*toolEnv[noteDB]).db
	got, _ := json.Marshal(agent)
	if string(got) != `{"items":{"a":{"x":1,"y":3},"b":1,"c":2},"list":["q"]}` {
		t.Errorf("agent db %s", got)
	}
	if strings.Join(user.Notes, ",") != "n0,n1,n2" {
		t.Errorf("user notes %v", user.Notes)
	}
	if ok, err := CheckEnvAssertion(e, d.Tasks[0].EvaluationCriteria.EnvAssertions[0]); !ok || err != nil {
		t.Errorf("assertion: %v, %v", ok, err)
	}
	if h, _ := e.Hash(); strings.Count(h, ":") != 1 {
		t.Errorf("two-sided hash %q", h)
	}
	if res := e.Call(ToolCall{Name: "note", Requestor: "system", Arguments: map[string]any{"text": "x"}}); !res.Error {
		t.Error("unknown requestor accepted")
	}
}

func TestTwoSidedValidation(t *testing.T) {
	cases := []struct {
		task Task
		want string
	}{
		{Task{ID: "t", EvaluationCriteria: &EvaluationCriteria{Actions: []Action{{Name: "note", Arguments: map[string]any{}}}}}, `unknown tool "note"`},
		{Task{ID: "t", EvaluationCriteria: &EvaluationCriteria{Actions: []Action{{Name: "put", Requestor: "system"}}}}, "unknown requestor"},
		{Task{ID: "t", EvaluationCriteria: &EvaluationCriteria{Actions: []Action{{Name: "has"}}}}, `unknown tool "has"`},
		{Task{ID: "t", EvaluationCriteria: &EvaluationCriteria{EnvAssertions: []EnvAssertion{{EnvType: "user", FuncName: "has"}}}}, "unknown env function"},
		{Task{ID: "t", InitialState: &InitialState{InitializationActions: []Action{{Name: "put", FuncName: "note"}}}}, "differ"},
	}
	for _, c := range cases {
		if _, err := boxDomain(t, c.task); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
}

func TestDeepMerge(t *testing.T) {
	got := DeepMerge(map[string]any{"a": map[string]any{"x": 1, "l": []any{1}}, "b": 2}, map[string]any{"a": map[string]any{"l": []any{2}, "z": map[string]any{"k": 1}}, "b": map[string]any{"n": 1}})
	b, _ := json.Marshal(got)
	if string(b) != `{"a":{"l":[2],"x":1,"z":{"k":1}},"b":{"n":1}}` {
		t.Errorf("merged %s", b)
	}
}

// syncDomain is a two-sided domain whose Sync copies the agent's item count
// into the user's notes, the way tau2's telecom mirrors a line into the
// user's surroundings, and fails when an item named "bad" exists.
func syncDomain(t *testing.T, tasks ...Task) (*Domain, error) {
	t.Helper()
	tb := NewToolbox[boxDB]()
	tb.Register("put", "Put.", `{"type":"object","properties":{}}`, func(db *boxDB, a Args) (any, error) {
		k, err := a.String("key")
		if err != nil {
			return nil, err
		}
		db.Items[k] = true
		return "ok", nil
	})
	tb.RegisterEnvFunc("count", func(db *boxDB, _ Args) (any, error) { return len(db.Items) == 2, nil })
	ub := NewToolbox[noteDB]()
	ub.Register("read", "Read.", `{"type":"object","properties":{}}`, func(db *noteDB, _ Args) (any, error) {
		return strings.Join(db.Notes, ","), nil
	})
	return NewDomain(Spec[boxDB]{Name: "sync", DB: []byte(`{"items":{},"list":[]}`), Tools: tb,
		User: NewSide([]byte(`{"notes":[]}`), ub), Tasks: tasks,
		Sync: func(agent *boxDB, user any) error {
			u, ok := user.(*noteDB)
			if !ok {
				return fmt.Errorf("user db is %T", user)
			}
			if _, bad := agent.Items["bad"]; bad {
				return fmt.Errorf("bad item")
			}
			u.Notes = append(u.Notes[:0], fmt.Sprint(len(agent.Items)))
			return nil
		}})
}

func TestSync(t *testing.T) {
	task := Task{ID: "t", InitialState: &InitialState{InitializationActions: []Action{{Name: "put", Arguments: map[string]any{"key": "a"}}}}}
	d, err := syncDomain(t, task)
	if err != nil {
		t.Fatal(err)
	}
	read := func(e Env) string {
		t.Helper()
		res := e.Call(ToolCall{Name: "read", Requestor: RequestorUser})
		if res.Error {
			t.Fatalf("read: %s", res.Content)
		}
		return res.Content
	}
	fresh, err := d.NewEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	// tau2 syncs a new environment, task or not.
	if got := read(fresh); got != "0" {
		t.Errorf("fresh: %q", got)
	}
	e, err := d.NewEnv(&d.Tasks[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := read(e); got != "1" {
		t.Errorf("after initialization action: %q, want 1", got)
	}
	if res := e.Call(ToolCall{Name: "put", Arguments: map[string]any{"key": "b"}}); res.Error {
		t.Fatal(res.Content)
	}
	if got := read(e); got != "2" {
		t.Errorf("after a call: %q, want 2", got)
	}
	if ok, err := CheckEnvAssertion(e, EnvAssertion{FuncName: "count"}); !ok || err != nil {
		t.Errorf("env function: %v, %v", ok, err)
	}
	// A failing sync fails the call that triggered it, whose own change
	// stays, as in tau2.
	res := e.Call(ToolCall{Name: "put", Arguments: map[string]any{"key": "bad"}})
	if !res.Error || !strings.Contains(res.Content, "bad item") {
		t.Errorf("failing sync: %+v", res)
	}
	if _, err := CallFunc(e, "", "count", nil); err == nil || !strings.Contains(err.Error(), "bad item") {
		t.Errorf("CallFunc with failing sync: %v", err)
	}
	// A failed call does not sync.
	if res := e.Call(ToolCall{Name: "put"}); !res.Error || strings.Contains(res.Content, "bad item") {
		t.Errorf("failed call: %+v", res)
	}
	bad := Task{ID: "bad", InitialState: &InitialState{InitializationActions: []Action{{Name: "put", Arguments: map[string]any{"key": "bad"}}}}}
	d2, err := syncDomain(t, bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d2.NewEnv(&d2.Tasks[0]); err == nil || !strings.Contains(err.Error(), "bad item") {
		t.Errorf("NewEnv with failing sync: %v", err)
	}
	tb := NewToolbox[boxDB]()
	if _, err := NewDomain(Spec[boxDB]{Name: "x", DB: []byte(`{}`), Tools: tb, Sync: func(*boxDB, any) error { return nil }}); err == nil {
		t.Error("Sync without a user side accepted")
	}
}
