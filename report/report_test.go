package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/result"
)

func sample() *result.Evaluation {
	return &result.Evaluation{
		ID: "e1", Status: result.StatusCompleted, Domain: "mock",
		Agent: result.AgentInfo{URL: "http://a/", Name: "A"},
		Summary: result.Summary{NumSimulations: 2, NumTasks: 2, NumTrials: 1, AvgReward: 0.5,
			PassHatK: map[string]float64{"1": 0.5}, TerminationReasons: map[string]int{"user_stop": 2},
			Tasks: []result.TaskSummary{{TaskID: "t1", Trials: 1, Successes: 1, AvgReward: 1}, {TaskID: "t2", Trials: 1}}},
		Simulations: []result.Simulation{
			{ID: "t1#0", TaskID: "t1", Reward: 1, TerminationReason: "user_stop"},
			{ID: "t2#0", TaskID: "t2", Reward: 0, TerminationReason: "user_stop", RewardInfo: result.RewardInfo{
				CommunicateChecks: []result.CommunicateCheck{{Info: "42 | pipes", Met: false}}}},
		},
	}
}

func TestFormats(t *testing.T) {
	cases := []struct {
		format Format
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
	var back result.Evaluation
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Summary.AvgReward != 0.5 || len(back.Simulations) != 2 {
		t.Errorf("JSON does not round-trip: %v", err)
	}
}

func TestBaseline(t *testing.T) {
	const line = "0.250 (1 of 4 tasks pass without the agent doing anything)"
	cases := []struct {
		name    string
		edit    func(e *result.Evaluation)
		want    []string // in both table and Markdown
		wantNot []string
	}{
		{"one vacuous task", func(e *result.Evaluation) {
			e.Summary.NumTasks = 4
			e.Summary.DoNothingBaseline = &result.Baseline{AvgReward: 0.25, PassHat1: 0.25}
			e.Summary.VacuousTasks = []string{"t1"}
		}, []string{"do-nothing baseline", line, "1 vacuous task: t1"}, []string{"strict"}},
		{"none vacuous", func(e *result.Evaluation) {
			e.Summary.DoNothingBaseline = &result.Baseline{}
			e.Summary.VacuousTasks = []string{}
		}, nil, []string{"do-nothing", "vacuous"}},
		{"results from before the baseline", func(*result.Evaluation) {}, nil, []string{"do-nothing", "vacuous"}},
		{"strict", func(e *result.Evaluation) { e.Config.Strict = true },
			[]string{"strict: ACTION added to the reward basis of every task with expected actions"}, []string{"do-nothing", "action match"}},
		{"exact action matching", func(e *result.Evaluation) { e.Config.ActionMatch = result.ActionMatchExact },
			[]string{"action match", "exact: each expected call must come from its own side", "--action-match tau2"}, []string{"strict"}},
		{"tau2 action matching is not remarked", func(e *result.Evaluation) { e.Config.ActionMatch = result.ActionMatchTau2 },
			nil, []string{"action match"}},
		{"an unchecked environment", func(e *result.Evaluation) { e.Summary.EnvUncheckedTasks = []string{"t2"} },
			[]string{"env unchecked", "t2 (no expected actions or env assertions: DB scores 1 without a check, as in tau2)"}, nil},
		{"policy violations", func(e *result.Evaluation) {
			e.Simulations[0].RewardInfo.PolicyViolations = []result.PolicyViolation{{Tool: "delete_task", CallID: "c1", Turn: 3}}
			e.Simulations[1].RewardInfo.PolicyViolations = []result.PolicyViolation{{Tool: "create_task", Turn: 5}, {Tool: "delete_task", Turn: 7}}
		}, []string{"policy violations", "3 in 2 simulations: delete_task 2, create_task 1"}, nil},
		{"no policy violations", func(*result.Evaluation) {}, nil, []string{"policy violation"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := sample()
			tc.edit(e)
			for _, format := range []Format{Table, Markdown} {
				var b bytes.Buffer
				if err := Write(&b, format, e); err != nil {
					t.Fatal(err)
				}
				for _, w := range tc.want {
					if !strings.Contains(b.String(), w) {
						t.Errorf("%s output lacks %q:\n%s", format, w, b.String())
					}
				}
				for _, w := range tc.wantNot {
					if strings.Contains(b.String(), w) {
						t.Errorf("%s output has %q:\n%s", format, w, b.String())
					}
				}
			}
		})
	}
	e := sample()
	e.Summary.NumTasks, e.Summary.DoNothingBaseline, e.Summary.VacuousTasks = 4, &result.Baseline{PassHat1: 0.25}, []string{"t1"}
	if got := BaselineNote(e.Summary); got != line {
		t.Errorf("BaselineNote = %q, want %q", got, line)
	}
}

// TestFailuresCountLikeTheSummary: a reward within float rounding of 1
// passed, for the summary (scoring.Summarize counts with result.Passed)
// and so for the Markdown list of failed simulations.
func TestFailuresCountLikeTheSummary(t *testing.T) {
	e := sample()
	e.Simulations[0].Reward = 0.9999995
	var b bytes.Buffer
	if err := Write(&b, Markdown, e); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "| t1#0 |") {
		t.Errorf("a simulation the summary counts as passed is listed as failed:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "| t2#0 |") {
		t.Errorf("the failed simulation is not listed:\n%s", b.String())
	}
}
