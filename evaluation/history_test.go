package evaluation_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	tau2mock "github.com/proctor-eval/proctor/domains/tau2/mock"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/internal/tau2test"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/translation"
)

// scriptedAgent answers each conversation with its replies in order (the
// last one repeated) and keeps the first message of each.
type scriptedAgent struct {
	replies []string
	mu      sync.Mutex
	turns   map[string]int
	first   []string
}

func (a *scriptedAgent) reply(_ context.Context, contextID, text string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.turns == nil {
		a.turns = map[string]int{}
	}
	n := a.turns[contextID]
	a.turns[contextID]++
	if n == 0 {
		a.first = append(a.first, text)
	}
	return a.replies[min(n, len(a.replies)-1)]
}

// historyUser asks for one thing, then stops, and keeps what it was shown
// of the history and the agent text it answered first.
type historyUser struct {
	said      int
	shown     []domains.HistoryMessage
	firstSeen string
}

func (u *historyUser) StartFrom(h []domains.HistoryMessage) { u.shown = h }

func (u *historyUser) Reply(_ context.Context, agentText string) (string, error) {
	u.said++
	if u.said == 1 {
		u.firstSeen = agentText
		return "Thanks. Now please mark task_2 as completed.", nil
	}
	return rollout.StopToken, nil
}

const (
	respondDone = `{"name":"respond","arguments":{"content":"task_2 is now completed."}}`
	updateTask2 = `{"name":"update_task_status","arguments":{"task_id":"task_2","status":"completed"}}`
)

// TestMessageHistory plays tau2-mock's tasks that start from a message
// history with agents that behave in different ways, and checks what tau2's
// orchestrator and evaluator would do: the history heads the trajectory
// with no greeting, the user answers the history's last message, the agent
// is shown the history, and the rewards are tau2's for the same calls.
func TestMessageHistory(t *testing.T) {
	d, err := tau2mock.New(tau2test.Dir(t, "mock"), "")
	if err != nil {
		t.Fatal(err)
	}
	withComm := historyTaskVariant(t, d)
	cases := []struct {
		name, task string
		strict     bool
		replies    []string
		// want is tau2's reward for the same calls: its DB check replays
		// the history and then the agent's calls, against the history and
		// then the gold actions.
		want float64
	}{
		{"gold", "update_task_with_message_history", false, []string{updateTask2, respondDone}, 1},
		{"gold, strict", "update_task_with_message_history", true, []string{updateTask2, respondDone}, 1},
		{"does nothing", "update_task_with_message_history", false, []string{respondDone}, 0},
		{"creates the task again", "update_task_with_message_history", false, []string{
			`{"name":"create_task","arguments":{"user_id":"user_1","title":"Project Review","description":"Review Q4 project status"}}`,
			`{"name":"update_task_status","arguments":{"task_id":"task_3","status":"completed"}}`, respondDone}, 0},
		{"env assertion, gold", "update_task_with_history_and_env_assertions", false, []string{updateTask2, respondDone}, 1},
		{"env assertion, does nothing", "update_task_with_history_and_env_assertions", false, []string{respondDone}, 0},
		// The history's create_task call counts for ACTION and its
		// message for COMMUNICATE, as in tau2.
		{"history counts", withComm.ID, false, []string{updateTask2, respondDone}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			task, ok := d.Task(tc.task)
			if tc.task == withComm.ID {
				task, ok = withComm, true
			}
			if !ok {
				t.Fatalf("no task %s", tc.task)
			}
			scripted := &scriptedAgent{replies: tc.replies}
			client := dial(t, agenttest.Start(t, scripted.reply).URL)
			user := &historyUser{}
			sim := rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{})
			res, _ := evaluation.Simulate(context.Background(), sim, scoring.NewScorer(d, tc.strict), task, 0, a2aagent.New(client), user)
			if res.TerminationReason != result.TermUserStop {
				t.Fatalf("termination %s (%s)", res.TerminationReason, res.Error)
			}
			if res.Reward != tc.want {
				t.Errorf("reward %v, tau2 gives %v (%+v)", res.Reward, tc.want, res.RewardInfo)
			}
			checkHistoryTranscript(t, res.Messages)
			// Scored again from the transcript alone (as a rescore does):
			// the history's calls are not replayed twice.
			again := res
			again.FinalHash = ""
			scoring.NewScorer(d, tc.strict).Score(context.Background(), task, &again, nil)
			if again.Reward != res.Reward || !cmp.Equal(again.RewardInfo.DBCheck, res.RewardInfo.DBCheck) {
				t.Errorf("rescored from the transcript: reward %v (%+v), first %v", again.Reward, again.RewardInfo, res.Reward)
			}
			if user.firstSeen != "I've created a task titled 'Project Review' for you. The task has been created with ID task_2 and is currently in pending status." {
				t.Errorf("the user first answered %q, not the history's last message", user.firstSeen)
			}
			if got := roles(user.shown); got != "user" {
				t.Errorf("the user was shown %s of the history, want its own first message", got)
			}
			if len(scripted.first) != 1 || !strings.Contains(scripted.first[0], translation.HistoryOpen) ||
				!strings.Contains(scripted.first[0], `"name": "create_task"`) || !strings.Contains(scripted.first[0], `"tool_call_id": "call_1"`) ||
				!strings.HasSuffix(scripted.first[0], translation.AgentBeatsUserPrefix+"Thanks. Now please mark task_2 as completed.") {
				t.Errorf("the agent's first message lacks the history or the user's reply:\n%s", strings.Join(scripted.first, "\n---\n"))
			}
		})
	}
}

