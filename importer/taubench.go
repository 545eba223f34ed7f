package importer

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

// tauBenchRun is tau-bench's EnvRunResult.
type tauBenchRun struct {
	TaskID *int          `json:"task_id"`
	Reward float64       `json:"reward"`
	Info   tauBenchInfo  `json:"info"`
	Traj   []tauBenchMsg `json:"traj"`
	Trial  *int          `json:"trial"`
}

// tauBenchInfo is the info of a run: tau-bench's EnvInfo, or the error
// its runner caught.
type tauBenchInfo struct {
	RewardInfo *struct {
		Reward float64 `json:"reward"`
		Info   struct {
			RActions   *float64        `json:"r_actions"`
			GTDataHash string          `json:"gt_data_hash"`
			ROutputs   *float64        `json:"r_outputs"`
			Outputs    map[string]bool `json:"outputs"`
		} `json:"info"`
	} `json:"reward_info"`
	Error string `json:"error"`
}

// tauBenchMsg is a message of a trajectory, in OpenAI's chat layout.
type tauBenchMsg struct {
	Role      string  `json:"role"`
	Content   *string `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
	Name       string `json:"name"`
}

// ReadTauBench imports a tau-bench trajectory file. The file names neither
// its agent nor its domain: opts gives them, or they are found in
// opts.Source's name ("gpt-4o-airline.json": agent gpt-4o-airline, domain
// airline) and, for the domain, in the policy the trajectories start with.
//
// A run with reward_info ended as tau-bench ends a conversation
// (user_stop when the user's last message stops it, agent_stop otherwise);
// one without ended by its step limit (max_steps), or by the error its
// runner caught (agent_error). Its reward is the file's.
func ReadTauBench(data []byte, opts Options) (*result.Evaluation, error) {
	var runs []tauBenchRun
	if err := json.Unmarshal(data, &runs); err != nil {
		return nil, fmt.Errorf("read tau-bench trajectories: %w", err)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("the tau-bench trajectory file lists no runs: nothing to import")
	}
	eval := &result.Evaluation{Domain: opts.Domain, Agent: result.AgentInfo{Name: opts.Agent}}
	if eval.Agent.Name == "" {
		base := strings.TrimSuffix(filepath.Base(opts.Source), ".gz")
		eval.Agent.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	eval.Agent.URL = "tau-bench:" + eval.Agent.Name
	if eval.Domain == "" {
		eval.Domain = tauBenchDomain(opts.Source, runs)
	}
	if eval.Domain == "" {
		return nil, fmt.Errorf("cannot tell the domain of these tau-bench trajectories from the file name or the policy: give it (airline or retail)")
	}
	if err := addTauBenchRuns(eval, runs); err != nil {
		return nil, err
	}
	finish(eval, FormatTauBench, opts)
	return eval, nil
}

// addTauBenchRuns converts the runs, tasks in numeric order.
func addTauBenchRuns(eval *result.Evaluation, runs []tauBenchRun) error {
	seen := map[string]bool{}
	var tasks []int
	trials := 0
	for i := range runs {
		r := &runs[i]
		if r.TaskID == nil || r.Trial == nil {
			return fmt.Errorf("tau-bench run %d has no task_id or trial: is this a tau-bench trajectory file?", i)
		}
		sim := tauBenchSimulation(r)
		if seen[sim.ID] {
			return fmt.Errorf("tau-bench file has two runs of task %d trial %d: import one run at a time", *r.TaskID, *r.Trial)
		}
		seen[sim.ID] = true
		if !slices.Contains(tasks, *r.TaskID) {
			tasks = append(tasks, *r.TaskID)
		}
		trials = max(trials, *r.Trial+1)
		eval.Simulations = append(eval.Simulations, sim)
	}
	slices.Sort(tasks)
	for _, t := range tasks {
		eval.Config.TaskIDs = append(eval.Config.TaskIDs, strconv.Itoa(t))
	}
	eval.Config.NumTasks, eval.Config.NumTrials = len(tasks), trials
	return nil
}

// tauBenchDomain finds the domain in the file's name, else in the policy
// the first trajectory starts with; "" when neither says.
func tauBenchDomain(source string, runs []tauBenchRun) string {
	name := strings.ToLower(filepath.Base(source))
	for _, d := range []string{"airline", "retail"} {
		if strings.Contains(name, d) {
			return d
		}
	}
	for _, m := range runs[0].Traj {
		if m.Role == "system" && m.Content != nil {
			head := strings.ToLower(strings.SplitN(*m.Content, "\n", 2)[0])
			for _, d := range []string{"airline", "retail"} {
				if strings.Contains(head, d) {
					return d
				}
			}
		}
	}
	return ""
}

// tauBenchSimulation converts one run.
func tauBenchSimulation(r *tauBenchRun) result.Simulation {
	task := strconv.Itoa(*r.TaskID)
	sim := result.Simulation{ID: result.SimulationID(task, *r.Trial), TaskID: task, Trial: *r.Trial,
		Reward: r.Reward, Messages: tauBenchMessages(r.Traj)}
	sim.RewardInfo.Reward = r.Reward
	switch ri := r.Info.RewardInfo; {
	case r.Info.Error != "":
		sim.TerminationReason, sim.Error = result.TermAgentError, r.Info.Error
	case ri == nil:
		sim.TerminationReason = result.TermMaxSteps
		sim.RewardInfo.Note = "tau-bench recorded no reward_info: the run ended before the conversation did"
	default:
		sim.TerminationReason = tauBenchEnd(sim.Messages)
		sim.RewardInfo = tauBenchReward(r)
	}
	return sim
}

// tauBenchEnd is how a scored conversation ended: the user stops it with
// ###STOP###; otherwise the agent ended it (a transfer to a human).
func tauBenchEnd(msgs []result.Message) result.TerminationReason {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == result.RoleUser {
			if strings.Contains(msgs[i].Content, "###STOP###") {
				return result.TermUserStop
			}
			break
		}
	}
	return result.TermAgentStop
}

// tauBenchReward converts tau-bench's reward info: the database check
// (r_actions, against the gold hash) or, on tasks with outputs, the
// outputs the agent had to say (r_outputs), which tau-bench records
// instead of the database check.
func tauBenchReward(r *tauBenchRun) result.RewardInfo {
	ri := r.Info.RewardInfo
	out := result.RewardInfo{Reward: r.Reward, RewardBasis: []domains.Basis{domains.BasisDB}}
	if a := ri.Info.RActions; a != nil {
		out.DBCheck = &result.DBCheck{DBMatch: *a == 1, DBReward: *a, ExpectedHash: ri.Info.GTDataHash}
		out.RewardBreakdown = map[domains.Basis]float64{domains.BasisDB: *a}
	}
	if o := ri.Info.ROutputs; o != nil {
		out.RewardBasis = append(out.RewardBasis, domains.BasisCommunicate)
		out.RewardBreakdown = map[domains.Basis]float64{domains.BasisCommunicate: *o}
		keys := make([]string, 0, len(ri.Info.Outputs))
		for k := range ri.Info.Outputs {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out.CommunicateChecks = append(out.CommunicateChecks, result.CommunicateCheck{Info: k, Met: ri.Info.Outputs[k]})
		}
		out.Note = "tau-bench records the outputs check on tasks with outputs, not the database check: the reward has both"
	}
	return out
}

// tauBenchMessages converts a trajectory, leaving out the system prompt
// (the domain's policy). Tool call arguments that are not a JSON object
// are kept whole under "arguments".
func tauBenchMessages(traj []tauBenchMsg) []result.Message {
	out := make([]result.Message, 0, len(traj))
	for _, m := range traj {
		if m.Role == "system" {
			continue
		}
		msg := result.Message{Role: result.Role(m.Role), Turn: len(out), ToolCallID: m.ToolCallID}
		if m.Content != nil {
			msg.Content = *m.Content
		}
		if msg.Role == result.RoleTool {
			msg.Name = m.Name
		}
		for _, c := range m.ToolCalls {
			args := map[string]any{}
			if err := json.Unmarshal([]byte(c.Function.Arguments), &args); err != nil {
				args = map[string]any{"arguments": c.Function.Arguments}
			}
			msg.ToolCalls = append(msg.ToolCalls, domains.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: args})
		}
		out = append(out, msg)
	}
	return out
}
