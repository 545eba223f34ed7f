package importer

import (
	"testing"
	"time"
)

// FuzzRead feeds Read what a user may point proctor import at: any bytes.
// It must return an evaluation or an error, never panic, and an
// evaluation it returns must be summarized over the simulations it holds.
func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		`{"info": {"num_trials": 1}, "tasks": [], "simulations": [{"id": "s", "task_id": "1", "trial": 0, "reward_info": {"reward": 1}, "messages": [{"role": "user", "content": "hi"}]}]}`,
		`[{"task_id": 3, "trial": 0, "reward": 1.0, "info": {"reward_info": {"reward": 1.0}}, "traj": [{"role": "user", "content": "hi"}]}]`,
		`[{"task_id": "x", "reward": "one"}]`, `{"simulations": null}`, `[]`, `{}`, ``, `[1]`, `{"simulations": [{}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		eval, err := Read(data, Options{Source: "fuzz", Now: time.Unix(0, 0)})
		if err != nil {
			return
		}
		if eval == nil {
			t.Fatal("no evaluation and no error")
		}
		if eval.Summary.NumSimulations != len(eval.Simulations) {
			t.Errorf("summary of %d simulations, holds %d", eval.Summary.NumSimulations, len(eval.Simulations))
		}
	})
}
