package evaluation_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
)

// TestInterimMessages: an agent's working status messages reach the
// transcript as interim agent messages, the same streamed or not, with
// the turn of the answer they precede; the user simulator hears only the
// answers, no step is spent on them, and the reward is the answers'.
func TestInterimMessages(t *testing.T) {
	d := counterDomain(t)
	task, _ := d.Task("add-two")
	type line struct {
		Content string
		Interim bool
		Turn    int
	}
	transcripts := map[bool][]line{}
	for _, streaming := range []bool{false, true} {
		base := agenttest.StartExecutorPeer(t, agenttest.Peer{Transport: "jsonrpc", Protocol: "1.0", Streaming: streaming}, agenttest.InterimExecutor(counterAgent, "Checking the counter..."))
		user := &recordingUser{script: []string{"Please add 2 to the counter.", rollout.StopToken}}
		res, _ := play(context.Background(), rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}), task, 0,
			a2aagent.New(dial(t, base)), user)
		if res.Reward != 1 || res.TerminationReason != result.TermUserStop {
			t.Errorf("streaming=%v: reward %v, %s %s", streaming, res.Reward, res.TerminationReason, res.Error)
		}
		for _, m := range res.Messages {
			if m.Role == result.RoleAssistant && len(m.ToolCalls) == 0 {
				transcripts[streaming] = append(transcripts[streaming], line{m.Content, m.Interim, m.Turn})
			}
		}
		for _, heard := range user.heard {
			if heard == "Checking the counter..." {
				t.Errorf("streaming=%v: the user simulator was shown an interim message", streaming)
			}
		}
	}
	want := []line{
		{Content: rollout.AgentGreeting, Turn: 0},
		{Content: "Checking the counter...", Interim: true, Turn: 2}, // before the tool call
		{Content: "Checking the counter...", Interim: true, Turn: 4}, // before the answer
		{Content: "Done, the count is 2.", Turn: 4},
	}
	for streaming, got := range transcripts {
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("streaming=%v: the agent's messages (-want +got):\n%s", streaming, diff)
		}
	}
}

// recordingUser says its script in turn and records what it was told.
type recordingUser struct {
	script []string
	heard  []string
}

func (u *recordingUser) Reply(_ context.Context, agent string) (string, error) {
	u.heard = append(u.heard, agent)
	next := u.script[0]
	if len(u.script) > 1 {
		u.script = u.script[1:]
	}
	return next, nil
}
