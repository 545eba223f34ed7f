package evaluation_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/airline"
	tau2mock "github.com/proctor-eval/proctor/domains/tau2/mock"
	"github.com/proctor-eval/proctor/domains/tau2/retail"
	"github.com/proctor-eval/proctor/domains/tau2/telecom"
	"github.com/proctor-eval/proctor/internal/tau2model"
	"github.com/proctor-eval/proctor/internal/tau2test"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
)

// tau2Domains are tau2-bench's four domains as proctor loads them (base
// split).
var tau2Domains = []struct {
	name string
	load func(dir, split string) (*domains.Domain, error)
}{
	{"mock", tau2mock.New},
	{"airline", airline.New},
	{"retail", retail.New},
	{"telecom", telecom.New},
}

// player plays an agent on a task: the transcript it leaves and the
// environment it ends with.
type player func(t *testing.T, d *domains.Domain, task *domains.Task) ([]result.Message, domains.Env)

// players are the agents the tests play: the oracle makes every expected
// call (each on its own side) and says every required string; the refuser
// does nothing; the wrong-argument agents make every expected call with
// one argument left out or one too many. tau2 matches the first kind of
// call with its expected action and not the second; proctor's exact
// reading does the opposite.
var players = []struct {
	name string
	play player
}{
	{"oracle", goldPlayer(func(args map[string]any) map[string]any { return args })},
	{"refusing", refuser},
	{"missing argument", goldPlayer(leaveOutLast)},
	{"extra argument", goldPlayer(addExtra)},
}

// leaveOutLast leaves out a call's last argument (by name), if it has any.
func leaveOutLast(args map[string]any) map[string]any {
	out := maps.Clone(args)
	if keys := slices.Sorted(maps.Keys(out)); len(keys) > 0 {
		delete(out, keys[len(keys)-1])
	}
	return out
}

// addExtra gives a call an argument its tool does not have.
func addExtra(args map[string]any) map[string]any {
	out := maps.Clone(args)
	if out == nil {
		out = map[string]any{}
	}
	out["proctor_extra"] = "wrong"
	return out
}

// conversation wraps tool traffic in what every conversation has: the
// greeting, the user's request, the agent's last words and the user's
// stop.
func conversation(middle []result.Message, last string) []result.Message {
	msgs := []result.Message{
		{Role: result.RoleAssistant, Content: rollout.AgentGreeting},
		{Role: result.RoleUser, Content: "I need help."},
	}
	msgs = append(msgs, middle...)
	msgs = append(msgs, result.Message{Role: result.RoleAssistant, Content: last}, result.Message{Role: result.RoleUser, Content: rollout.StopToken})
	for i := range msgs {
		msgs[i].Turn = i
	}
	return msgs
}

func newEnv(t *testing.T, d *domains.Domain, task *domains.Task) domains.Env {
	t.Helper()
	env, err := d.NewEnv(task)
	if err != nil {
		t.Fatalf("task %s: %v", task.ID, err)
	}
	return env
}

func refuser(t *testing.T, d *domains.Domain, task *domains.Task) ([]result.Message, domains.Env) {
	return conversation(nil, scoring.DoNothingReply), newEnv(t, d, task)
}

// goldPlayer makes the task's expected calls in order, each by its side,
// with arguments as spoil makes them, then says every required string.
func goldPlayer(spoil func(args map[string]any) map[string]any) player {
	return func(t *testing.T, d *domains.Domain, task *domains.Task) ([]result.Message, domains.Env) {
		env := newEnv(t, d, task)
		var middle []result.Message
		var say []string
		if ec := task.EvaluationCriteria; ec != nil {
			for i, a := range ec.Actions {
				side := cmp.Or(a.Requestor, domains.RequestorAssistant)
				call := domains.ToolCall{ID: fmt.Sprintf("call-%d", i), Name: a.Name, Arguments: spoil(a.Arguments), Requestor: side}
				res := env.Call(call)
				middle = append(middle,
					result.Message{Role: result.Role(side), ToolCalls: []domains.ToolCall{call}},
					result.Message{Role: result.RoleTool, Content: res.Content, ToolCallID: call.ID, Name: call.Name, Error: res.Error, Requestor: side})
			}
			say = ec.CommunicateInfo
		}
		return conversation(middle, "Done. "+strings.Join(say, "; ")), env
	}
}

