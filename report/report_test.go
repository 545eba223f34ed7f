package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/bench"
)

func sample() *bench.Evaluation {
	return &bench.Evaluation{
		ID: "e1", Status: bench.StatusCompleted, Domain: "mock",
		Agent: bench.AgentInfo{URL: "http://a/", Name: "A"},
		Summary: bench.Summary{NumSimulations: 2, NumTasks: 2, NumTrials: 1, AvgReward: 0.5,
			PassHatK: map[string]float64{"1": 0.5}, TerminationReasons: map[string]int{"user_stop": 2},
			Tasks: []bench.TaskSummary{{TaskID: "t1", Trials: 1, Successes: 1, AvgReward: 1}, {TaskID: "t2", Trials: 1}}},
		Simulations: []bench.Simulation{
			{ID: "t1#0", TaskID: "t1", Reward: 1, TerminationReason: "user_stop"},
			{ID: "t2#0", TaskID: "t2", Reward: 0, TerminationReason: "user_stop", RewardInfo: bench.RewardInfo{
				CommunicateChecks: []bench.CommunicateCheck{{Info: "42 | pipes", Met: false}}}},
		},
	}
}

func TestFormats(t *testing.T) {
	cases := []struct {
		format string
		want   []string
	}{
		{Table, []string{"pass^1", "0.500", "t2", "user_stop 2"}},
		{Markdown, []string{"| pass^1 | 0.500", "### Failed simulations", `did not tell the user "42 \| pipes"`}},
	}
	for _, tc := range cases {
		var b bytes.Buffer
		if err := Write(&b, tc.format, sample()); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s output lacks %q:\n%s", tc.format, w, b.String())
			}
		}
	}
	var b bytes.Buffer
	if err := Write(&b, JSON, sample()); err != nil {
		t.Fatal(err)
	}
	var back bench.Evaluation
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Summary.AvgReward != 0.5 || len(back.Simulations) != 2 {
		t.Errorf("JSON does not round-trip: %v", err)
	}
}
