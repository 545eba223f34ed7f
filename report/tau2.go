package report

// This file renders an evaluation in tau2-bench's results layout (the JSON
// of its pydantic Results model, src/tau2/data_model/simulation.py), so that
// tau2's viewer and leaderboard tooling read proctor's results.
//
// Field mapping (proctor -> tau2):
//
//	timestamp                         Evaluation.CreatedAt
//	info.git_commit                   the VCS revision proctor was built from ("" when unknown)
//	info.num_trials/max_steps/max_errors  Config.NumTrials/MaxSteps/MaxErrors
//	info.user_info                    {implementation: Config.User ("scripted"), llm: null}
//	info.agent_info                   {implementation: "a2a" (or "proctor_builtin"), llm: the agent card's name, or null}
//	                                  proctor cannot know the LLM behind an A2A agent: llm names the agent, not a model
//	info.environment_info             {domain_name: tau2's name of Evaluation.Domain (tau2-mock is "mock"), policy: the domain's policy ("" without the domain)}
//	info.seed                         null (proctor's scripted user has no seed)
//	tasks                             the domain's tasks that were run, in tau2's Task layout (see Tau2Task), whole:
//	                                  ticket, initial_state (data, actions as env_type/func_name, message history),
//	                                  env assertions; a strict run embeds the reward basis it scored (ACTION added);
//	                                  without the domain, a stub per task id (see tau2StubTask)
//	simulations[].id/task_id/trial    Simulation.ID/TaskID/Trial (trials count from 0, as in tau2)
//	simulations[].start_time          Simulation.StartedAt; end_time is StartedAt+DurationMS; duration is in seconds
//	simulations[].timestamp           end_time (tau2 stamps a run when it is built, at its end)
//	simulations[].termination_reason  Simulation.TerminationReason (see Tau2TerminationReason): the same name,
//	                                  but safety_violation and capability_missing (an ECP agent's refusals, which
//	                                  tau2 has no reason for) are agent_error, with proctor's reason in info;
//	                                  a run tau2 would have retried and left out of its metrics
//	                                  (scoring.Tau2Exclusion: user_error, agent_error after a failed call) is
//	                                  infrastructure_error, with proctor's reason in info and info.tau2_excluded
//	simulations[].agent_cost/user_cost  null: proctor does not know what a remote agent costs
//	simulations[].seed                null
//	simulations[].reward_info         RewardInfo: db_check {db_match, db_reward}; action_checks with tau2
//	                                  actions; nl_assertions; communicate_checks (justification ""); env_assertions
//	                                  {env_assertion, met, reward};
//	                                  reward_basis, reward_breakdown; info holds what tau2 has no field for
//	                                  (note, added_by_strict, do_nothing_passes, env_unchecked, db hashes,
//	                                  action_match "exact" when ACTION was matched proctor's way, not tau2's,
//	                                  policy_violations: the calls an ECP agent's allow_tools refused)
//	simulations[].messages            Messages: role, content (null when empty), tool_calls [{id, name, arguments,
//	                                  requestor}], turn_idx (Message.Turn, the message's index), timestamp null
//	                                  (proctor does not time messages); tool messages are {id, role, content,
//	                                  requestor, error, turn_idx, timestamp}, their requestor that of the call
//	simulations[].info                what tau2 has no field for: error, context_id, non_conformant, metrics,
//	                                  and proctor's termination reason when it has no tau2 counterpart of its name
//
// Not carried: the summary (tau2 recomputes its metrics from simulations),
// evaluation-level metrics and config beyond the info fields, the agent's
// URL and transport (agent_info has no place for them), and a tool message's
// tool name (tau2 pairs it with its call by id). An evaluation read without
// transcripts (SimulationRows only) renders no simulations.

import (
	"encoding/json"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
)

// tau2 termination reasons (tau2's TerminationReason enum) that proctor's
// own reasons map to when they have no counterpart of the same name.
const (
	tau2AgentError      = "agent_error"
	tau2UnexpectedError = "unexpected_error"
)

