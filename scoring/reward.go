package scoring

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

// Judge evaluates NL_ASSERTION criteria. An LLM judge implements it; without
// one, tasks that need it cannot earn reward and say so.
type Judge interface {
	Assess(ctx context.Context, task *domains.Task, messages []result.Message) ([]result.NLAssertionCheck, error)
}

// scoreInput is what reward computation needs from a finished conversation.
type scoreInput struct {
	task *domains.Task
	// bases are the reward bases scored (nil: the task's own); strictAdded
	// says which of them strict mode added.
	bases       []domains.Basis
	strictAdded []domains.Basis
	messages    []result.Message
	finalHash   string
	goldHash    string
	termination result.TerminationReason
	// env is the final environment, on which ENV_ASSERTION runs the task's
	// env assertions (after finalHash was taken: they may change it).
	env domains.Env
	// match is how ACTION matches expected actions with tool calls.
	match result.ActionMatch
}

// score computes the reward of a finished conversation. The reward is the
// product over the task's reward bases; a conversation that did not end with
// a stop earns nothing.
func score(ctx context.Context, in scoreInput, judge Judge) result.RewardInfo {
	bases := in.bases
	if bases == nil {
		bases = in.task.Bases()
	}
	envUnchecked := EnvUnchecked(in.task, bases)
	info := result.RewardInfo{RewardBasis: bases, RewardBreakdown: map[domains.Basis]float64{}, AddedByStrict: in.strictAdded,
		EnvUnchecked: envUnchecked}
	if !in.termination.Rewardable() {
		info.Note = fmt.Sprintf("conversation ended by %s: no reward", in.termination)
		return info
	}
	crit := in.task.EvaluationCriteria
	if crit == nil {
		crit = &domains.EvaluationCriteria{}
	}
	reward := 1.0
	var notes []string
	if envUnchecked {
		// tau2's environment evaluator returns at once: DB matches, no
		// env assertion runs, and neither basis enters the breakdown.
		info.DBCheck = &result.DBCheck{DBMatch: true, DBReward: 1}
		notes = append(notes, envUncheckedNote)
	}
	for _, basis := range bases {
		r := 0.0
		switch basis {
		case domains.BasisDB, domains.BasisEnvAssertion:
			if envUnchecked {
				continue // 1, and not in the breakdown, as in tau2
			}
			var note string
			r, note = scoreEnv(basis, crit, in, &info)
			if note != "" {
				notes = append(notes, note)
			}
		case domains.BasisAction:
			info.ActionChecks, r = checkActions(crit.Actions, in.messages, in.match)
		case domains.BasisCommunicate:
			info.CommunicateChecks, r = checkCommunicate(crit.CommunicateInfo, in.messages)
		case domains.BasisNLAssertion:
			var note string
			info.NLAssertions, r, note = judgeAssertions(ctx, judge, in)
			if note != "" {
				notes = append(notes, note)
			}
		default:
			notes = append(notes, string(basis)+" is not supported by this domain")
		}
		info.RewardBreakdown[basis] = r
		reward *= r
	}
	info.Reward = reward
	info.Note = strings.Join(notes, "; ")
	return info
}

// envUncheckedNote says why DB and ENV_ASSERTION scored 1 unchecked.
const envUncheckedNote = "no expected actions or env assertions: the environment is not checked (DB and ENV_ASSERTION score 1, as in tau2)"

// EnvUnchecked reports whether the environment of a task scored on bases
// goes unchecked: bases name DB or ENV_ASSERTION, and the task has neither
// expected actions nor env assertions (both nil, which tau2 reads as None;
// an empty list is checked). tau2-bench's environment evaluator then gives
// reward 1 at once, whatever the agent did to the database; proctor
// mirrors it and flags the task (reward_info.env_unchecked).
func EnvUnchecked(task *domains.Task, bases []domains.Basis) bool {
	if !slices.Contains(bases, domains.BasisDB) && !slices.Contains(bases, domains.BasisEnvAssertion) {
		return false
	}
	ec := task.EvaluationCriteria
	return ec == nil || (ec.Actions == nil && ec.EnvAssertions == nil)
}

// scoreEnv scores DB (the final database against the gold one) or
// ENV_ASSERTION (the env assertions on the final environment), filling
// info's checks; the note says why a basis could not be scored.
func scoreEnv(basis domains.Basis, crit *domains.EvaluationCriteria, in scoreInput, info *result.RewardInfo) (float64, string) {
	if basis == domains.BasisDB {
		match := in.finalHash != "" && in.finalHash == in.goldHash
		info.DBCheck = &result.DBCheck{DBMatch: match, ExpectedHash: in.goldHash, ActualHash: in.finalHash}
		if match {
			info.DBCheck.DBReward = 1
		}
		return info.DBCheck.DBReward, ""
	}
	if in.env == nil {
		return 0, "ENV_ASSERTION needs the final environment and there is none"
	}
	var r float64
	info.EnvAssertions, r = checkEnvAssertions(crit.EnvAssertions, in.env)
	return r, ""
}

// judgeAssertions asks the judge about the task's NL assertions: reward 1
// when every one is met; the note says why there is no verdict.
func judgeAssertions(ctx context.Context, judge Judge, in scoreInput) ([]result.NLAssertionCheck, float64, string) {
	if judge == nil {
		return nil, 0, "NL_ASSERTION needs an LLM judge and none is configured"
	}
	checks, err := judge.Assess(ctx, in.task, in.messages)
	if err != nil {
		return nil, 0, "NL_ASSERTION judge failed: " + err.Error()
	}
	for _, c := range checks {
		if !c.Met {
			return checks, 0, ""
		}
	}
	return checks, 1, ""
}

