package scoring

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

func assistant(content string, calls ...domains.ToolCall) result.Message {
	return result.Message{Role: result.RoleAssistant, Content: content, ToolCalls: calls}
}

// TestCheckActions: the two readings of an expected action, case by case.
// tau2 is tau2-bench's Action.compare_with_tool_call over the calls of
// both sides; exact is proctor's stricter reading.
func TestCheckActions(t *testing.T) {
	want := domains.Action{Name: "create_task", Arguments: map[string]any{"user_id": "u1", "title": "Budget", "priority": "high"}}
	call := func(args map[string]any) result.Message {
		return assistant("", domains.ToolCall{Name: "create_task", Arguments: args})
	}
	userCall := func(name string, args map[string]any) result.Message {
		return result.Message{Role: result.RoleUser, ToolCalls: []domains.ToolCall{{Name: name, Arguments: args, Requestor: "user"}}}
	}
	cases := []struct {
		name        string
		action      domains.Action
		msgs        []result.Message
		tau2, exact bool
	}{
		{"same arguments", want, []result.Message{call(map[string]any{"user_id": "u1", "title": "Budget", "priority": "high"})}, true, true},
		{"an extra argument", want, []result.Message{call(map[string]any{"user_id": "u1", "title": "Budget", "priority": "high", "x": 1.0})}, false, true},
		{"wrong value", want, []result.Message{call(map[string]any{"user_id": "u1", "title": "budget", "priority": "high"})}, false, false},
		{"a missing argument", want, []result.Message{call(map[string]any{"user_id": "u1", "title": "Budget"})}, true, false},
		{"no arguments at all", want, []result.Message{call(map[string]any{})}, true, false},
		{"missing one, wrong another", want, []result.Message{call(map[string]any{"user_id": "u2"})}, false, false},
		{"compare subset", withCompare(want, []string{"user_id"}), []result.Message{call(map[string]any{"user_id": "u1", "title": "Other"})}, true, true},
		{"compare subset, key missing", withCompare(want, []string{"user_id"}), []result.Message{call(map[string]any{"title": "Budget"})}, false, false},
		{"compare none", withCompare(want, []string{}), []result.Message{call(map[string]any{"z": 1.0})}, true, true},
		{"compare a name neither has", withCompare(want, []string{"nope"}), []result.Message{call(map[string]any{})}, true, true},
		{"wrong name", want, []result.Message{assistant("", domains.ToolCall{Name: "delete_task", Arguments: want.Arguments})}, false, false},
		{"the user's call for an agent action", want, []result.Message{userCall("create_task", want.Arguments)}, true, false},
		{"the agent's call for a user action", domains.Action{Name: "reboot", Requestor: "user", Arguments: map[string]any{}},
			[]result.Message{assistant("", domains.ToolCall{Name: "reboot", Arguments: map[string]any{}})}, true, false},
		{"the user's call for a user action", domains.Action{Name: "reboot", Requestor: "user", Arguments: map[string]any{}},
			[]result.Message{userCall("reboot", map[string]any{})}, true, true},
		{"tool messages do not count", want, []result.Message{{Role: result.RoleTool, ToolCalls: []domains.ToolCall{{Name: "create_task", Arguments: want.Arguments}}}}, false, false},
		{"3 and 3.0", domains.Action{Name: "add", Arguments: map[string]any{"n": 3.0}}, []result.Message{assistant("", domains.ToolCall{Name: "add", Arguments: map[string]any{"n": 3}})}, true, true},
		{"True and 1", domains.Action{Name: "add", Arguments: map[string]any{"n": 1.0}}, []result.Message{assistant("", domains.ToolCall{Name: "add", Arguments: map[string]any{"n": true}})}, true, false},
		{"second call matches", want, []result.Message{call(map[string]any{"user_id": "u9"}), call(map[string]any{"user_id": "u1"})}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, m := range []struct {
				match result.ActionMatch
				want  bool
			}{{result.ActionMatchTau2, tc.tau2}, {"", tc.tau2}, {result.ActionMatchExact, tc.exact}} {
				checks, r := checkActions([]domains.Action{tc.action}, tc.msgs, m.match)
				if checks[0].ActionMatch != m.want || (r == 1) != m.want {
					t.Errorf("%q: matched = %v (reward %v), want %v", m.match, checks[0].ActionMatch, r, m.want)
				}
			}
		})
	}
}

