package result

// UserCheck names a deterministic check of the user simulator's conduct.
type UserCheck string

// The user simulator's checks.
const (
	// UserEndedUnanswered: the user ended the conversation while the
	// agent's last message was a question waiting for an answer.
	UserEndedUnanswered UserCheck = "ended_unanswered"
	// UserInventedFact: the user stated an identifier, number or address
	// that is neither in its scenario nor in anything the agent said.
	UserInventedFact UserCheck = "invented_fact"
	// UserWithheldInfo: the scenario gave the user an identifier to give,
	// the user answered the agent's questions, and never gave it.
	UserWithheldInfo UserCheck = "withheld_info"
)

// UserAudit is how far a stored evaluation's user simulator kept to its
// scenarios, and the score with the failures it may have caused set aside,
// beside the plain score.
type UserAudit struct {
	Evaluation string `json:"evaluation"`
	Domain     string `json:"domain"`
	// AuditModel is the LLM auditor's model spec; empty when only the
	// deterministic checks ran.
	AuditModel  string            `json:"audit_model,omitempty"`
	Simulations []SimulationAudit `json:"simulations"`
	// Failed counts the failed simulations, Attributable those of them
	// that a check flagged (or the auditor said could have changed the
	// outcome): failures that may be the simulator's, not the agent's.
	Failed       int `json:"failed"`
	Attributable int `json:"attributable"`
	// PassHat1 is the evaluation's pass^1; PassHat1SetAside the same with
	// the attributable simulations left out (SetAside lists them).
	PassHat1         float64  `json:"pass_hat_1"`
	PassHat1SetAside float64  `json:"pass_hat_1_set_aside"`
	SetAside         []string `json:"set_aside"`
	// AuditorCalls counts the auditor's model calls.
	AuditorCalls int `json:"auditor_calls,omitempty"`
}

// SimulationAudit is one simulation's audit.
type SimulationAudit struct {
	ID     string     `json:"id"`
	TaskID string     `json:"task_id"`
	Trial  int        `json:"trial"`
	Passed bool       `json:"passed"`
	Flags  []UserFlag `json:"flags,omitempty"`
	// Auditor is the LLM auditor's reading, when one ran.
	Auditor *AuditorVerdict `json:"auditor,omitempty"`
	// Attributable says the simulation failed and its failure may be the
	// user simulator's.
	Attributable bool `json:"attributable"`
}

// UserFlag is one finding of a check: which, where (the turn of the
// user's message, 0 when the finding is about the whole conversation) and
// what.
type UserFlag struct {
	Check  UserCheck `json:"check"`
	Turn   int       `json:"turn"`
	Detail string    `json:"detail"`
}

// AuditorVerdict is the LLM auditor's reading of the user's turns.
type AuditorVerdict struct {
	Deviations         []string `json:"deviations"`
	CouldChangeOutcome bool     `json:"could_change_outcome"`
	Reasoning          string   `json:"reasoning,omitempty"`
	// Error says why the auditor gave no reading.
	Error string `json:"error,omitempty"`
}