// Tau2TerminationReason maps a proctor termination reason to tau2's and
// says whether the mapping is exact (the same reason by the same name).
// An inexact one keeps proctor's reason in the exported simulation's info
// (proctor_termination_reason). An ECP agent's refusals that tau2 has no
// reason for, safety_violation and capability_missing, are the agent's way
// of ending the run: they map to tau2's agent_error (not agent_stop, which
// tau2 would grade). A reason proctor does not know (results stored by
// another version) maps to tau2's unexpected_error.
func Tau2TerminationReason(reason string) (string, bool) {
	switch result.TerminationReason(reason) {
	case result.TermUserStop, result.TermAgentStop, result.TermMaxSteps, result.TermTooManyErrors,
		result.TermTimeout, result.TermAgentError, result.TermUserError, result.TermInfrastructure,
		result.TermContextOverflow:
		return reason, true
	case result.TermSafetyViolation, result.TermCapabilityMissing:
		return tau2AgentError, false
	}
	return tau2UnexpectedError, false
}

// tau2Time is the layout of tau2's timestamps (Python's isoformat).
const tau2Time = "2006-01-02T15:04:05.000000-07:00"

// NewTau2Results converts an evaluation to tau2-bench's results layout.
// dom is the evaluated domain, for its policy and tasks; nil when it is not
// available, and the tasks are then stubs (see tau2StubTask).
func NewTau2Results(eval *result.Evaluation, dom *domains.Domain) *Tau2Results {
	r := &Tau2Results{
		Timestamp:   eval.CreatedAt.Format(tau2Time),
		Info:        newTau2Info(eval, dom),
		Tasks:       []Tau2Task{},
		Simulations: make([]Tau2Simulation, 0, len(eval.Simulations)),
	}
	scored := scoredBases(eval)
	for _, id := range tau2TaskIDs(eval) {
		t := newTau2TaskOrStub(id, dom)
		if b, ok := scored[id]; ok && t.EvaluationCriteria != nil {
			// A strict evaluation scored bases the task's own data does
			// not name: embed what was scored, so that tau2 re-grades the
			// same reward (reward_info.info.added_by_strict says which).
			t.EvaluationCriteria.RewardBasis = b
		}
		r.Tasks = append(r.Tasks, t)
	}
	for i := range eval.Simulations {
		r.Simulations = append(r.Simulations, newTau2Simulation(&eval.Simulations[i], eval.Config.ActionMatch))
	}
	return r
}

// newTau2Info describes the run: its limits, the user, the agent and the
// domain (its policy when dom is given).
func newTau2Info(eval *result.Evaluation, dom *domains.Domain) Tau2Info {
	info := Tau2Info{
		GitCommit: buildRevision(),
		NumTrials: eval.Config.NumTrials,
		MaxSteps:  eval.Config.MaxSteps,
		MaxErrors: eval.Config.MaxErrors,
		UserInfo:  Tau2ParticipantInfo{Implementation: eval.Config.User},
		AgentInfo: Tau2ParticipantInfo{Implementation: "a2a"},
		EnvironmentInfo: Tau2EnvironmentInfo{
			DomainName: Tau2DomainName(eval.Domain),
		},
	}
	if eval.Agent.Builtin {
		info.AgentInfo.Implementation = "proctor_builtin"
	}
	if name := strings.TrimSpace(eval.Agent.Name + " " + eval.Agent.Version); name != "" {
		info.AgentInfo.LLM = &name
	}
	if dom != nil {
		info.EnvironmentInfo.Policy = dom.Policy
	}
	if rc := eval.Config.RetrievalConfig; rc != "" {
		info.RetrievalConfig = &rc
	}
	return info
}

// scoredBases is the reward basis each task was scored on, where strict
// scoring added to it (the first simulation of the task that says so).
func scoredBases(eval *result.Evaluation) map[string][]domains.Basis {
	out := map[string][]domains.Basis{}
	for _, s := range eval.Simulations {
		if _, seen := out[s.TaskID]; !seen && len(s.RewardInfo.AddedByStrict) > 0 {
			out[s.TaskID] = s.RewardInfo.RewardBasis
		}
	}
	return out
}

// Tau2DomainName is the name tau2's registry knows a proctor domain by:
// tau2's mock domain is "tau2-mock" in proctor (whose own "mock" is another
// domain) and "mock" in tau2.
func Tau2DomainName(domain string) string {
	if domain == "tau2-mock" {
		return "mock"
	}
	return domain
}

// tau2TaskIDs lists the evaluation's tasks once each: in the order they
// were scored, then any others in the order simulated.
func tau2TaskIDs(eval *result.Evaluation) []string {
	var ids []string
	seen := map[string]bool{}
	addID := func(id string) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, t := range eval.Summary.Tasks {
		addID(t.TaskID)
	}
	for _, s := range eval.Simulations {
		addID(s.TaskID)
	}
	return ids
}

