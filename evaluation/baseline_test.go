package evaluation_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/store"
	"github.com/proctor-eval/proctor/translation"
)

// TestMockDomainIsNotVacuous: no task of the mock domain is passed by doing
// nothing, in either scoring mode. domains/mock checks the same from its own
// side (TestTasksNonVacuous); this is the computation results report.
func TestMockDomainIsNotVacuous(t *testing.T) {
	d, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Tasks) != 17 {
		t.Fatalf("mock domain has %d tasks, want 17", len(d.Tasks))
	}
	strict := scoring.NewScorer(d, true)
	for i := range d.Tasks {
		task := &d.Tasks[i]
		t.Run(task.ID, func(t *testing.T) {
			for mode, passes := range map[string]func() (bool, error){
				"own basis": func() (bool, error) { return scoring.DoNothingPasses(d, task) },
				"strict":    func() (bool, error) { return strict.DoNothingPasses(task) },
			} {
				if ok, err := passes(); err != nil || ok {
					t.Errorf("%s: DoNothingPasses = %v, %v; want false (bases %v)", mode, ok, err, task.Bases())
				}
			}
		})
	}
}

// vacuityCase is a task of the synthetic domain and whether doing nothing
// passes it, on its own basis and in strict mode.
type vacuityCase struct {
	task          domains.Task
	vacuous       bool
	vacuousStrict bool
	why           string
}

func vacuityCases() []vacuityCase {
	task := func(id string, ec *domains.EvaluationCriteria) domains.Task {
		return domains.Task{ID: id, UserScenario: domains.UserScenario{Script: []string{"Hello, can you help with my counter?"}}, EvaluationCriteria: ec}
	}
	get := domains.Action{Name: "get", Arguments: map[string]any{}}
	add2 := domains.Action{Name: "add", Arguments: map[string]any{"n": 2.0}}
	failing := domains.Action{Name: "add", Arguments: map[string]any{"n": "two"}} // fails: n must be an integer
	db, act, com := domains.BasisDB, domains.BasisAction, domains.BasisCommunicate
	return []vacuityCase{
		{task("db-read-only", &domains.EvaluationCriteria{Actions: []domains.Action{get}, RewardBasis: []domains.Basis{db}}),
			true, false, "the only expected action reads"},
		{task("db-communicate-nothing", &domains.EvaluationCriteria{Actions: []domains.Action{get}, RewardBasis: []domains.Basis{db, com}}),
			true, false, "DB+COMMUNICATE without communicate_info"},
		{task("default-basis", nil), true, true, "no criteria at all: DB+COMMUNICATE by default, nothing expected"},
		{task("action-none", &domains.EvaluationCriteria{RewardBasis: []domains.Basis{act}}), true, true, "ACTION with no actions"},
		{task("db-failing-write", &domains.EvaluationCriteria{Actions: []domains.Action{failing}, RewardBasis: []domains.Basis{db}}),
			true, false, "the expected write fails on replay, leaving the database as it was"},
		{task("greeting-says-it", &domains.EvaluationCriteria{CommunicateInfo: []string{"how can I help"}, RewardBasis: []domains.Basis{com}}),
			true, true, "proctor's own greeting carries the required string"},
		{task("user-acts", &domains.EvaluationCriteria{Actions: []domains.Action{{Requestor: "user", Name: "get", Arguments: map[string]any{}}}, RewardBasis: []domains.Basis{db}}),
			true, true, "only the user is expected to act: strict adds no ACTION"},
		{task("db-write", &domains.EvaluationCriteria{Actions: []domains.Action{add2}, RewardBasis: []domains.Basis{db}}),
			false, false, "the expected write changes the database"},
		{task("communicate-needed", &domains.EvaluationCriteria{Actions: []domains.Action{get}, CommunicateInfo: []string{"count is 0"}, RewardBasis: []domains.Basis{db, com}}),
			false, false, "the agent must say something it has to look up"},
		{task("action-needed", &domains.EvaluationCriteria{Actions: []domains.Action{get}, RewardBasis: []domains.Basis{act}}),
			false, false, "ACTION with an expected call"},
		{task("nl-assertion", &domains.EvaluationCriteria{RewardBasis: []domains.Basis{domains.BasisNLAssertion}}),
			false, false, "NL_ASSERTION cannot be decided from data, even with no assertions"},
		{task("env-assertion", &domains.EvaluationCriteria{RewardBasis: []domains.Basis{domains.BasisEnvAssertion}}),
			true, true, "ENV_ASSERTION with no assertions: nothing to check, as in tau2"},
	}
}

