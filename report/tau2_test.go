package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/internal/tau2model"
	"github.com/proctor-eval/proctor/result"
)

func tau2SampleEval() *result.Evaluation {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	return &result.Evaluation{
		ID: "ev1", Status: result.StatusCompleted, Domain: "mock",
		Agent:     result.AgentInfo{URL: "http://127.0.0.1:9019", Name: "Helper", Version: "1.2"},
		Config:    result.Config{Domain: "mock", User: "scripted", NumTrials: 2, MaxSteps: 30, MaxErrors: 5},
		CreatedAt: start,
		Summary:   result.Summary{Tasks: []result.TaskSummary{{TaskID: "t1"}, {TaskID: "t2"}}},
		Simulations: []result.Simulation{{
			ID: "t1#0", TaskID: "t1", Trial: 0, Reward: 1, TerminationReason: result.TermUserStop,
			StartedAt: start, DurationMS: 1500, ContextID: "ctx-1",
			RewardInfo: result.RewardInfo{
				Reward: 1, RewardBasis: []domains.Basis{"DB", "COMMUNICATE"},
				RewardBreakdown:   map[domains.Basis]float64{"DB": 1, "COMMUNICATE": 1},
				DBCheck:           &result.DBCheck{DBMatch: true, DBReward: 1, ExpectedHash: "h", ActualHash: "h"},
				CommunicateChecks: []result.CommunicateCheck{{Info: "42", Met: true}},
				ActionChecks: []result.ActionCheck{{
					Action:      domains.Action{ActionID: "a1", Name: "lookup", Arguments: map[string]any{"id": "7"}},
					ActionMatch: true, ActionReward: 1,
				}},
			},
			Messages: []result.Message{
				{Role: result.RoleUser, Content: "hi", Turn: 0},
				{Role: result.RoleAssistant, ToolCalls: []domains.ToolCall{{ID: "c1", Name: "lookup", Arguments: map[string]any{"id": "7"}, Requestor: string(result.RoleAssistant)}}, Turn: 1},
				{Role: result.RoleTool, Content: `{"n":42}`, ToolCallID: "c1", Name: "lookup", Turn: 2},
				{Role: result.RoleUser, ToolCalls: []domains.ToolCall{{ID: "u1", Name: "toggle", Arguments: nil}}, Turn: 3},
				{Role: result.RoleTool, Content: "no such tool", ToolCallID: "u1", Error: true, Turn: 4},
				{Role: result.RoleAssistant, Content: "It is 42.", Turn: 5},
			},
		}, {
			ID: "t2#0", TaskID: "t2", Trial: 0, Reward: 0, TerminationReason: result.TermMaxSteps,
			StartedAt: start, DurationMS: 10, Error: "too long",
			RewardInfo: result.RewardInfo{RewardBasis: []domains.Basis{"DB"}},
			Messages:   []result.Message{{Role: result.RoleUser, Content: "hi"}},
		}},
	}
}

func tau2Render(t *testing.T, eval *result.Evaluation, dom *domains.Domain) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteTau2(&buf, eval, dom); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// kind names the JSON type of a decoded value.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// checkFields checks that obj has exactly the keys of want, each of one of
// the JSON types want lists ("string|null").
func checkFields(t *testing.T, where string, obj any, want map[string]string) {
	t.Helper()
	m, ok := obj.(map[string]any)
	if !ok {
		t.Fatalf("%s: %s, want an object", where, kind(obj))
	}
	for k := range m {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected field %q (not in tau2's model)", where, k)
		}
	}
	for k, types := range want {
		v, ok := m[k]
		if !ok {
			t.Errorf("%s: missing field %q", where, k)
			continue
		}
		if !slices.Contains(strings.Split(types, "|"), kind(v)) {
			t.Errorf("%s.%s: %s, want %s", where, k, kind(v), types)
		}
	}
}

