package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/proctor-eval/proctor/domains"
)

// RewardInfo explains a simulation's reward basis by basis.
type RewardInfo struct {
	Reward            float64             `json:"reward"`
	RewardBasis       []string            `json:"reward_basis"`
	RewardBreakdown   map[string]float64  `json:"reward_breakdown,omitempty"`
	DBCheck           *DBCheck            `json:"db_check,omitempty"`
	ActionChecks      []ActionCheck       `json:"action_checks,omitempty"`
	CommunicateChecks []CommunicateCheck  `json:"communicate_checks,omitempty"`
	NLAssertions      []NLAssertionCheck  `json:"nl_assertions,omitempty"`
	EnvAssertions     []EnvAssertionCheck `json:"env_assertions,omitempty"`
	Note              string              `json:"note,omitempty"`
	// AddedByStrict lists the bases of RewardBasis that are not the task's
	// own but were added by strict mode (Limits.Strict): ["ACTION"] or none.
	AddedByStrict []string `json:"added_by_strict,omitempty"`
	// DoNothingPasses is true when the task is vacuous: an agent that does
	// nothing at all would earn reward 1 on it (see DoNothingPasses). It is
	// a fact about the task under the simulator's bases, set on every
	// simulation of such a task whatever its outcome; omitted when false.
	DoNothingPasses bool `json:"do_nothing_passes,omitempty"`
}

// DBCheck compares the final database with the gold one.
type DBCheck struct {
	DBMatch      bool    `json:"db_match"`
	DBReward     float64 `json:"db_reward"`
	ExpectedHash string  `json:"expected_hash"`
	ActualHash   string  `json:"actual_hash"`
}

// ActionCheck says whether one expected action was performed.
type ActionCheck struct {
	Action       domains.Action `json:"action"`
	ActionMatch  bool           `json:"action_match"`
	ActionReward float64        `json:"action_reward"`
}

// CommunicateCheck says whether one required piece of information reached
// the user.
type CommunicateCheck struct {
	Info string `json:"info"`
	Met  bool   `json:"met"`
}

// NLAssertionCheck is a judge's verdict on one natural-language assertion.
type NLAssertionCheck struct {
	Assertion string `json:"nl_assertion"`
	Met       bool   `json:"met"`
	Reasoning string `json:"justification,omitempty"`
	// MetVotes of Samples judge samples found the assertion met (an LLM
	// judge's majority vote; ties fail).
	MetVotes int `json:"met_votes,omitempty"`
	Samples  int `json:"samples,omitempty"`
}

// EnvAssertionCheck is the outcome of one env assertion on the final
// environment: the function's result (Got, null when it failed) against the
// expected value.
type EnvAssertionCheck struct {
	EnvType   string         `json:"env_type,omitempty"`
	FuncName  string         `json:"func_name"`
	Arguments map[string]any `json:"arguments,omitempty"`
	Expected  bool           `json:"expected"`
	Got       *bool          `json:"got"`
	Met       bool           `json:"met"`
	Error     string         `json:"error,omitempty"`
}

// Judge evaluates NL_ASSERTION criteria. An LLM judge implements it; without
// one, tasks that need it cannot earn reward and say so.
type Judge interface {
	Assess(ctx context.Context, task *domains.Task, messages []Message) ([]NLAssertionCheck, error)
}

// scoreInput is what reward computation needs from a finished conversation.
type scoreInput struct {
	task *domains.Task
	// bases are the reward bases scored (nil: the task's own); strictAdded
	// says which of them strict mode added.
	bases       []string
	strictAdded []string
	messages    []Message
	finalHash   string
	goldHash    string
	termination string
	// env is the final environment, on which ENV_ASSERTION runs the task's
	// env assertions (after finalHash was taken: they may change it).
	env domains.Env
}

