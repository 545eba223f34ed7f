package result

import "github.com/proctor-eval/proctor/domains"

// RewardInfo explains a simulation's reward basis by basis.
type RewardInfo struct {
	Reward            float64                   `json:"reward"`
	RewardBasis       []domains.Basis           `json:"reward_basis"`
	RewardBreakdown   map[domains.Basis]float64 `json:"reward_breakdown,omitempty"`
	DBCheck           *DBCheck                  `json:"db_check,omitempty"`
	ActionChecks      []ActionCheck             `json:"action_checks,omitempty"`
	CommunicateChecks []CommunicateCheck        `json:"communicate_checks,omitempty"`
	NLAssertions      []NLAssertionCheck        `json:"nl_assertions,omitempty"`
	EnvAssertions     []EnvAssertionCheck       `json:"env_assertions,omitempty"`
	Note              string                    `json:"note,omitempty"`
	// AddedByStrict lists the bases of RewardBasis that are not the task's
	// own but were added by strict mode (Limits.Strict): ["ACTION"] or none.
	AddedByStrict []domains.Basis `json:"added_by_strict,omitempty"`
	// DoNothingPasses is true when the task is vacuous: an agent that does
	// nothing at all would earn reward 1 on it (see DoNothingPasses). It is
	// a fact about the task under the simulator's bases, set on every
	// simulation of such a task whatever its outcome; omitted when false.
	DoNothingPasses bool `json:"do_nothing_passes,omitempty"`
	// EnvUnchecked is true when the task's basis names DB or ENV_ASSERTION
	// but the task has no expected actions and no env assertions (both
	// null): as tau2-bench does, those bases then score 1 without looking
	// at the environment and are left out of RewardBreakdown, and DBCheck
	// says db_match without hashes. Omitted when false.
	EnvUnchecked bool `json:"env_unchecked,omitempty"`
	// PolicyViolations lists the agent's tool calls that its manifest of
	// permissions (allow_tools) did not allow, in transcript order: proctor
	// refused them (Message.Refused) and the environment never saw them.
	// They do not change the reward, which is tau2's; omitted when none.
	PolicyViolations []PolicyViolation `json:"policy_violations,omitempty"`
}

// PolicyViolation is one refused tool call: the tool, the call's id and
// the turn of the refusal (the tool message's Turn).
type PolicyViolation struct {
	Tool   string `json:"tool"`
	CallID string `json:"call_id"`
	Turn   int    `json:"turn"`
}

// PolicyViolations lists a transcript's refused tool calls (see
// RewardInfo.PolicyViolations); nil when there are none.
func PolicyViolations(messages []Message) []PolicyViolation {
	var out []PolicyViolation
	for _, m := range messages {
		if m.Role == RoleTool && m.Refused {
			out = append(out, PolicyViolation{Tool: m.Name, CallID: m.ToolCallID, Turn: m.Turn})
		}
	}
	return out
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
