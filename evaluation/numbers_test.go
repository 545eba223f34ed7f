package evaluation_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/telecom"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/internal/tau2test"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
)

// askOnce says one thing, then stops.
type askOnce struct{ said bool }

func (u *askOnce) Reply(context.Context, string) (string, error) {
	if u.said {
		return rollout.StopToken, nil
	}
	u.said = true
	return "Please add 2 GB of data to line L1002; I am customer C1001.", nil
}

// TestIntegersStayIntegers runs telecom's refuel_data through the whole
// path (the agent's text, the tool call, the tool, the transcript, the
// store, a rescore's replay, the tau2 export) with gb_amount written as 2
// and as 2.0: tau2 answers "2 GB" to the int and "2.0 GB" to the float, and
// the two leave different databases (bad_calls.json, telecom_bad_20 and
// telecom_bad_18).
func TestIntegersStayIntegers(t *testing.T) {
	dir := tau2test.Dir(t, "telecom")
	d, err := telecom.New(dir, "base")
	if err != nil {
		t.Fatal(err)
	}
	task, ok := d.Task("[mms_issue]break_app_storage_permission|data_usage_exceeded[PERSONA:Easy]")
	if !ok {
		t.Fatal("bad_calls.json's task is not in split base")
	}
	tau2 := map[string]tau2test.BadCall{}
	for _, c := range tau2test.LoadBadCalls(t, dir).Calls {
		tau2[c.CallID] = c
	}
	for _, tc := range []struct {
		literal, callID string
	}{{"2", "telecom_bad_20"}, {"2.0", "telecom_bad_18"}} {
		t.Run(tc.literal, func(t *testing.T) {
			want := tau2[tc.callID]
			call := `{"name": "refuel_data", "arguments": {"customer_id": "C1001", "line_id": "L1002", "gb_amount": ` + tc.literal + `}}`
			scripted := &scriptedAgent{replies: []string{call, `{"name":"respond","arguments":{"content":"Done."}}`}}
			db := openStore(t)
			r := &evaluation.Runner{
				Simulator: rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}),
				Scorer:    scoring.NewScorer(d, false),
				Agent:     a2aagent.New(dial(t, agenttest.Start(t, scripted.reply).URL)),
				Users:     func(*domains.Task, int) (rollout.UserSimulator, error) { return &askOnce{}, nil },
				Store:     db,
			}
			eval := evaluation.NewEvaluation(store.NewID(), result.Config{Domain: d.Name, NumTrials: 1}, result.AgentInfo{URL: "x"})
			if err := r.Run(context.Background(), eval, []*domains.Task{task}); err != nil {
				t.Fatal(err)
			}
			loaded, err := evaluation.Load(context.Background(), db, eval.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []struct {
				where string
				sim   result.Simulation
			}{{"live", eval.Simulations[0]}, {"stored", loaded.Simulations[0]}} {
				checkRefuel(t, s.where, s.sim, tc.literal, want.Content)
			}
			// A rescore replays the stored calls: the same database.
			env, err := scoring.Replay(d, task, loaded.Simulations[0].Messages)
			if err != nil {
				t.Fatal(err)
			}
			if agentHash, _, err := domains.SideHashes(env); err != nil || agentHash != want.DBHash {
				t.Errorf("replayed agent database %s (%v), tau2's after the call %s", agentHash, err, want.DBHash)
			}
			var buf bytes.Buffer
			if err := report.WriteTau2(&buf, loaded, d); err != nil {
				t.Fatal(err)
			}
			if got := exportedGB(t, buf.Bytes()); got != json.Number(tc.literal) {
				t.Errorf("the tau2 export writes gb_amount as %v, want %s", got, tc.literal)
			}
		})
	}
}

// exportedGB is the gb_amount of the refuel_data call in a tau2 export's
// first simulation, as written.
func exportedGB(t *testing.T, export []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(export))
	dec.UseNumber()
	var out struct {
		Simulations []struct {
			Messages []struct {
				ToolCalls []domains.ToolCall `json:"tool_calls"`
			} `json:"messages"`
		} `json:"simulations"`
	}
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	for _, m := range out.Simulations[0].Messages {
		for _, c := range m.ToolCalls {
			if c.Name == "refuel_data" {
				return c.Arguments["gb_amount"]
			}
		}
	}
	t.Fatal("no refuel_data call in the export")
	return nil
}

// checkRefuel finds the refuel call and its result in a transcript.
func checkRefuel(t *testing.T, where string, sim result.Simulation, literal, content string) {
	t.Helper()
	for i, m := range sim.Messages {
		if len(m.ToolCalls) != 1 || m.ToolCalls[0].Name != "refuel_data" {
			continue
		}
		if got := m.ToolCalls[0].Arguments["gb_amount"]; got != json.Number(literal) {
			t.Errorf("%s: gb_amount is %#v, want the literal %s", where, got, literal)
		}
		if i+1 >= len(sim.Messages) || sim.Messages[i+1].Content != content {
			t.Errorf("%s: tool output %q, tau2's %q", where, sim.Messages[min(i+1, len(sim.Messages)-1)].Content, content)
		}
		return
	}
	t.Errorf("%s: no refuel_data call in %+v", where, sim.Messages)
}