// TestPyEqual: argument values compare as Python compares what json.loads
// gives.
func TestPyEqual(t *testing.T) {
	cases := []struct {
		a, b any
		want bool
	}{
		{1.0, 1, true},
		{json.Number("1"), 1.0, true},
		{json.Number("1.0"), json.Number("1"), true},
		{json.Number("9007199254740993"), 9007199254740992.0, false}, // Python compares int and float exactly
		{json.Number("9007199254740993"), json.Number("9007199254740993"), true},
		{json.Number("1e400"), json.Number("2e400"), true}, // both inf
		{true, 1.0, true},
		{false, json.Number("0"), true},
		{true, "true", false},
		{"a", "a", true},
		{nil, nil, true},
		{nil, "", false},
		{[]any{1.0, "x"}, []any{json.Number("1"), "x"}, true},
		{[]any{1.0}, []any{1.0, 2.0}, false},
		{map[string]any{"a": 1.0, "b": []any{true}}, map[string]any{"b": []any{1}, "a": json.Number("1.0")}, true},
		{map[string]any{"a": 1.0}, map[string]any{"a": 1.0, "b": nil}, false},
		{map[string]any{"a": 1.0}, []any{1.0}, false},
	}
	for _, c := range cases {
		if got := pyEqual(c.a, c.b); got != c.want {
			t.Errorf("pyEqual(%#v, %#v) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := pyEqual(c.b, c.a); got != c.want {
			t.Errorf("pyEqual(%#v, %#v) = %v, want %v (reversed)", c.b, c.a, got, c.want)
		}
	}
}

func withCompare(a domains.Action, keys []string) domains.Action {
	a.CompareArgs = keys
	return a
}

func TestCheckCommunicate(t *testing.T) {
	msgs := []result.Message{assistant("You have 1,250 open TASKS."), {Role: result.RoleUser, Content: "secret"},
		{Role: result.RoleAssistant, Content: "Looking up ticket 77...", Interim: true}}
	cases := []struct {
		info string
		met  bool
	}{
		{"1250", true}, {"open tasks", true}, {"secret", false}, {"1251", false},
		{"ticket 77", false}, // said only in an interim message: not told to the user as an answer
	}
	for _, tc := range cases {
		checks, r := checkCommunicate([]string{tc.info}, msgs)
		if checks[0].Met != tc.met || (r == 1) != tc.met {
			t.Errorf("%q: met = %v, want %v", tc.info, checks[0].Met, tc.met)
		}
	}
}

func TestScore(t *testing.T) {
	task := &domains.Task{ID: "t", EvaluationCriteria: &domains.EvaluationCriteria{
		Actions:         []domains.Action{}, // empty, not null: the database is checked
		CommunicateInfo: []string{"done"},
		RewardBasis:     []domains.Basis{domains.BasisDB, domains.BasisCommunicate},
	}}
	good := []result.Message{assistant("All done.")}
	cases := []struct {
		name   string
		in     scoreInput
		reward float64
		note   string
	}{
		{"all met", scoreInput{task: task, messages: good, finalHash: "h", goldHash: "h", termination: result.TermUserStop}, 1, ""},
		{"db differs", scoreInput{task: task, messages: good, finalHash: "x", goldHash: "h", termination: result.TermUserStop}, 0, ""},
		{"agent stop earns", scoreInput{task: task, messages: good, finalHash: "h", goldHash: "h", termination: result.TermAgentStop}, 1, ""},
		{"max steps earns nothing", scoreInput{task: task, messages: good, finalHash: "h", goldHash: "h", termination: result.TermMaxSteps}, 0, "max_steps"},
		{"nl assertion without judge", scoreInput{task: &domains.Task{ID: "n", EvaluationCriteria: &domains.EvaluationCriteria{
			NLAssertions: []string{"agent is polite"}, RewardBasis: []domains.Basis{domains.BasisNLAssertion}}}, termination: result.TermUserStop}, 0, "judge"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info := score(context.Background(), tc.in, nil)
			if info.Reward != tc.reward {
				t.Errorf("reward = %v, want %v (%+v)", info.Reward, tc.reward, info)
			}
			if tc.note != "" && !strings.Contains(info.Note, tc.note) {
				t.Errorf("note %q lacks %q", info.Note, tc.note)
			}
		})
	}
}