// originalRun plays every task of d with play and scores it as a run would:
// the evaluation proctor would store.
func originalRun(t *testing.T, d *domains.Domain, play player, sc *scoring.Scorer) *result.Evaluation {
	t.Helper()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	eval := &result.Evaluation{ID: "regrade", Status: result.StatusCompleted, Domain: d.Name, CreatedAt: start,
		Config: result.Config{Domain: d.Name, User: "scripted", NumTrials: 1, MaxSteps: 100, MaxErrors: 10,
			Strict: sc.Strict(), ActionMatch: sc.ActionMatch()}}
	order := make([]string, len(d.Tasks))
	for i := range d.Tasks {
		task := &d.Tasks[i]
		order[i] = task.ID
		msgs, env := play(t, d, task)
		hash, err := env.Hash()
		if err != nil {
			t.Fatal(err)
		}
		sim := result.Simulation{ID: result.SimulationID(task.ID, 0), TaskID: task.ID, StartedAt: start,
			TerminationReason: result.TermUserStop, Messages: msgs, FinalHash: hash}
		sc.Score(context.Background(), task, &sim, env)
		if sim.TerminationReason != result.TermUserStop {
			t.Fatalf("%s: %s: %s", sim.ID, sim.TerminationReason, sim.Error)
		}
		eval.Simulations = append(eval.Simulations, sim)
	}
	eval.Summary = scoring.Summarize(eval.Simulations, order)
	return eval
}

// exportTau2 writes eval as proctor's tau2 export and reads it back with
// the mirror of tau2's models.
func exportTau2(t *testing.T, eval *result.Evaluation, d *domains.Domain) *tau2model.Results {
	t.Helper()
	var buf bytes.Buffer
	if err := report.WriteTau2(&buf, eval, d); err != nil {
		t.Fatal(err)
	}
	r, err := tau2model.Decode(buf.Bytes())
	if err != nil {
		t.Fatalf("tau2 would not load proctor's export: %v", err)
	}
	return r
}

// embeddedTasks reads the tasks a results file embeds, as proctor reads
// tau2's tasks.json.
func embeddedTasks(t *testing.T, r *tau2model.Results) map[string]*domains.Task {
	t.Helper()
	raw, err := json.Marshal(r.Tasks)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := domains.ParseTasks(raw)
	if err != nil {
		t.Fatalf("embedded tasks: %v", err)
	}
	out := make(map[string]*domains.Task, len(tasks))
	for i := range tasks {
		out[tasks[i].ID] = &tasks[i]
	}
	return out
}

// fromTau2 is a simulation of a results file as proctor records one: its
// transcript and how it ended, nothing of its scores.
func fromTau2(t *testing.T, s tau2model.SimulationRun) result.Simulation {
	sim := result.Simulation{ID: s.ID, TaskID: s.TaskID, TerminationReason: result.TerminationReason(s.TerminationReason)}
	for _, m := range s.Messages {
		var rm result.Message
		switch {
		case m.Participant != nil:
			p := m.Participant
			rm = result.Message{Role: result.Role(p.Role), Content: deref(p.Content)}
			for _, c := range p.ToolCalls {
				rm.ToolCalls = append(rm.ToolCalls, domains.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments,
					Requestor: string(cmp.Or(c.Requestor, tau2model.Requestor(p.Role)))})
			}
		case m.Tool != nil:
			rm = result.Message{Role: result.RoleTool, Content: deref(m.Tool.Content), ToolCallID: m.Tool.ID, Error: m.Tool.Error,
				Requestor: string(m.Tool.Requestor)}
		default:
			t.Fatalf("%s: a message proctor does not write: %+v", s.ID, m)
		}
		sim.Messages = append(sim.Messages, rm)
	}
	return sim
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// regrade scores every simulation of a results file again, as tau2's
// evaluate-trajs does: from the file's transcripts and embedded tasks, with
// tau2's reading of them: sc is a lenient scorer (the embedded basis says
// what was scored) whose domain gives only the tool code and databases.
func regrade(t *testing.T, r *tau2model.Results, sc *scoring.Scorer) map[string]result.RewardInfo {
	t.Helper()
	tasks := embeddedTasks(t, r)
	out := map[string]result.RewardInfo{}
	for _, s := range r.Simulations {
		task := tasks[s.TaskID]
		if task == nil {
			t.Fatalf("%s: task %s is not embedded", s.ID, s.TaskID)
		}
		sim := fromTau2(t, s)
		sc.Score(context.Background(), task, &sim, nil)
		if sim.Error != "" {
			t.Fatalf("%s: %s", sim.ID, sim.Error)
		}
		out[sim.ID] = sim.RewardInfo
	}
	return out
}

