package result

// Process describes how an evaluation's agent worked, beside whether it
// succeeded: how long success took, and the habits a pass/fail score does
// not show (repeating a call, writing without checking, failing calls).
// It counts the agent's tool calls only (not the user's), and not those of
// a task's message history.
type Process struct {
	// TurnsToSuccess and RequestsToSuccess are the mean turns and A2A
	// requests of the passed simulations; 0 when none passed.
	TurnsToSuccess    float64 `json:"turns_to_success"`
	RequestsToSuccess float64 `json:"requests_to_success"`
	// ToolCalls counts the agent's tool calls; RepeatedCalls those that
	// repeat an earlier call of the same simulation exactly (name and
	// arguments); UnverifiedWrites the calls that change state (by their
	// name: not get_, find_, search_, list_, check_, calculate, think...)
	// with no reading call after them in the simulation; ToolErrors the
	// calls whose result is an error, and ToolErrorRate their share.
	ToolCalls        int     `json:"tool_calls"`
	RepeatedCalls    int     `json:"repeated_calls"`
	UnverifiedWrites int     `json:"unverified_writes"`
	ToolErrors       int     `json:"tool_errors"`
	ToolErrorRate    float64 `json:"tool_error_rate"`
	// TokensPerSuccess is the agent's tokens (in and out, as it reported
	// them or as estimated) over all simulations, per passed simulation; 0
	// when none passed.
	TokensPerSuccess float64 `json:"tokens_per_success"`
}