func vacuityDomain(t *testing.T) (*domains.Domain, []vacuityCase) {
	cases := vacuityCases()
	tasks := make([]domains.Task, len(cases))
	for i, c := range cases {
		tasks[i] = c.task
	}
	return counterDomainWith(t, "vacuity", tasks), cases
}

func TestDoNothingPasses(t *testing.T) {
	d, cases := vacuityDomain(t)
	lenient := scoring.NewScorer(d, false)
	strict := scoring.NewScorer(d, true)
	for _, tc := range cases {
		t.Run(tc.task.ID, func(t *testing.T) {
			task, _ := d.Task(tc.task.ID)
			for _, c := range []struct {
				mode string
				fn   func() (bool, error)
				want bool
			}{
				{"DoNothingPasses", func() (bool, error) { return scoring.DoNothingPasses(d, task) }, tc.vacuous},
				{"Scorer", func() (bool, error) { return lenient.DoNothingPasses(task) }, tc.vacuous},
				{"Scorer again (cached)", func() (bool, error) { return lenient.DoNothingPasses(task) }, tc.vacuous},
				{"strict Scorer", func() (bool, error) { return strict.DoNothingPasses(task) }, tc.vacuousStrict},
			} {
				if got, err := c.fn(); err != nil || got != c.want {
					t.Errorf("%s = %v, %v; want %v (%s)", c.mode, got, err, c.want, tc.why)
				}
			}
		})
	}
}

// TestDoNothingAgentScoresTheBaseline runs an agent that does nothing (it
// only apologises) over the synthetic domain, in both modes, and checks the
// computation against what it really scores: reward 1 exactly on the tasks
// marked do_nothing_passes, and a summary whose baseline equals its score.
// The results must carry the baseline through the store and into reports.
func TestDoNothingAgentScoresTheBaseline(t *testing.T) {
	d, cases := vacuityDomain(t)
	client := dial(t, agenttest.Start(t, agenttest.Sorry).URL)
	for _, strict := range []bool{false, true} {
		t.Run(fmt.Sprintf("strict=%v", strict), func(t *testing.T) {
			db := openStore(t)
			r := &evaluation.Runner{
				Simulator:   rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}),
				Scorer:      scoring.NewScorer(d, strict),
				Agent:       a2aagent.New(client),
				Store:       db,
				Concurrency: 4,
			}
			eval := evaluation.NewEvaluation(store.NewID(), result.Config{Domain: d.Name, NumTrials: 2, Strict: strict}, result.AgentInfo{URL: "sorry"})
			if err := r.Run(context.Background(), eval, allTasks(d)); err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, c := range cases {
				if c.vacuous && (!strict || c.vacuousStrict) {
					want = append(want, c.task.ID)
				}
			}
			for _, sim := range eval.Simulations {
				vac := slices.Contains(want, sim.TaskID)
				if sim.RewardInfo.DoNothingPasses != vac {
					t.Errorf("%s: do_nothing_passes = %v, want %v", sim.ID, sim.RewardInfo.DoNothingPasses, vac)
				}
				if (sim.Reward == 1) != vac {
					t.Errorf("%s: the do-nothing agent earned %v, but do_nothing_passes = %v (%+v)", sim.ID, sim.Reward, vac, sim.RewardInfo)
				}
			}
			s := eval.Summary
			if !slices.Equal(s.VacuousTasks, want) {
				t.Errorf("vacuous_tasks = %v, want %v", s.VacuousTasks, want)
			}
			b := s.DoNothingBaseline
			if b == nil || b.PassHat1 != s.PassHatK["1"] || b.AvgReward != s.AvgReward ||
				math.Abs(b.PassHat1-float64(len(want))/float64(len(cases))) > 1e-6 {
				t.Errorf("baseline %+v; the do-nothing agent scored pass^1 %v, avg %v", b, s.PassHatK["1"], s.AvgReward)
			}

			loaded, err := evaluation.Load(context.Background(), db, eval.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(loaded.Summary.VacuousTasks, want) || *loaded.Summary.DoNothingBaseline != *b || loaded.Config.Strict != strict {
				t.Errorf("stored summary lost the baseline: %+v, strict %v", loaded.Summary, loaded.Config.Strict)
			}
			raw, err := json.Marshal(loaded)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []string{`"do_nothing_passes":true`, `"vacuous_tasks":["` + want[0] + `"`, `"do_nothing_baseline":{"avg_reward":`} {
				if !bytes.Contains(raw, []byte(w)) {
					t.Errorf("results JSON lacks %s", w)
				}
			}

			line := fmt.Sprintf("%.3f (%d of %d tasks pass without the agent doing anything)", b.PassHat1, len(want), len(cases))
			for _, format := range []report.Format{report.Table, report.Markdown} {
				var out bytes.Buffer
				if err := report.Write(&out, format, loaded); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(out.String(), "do-nothing baseline") || !strings.Contains(out.String(), line) ||
					!strings.Contains(out.String(), strings.Join(want, ", ")) {
					t.Errorf("%s report lacks the baseline %q:\n%s", format, line, out.String())
				}
				if strings.Contains(out.String(), "strict:") != strict {
					t.Errorf("%s report does not say strict=%v:\n%s", format, strict, out.String())
				}
			}
		})
	}
}