// newTau2TaskOrStub converts the task id of dom, or stands in for it when
// dom is nil or lacks it.
func newTau2TaskOrStub(id string, dom *domains.Domain) Tau2Task {
	var t *domains.Task
	if dom != nil {
		t, _ = dom.Task(id)
	}
	if t == nil {
		return tau2StubTask(id)
	}
	return NewTau2Task(t)
}

// tau2StubTask stands for a task proctor no longer has (its domain is not
// available where the results are rendered): tau2 requires a task with a
// user scenario for every simulation, so the stub has the id and says in
// its instructions that the task is missing.
func tau2StubTask(id string) Tau2Task {
	return Tau2Task{ID: id, UserScenario: Tau2UserScenario{Instructions: "(task definition not available to proctor when these results were exported)"}}
}

// NewTau2Task converts a task to tau2's layout. proctor's scripted user
// (UserScenario.Script), which tau2 has no field for, becomes the
// instructions when the task has none.
func NewTau2Task(t *domains.Task) Tau2Task {
	out := Tau2Task{ID: t.ID, UserScenario: Tau2UserScenario{Persona: strPtr(t.UserScenario.Persona), Instructions: t.UserScenario.Instructions}}
	if out.UserScenario.Instructions == nil {
		instr := ""
		if len(t.UserScenario.Script) > 0 {
			instr = "Scripted user; say in order:\n" + strings.Join(t.UserScenario.Script, "\n")
		}
		out.UserScenario.Instructions = instr
	}
	if d := t.Description; d != nil {
		out.Description = &Tau2Description{Purpose: strPtr(d.Purpose), Notes: strPtr(d.Notes)}
	}
	out.Ticket, out.Issues = t.Ticket, t.Issues
	out.InitialState = newTau2InitialState(t.InitialState)
	if c := t.EvaluationCriteria; c != nil {
		ec := &Tau2EvaluationCriteria{CommunicateInfo: c.CommunicateInfo, NLAssertions: c.NLAssertions, RewardBasis: t.Bases()}
		if c.Actions != nil {
			ec.Actions = make([]Tau2Action, len(c.Actions))
			for i, a := range c.Actions {
				ec.Actions[i] = newTau2Action(a)
			}
		}
		// null and [] differ for tau2: with null actions, null env
		// assertions leave the environment unchecked.
		if c.EnvAssertions != nil {
			ec.EnvAssertions = make([]Tau2EnvAssertion, len(c.EnvAssertions))
			for i, a := range c.EnvAssertions {
				ec.EnvAssertions[i] = newTau2EnvAssertion(a)
			}
		}
		out.EvaluationCriteria = ec
	}
	return out
}

// newTau2InitialState converts a task's initial state whole: its data,
// its initialization actions in tau2's form (env_type, func_name), and its
// message history as the task has it; nil when the task has none.
func newTau2InitialState(s *domains.InitialState) *Tau2InitialState {
	if s == nil || (s.InitializationData == nil && len(s.InitializationActions) == 0 && len(s.MessageHistory) == 0) {
		return nil
	}
	out := &Tau2InitialState{MessageHistory: s.MessageHistory}
	if d := s.InitializationData; d != nil {
		out.InitializationData = &Tau2InitializationData{AgentData: asWritten(d.AgentDataJSON, d.AgentData), UserData: asWritten(d.UserDataJSON, d.UserData)}
	}
	if len(s.InitializationActions) > 0 {
		out.InitializationActions = make([]Tau2EnvFunctionCall, len(s.InitializationActions))
		for i, a := range s.InitializationActions {
			out.InitializationActions[i] = Tau2EnvFunctionCall{EnvType: requestor(a.Side()), FuncName: a.Func(), Arguments: args(a.Arguments)}
		}
	}
	return out
}

// newTau2EnvAssertion converts an env assertion, its side and expected
// value defaulted as tau2 does.
func newTau2EnvAssertion(a domains.EnvAssertion) Tau2EnvAssertion {
	out := Tau2EnvAssertion{EnvType: requestor(a.EnvType), FuncName: a.FuncName, Arguments: args(a.Arguments), AssertValue: a.Expected()}
	if a.Message != "" {
		out.Message = &a.Message
	}
	return out
}

// newTau2Action converts an expected action, its requestor and arguments
// defaulted as tau2 requires.
func newTau2Action(a domains.Action) Tau2Action {
	return Tau2Action{ActionID: a.ActionID, Requestor: requestor(a.Requestor), Name: a.Name, Arguments: args(a.Arguments), Info: strPtr(a.Info), CompareArgs: a.CompareArgs}
}

