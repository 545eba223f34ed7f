package result

// FaultKind names how proctor corrupted a tool result before the agent saw
// it (proctor run --tool-faults); the environment ran the call truly.
type FaultKind string

// The kinds of corrupted tool results.
const (
	// FaultError: the call is answered with an error (the service is
	// unavailable) although it ran.
	FaultError FaultKind = "error"
	// FaultStale: a number of the result is an older, lower reading.
	FaultStale FaultKind = "stale"
	// FaultTruncated: the result is cut to its first half.
	FaultTruncated FaultKind = "truncated"
	// FaultWrongRecord: an identifier of the result names another record.
	FaultWrongRecord FaultKind = "wrong_record"
)

// Robustness is how an evaluation's agent met corrupted tool results:
// scored beside the reward (which the true environment decides), from
// what the agent did after each one.
type Robustness struct {
	// Faults counts the corrupted results, by kind in ByKind.
	Faults int            `json:"faults"`
	ByKind map[string]int `json:"by_kind"`
	// Rechecked counts those after which the agent called the same tool
	// again; ToldUser those after which its next words to the user spoke
	// of a problem; Handled those with either, and HandledShare their
	// share of Faults.
	Rechecked    int     `json:"rechecked"`
	ToldUser     int     `json:"told_user"`
	Handled      int     `json:"handled"`
	HandledShare float64 `json:"handled_share"`
}