// TestMockResultsShowNoBaseline: on a domain without vacuous tasks the
// summary says so (an empty list, a zero baseline) and reports stay quiet.
func TestMockResultsShowNoBaseline(t *testing.T) {
	d, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	r := &evaluation.Runner{
		Simulator:   rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}),
		Scorer:      scoring.NewScorer(d, false),
		Agent:       a2aagent.New(dial(t, agenttest.Start(t, agenttest.Sorry).URL)),
		Concurrency: 4,
	}
	eval := evaluation.NewEvaluation("e", result.Config{Domain: d.Name, NumTrials: 1}, result.AgentInfo{URL: "sorry"})
	if err := r.Run(context.Background(), eval, allTasks(d)); err != nil {
		t.Fatal(err)
	}
	if s := eval.Summary; s.AvgReward != 0 || s.VacuousTasks == nil || len(s.VacuousTasks) != 0 || s.DoNothingBaseline == nil || *s.DoNothingBaseline != (result.Baseline{}) {
		t.Fatalf("a do-nothing agent on the mock domain: summary %+v", s)
	}
	raw, _ := json.Marshal(eval.Summary)
	if !bytes.Contains(raw, []byte(`"do_nothing_baseline":{"avg_reward":0,"pass_hat_1":0},"vacuous_tasks":[]`)) {
		t.Errorf("summary JSON = %s", raw)
	}
	var out bytes.Buffer
	if err := report.Write(&out, report.Table, eval); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "do-nothing") {
		t.Errorf("table mentions a baseline of no tasks:\n%s", out.String())
	}
}

// callThenReport is an agent that answers the user's first message with one
// tool call, then reports the count the tool returned.
func callThenReport(call string) agenttest.ReplyFunc {
	return func(_ context.Context, _, text string) string {
		if i := strings.Index(text, translation.AgentBeatsToolResultPrefix); i >= 0 {
			res := text[i:]
			if j := strings.Index(res, `"count":`); j >= 0 {
				n := strings.TrimRight(strings.TrimSpace(res[j+len(`"count":`):]), "}")
				return fmt.Sprintf(`{"name":"respond","arguments":{"content":"Done, the count is %s."}}`, n)
			}
		}
		if strings.Contains(text, "bump") {
			return call
		}
		return `{"name":"respond","arguments":{"content":"You're welcome."}}`
	}
}

