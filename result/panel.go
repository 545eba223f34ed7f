package result

// JudgePanel is how several judges grade the natural-language assertions
// of one stored evaluation's conversations: the same transcripts, each
// judge's verdicts, how far the judges agree, and how much of the outcome's
// variance is theirs rather than the agent's. Nothing is played again.
type JudgePanel struct {
	// Evaluation is the id of the evaluation whose conversations were
	// graded; Domain its domain.
	Evaluation string `json:"evaluation"`
	Domain     string `json:"domain"`
	// Judges are the judges' model specs, in the order of every per-judge
	// list below; Samples the verdicts each judge gave per conversation
	// (decided by majority, as a single judge's are).
	Judges  []string `json:"judges"`
	Samples int      `json:"samples"`
	// Simulations are the conversations graded: those whose task has NL
	// assertions and whose run ended in a way that is scored.
	Simulations []PanelSimulation `json:"simulations"`
	// NotGraded counts the evaluation's other simulations.
	NotGraded int `json:"not_graded"`
	// Assertions counts the (simulation, assertion) pairs graded, Unanimous
	// those on which every judge agreed, and Agreement is the mean share
	// of judge pairs that agree on a pair (Fleiss' P-bar).
	Assertions int     `json:"assertions"`
	Unanimous  int     `json:"unanimous"`
	Agreement  float64 `json:"agreement"`
	// FleissKappa is the judges' agreement beyond chance; nil when it is
	// undefined (every verdict the same, or nothing graded).
	FleissKappa *float64 `json:"fleiss_kappa"`
	// AgentVarianceShare and JudgeVarianceShare split the variance of the
	// simulations' outcomes (PanelSimulation.Outcomes) between
	// conversations (the agent's) and judges on the same conversation
	// (the judges'); both 0 when the outcomes do not vary.
	AgentVarianceShare float64 `json:"agent_variance_share"`
	JudgeVarianceShare float64 `json:"judge_variance_share"`
	// OutcomeChanges lists the simulations whose outcome depends on the
	// judge.
	OutcomeChanges []string `json:"outcome_changes"`
	// JudgeCalls counts each judge's model calls (in Judges' order).
	JudgeCalls []int `json:"judge_calls"`
}

// PanelSimulation is one conversation under every judge of a panel.
type PanelSimulation struct {
	ID     string `json:"id"`
	TaskID string `json:"task_id"`
	Trial  int    `json:"trial"`
	// Assertions are the task's NL assertions; Met[j][a] is judge j's
	// verdict on assertion a, and Agreement[a] the share of judge pairs
	// that agree on it.
	Assertions []string  `json:"assertions"`
	Met        [][]bool  `json:"met"`
	Agreement  []float64 `json:"agreement"`
	// Errors[j] says why judge j gave no verdicts ("" when it did; its
	// verdicts then count as not met, as a failed judge's do in a reward).
	Errors []string `json:"errors,omitempty"`
	// NLInReward says the task's reward basis has NL_ASSERTION: then
	// Outcomes[j] is the reward the simulation earns under judge j (its
	// other bases as scored); else Outcomes[j] is 1 when judge j found
	// every assertion met and 0 otherwise.
	NLInReward bool      `json:"nl_in_reward"`
	Outcomes   []float64 `json:"outcomes"`
}