// newTau2Simulation converts a simulation run: its times, termination,
// reward and messages; what tau2 has no field for goes to info.
func newTau2Simulation(s *result.Simulation, match result.ActionMatch) Tau2Simulation {
	start := s.StartedAt
	end := start.Add(time.Duration(s.DurationMS * float64(time.Millisecond)))
	reason, known := Tau2TerminationReason(string(s.TerminationReason))
	excluded := scoring.Tau2Exclusion(s)
	if excluded != "" && s.TerminationReason != result.TermInfrastructure {
		// tau2 would have retried this run and then recorded it so.
		reason, known = string(result.TermInfrastructure), false
	}
	out := Tau2Simulation{
		ID: s.ID, TaskID: s.TaskID, Trial: s.Trial,
		Timestamp: end.Format(tau2Time), StartTime: start.Format(tau2Time), EndTime: end.Format(tau2Time),
		Duration:          s.DurationMS / 1000,
		TerminationReason: reason,
		RewardInfo:        newTau2RewardInfo(s, match),
		Messages:          newTau2Messages(s.Messages),
		Info:              map[string]any{"metrics": s.Metrics},
	}
	if !known {
		out.Info["proctor_termination_reason"] = s.TerminationReason
	}
	if excluded != "" {
		out.Info["tau2_excluded"] = excluded
	}
	if s.Error != "" {
		out.Info["error"] = s.Error
	}
	if s.ContextID != "" {
		out.Info["context_id"] = s.ContextID
	}
	if len(s.NonConformant) > 0 {
		out.Info["non_conformant"] = s.NonConformant
	}
	return out
}

// newTau2RewardInfo converts a simulation's reward and its checks; what
// tau2 has no field for goes to info.
func newTau2RewardInfo(s *result.Simulation, match result.ActionMatch) Tau2RewardInfo {
	ri := s.RewardInfo
	out := Tau2RewardInfo{Reward: s.Reward, RewardBasis: ri.RewardBasis, RewardBreakdown: ri.RewardBreakdown}
	if out.RewardBasis == nil {
		out.RewardBasis = []domains.Basis{}
	}
	if ri.DBCheck != nil {
		out.DBCheck = &Tau2DBCheck{DBMatch: ri.DBCheck.DBMatch, DBReward: ri.DBCheck.DBReward}
	}
	out.ActionChecks = newTau2ActionChecks(ri.ActionChecks)
	out.NLAssertions = newTau2NLAssertions(ri.NLAssertions)
	out.CommunicateChecks = newTau2CommunicateChecks(ri.CommunicateChecks)
	out.EnvAssertions = newTau2EnvAssertionChecks(ri.EnvAssertions)
	out.Info = tau2RewardExtras(ri, match)
	return out
}

// newTau2ActionChecks converts action checks; nil stays nil.
func newTau2ActionChecks(checks []result.ActionCheck) []Tau2ActionCheck {
	if checks == nil {
		return nil
	}
	out := make([]Tau2ActionCheck, len(checks))
	for i, c := range checks {
		out[i] = Tau2ActionCheck{Action: newTau2Action(c.Action), ActionMatch: c.ActionMatch, ActionReward: c.ActionReward}
	}
	return out
}

// newTau2EnvAssertionChecks converts the env assertions' outcomes; nil
// stays nil.
func newTau2EnvAssertionChecks(checks []result.EnvAssertionCheck) []Tau2EnvAssertionCheck {
	if checks == nil {
		return nil
	}
	out := make([]Tau2EnvAssertionCheck, len(checks))
	for i, c := range checks {
		a := domains.EnvAssertion{EnvType: c.EnvType, FuncName: c.FuncName, Arguments: c.Arguments, AssertValue: &c.Expected}
		out[i] = Tau2EnvAssertionCheck{EnvAssertion: newTau2EnvAssertion(a), Met: c.Met}
		if c.Met {
			out[i].Reward = 1
		}
	}
	return out
}

// newTau2NLAssertions converts the judge's verdicts; nil stays nil.
func newTau2NLAssertions(checks []result.NLAssertionCheck) []Tau2NLAssertionCheck {
	if checks == nil {
		return nil
	}
	out := make([]Tau2NLAssertionCheck, len(checks))
	for i, c := range checks {
		out[i] = Tau2NLAssertionCheck{NLAssertion: c.Assertion, Met: c.Met, Justification: c.Reasoning}
	}
	return out
}