func TestTau2Layout(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(tau2Render(t, tau2SampleEval(), nil), &doc); err != nil {
		t.Fatal(err)
	}
	sims := doc["simulations"].([]any)
	sim := sims[0].(map[string]any)
	ri := sim["reward_info"].(map[string]any)
	msgs := sim["messages"].([]any)
	info := doc["info"].(map[string]any)
	for _, c := range []struct {
		where string
		obj   any
		want  map[string]string
	}{
		{"results", doc, map[string]string{"timestamp": "string", "info": "object", "tasks": "array", "simulations": "array"}},
		{"info", info, map[string]string{
			"git_commit": "string", "num_trials": "number", "max_steps": "number", "max_errors": "number",
			"user_info": "object", "agent_info": "object", "environment_info": "object", "seed": "number|null",
		}},
		{"info.user_info", info["user_info"], map[string]string{"implementation": "string", "llm": "string|null", "llm_args": "object|null"}},
		{"info.agent_info", info["agent_info"], map[string]string{"implementation": "string", "llm": "string|null", "llm_args": "object|null"}},
		{"info.environment_info", info["environment_info"], map[string]string{"domain_name": "string", "policy": "string", "tool_defs": "object|null"}},
		{"tasks[0]", doc["tasks"].([]any)[0], map[string]string{"id": "string", "user_scenario": "object"}},
		{"simulation", sim, map[string]string{
			"id": "string", "task_id": "string", "timestamp": "string", "start_time": "string", "end_time": "string",
			"duration": "number", "termination_reason": "string", "agent_cost": "number|null", "user_cost": "number|null",
			"reward_info": "object", "messages": "array", "trial": "number", "seed": "number|null", "info": "object|null",
		}},
		{"reward_info", ri, map[string]string{
			"reward": "number", "db_check": "object|null", "env_assertions": "array|null", "action_checks": "array|null",
			"nl_assertions": "array|null", "communicate_checks": "array|null", "reward_basis": "array|null",
			"reward_breakdown": "object|null", "info": "object|null",
		}},
		{"db_check", ri["db_check"], map[string]string{"db_match": "bool", "db_reward": "number"}},
		{"action_checks[0]", ri["action_checks"].([]any)[0], map[string]string{"action": "object", "action_match": "bool", "action_reward": "number", "tool_type": "string|null"}},
		{"action_checks[0].action", ri["action_checks"].([]any)[0].(map[string]any)["action"], map[string]string{
			"action_id": "string", "requestor": "string", "name": "string", "arguments": "object", "info": "string|null", "compare_args": "array|null",
		}},
		{"communicate_checks[0]", ri["communicate_checks"].([]any)[0], map[string]string{"info": "string", "met": "bool", "justification": "string"}},
		{"messages[0] (user)", msgs[0], map[string]string{"role": "string", "content": "string|null", "tool_calls": "array|null", "turn_idx": "number|null", "timestamp": "string|null"}},
		{"messages[1] (assistant)", msgs[1], map[string]string{"role": "string", "content": "string|null", "tool_calls": "array|null", "turn_idx": "number|null", "timestamp": "string|null"}},
		{"messages[1].tool_calls[0]", msgs[1].(map[string]any)["tool_calls"].([]any)[0], map[string]string{"id": "string", "name": "string", "arguments": "object", "requestor": "string"}},
		{"messages[2] (tool)", msgs[2], map[string]string{"id": "string", "role": "string", "content": "string|null", "requestor": "string", "error": "bool", "turn_idx": "number|null", "timestamp": "string|null"}},
	} {
		checkFields(t, c.where, c.obj, c.want)
	}
	if got := sim["duration"]; got != 1.5 {
		t.Errorf("duration %v, want 1.5 seconds", got)
	}
	if sim["start_time"] != "2025-06-01T12:00:00.000000+00:00" || sim["end_time"] != "2025-06-01T12:00:01.500000+00:00" {
		t.Errorf("start/end %v %v", sim["start_time"], sim["end_time"])
	}
	if got := sims[1].(map[string]any)["info"].(map[string]any)["error"]; got != "too long" {
		t.Errorf("simulation info error %v", got)
	}
	if got := info["agent_info"].(map[string]any)["llm"]; got != "Helper 1.2" {
		t.Errorf("agent_info.llm %v", got)
	}
}