// TestStrictRequiresExpectedActions: strict mode turns a DB+COMMUNICATE task
// with an expected action into one that requires the action. An agent that
// reaches the same database through another tool (increment instead of
// add 1) passes on the task's own basis and fails in strict mode.
func TestStrictRequiresExpectedActions(t *testing.T) {
	bump := domains.Task{
		ID:           "bump",
		UserScenario: domains.UserScenario{Script: []string{"Please bump the counter by one."}},
		EvaluationCriteria: &domains.EvaluationCriteria{
			Actions:         []domains.Action{{ActionID: "a1", Name: "add", Arguments: map[string]any{"n": 1.0}}},
			CommunicateInfo: []string{"count is 1"},
			RewardBasis:     []domains.Basis{domains.BasisDB, domains.BasisCommunicate},
		},
	}
	scored := bump
	scored.ID = "bump-scored"
	scored.EvaluationCriteria = &domains.EvaluationCriteria{
		Actions: bump.EvaluationCriteria.Actions, CommunicateInfo: bump.EvaluationCriteria.CommunicateInfo,
		RewardBasis: []domains.Basis{domains.BasisDB, domains.BasisAction, domains.BasisCommunicate},
	}
	chat := domains.Task{ID: "chat", UserScenario: bump.UserScenario,
		EvaluationCriteria: &domains.EvaluationCriteria{CommunicateInfo: []string{"count is 1"}, RewardBasis: []domains.Basis{domains.BasisCommunicate}}}
	d := counterDomainWith(t, "strict", []domains.Task{bump, scored, chat})

	increment := agenttest.Start(t, callThenReport(`{"name":"increment","arguments":{}}`)).URL
	addOne := agenttest.Start(t, callThenReport(`{"name":"add","arguments":{"n":1}}`)).URL
	db, act, com := domains.BasisDB, domains.BasisAction, domains.BasisCommunicate
	cases := []struct {
		name      string
		task      string
		agent     string
		strict    bool
		reward    float64
		bases     []domains.Basis
		added     []domains.Basis
		actionMet []bool
	}{
		{"other call, own basis", "bump", increment, false, 1, []domains.Basis{db, com}, nil, nil},
		{"other call, strict", "bump", increment, true, 0, []domains.Basis{db, com, act}, []domains.Basis{act}, []bool{false}},
		{"expected call, strict", "bump", addOne, true, 1, []domains.Basis{db, com, act}, []domains.Basis{act}, []bool{true}},
		{"ACTION already scored", "bump-scored", increment, true, 0, []domains.Basis{db, act, com}, nil, []bool{false}},
		{"no expected actions, strict", "chat", increment, true, 1, []domains.Basis{com}, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			task, _ := d.Task(tc.task)
			user, err := rollout.NewScriptedUser(task)
			if err != nil {
				t.Fatal(err)
			}
			sc := scoring.NewScorer(d, tc.strict)
			res, _ := evaluation.Simulate(context.Background(), rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}), sc,
				task, 0, a2aagent.New(dial(t, tc.agent)), user)
			ri := res.RewardInfo
			if res.Reward != tc.reward {
				t.Errorf("reward = %v, want %v (%s %s; %+v)", res.Reward, tc.reward, res.TerminationReason, res.Error, ri)
			}
			if !slices.Equal(ri.RewardBasis, tc.bases) || !slices.Equal(ri.AddedByStrict, tc.added) || !slices.Equal(sc.Bases(task), tc.bases) {
				t.Errorf("bases %v (added by strict %v, scorer says %v), want %v (%v)", ri.RewardBasis, ri.AddedByStrict, sc.Bases(task), tc.bases, tc.added)
			}
			var met []bool
			for _, c := range ri.ActionChecks {
				met = append(met, c.ActionMatch)
			}
			if !slices.Equal(met, tc.actionMet) {
				t.Errorf("action checks %+v, want matches %v", ri.ActionChecks, tc.actionMet)
			}
			if tc.task != "chat" && (ri.DBCheck == nil || !ri.DBCheck.DBMatch) {
				t.Errorf("the database should match either way: %+v", ri.DBCheck)
			}
			raw, _ := json.Marshal(ri)
			if bytes.Contains(raw, []byte(`"added_by_strict":["ACTION"]`)) != (len(tc.added) > 0) {
				t.Errorf("reward_info JSON = %s", raw)
			}
		})
	}
}

// TestRunnerRefusesMixedModes: an evaluation's Config.Strict must match its
// simulator's, so that strict and lenient rewards never mix in one result.
func TestRunnerRefusesMixedModes(t *testing.T) {
	d := counterDomain(t)
	for _, c := range []struct{ config, limits bool }{{false, true}, {true, false}} {
		r := &evaluation.Runner{Simulator: rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}),
			Scorer: scoring.NewScorer(d, c.limits),
			Agent:  a2aagent.New(dial(t, agenttest.Start(t, counterAgent).URL))}
		eval := evaluation.NewEvaluation("e", result.Config{Domain: d.Name, NumTrials: 1, Strict: c.config}, result.AgentInfo{})
		if err := r.Run(context.Background(), eval, allTasks(d)); err == nil || !strings.Contains(err.Error(), "strict") {
			t.Errorf("config strict=%v, limits strict=%v: err = %v", c.config, c.limits, err)
		}
	}
	// Nor do tau2's and exact action matching; an empty config is tau2's.
	for _, c := range []struct{ config, scorer result.ActionMatch }{
		{result.ActionMatchExact, result.ActionMatchTau2}, {"", result.ActionMatchExact}, {result.ActionMatchTau2, result.ActionMatchExact},
	} {
		r := &evaluation.Runner{Simulator: rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{}),
			Scorer: scoring.NewScorer(d, false).WithActionMatch(c.scorer),
			Agent:  a2aagent.New(dial(t, agenttest.Start(t, counterAgent).URL))}
		eval := evaluation.NewEvaluation("e", result.Config{Domain: d.Name, NumTrials: 1, ActionMatch: c.config}, result.AgentInfo{})
		if err := r.Run(context.Background(), eval, allTasks(d)); err == nil || !strings.Contains(err.Error(), "action_match") {
			t.Errorf("config %q, scorer %q: err = %v", c.config, c.scorer, err)
		}
	}
}
