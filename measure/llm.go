package measure

// LLMCall is one metered call to a language model proctor uses.
type LLMCall struct {
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	// Priced is false when the price table does not know the model; CostUSD
	// is then 0.
	Priced bool `json:"priced"`
	// LatencyMS is the call's own time, its retries and their waits
	// included; SlotWaitMS is the time it waited before that for a free
	// slot under the provider's concurrency cap.
	LatencyMS  float64 `json:"latency_ms"`
	SlotWaitMS float64 `json:"slot_wait_ms,omitempty"`
	// Throttled counts the 429 replies the call was retried after.
	Throttled int    `json:"throttled,omitempty"`
	Error     string `json:"error,omitempty"`
}

// LLMUsage sums model calls.
type LLMUsage struct {
	Calls        int     `json:"calls"`
	Errors       int     `json:"errors,omitempty"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	// Unpriced counts calls of models the price table does not know: the
	// cost leaves them out.
	Unpriced int `json:"unpriced,omitempty"`
	// SlotWaitMS sums the calls' waits for a provider slot and Throttled
	// their retries after a 429 (see LLMCall).
	SlotWaitMS float64 `json:"slot_wait_ms,omitempty"`
	Throttled  int     `json:"throttled,omitempty"`
}

// Add sums u and v.
func (u LLMUsage) Add(v LLMUsage) LLMUsage {
	return LLMUsage{Calls: u.Calls + v.Calls, Errors: u.Errors + v.Errors, InputTokens: u.InputTokens + v.InputTokens,
		OutputTokens: u.OutputTokens + v.OutputTokens, CostUSD: u.CostUSD + v.CostUSD, Unpriced: u.Unpriced + v.Unpriced,
		SlotWaitMS: u.SlotWaitMS + v.SlotWaitMS, Throttled: u.Throttled + v.Throttled}
}

// UsageByRole sums calls per role; nil when there are none.
func UsageByRole(calls []LLMCall) map[string]LLMUsage {
	if len(calls) == 0 {
		return nil
	}
	out := map[string]LLMUsage{}
	for _, c := range calls {
		u := LLMUsage{Calls: 1, InputTokens: c.InputTokens, OutputTokens: c.OutputTokens, CostUSD: c.CostUSD,
			SlotWaitMS: c.SlotWaitMS, Throttled: c.Throttled}
		if c.Error != "" {
			u.Errors = 1
		}
		if !c.Priced {
			u.Unpriced = 1
		}
		out[c.Role] = out[c.Role].Add(u)
	}
	return out
}

// MergeUsage adds the per-role usage b into a copy of a.
func MergeUsage(a, b map[string]LLMUsage) map[string]LLMUsage {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := make(map[string]LLMUsage, len(a)+len(b))
	for _, m := range []map[string]LLMUsage{a, b} {
		for r, u := range m {
			out[r] = out[r].Add(u)
		}
	}
	return out
}