// newTau2CommunicateChecks converts communicate checks, which have no
// justification in proctor; nil stays nil.
func newTau2CommunicateChecks(checks []result.CommunicateCheck) []Tau2CommunicateCheck {
	if checks == nil {
		return nil
	}
	out := make([]Tau2CommunicateCheck, len(checks))
	for i, c := range checks {
		out[i] = Tau2CommunicateCheck{Info: c.Info, Met: c.Met}
	}
	return out
}

// tau2RewardExtras holds what tau2's RewardInfo has no field for: the
// database hashes, the note, the bases strict scoring added, whether the
// task passes without the agent, whether its environment went unchecked,
// and exact action matching (which tau2 does not do: its re-grade matches
// its own way); nil when there is none.
func tau2RewardExtras(ri result.RewardInfo, match result.ActionMatch) map[string]any {
	info := map[string]any{}
	if ri.DBCheck != nil && (ri.DBCheck.ExpectedHash != "" || ri.DBCheck.ActualHash != "") {
		info["db_expected_hash"] = ri.DBCheck.ExpectedHash
		info["db_actual_hash"] = ri.DBCheck.ActualHash
	}
	if ri.Note != "" {
		info["note"] = ri.Note
	}
	if len(ri.AddedByStrict) > 0 {
		info["added_by_strict"] = ri.AddedByStrict
	}
	if ri.DoNothingPasses {
		info["do_nothing_passes"] = true
	}
	if ri.EnvUnchecked {
		info["env_unchecked"] = true
	}
	if match == result.ActionMatchExact && len(ri.ActionChecks) > 0 {
		info["action_match"] = string(match)
	}
	if len(ri.PolicyViolations) > 0 {
		info["policy_violations"] = ri.PolicyViolations
	}
	if len(info) == 0 {
		return nil
	}
	return info
}

// newTau2Messages converts a transcript, leaving out the agent's interim
// messages. A tool message's requestor is
// that of the call it answers (the assistant when the call is unknown).
func newTau2Messages(msgs []result.Message) []Tau2Message {
	out := make([]Tau2Message, 0, len(msgs))
	requestors := map[string]string{} // tool call id -> who made the call
	for _, m := range msgs {
		if m.Interim {
			continue // not a message of tau2's: the answer follows
		}
		turn := m.Turn
		tm := Tau2Message{Role: string(m.Role), TurnIdx: &turn}
		if m.Role == result.RoleTool {
			content := m.Content
			tm.Content = &content
			tm.ID = m.ToolCallID
			tm.Error = m.Error
			tm.Requestor = requestors[m.ToolCallID]
			if tm.Requestor == "" {
				tm.Requestor = string(result.RoleAssistant)
			}
		} else {
			tm.Content = strPtr(m.Content)
			for _, c := range m.ToolCalls {
				who := c.Requestor
				if who == "" {
					who = string(m.Role) // a call is made by the message's sender
				}
				requestors[c.ID] = who
				tm.ToolCalls = append(tm.ToolCalls, Tau2ToolCall{ID: c.ID, Name: c.Name, Arguments: args(c.Arguments), Requestor: who})
			}
		}
		out = append(out, tm)
	}
	return out
}

// requestor defaults an action's requestor as tau2 does.
func requestor(r string) string {
	if r == "" {
		return string(result.RoleAssistant)
	}
	return r
}

// args makes nil arguments an empty object: tau2 requires a dict.
func args(a map[string]any) map[string]any {
	if a == nil {
		return map[string]any{}
	}
	return a
}

// strPtr is nil for "" (tau2's null) and &s otherwise.
func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// buildRevision is the VCS revision proctor was built from, or "".
func buildRevision() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return ""
}

// WriteTau2 renders eval as tau2-bench's results.json; dom is the evaluated
// domain, or nil (see NewTau2Results).
func WriteTau2(w io.Writer, eval *result.Evaluation, dom *domains.Domain) error {
	return writeJSON(w, NewTau2Results(eval, dom))
}

// asWritten is one side of a task's initialization data for the export:
// its JSON as the task wrote it when there is one (its key order), else
// the map (null when nil, as tau2 writes a side it lacks).
func asWritten(raw json.RawMessage, m map[string]any) any {
	if len(raw) > 0 {
		return raw
	}
	if m == nil {
		return nil
	}
	return m
}
