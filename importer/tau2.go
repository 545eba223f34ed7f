package importer

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
)

// tau2File is tau2-bench's Results as read: simulations apart, since
// tau2's directory layout keeps them in files of their own.
type tau2File struct {
	Timestamp   *string           `json:"timestamp"`
	Info        report.Tau2Info   `json:"info"`
	Tasks       []report.Tau2Task `json:"tasks"`
	Simulations []json.RawMessage `json:"simulations"`
}

// tau2Sim is one of tau2's SimulationRun, whose trial may be null.
type tau2Sim struct {
	report.Tau2Simulation
	Trial *int `json:"trial"`
}

// ReadTau2 imports tau2-bench's results.json. simFiles are the simulation
// files of tau2's directory layout (results.json beside a simulations/
// directory), read in addition to the simulations the file lists; nil for
// a monolithic file.
func ReadTau2(data []byte, simFiles [][]byte, opts Options) (*result.Evaluation, error) {
	var f tau2File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("read tau2 results: %w", err)
	}
	raws := f.Simulations
	for _, b := range simFiles {
		raws = append(raws, b)
	}
	if len(raws) == 0 {
		return nil, fmt.Errorf("tau2 results have no simulations: nothing to import (a directory layout keeps them in simulations/*.json beside results.json)")
	}
	eval := newTau2Evaluation(&f, opts)
	trials := map[string]int{} // task -> trials seen, for null trial numbers
	seen := map[string]bool{}
	for i, raw := range raws {
		var s tau2Sim
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("tau2 simulation %d: %w", i, err)
		}
		if s.TaskID == "" {
			return nil, fmt.Errorf("tau2 simulation %d (%s) has no task_id", i, s.ID)
		}
		trial := trials[s.TaskID]
		if s.Trial != nil {
			trial = *s.Trial
		}
		trials[s.TaskID] = max(trials[s.TaskID], trial+1)
		sim := newSimulation(&s.Tau2Simulation, trial)
		if seen[sim.ID] {
			return nil, fmt.Errorf("tau2 results have two simulations of task %s trial %d: import one run at a time", s.TaskID, trial)
		}
		seen[sim.ID] = true
		eval.Simulations = append(eval.Simulations, sim)
	}
	addTaskIDs(eval)
	finish(eval, FormatTau2, opts)
	return eval, nil
}

// newTau2Evaluation is the evaluation tau2's info describes, without its
// simulations.
func newTau2Evaluation(f *tau2File, opts Options) *result.Evaluation {
	in := f.Info
	eval := &result.Evaluation{ID: "", Domain: proctorDomain(in.EnvironmentInfo.DomainName),
		Agent: result.AgentInfo{Name: in.AgentInfo.Implementation},
		Config: result.Config{NumTrials: in.NumTrials, MaxSteps: in.MaxSteps, MaxErrors: in.MaxErrors,
			User: in.UserInfo.Implementation, Seed: in.Seed}}
	if in.AgentInfo.LLM != nil {
		eval.Agent.Name = *in.AgentInfo.LLM
	}
	if in.UserInfo.LLM != nil {
		eval.Config.UserModel = *in.UserInfo.LLM
	}
	if opts.Agent != "" {
		eval.Agent.Name = opts.Agent
	}
	eval.Agent.URL = "tau2-bench:" + eval.Agent.Name
	if opts.Domain != "" {
		eval.Domain = opts.Domain
	}
	for _, t := range f.Tasks {
		eval.Config.TaskIDs = append(eval.Config.TaskIDs, t.ID)
	}
	if f.Timestamp != nil {
		eval.CreatedAt = parseTime(*f.Timestamp)
	}
	return eval
}

// proctorDomain is the proctor name of a tau2 domain (see
// report.Tau2DomainName).
func proctorDomain(tau2Name string) string {
	if tau2Name == "mock" {
		return "tau2-mock"
	}
	return tau2Name
}

// addTaskIDs adds to Config.TaskIDs the tasks simulated that it lacks, in
// the order simulated, and sets NumTasks.
func addTaskIDs(eval *result.Evaluation) {
	listed := map[string]bool{}
	for _, id := range eval.Config.TaskIDs {
		listed[id] = true
	}
	for _, s := range eval.Simulations {
		if !listed[s.TaskID] {
			listed[s.TaskID] = true
			eval.Config.TaskIDs = append(eval.Config.TaskIDs, s.TaskID)
		}
	}
	eval.Config.NumTasks = len(eval.Config.TaskIDs)
}

// newSimulation converts one of tau2's simulation runs; what proctor's
// export keeps in info comes back to its fields.
func newSimulation(s *report.Tau2Simulation, trial int) result.Simulation {
	sim := result.Simulation{ID: result.SimulationID(s.TaskID, trial), TaskID: s.TaskID, Trial: trial,
		Reward: s.RewardInfo.Reward, TerminationReason: result.TerminationReason(s.TerminationReason),
		RewardInfo: newRewardInfo(&s.RewardInfo), Messages: newMessages(s.Messages),
		StartedAt: parseTime(s.StartTime), DurationMS: s.Duration * 1000}
	info := s.Info
	if r, ok := info["proctor_termination_reason"].(string); ok {
		sim.TerminationReason = result.TerminationReason(r)
	}
	sim.Error, _ = info["error"].(string)
	sim.ContextID, _ = info["context_id"].(string)
	decodeInfo(info, "non_conformant", &sim.NonConformant)
	decodeInfo(info, "metrics", &sim.Metrics)
	if s.RewardInfo.RewardBasis == nil && s.RewardInfo.Reward == 0 && sim.RewardInfo.Note == "" {
		sim.RewardInfo.Note = "imported without reward_info: counted as reward 0"
	}
	return sim
}