// checkEnvAssertions runs every env assertion, in order, on the final
// environment: the reward is 1 when each function returned its expected
// value (so 1 when there are none, as in tau2), else 0.
func checkEnvAssertions(assertions []domains.EnvAssertion, env domains.Env) ([]result.EnvAssertionCheck, float64) {
	checks := make([]result.EnvAssertionCheck, 0, len(assertions))
	reward := 1.0
	for _, a := range assertions {
		c := result.EnvAssertionCheck{EnvType: a.EnvType, FuncName: a.FuncName, Arguments: a.Arguments, Expected: a.Expected()}
		got, err := domains.CheckEnvAssertion(env, a)
		if err != nil {
			c.Error = err.Error()
		} else {
			c.Got = &got
			c.Met = got == c.Expected
		}
		if !c.Met {
			reward = 0
		}
		checks = append(checks, c)
	}
	return checks, reward
}

// checkActions matches every expected action against the conversation's
// tool calls, the way match says (see result.ActionMatch): reward 1 when
// each is matched by some call, else 0; 1 when nothing is expected.
func checkActions(expected []domains.Action, messages []result.Message, match result.ActionMatch) ([]result.ActionCheck, float64) {
	// Calls by side: the agent's, and the user simulator's own (a user
	// with tools, as in telecom); tau2 pools both, in transcript order.
	calls := map[result.Role][]domains.ToolCall{}
	var pooled []domains.ToolCall
	for _, m := range messages {
		if m.Role == result.RoleAssistant || m.Role == result.RoleUser {
			calls[m.Role] = append(calls[m.Role], m.ToolCalls...)
			pooled = append(pooled, m.ToolCalls...)
		}
	}
	checks := make([]result.ActionCheck, 0, len(expected))
	reward := 1.0
	for _, want := range expected {
		var matched bool
		if match.OrDefault() == result.ActionMatchExact {
			side := result.Role(cmp.Or(want.Requestor, string(result.RoleAssistant)))
			matched = slices.ContainsFunc(calls[side], func(c domains.ToolCall) bool { return exactActionMatches(want, c) })
		} else {
			matched = slices.ContainsFunc(pooled, func(c domains.ToolCall) bool { return tau2ActionMatches(want, c) })
		}
		c := result.ActionCheck{Action: want, ActionMatch: matched}
		if matched {
			c.ActionReward = 1
		} else {
			reward = 0
		}
		checks = append(checks, c)
	}
	return checks, reward
}

// tau2ActionMatches is tau2-bench's Action.compare_with_tool_call: the
// names are equal, and the arguments restricted to the compared names
// (compare_args, or when it is nil the names the call sent) are equal
// dicts; an empty list of names matches.
func tau2ActionMatches(want domains.Action, got domains.ToolCall) bool {
	if want.Name != got.Name {
		return false
	}
	keys := want.CompareArgs
	if keys == nil {
		keys = slices.Collect(maps.Keys(got.Arguments))
	}
	for _, k := range keys {
		w, wok := want.Arguments[k]
		g, gok := got.Arguments[k]
		if wok != gok || (wok && !pyEqual(w, g)) {
			return false
		}
	}
	return true
}

// exactActionMatches is proctor's stricter reading: every compared
// argument (compare_args, or all of the action's when it is nil) is in the
// call with an equal JSON value.
func exactActionMatches(want domains.Action, got domains.ToolCall) bool {
	if want.Name != got.Name {
		return false
	}
	keys := want.CompareArgs
	if keys == nil {
		keys = slices.Collect(maps.Keys(want.Arguments))
	}
	for _, k := range keys {
		w, wok := want.Arguments[k]
		g, gok := got.Arguments[k]
		if wok != gok || !jsonEqual(w, g) {
			return false
		}
	}
	return true
}

// jsonEqual compares two decoded JSON values the way they would compare as
// JSON: 3 and 3.0 are equal, key order is irrelevant.
func jsonEqual(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return false
	}
	var na, nb any
	if json.Unmarshal(ja, &na) != nil || json.Unmarshal(jb, &nb) != nil {
		return false
	}
	return reflect.DeepEqual(na, nb)
}

// checkCommunicate looks for each required string, case-insensitively, in
// the agent's messages to the user (its answers, not its interim messages) (commas removed, so "1,000" matches
// "1000"), as tau2-bench does.
func checkCommunicate(required []string, messages []result.Message) ([]result.CommunicateCheck, float64) {
	var said []string
	for _, m := range messages {
		if m.Role == result.RoleAssistant && m.Content != "" && !m.Interim {
			said = append(said, strings.ReplaceAll(strings.ToLower(m.Content), ",", ""))
		}
	}
	checks := make([]result.CommunicateCheck, 0, len(required))
	reward := 1.0
	for _, info := range required {
		needle := strings.ToLower(info)
		met := slices.ContainsFunc(said, func(s string) bool { return strings.Contains(s, needle) })
		if !met {
			reward = 0
		}
		checks = append(checks, result.CommunicateCheck{Info: info, Met: met})
	}
	return checks, reward
}