func TestTau2TerminationReasons(t *testing.T) {
	for _, c := range []struct {
		proctor, tau2 string
		known         bool
	}{
		{string(result.TermUserStop), "user_stop", true},
		{string(result.TermAgentStop), "agent_stop", true},
		{string(result.TermMaxSteps), "max_steps", true},
		{string(result.TermTooManyErrors), "too_many_errors", true},
		{string(result.TermTimeout), "timeout", true},
		{string(result.TermAgentError), "agent_error", true},
		{string(result.TermUserError), "user_error", true},
		{string(result.TermInfrastructure), "infrastructure_error", true},
		{string(result.TermContextOverflow), "context_window_exceeded", true},
		{string(result.TermSafetyViolation), "agent_error", false},
		{string(result.TermCapabilityMissing), "agent_error", false},
		{"something_new", "unexpected_error", false},
	} {
		got, known := Tau2TerminationReason(c.proctor)
		if got != c.tau2 || known != c.known {
			t.Errorf("%s -> %s %v, want %s %v", c.proctor, got, known, c.tau2, c.known)
		}
		if c.proctor == string(result.TermUserError) {
			continue // exported as tau2's infrastructure_error: TestTau2ExportExcluded
		}
		eval := tau2SampleEval()
		eval.Simulations[1].TerminationReason = result.TerminationReason(c.proctor)
		r := NewTau2Results(eval, nil)
		s := r.Simulations[1]
		if s.TerminationReason != c.tau2 {
			t.Errorf("%s: rendered %s", c.proctor, s.TerminationReason)
		}
		if kept, ok := s.Info["proctor_termination_reason"]; ok == c.known || (ok && kept != result.TerminationReason(c.proctor)) {
			t.Errorf("%s: proctor's reason in info: %v (%v)", c.proctor, kept, ok)
		}
		// tau2's model loads the export: the reason is one of its enum.
		if _, err := tau2model.Decode(tau2Render(t, eval, nil)); err != nil {
			t.Errorf("%s: tau2 would not load the export: %v", c.proctor, err)
		}
	}
}