// TestEnvUnchecked: a task with null actions and null env assertions gets
// DB and ENV_ASSERTION 1 without a check and without a breakdown entry, as
// tau2's environment evaluator gives; an empty list is checked.
func TestEnvUnchecked(t *testing.T) {
	dbComm := []domains.Basis{domains.BasisDB, domains.BasisCommunicate}
	cases := []struct {
		name      string
		crit      *domains.EvaluationCriteria
		unchecked bool
		reward    float64
		breakdown map[domains.Basis]float64
	}{
		{"null and null", &domains.EvaluationCriteria{RewardBasis: dbComm}, true, 1, map[domains.Basis]float64{domains.BasisCommunicate: 1}},
		{"no criteria", nil, true, 1, map[domains.Basis]float64{domains.BasisCommunicate: 1}},
		{"env assertion basis", &domains.EvaluationCriteria{RewardBasis: []domains.Basis{domains.BasisEnvAssertion, domains.BasisDB}}, true, 1, map[domains.Basis]float64{}},
		{"empty actions", &domains.EvaluationCriteria{Actions: []domains.Action{}, RewardBasis: dbComm}, false, 0, map[domains.Basis]float64{domains.BasisDB: 0, domains.BasisCommunicate: 1}},
		{"empty env assertions", &domains.EvaluationCriteria{EnvAssertions: []domains.EnvAssertion{}, RewardBasis: dbComm}, false, 0, map[domains.Basis]float64{domains.BasisDB: 0, domains.BasisCommunicate: 1}},
		{"no DB in the basis", &domains.EvaluationCriteria{RewardBasis: []domains.Basis{domains.BasisCommunicate}}, false, 1, map[domains.Basis]float64{domains.BasisCommunicate: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The agent changed the database: the final hash is not gold.
			in := scoreInput{task: &domains.Task{ID: "t", EvaluationCriteria: tc.crit}, finalHash: "changed", goldHash: "gold", termination: result.TermUserStop}
			info := score(context.Background(), in, nil)
			if info.EnvUnchecked != tc.unchecked || info.Reward != tc.reward {
				t.Errorf("env_unchecked %v, reward %v; want %v, %v", info.EnvUnchecked, info.Reward, tc.unchecked, tc.reward)
			}
			if diff := cmp.Diff(tc.breakdown, info.RewardBreakdown); diff != "" {
				t.Errorf("breakdown (-want +got):\n%s", diff)
			}
			if tc.unchecked && (info.DBCheck == nil || *info.DBCheck != (result.DBCheck{DBMatch: true, DBReward: 1}) || info.EnvAssertions != nil) {
				t.Errorf("db_check %+v, env assertions %v: want tau2's {db_match: true, db_reward: 1} and none run", info.DBCheck, info.EnvAssertions)
			}
			in.termination = result.TermMaxSteps
			if got := score(context.Background(), in, nil); got.EnvUnchecked != tc.unchecked || got.DBCheck != nil {
				t.Errorf("unrewarded: env_unchecked %v (a fact about the task), db_check %+v", got.EnvUnchecked, got.DBCheck)
			}
		})
	}
}

type fixedJudge []result.NLAssertionCheck

func (j fixedJudge) Assess(context.Context, *domains.Task, []result.Message) ([]result.NLAssertionCheck, error) {
	return j, nil
}

func TestScoreWithJudge(t *testing.T) {
	task := &domains.Task{ID: "n", EvaluationCriteria: &domains.EvaluationCriteria{
		NLAssertions: []string{"a", "b"}, RewardBasis: []domains.Basis{domains.BasisNLAssertion}}}
	in := scoreInput{task: task, termination: result.TermUserStop}
	if r := score(context.Background(), in, fixedJudge{{Assertion: "a", Met: true}, {Assertion: "b", Met: true}}).Reward; r != 1 {
		t.Errorf("all met: reward %v", r)
	}
	if r := score(context.Background(), in, fixedJudge{{Assertion: "a", Met: true}, {Assertion: "b", Met: false}}).Reward; r != 0 {
		t.Errorf("one unmet: reward %v", r)
	}
}