// historyTaskVariant is update_task_with_message_history with the
// history's create_task as an expected action and a communicate_info only
// the history's assistant message says, scored on ACTION and COMMUNICATE
// (on DB, the gold replay would create the task a second time).
func historyTaskVariant(t *testing.T, d *domains.Domain) *domains.Task {
	t.Helper()
	base, ok := d.Task("update_task_with_message_history")
	if !ok {
		t.Fatal("no task update_task_with_message_history")
	}
	c := *base
	c.ID = "history_counts"
	ec := *base.EvaluationCriteria
	ec.Actions = append([]domains.Action{{ActionID: "create", Name: "create_task",
		Arguments: map[string]any{"user_id": "user_1", "title": "Project Review", "description": "Review Q4 project status"}}}, ec.Actions...)
	ec.CommunicateInfo = []string{"currently in pending status"}
	ec.RewardBasis = []domains.Basis{domains.BasisAction, domains.BasisCommunicate}
	c.EvaluationCriteria = &ec
	return &c
}

func roles(msgs []domains.HistoryMessage) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Role)
	}
	return strings.Join(out, ",")
}

// checkHistoryTranscript checks that the transcript opens with the four
// history messages, marked, and then the user's answer to the last one.
func checkHistoryTranscript(t *testing.T, msgs []result.Message) {
	t.Helper()
	type head struct {
		Role    result.Role
		Name    string
		History bool
		Turn    int
	}
	var got []head
	for _, m := range msgs[:min(5, len(msgs))] {
		got = append(got, head{m.Role, m.Name, m.History, m.Turn})
	}
	want := []head{{"user", "", true, 0}, {"assistant", "", true, 1}, {"tool", "create_task", true, 2}, {"assistant", "", true, 3}, {"user", "", false, 4}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transcript head (-want +got):\n%s", diff)
	}
}

// TestMessageHistoryExport: the tau2 export carries the history at the
// head of the simulation's messages, as tau2's trajectory has it.
func TestMessageHistoryExport(t *testing.T) {
	d, err := tau2mock.New(tau2test.Dir(t, "mock"), "")
	if err != nil {
		t.Fatal(err)
	}
	task, _ := d.Task("update_task_with_message_history")
	scripted := &scriptedAgent{replies: []string{updateTask2, respondDone}}
	client := dial(t, agenttest.Start(t, scripted.reply).URL)
	sim := rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{})
	res, _ := evaluation.Simulate(context.Background(), sim, scoring.NewScorer(d, false), task, 0, a2aagent.New(client), &historyUser{})
	eval := &result.Evaluation{ID: "e1", Domain: d.Name, Simulations: []result.Simulation{res}}
	var buf bytes.Buffer
	if err := report.WriteTau2(&buf, eval, d); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Simulations []struct {
			Messages []map[string]any `json:"messages"`
		} `json:"simulations"`
	}
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	msgs := out.Simulations[0].Messages
	var history []map[string]any
	if err := json.Unmarshal(task.InitialState.MessageHistory, &history); err != nil {
		t.Fatal(err)
	}
	// tau2's trajectory holds the history's messages as they are, with
	// turn_idx renumbered and timestamps set; compare the rest.
	for i, h := range history {
		m := msgs[i]
		if m["turn_idx"] != float64(i) {
			t.Errorf("message %d: turn_idx %v", i, m["turn_idx"])
		}
		for _, k := range []string{"role", "content", "tool_calls", "id"} {
			if hv, ok := h[k]; ok && !sameToolCalls(hv, m[k]) {
				t.Errorf("message %d: %s = %v, the history has %v", i, k, m[k], hv)
			}
		}
	}
	if msgs[2]["requestor"] != "assistant" || msgs[4]["role"] != "user" {
		t.Errorf("messages %v", msgs[:5])
	}
}

// sameToolCalls compares a history value with the exported one; exported
// tool calls also carry their requestor.
func sameToolCalls(want, got any) bool {
	if ws, ok := want.([]any); ok {
		gs, ok := got.([]any)
		if !ok || len(gs) != len(ws) {
			return false
		}
		for i := range ws {
			w, g := ws[i].(map[string]any), gs[i].(map[string]any)
			if g["requestor"] != "assistant" || !cmp.Equal(w["arguments"], g["arguments"]) || w["id"] != g["id"] || w["name"] != g["name"] {
				return false
			}
		}
		return true
	}
	return cmp.Equal(want, got)
}
