package result

// Reliability is the noise floor of an evaluation with two or more trials
// per task: how much its score moves from one trial to the next, and so
// how much of a difference from another evaluation can be told from
// noise. It is absent from summaries of one trial per task.
type Reliability struct {
	// Tasks counts the tasks with two or more trials, the ones FlippingTasks
	// and ICC1 are computed over.
	Tasks int `json:"tasks"`
	// FlippingTasks lists, in task order, the tasks that neither passed on
	// every trial nor failed on every trial; FlipShare is their share of
	// Tasks.
	FlippingTasks []string `json:"flipping_tasks"`
	FlipShare     float64  `json:"flip_share"`
	// ICC1 is the one-way intraclass correlation, ICC(1), of the tasks'
	// pass/fail outcomes: the share of the outcomes' variance that lies
	// between tasks rather than between trials of a task (1: every task
	// always gives the same outcome; 0 or below: a task says nothing about
	// its next trial). Null when every outcome is the same and the share is
	// undefined.
	ICC1 *float64 `json:"icc1"`
	// PerTrial is pass^1 of each trial on its own (the tasks that have that
	// trial), in trial order; TrialSpread is the largest minus the
	// smallest.
	PerTrial    []TrialScore `json:"per_trial"`
	TrialSpread float64      `json:"trial_spread"`
	// PassHat1BootstrapCI95 is a 95% percentile bootstrap interval of
	// pass^1 over tasks: the tasks are resampled with replacement
	// BootstrapResamples times with the fixed BootstrapSeed, so that the
	// same outcomes always give the same interval.
	PassHat1BootstrapCI95 Interval `json:"pass_hat_1_bootstrap_ci95"`
	BootstrapResamples    int      `json:"bootstrap_resamples"`
	BootstrapSeed         uint64   `json:"bootstrap_seed"`
}

// TrialScore is pass^1 of one trial over the tasks that ran it.
type TrialScore struct {
	Trial    int     `json:"trial"`
	Tasks    int     `json:"tasks"`
	PassHat1 float64 `json:"pass_hat_1"`
}