// score computes the reward of a finished conversation. The reward is the
// product over the task's reward bases; a conversation that did not end with
// a stop earns nothing.
func score(ctx context.Context, in scoreInput, judge Judge) RewardInfo {
	bases := in.bases
	if bases == nil {
		bases = in.task.Bases()
	}
	info := RewardInfo{RewardBasis: bases, RewardBreakdown: map[string]float64{}, AddedByStrict: in.strictAdded}
	if in.termination != TermUserStop && in.termination != TermAgentStop {
		info.Note = fmt.Sprintf("conversation ended by %s: no reward", in.termination)
		return info
	}
	crit := in.task.EvaluationCriteria
	if crit == nil {
		crit = &domains.EvaluationCriteria{}
	}
	reward := 1.0
	var notes []string
	for _, basis := range bases {
		r := 0.0
		switch basis {
		case domains.BasisDB:
			match := in.finalHash != "" && in.finalHash == in.goldHash
			info.DBCheck = &DBCheck{DBMatch: match, ExpectedHash: in.goldHash, ActualHash: in.finalHash}
			if match {
				r = 1
			}
			info.DBCheck.DBReward = r
		case domains.BasisAction:
			info.ActionChecks, r = checkActions(crit.Actions, in.messages)
		case domains.BasisCommunicate:
			info.CommunicateChecks, r = checkCommunicate(crit.CommunicateInfo, in.messages)
		case domains.BasisNLAssertion:
			if judge == nil {
				notes = append(notes, "NL_ASSERTION needs an LLM judge and none is configured")
				break
			}
			checks, err := judge.Assess(ctx, in.task, in.messages)
			if err != nil {
				notes = append(notes, "NL_ASSERTION judge failed: "+err.Error())
				break
			}
			info.NLAssertions, r = checks, 1
			for _, c := range checks {
				if !c.Met {
					r = 0
				}
			}
		case domains.BasisEnvAssertion:
			if in.env == nil {
				notes = append(notes, "ENV_ASSERTION needs the final environment and there is none")
				break
			}
			info.EnvAssertions, r = checkEnvAssertions(crit.EnvAssertions, in.env)
		default:
			notes = append(notes, basis+" is not supported by this domain")
		}
		info.RewardBreakdown[basis] = r
		reward *= r
	}
	info.Reward = reward
	info.Note = strings.Join(notes, "; ")
	return info
}

// checkEnvAssertions runs every env assertion, in order, on the final
// environment: the reward is 1 when each function returned its expected
// value (so 1 when there are none, as in tau2), else 0.
func checkEnvAssertions(assertions []domains.EnvAssertion, env domains.Env) ([]EnvAssertionCheck, float64) {
	checks := make([]EnvAssertionCheck, 0, len(assertions))
	reward := 1.0
	for _, a := range assertions {
		c := EnvAssertionCheck{EnvType: a.EnvType, FuncName: a.FuncName, Arguments: a.Arguments, Expected: a.Expected()}
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

// checkActions matches every expected action against the agent's tool calls:
// same name, and equal values for the compared arguments (all expected
// arguments when CompareArgs is nil, none when it is empty).
func checkActions(expected []domains.Action, messages []Message) ([]ActionCheck, float64) {
	// Calls by side: the agent's, and the user simulator's own (a user
	// with tools, as in telecom).
	calls := map[string][]domains.ToolCall{}
	for _, m := range messages {
		switch m.Role {
		case RoleAssistant:
			calls[RoleAssistant] = append(calls[RoleAssistant], m.ToolCalls...)
		case RoleUser:
			calls[RoleUser] = append(calls[RoleUser], m.ToolCalls...)
		}
	}
	checks := make([]ActionCheck, 0, len(expected))
	reward := 1.0
	for _, want := range expected {
		side := want.Requestor
		if side == "" {
			side = RoleAssistant
		}
		matched := slices.ContainsFunc(calls[side], func(c domains.ToolCall) bool { return actionMatches(want, c) })
		c := ActionCheck{Action: want, ActionMatch: matched}
		if matched {
			c.ActionReward = 1
		} else {
			reward = 0
		}
		checks = append(checks, c)
	}
	return checks, reward
}

func actionMatches(want domains.Action, got domains.ToolCall) bool {
	if want.Name != got.Name {
		return false
	}
	keys := want.CompareArgs
	if keys == nil {
		keys = make([]string, 0, len(want.Arguments))
		for k := range want.Arguments {
			keys = append(keys, k)
		}
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
// the agent's messages to the user (commas removed, so "1,000" matches
// "1000"), as tau2-bench does.
func checkCommunicate(required []string, messages []Message) ([]CommunicateCheck, float64) {
	var said []string
	for _, m := range messages {
		if m.Role == RoleAssistant && m.Content != "" {
			said = append(said, strings.ReplaceAll(strings.ToLower(m.Content), ",", ""))
		}
	}
	checks := make([]CommunicateCheck, 0, len(required))
	reward := 1.0
	for _, info := range required {
		needle := strings.ToLower(info)
		met := slices.ContainsFunc(said, func(s string) bool { return strings.Contains(s, needle) })
		if !met {
			reward = 0
		}
		checks = append(checks, CommunicateCheck{Info: info, Met: met})
	}
	return checks, reward
}