// decodeInfo decodes info[key] into dst, leaving dst alone when it is
// absent or not of dst's shape.
func decodeInfo(info map[string]any, key string, dst any) {
	v, ok := info[key]
	if !ok {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	_ = json.Unmarshal(b, dst) // a foreign shape leaves dst as it was
}

// newRewardInfo converts tau2's reward info; what proctor's export keeps
// in its info comes back to its fields.
func newRewardInfo(ri *report.Tau2RewardInfo) result.RewardInfo {
	out := result.RewardInfo{Reward: ri.Reward, RewardBasis: ri.RewardBasis, RewardBreakdown: ri.RewardBreakdown}
	if ri.DBCheck != nil {
		out.DBCheck = &result.DBCheck{DBMatch: ri.DBCheck.DBMatch, DBReward: ri.DBCheck.DBReward}
		out.DBCheck.ExpectedHash, _ = ri.Info["db_expected_hash"].(string)
		out.DBCheck.ActualHash, _ = ri.Info["db_actual_hash"].(string)
	}
	out.ActionChecks = actionChecks(ri.ActionChecks)
	out.NLAssertions = nlAssertions(ri.NLAssertions)
	out.CommunicateChecks = communicateChecks(ri.CommunicateChecks)
	out.EnvAssertions = envAssertions(ri.EnvAssertions)
	out.Note, _ = ri.Info["note"].(string)
	out.DoNothingPasses, _ = ri.Info["do_nothing_passes"].(bool)
	out.EnvUnchecked, _ = ri.Info["env_unchecked"].(bool)
	decodeInfo(ri.Info, "added_by_strict", &out.AddedByStrict)
	decodeInfo(ri.Info, "policy_violations", &out.PolicyViolations)
	return out
}

func actionChecks(in []report.Tau2ActionCheck) []result.ActionCheck {
	if in == nil {
		return nil
	}
	out := make([]result.ActionCheck, len(in))
	for i, c := range in {
		out[i] = result.ActionCheck{Action: action(c.Action), ActionMatch: c.ActionMatch, ActionReward: c.ActionReward}
	}
	return out
}

func action(a report.Tau2Action) domains.Action {
	out := domains.Action{ActionID: a.ActionID, Requestor: a.Requestor, Name: a.Name, Arguments: a.Arguments, CompareArgs: a.CompareArgs}
	if a.Info != nil {
		out.Info = *a.Info
	}
	return out
}

func nlAssertions(in []report.Tau2NLAssertionCheck) []result.NLAssertionCheck {
	if in == nil {
		return nil
	}
	out := make([]result.NLAssertionCheck, len(in))
	for i, c := range in {
		out[i] = result.NLAssertionCheck{Assertion: c.NLAssertion, Met: c.Met, Reasoning: c.Justification}
	}
	return out
}

func communicateChecks(in []report.Tau2CommunicateCheck) []result.CommunicateCheck {
	if in == nil {
		return nil
	}
	out := make([]result.CommunicateCheck, len(in))
	for i, c := range in {
		out[i] = result.CommunicateCheck{Info: c.Info, Met: c.Met}
	}
	return out
}

func envAssertions(in []report.Tau2EnvAssertionCheck) []result.EnvAssertionCheck {
	if in == nil {
		return nil
	}
	out := make([]result.EnvAssertionCheck, len(in))
	for i, c := range in {
		a := c.EnvAssertion
		out[i] = result.EnvAssertionCheck{EnvType: a.EnvType, FuncName: a.FuncName, Arguments: a.Arguments, Expected: a.AssertValue, Met: c.Met}
	}
	return out
}

// newMessages converts tau2's messages. Its tool calls name their
// requestor ("assistant" or "user"), proctor's only the user's; a tool
// message gets the name of the call it answers.
func newMessages(in []report.Tau2Message) []result.Message {
	out := make([]result.Message, 0, len(in))
	names := map[string]string{} // call id -> tool name
	for i, m := range in {
		if m.Role == "system" {
			continue
		}
		msg := result.Message{Role: result.Role(m.Role), Turn: i, Error: m.Error}
		if m.TurnIdx != nil {
			msg.Turn = *m.TurnIdx
		}
		if m.Content != nil {
			msg.Content = *m.Content
		}
		if m.Role == string(result.RoleTool) {
			msg.ToolCallID, msg.Name, msg.Requestor = m.ID, names[m.ID], userOnly(m.Requestor)
		}
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Name
			msg.ToolCalls = append(msg.ToolCalls, domains.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Requestor: userOnly(c.Requestor)})
		}
		out = append(out, msg)
	}
	return out
}

// userOnly keeps a requestor of "user": proctor leaves the agent's empty.
func userOnly(requestor string) string {
	if requestor == string(result.RoleUser) {
		return requestor
	}
	return ""
}

// parseTime reads a tau2 timestamp as Python's isoformat writes it, with
// or without a zone and fractions; one without a zone is UTC, and one that
// is unreadable the zero time (the file's times are informative).
func parseTime(s string) time.Time {
	for _, layout := range []string{"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