// TestTau2ExportRegrades: on tau2's four domains, for an oracle, a
// refusing and a wrong-argument agent, scored leniently and strictly,
// proctor's tau2 export loads into a faithful mirror of tau2's models, and
// scoring its transcripts again from its embedded tasks alone gives every
// simulation the reward and breakdown of the original run, as tau2's own
// re-grade must.
func TestTau2ExportRegrades(t *testing.T) {
	for _, dom := range tau2Domains {
		t.Run(dom.name, func(t *testing.T) {
			d, err := dom.load(tau2test.Dir(t, dom.name), "base")
			if err != nil {
				t.Fatal(err)
			}
			if raceEnabled && len(d.Tasks) > raceTasks {
				d.Tasks = d.Tasks[:raceTasks]
			}
			for _, strict := range []bool{false, true} {
				// One scorer for the runs and one for the re-grades, so
				// that gold hashes are computed once (the re-grader's
				// tasks are the embedded ones: its own).
				run, again := scoring.NewScorer(d, strict), scoring.NewScorer(d, false)
				for _, p := range players {
					t.Run(fmt.Sprintf("%s/strict=%v", p.name, strict), func(t *testing.T) {
						regradeMatches(t, d, p.play, run, again)
					})
				}
			}
		})
	}
}

func regradeMatches(t *testing.T, d *domains.Domain, play player, run, regrader *scoring.Scorer) {
	eval := originalRun(t, d, play, run)
	r := exportTau2(t, eval, d)
	again := regrade(t, r, regrader)
	passed := 0
	for i, s := range eval.Simulations {
		ri := again[s.ID]
		if ri.Reward != s.Reward || r.Simulations[i].RewardInfo.Reward != s.Reward {
			t.Errorf("%s: re-graded reward %v, exported %v, original %v", s.ID, ri.Reward, r.Simulations[i].RewardInfo.Reward, s.Reward)
		}
		if diff := gocmp.Diff(s.RewardInfo.RewardBreakdown, ri.RewardBreakdown); diff != "" {
			t.Errorf("%s: breakdown (-original +re-graded):\n%s", s.ID, diff)
		}
		if result.Passed(s.Reward) {
			passed++
		}
	}
	t.Logf("%d of %d passed; re-graded alike", passed, len(eval.Simulations))
}

// raceTasks is how many tasks of a domain the tests over tau2's data play
// under the race detector, which slows hashing about tenfold.
const raceTasks = 10

// TestActionMatchFlips measures what --action-match changes under
// --strict: the rewards that differ between tau2's reading and the exact
// one, per agent, on tau2's domains. The oracle's and the refusing agent's
// never do; the wrong-argument agents' do on tasks where the database
// still matches: on airline's 50 base tasks, 16 rewards for each kind of
// wrong call, one way for one kind and the other way for the other.
func TestActionMatchFlips(t *testing.T) {
	// Airline's flips per agent: all 50 tasks, or the first raceTasks.
	airlineFlips := map[string][2]int{"missing argument": {16, 7}, "extra argument": {16, 7}}
	for _, dom := range tau2Domains {
		t.Run(dom.name, func(t *testing.T) {
			d, err := dom.load(tau2test.Dir(t, dom.name), "base")
			if err != nil {
				t.Fatal(err)
			}
			if raceEnabled && len(d.Tasks) > raceTasks {
				d.Tasks = d.Tasks[:raceTasks]
			}
			tau2, exact := scoring.NewScorer(d, true), scoring.NewScorer(d, true).WithActionMatch(result.ActionMatchExact)
			for _, p := range players {
				flips, passTau2, passExact := actionMatchFlips(originalRun(t, d, p.play, tau2), originalRun(t, d, p.play, exact))
				t.Logf("%s, strict: %d of %d rewards differ (passed: tau2 %d, exact %d) %v", p.name, len(flips), len(d.Tasks), passTau2, passExact, flips)
				want := 0
				if n, ok := airlineFlips[p.name]; ok && dom.name == "airline" {
					want = n[0]
					if raceEnabled {
						want = n[1]
					}
				}
				pinned := dom.name == "airline" || p.name == "oracle" || p.name == "refusing"
				if pinned && len(flips) != want {
					t.Errorf("%s: %d rewards differ between the readings, want %d: %v", p.name, len(flips), want, flips)
				}
			}
		})
	}
}