// TestTau2ExportExcluded: a simulation tau2 would have retried and left out
// of its metrics (scoring.Tau2Exclusion) is exported as infrastructure_error,
// so that tau2's metrics code on the export leaves it out too, with
// proctor's reason and the exclusion in info.
func TestTau2ExportExcluded(t *testing.T) {
	for _, c := range []struct {
		name     string
		reason   result.TerminationReason
		classes  map[string]int
		want     string
		wantInfo map[string]any
	}{
		{"user simulator failed", result.TermUserError, nil, "infrastructure_error",
			map[string]any{"proctor_termination_reason": result.TermUserError, "tau2_excluded": "user_error"}},
		{"agent unreachable", result.TermAgentError, map[string]int{"connection": 1}, "infrastructure_error",
			map[string]any{"proctor_termination_reason": result.TermAgentError, "tau2_excluded": "agent_error:connection"}},
		{"agent answered unusably", result.TermAgentError, map[string]int{"protocol": 1}, "agent_error", map[string]any{}},
		{"proctor failed", result.TermInfrastructure, nil, "infrastructure_error",
			map[string]any{"tau2_excluded": "infrastructure_error"}},
		{"max steps", result.TermMaxSteps, nil, "max_steps", map[string]any{}},
	} {
		eval := tau2SampleEval()
		eval.Simulations[1].TerminationReason = c.reason
		eval.Simulations[1].Metrics.ErrorClasses = c.classes
		s := NewTau2Results(eval, nil).Simulations[1]
		got := map[string]any{}
		for _, k := range []string{"proctor_termination_reason", "tau2_excluded"} {
			if v, ok := s.Info[k]; ok {
				got[k] = v
			}
		}
		if s.TerminationReason != c.want {
			t.Errorf("%s: termination_reason %s, want %s", c.name, s.TerminationReason, c.want)
		}
		if diff := cmp.Diff(c.wantInfo, got); diff != "" {
			t.Errorf("%s: info (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestTau2PolicyViolations: the calls an ECP agent's manifest refused go
// to reward_info.info, which tau2 loads.
func TestTau2PolicyViolations(t *testing.T) {
	eval := tau2SampleEval()
	want := []result.PolicyViolation{{Tool: "delete_task", CallID: "c9", Turn: 2}}
	eval.Simulations[1].RewardInfo.PolicyViolations = want
	r := NewTau2Results(eval, nil)
	if got := r.Simulations[1].RewardInfo.Info["policy_violations"]; !reflect.DeepEqual(got, want) {
		t.Errorf("reward_info.info.policy_violations = %v, want %v", got, want)
	}
	if _, ok := r.Simulations[0].RewardInfo.Info["policy_violations"]; ok {
		t.Error("policy_violations on a simulation without any")
	}
	if _, err := tau2model.Decode(tau2Render(t, eval, nil)); err != nil {
		t.Errorf("tau2 would not load the export: %v", err)
	}
}

func TestTau2ToolCallRequestors(t *testing.T) {
	r := NewTau2Results(tau2SampleEval(), nil)
	m := r.Simulations[0].Messages
	for _, c := range []struct {
		i         int
		requestor string
	}{{1, "assistant"}, {2, "assistant"}, {3, "user"}, {4, "user"}} {
		got := m[c.i].Requestor
		if m[c.i].Role != string(result.RoleTool) {
			got = m[c.i].ToolCalls[0].Requestor
		}
		if got != c.requestor {
			t.Errorf("message %d (%s): requestor %q, want %q", c.i, m[c.i].Role, got, c.requestor)
		}
	}
	if m[3].ToolCalls[0].Arguments == nil {
		t.Error("nil arguments rendered as null, want {}")
	}
	if m[4].ID != "u1" || !m[4].Error {
		t.Errorf("tool message %+v", m[4])
	}
	if m[1].Content != nil {
		t.Errorf("empty content %q, want null", *m[1].Content)
	}
}

func TestTau2RoundTrip(t *testing.T) {
	dom := &domains.Domain{Name: "mock", Policy: "Be kind.", Tasks: []domains.Task{{
		ID:           "t1",
		UserScenario: domains.UserScenario{Script: []string{"hi", "bye"}},
		InitialState: &domains.InitialState{InitializationActions: []domains.Action{{Name: "seed", Arguments: map[string]any{"n": 1.0}}}},
		EvaluationCriteria: &domains.EvaluationCriteria{
			Actions:         []domains.Action{{ActionID: "a1", Name: "lookup", Arguments: map[string]any{"id": "7"}, CompareArgs: []string{"id"}}},
			CommunicateInfo: []string{"42"},
		},
	}}}
	for _, c := range []struct {
		name string
		dom  *domains.Domain
	}{{"with domain", dom}, {"without domain", nil}} {
		t.Run(c.name, func(t *testing.T) {
			data := tau2Render(t, tau2SampleEval(), c.dom)
			if _, err := tau2model.Decode(data); err != nil {
				t.Errorf("tau2 would not load it: %v", err)
			}
			var back Tau2Results
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			again, err := json.Marshal(&back)
			if err != nil {
				t.Fatal(err)
			}
			// Compared as values: free-form info objects come back as
			// maps, their keys in another order.
			var before, after any
			if err := json.Unmarshal(data, &before); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(again, &after); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("round trip differs (-first +again):\n%s", diff)
			}
			if len(back.Tasks) != 2 || back.Tasks[0].ID != "t1" || back.Tasks[1].ID != "t2" {
				t.Fatalf("tasks %+v", back.Tasks)
			}
			if c.dom != nil {
				t1 := back.Tasks[0]
				if back.Info.EnvironmentInfo.Policy != "Be kind." || t1.EvaluationCriteria == nil ||
					t1.EvaluationCriteria.Actions[0].Requestor != "assistant" ||
					!slices.Equal(t1.EvaluationCriteria.RewardBasis, []domains.Basis{"DB", "COMMUNICATE"}) ||
					t1.InitialState.InitializationActions[0].FuncName != "seed" ||
					!strings.Contains(t1.UserScenario.Instructions.(string), "bye") {
					t.Errorf("task from the domain: %+v", t1)
				}
			}
		})
	}
}

// TestTau2ExportCarriesWholeTasks: what tau2 re-grades from is there as
// tau2 names it: initialization actions in its form, the ticket, initial
// data and history, env assertions and their outcomes, tau2's name of the
// domain, and the basis a strict run scored.
func TestTau2ExportCarriesWholeTasks(t *testing.T) {
	no := false
	history := json.RawMessage(`[{"role":"assistant","content":"Hi"}]`)
	ticket := "Mobile data does not work."
	issues := json.RawMessage(`[{"id":"issue_1","title":"The user never asks for a number.","status":"open","created_at":"2026-01-16"}]`)
	task := domains.Task{
		ID: "t1", Ticket: &ticket, Issues: issues,
		UserScenario: domains.UserScenario{Instructions: "fix it"},
		InitialState: &domains.InitialState{
			InitializationData: &domains.InitializationData{UserData: map[string]any{"device": map[string]any{"on": false}}},
			InitializationActions: []domains.Action{
				{EnvType: "user", FuncName: "turn_airplane_mode_on", Arguments: map[string]any{}},
				{Requestor: "assistant", Name: "set_plan", Arguments: map[string]any{"plan": "p1"}},
			},
			MessageHistory: history,
		},
		EvaluationCriteria: &domains.EvaluationCriteria{
			Actions:       []domains.Action{{ActionID: "a", Name: "enable_roaming", Arguments: map[string]any{}}},
			EnvAssertions: []domains.EnvAssertion{{EnvType: "user", FuncName: "assert_mobile_data_status", Arguments: map[string]any{"expected_status": true}, AssertValue: &no, Message: "data is off"}},
			RewardBasis:   []domains.Basis{domains.BasisEnvAssertion},
		},
	}
	d, err := domains.NewDomain(domains.Spec[struct{}]{Name: "tau2-mock", DB: []byte(`{}`), Tools: domains.NewToolbox[struct{}](), Tasks: nil})
	if err != nil {
		t.Fatal(err)
	}
	d.Tasks = []domains.Task{task}
	got := true
	eval := &result.Evaluation{ID: "e", Domain: "tau2-mock", Config: result.Config{Strict: true},
		Summary: result.Summary{Tasks: []result.TaskSummary{{TaskID: "t1"}}},
		Simulations: []result.Simulation{{ID: "t1#0", TaskID: "t1", TerminationReason: result.TermUserStop, RewardInfo: result.RewardInfo{
			RewardBasis:   []domains.Basis{domains.BasisEnvAssertion, domains.BasisAction},
			AddedByStrict: []domains.Basis{domains.BasisAction},
			EnvAssertions: []result.EnvAssertionCheck{{EnvType: "user", FuncName: "assert_mobile_data_status", Arguments: map[string]any{"expected_status": true}, Expected: false, Got: &got}},
		}}}}
	if _, err := tau2model.Decode(tau2Render(t, eval, d)); err != nil {
		t.Errorf("tau2 would not load it: %v", err)
	}
	r := NewTau2Results(eval, d)
	if got := string(r.Tasks[0].Issues); got != string(issues) {
		t.Errorf("issues %s, want the task's %s", got, issues)
	}
	if r.Info.EnvironmentInfo.DomainName != "mock" {
		t.Errorf("domain_name %q, want tau2's name mock", r.Info.EnvironmentInfo.DomainName)
	}
	tt := r.Tasks[0]
	wantInit := &Tau2InitialState{
		InitializationData: &Tau2InitializationData{UserData: map[string]any{"device": map[string]any{"on": false}}},
		InitializationActions: []Tau2EnvFunctionCall{
			{EnvType: "user", FuncName: "turn_airplane_mode_on", Arguments: map[string]any{}},
			{EnvType: "assistant", FuncName: "set_plan", Arguments: map[string]any{"plan": "p1"}},
		},
		MessageHistory: history,
	}
	if diff := cmp.Diff(wantInit, tt.InitialState); diff != "" {
		t.Errorf("initial_state (-want +got):\n%s", diff)
	}
	msg := "data is off"
	wantAssert := Tau2EnvAssertion{EnvType: "user", FuncName: "assert_mobile_data_status", Arguments: map[string]any{"expected_status": true}, AssertValue: false, Message: &msg}
	if diff := cmp.Diff([]Tau2EnvAssertion{wantAssert}, tt.EvaluationCriteria.EnvAssertions); diff != "" {
		t.Errorf("env_assertions (-want +got):\n%s", diff)
	}
	if tt.Ticket == nil || *tt.Ticket != ticket {
		t.Errorf("ticket %v", tt.Ticket)
	}
	if diff := cmp.Diff([]domains.Basis{domains.BasisEnvAssertion, domains.BasisAction}, tt.EvaluationCriteria.RewardBasis); diff != "" {
		t.Errorf("a strict run must embed the basis it scored (-want +got):\n%s", diff)
	}
	wantAssert.Message = nil
	wantCheck := []Tau2EnvAssertionCheck{{EnvAssertion: wantAssert, Met: false, Reward: 0}}
	if diff := cmp.Diff(wantCheck, r.Simulations[0].RewardInfo.EnvAssertions); diff != "" {
		t.Errorf("reward_info.env_assertions (-want +got):\n%s", diff)
	}
}

// TestTau2RewardExtras: what tau2's RewardInfo has no field for goes to its
// info: an unchecked environment (and no empty hashes), and exact action
// matching, which tau2's own re-grade would not reproduce.
func TestTau2RewardExtras(t *testing.T) {
	eval := tau2SampleEval()
	eval.Config.ActionMatch = result.ActionMatchExact
	eval.Simulations[1].RewardInfo = result.RewardInfo{Reward: 1, RewardBasis: []domains.Basis{"DB"}, RewardBreakdown: map[domains.Basis]float64{},
		DBCheck: &result.DBCheck{DBMatch: true, DBReward: 1}, EnvUnchecked: true}
	data := tau2Render(t, eval, nil)
	r, err := tau2model.Decode(data)
	if err != nil {
		t.Fatalf("tau2 would not load it: %v", err)
	}
	got := []map[string]any{r.Simulations[0].RewardInfo.Info, r.Simulations[1].RewardInfo.Info}
	want := []map[string]any{
		{"db_expected_hash": "h", "db_actual_hash": "h", "action_match": "exact"},
		{"env_unchecked": true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reward_info.info (-want +got):\n%s", diff)
	}
	if db := r.Simulations[1].RewardInfo.DBCheck; db == nil || !db.DBMatch || db.DBReward != 1 || len(r.Simulations[1].RewardInfo.RewardBreakdown) != 0 {
		t.Errorf("unchecked environment: db_check %+v, breakdown %v; want tau2's {true, 1} and no DB", db, r.Simulations[1].RewardInfo.RewardBreakdown)
	}
}

// TestTau2KeepsNullApartFromEmpty: null and empty expected actions and env
// assertions mean different things to tau2 (nothing to check, or nothing
// expected and the database checked), so the export keeps them apart.
func TestTau2KeepsNullApartFromEmpty(t *testing.T) {
	for _, c := range []struct {
		name string
		ec   domains.EvaluationCriteria
		want string
	}{
		{"null", domains.EvaluationCriteria{}, `"actions":null,"env_assertions":null`},
		{"empty", domains.EvaluationCriteria{Actions: []domains.Action{}, EnvAssertions: []domains.EnvAssertion{}}, `"actions":[],"env_assertions":[]`},
	} {
		task := domains.Task{ID: "t", EvaluationCriteria: &c.ec}
		b, err := json.Marshal(NewTau2Task(&task))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %s lacks %s", c.name, b, c.want)
		}
	}
}

// TestTau2ExportKeepsInitDataOrder: a task's initialization data is
// embedded in the key order of its file, not sorted: tau2 merges it as
// json.loads read it and its read tools print records field by field in
// that order, so that a re-grade with the embedded tasks replays the
// outputs the run recorded (banking_knowledge's disputes and accounts).
func TestTau2ExportKeepsInitDataOrder(t *testing.T) {
	const data = `{"agent_data":{"users":{"u1":{"zeta":1,"alpha":{"y":2,"b":3},"mid":"m"}}},"user_data":{"z":true,"a":null}}`
	tasks, err := domains.ParseTasks([]byte(`[{"id":"t1","user_scenario":{"instructions":"x"},"initial_state":{"initialization_data":` + data + `}}]`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := domains.NewDomain(domains.Spec[struct{}]{Name: "tau2-mock", DB: []byte(`{}`), Tools: domains.NewToolbox[struct{}]()})
	if err != nil {
		t.Fatal(err)
	}
	d.Tasks = tasks
	eval := &result.Evaluation{ID: "e", Domain: "tau2-mock", Summary: result.Summary{Tasks: []result.TaskSummary{{TaskID: "t1"}}}}
	var out struct {
		Tasks []struct {
			InitialState struct {
				InitializationData json.RawMessage `json:"initialization_data"`
			} `json:"initial_state"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal(tau2Render(t, eval, d), &out); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := json.Compact(&got, out.Tasks[0].InitialState.InitializationData); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(data, got.String()); diff != "" {
		t.Errorf("initialization_data (-task file +export):\n%s", diff)
	}
}
