package report

import (
	"fmt"
	"strings"

	"github.com/proctor-eval/proctor/result"
)

// ReliabilityLines puts an evaluation's noise floor (result.Reliability)
// into labelled lines (labels no wider than the table's others) for the
// table and Markdown renderings: the tasks
// that flip and ICC(1), pass^1 of each trial and their spread, and the
// bootstrap interval of pass^1. None when the summary has no noise floor
// (one trial per task).
func ReliabilityLines(s result.Summary) [][2]string {
	r := s.Reliability
	if r == nil {
		return nil
	}
	icc := "undefined (every outcome the same)"
	if r.ICC1 != nil {
		icc = fmt.Sprintf("%.3f", *r.ICC1)
	}
	trials := make([]string, len(r.PerTrial))
	for i, t := range r.PerTrial {
		trials[i] = fmt.Sprintf("%.3f", t.PassHat1)
	}
	ci := r.PassHat1BootstrapCI95
	return [][2]string{
		{"flips", fmt.Sprintf("%d of %d tasks (%.0f%%) neither always pass nor always fail; ICC(1) %s",
			len(r.FlippingTasks), r.Tasks, 100*r.FlipShare, icc)},
		{"per trial", fmt.Sprintf("pass^1 %s (spread %.3f)", strings.Join(trials, " "), r.TrialSpread)},
		{"bootstrap", fmt.Sprintf("pass^1 95%% CI %.3f-%.3f over tasks (%d resamples, seed %d)",
			ci.Low, ci.High, r.BootstrapResamples, r.BootstrapSeed)},
	}
}