// actionMatchFlips compares two scorings of the same conversations: the
// tasks whose rewards differ, and how many each passed.
func actionMatchFlips(a, b *result.Evaluation) (flips []string, passA, passB int) {
	for i, s := range a.Simulations {
		if s.Reward != b.Simulations[i].Reward {
			flips = append(flips, s.TaskID)
		}
		if result.Passed(s.Reward) {
			passA++
		}
		if result.Passed(b.Simulations[i].Reward) {
			passB++
		}
	}
	return flips, passA, passB
}

// TestEnvUncheckedTask: tau2-mock's create_task_1_nl_eval has no expected
// actions and no env assertions, so tau2 gives DB 1 without looking: an
// agent that creates the task the user asks for (and so changes the
// database) passes, the task is flagged beside the score, and tau2's
// re-grade of the export agrees.
func TestEnvUncheckedTask(t *testing.T) {
	d, err := tau2mock.New(tau2test.Dir(t, "mock"), "")
	if err != nil {
		t.Fatal(err)
	}
	task, ok := d.Task("create_task_1_nl_eval")
	if !ok {
		t.Fatal("no task create_task_1_nl_eval")
	}
	d.Tasks = []domains.Task{*task}
	creator := func(t *testing.T, d *domains.Domain, task *domains.Task) ([]result.Message, domains.Env) {
		env := newEnv(t, d, task)
		call := domains.ToolCall{ID: "c1", Name: "create_task", Arguments: map[string]any{"user_id": "user_1", "title": "Important Meeting"}, Requestor: "assistant"}
		res := env.Call(call)
		if res.Error {
			t.Fatalf("create_task: %s", res.Content)
		}
		return conversation([]result.Message{
			{Role: result.RoleAssistant, ToolCalls: []domains.ToolCall{call}},
			{Role: result.RoleTool, Content: res.Content, ToolCallID: "c1", Name: call.Name},
		}, "Created. You are doing great!"), env
	}
	eval := originalRun(t, d, creator, scoring.NewScorer(d, false))
	s := eval.Simulations[0]
	fresh, _ := d.FreshHash(&d.Tasks[0])
	if s.FinalHash == fresh {
		t.Fatal("the agent did not change the database")
	}
	if s.Reward != 1 || !s.RewardInfo.EnvUnchecked || gocmp.Diff(map[domains.Basis]float64{domains.BasisCommunicate: 1}, s.RewardInfo.RewardBreakdown) != "" {
		t.Errorf("reward %v, env_unchecked %v, breakdown %v; want 1, true, COMMUNICATE only (as tau2)", s.Reward, s.RewardInfo.EnvUnchecked, s.RewardInfo.RewardBreakdown)
	}
	if !slices.Equal(eval.Summary.EnvUncheckedTasks, []string{task.ID}) {
		t.Errorf("summary env_unchecked_tasks = %v", eval.Summary.EnvUncheckedTasks)
	}
	var table bytes.Buffer
	if err := report.Write(&table, report.Table, eval); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "env unchecked") || !strings.Contains(table.String(), task.ID) {
		t.Errorf("the table does not flag the task:\n%s", table.String())
	}
	again := regrade(t, exportTau2(t, eval, d), scoring.NewScorer(d, false))
	if ri := again[s.ID]; ri.Reward != 1 || !ri.EnvUnchecked {
		t.Errorf("re-graded: %+v", ri)
	}
}
