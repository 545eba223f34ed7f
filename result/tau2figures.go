package result

// Tau2Figures are an evaluation's avg_reward and pass^k computed as
// tau2-bench computes them (its metrics/agent_metrics.py): simulations tau2
// would have recorded as infrastructure_error (its run raised, and raised
// again on every retry) are left out of both; pass^k of a task uses the
// task's remaining runs; k goes up to the fewest runs any task has left.
// Summary's own AvgReward and PassHatK are the strict figures, which count
// every simulation and so every failure.
type Tau2Figures struct {
	AvgReward float64            `json:"avg_reward"`
	PassHatK  map[string]float64 `json:"pass_hat_k"`
	// NumSimulations and NumTasks count what the figures are computed
	// over: the simulations not excluded and the tasks they cover.
	NumSimulations int `json:"num_simulations"`
	NumTasks       int `json:"num_tasks"`
	// Excluded counts the simulations left out; ExcludedBy says why, by
	// termination reason and, for agent_error, the class of the failed
	// call ("agent_error:connection").
	Excluded   int            `json:"excluded"`
	ExcludedBy map[string]int `json:"excluded_by,omitempty"`
}
