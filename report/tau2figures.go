package report

import (
	"fmt"
	"maps"

	"github.com/proctor-eval/proctor/result"
)

// Tau2FiguresNote states tau2-bench's own avg_reward and pass^k of a
// summary (Summary.Tau2) with what they leave out, to read beside the
// strict figures; "" when there are none or they equal the strict ones.
func Tau2FiguresNote(s result.Summary) string {
	f := s.Tau2
	if f == nil || (f.Excluded == 0 && f.AvgReward == s.AvgReward && maps.Equal(f.PassHatK, s.PassHatK)) {
		return ""
	}
	note := fmt.Sprintf("avg reward %.3f  pass^k %s  over %d of %d simulations", f.AvgReward, kLine(f.PassHatK), f.NumSimulations, s.NumSimulations)
	if f.Excluded > 0 {
		note += fmt.Sprintf("; left out %d tau2 would have retried (%s)", f.Excluded, Counts(f.ExcludedBy))
	}
	return note + "; the figures above count every failure"
}
