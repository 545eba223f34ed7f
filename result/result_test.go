package result_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/result"
)

// TestDurationJSON: one meaning everywhere: a Go duration string, or a
// number of seconds; always written as a string.
func TestDurationJSON(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{`"90s"`, 90 * time.Second, false},
		{`"30m"`, 30 * time.Minute, false},
		{`90`, 90 * time.Second, false},
		{`1.5`, 1500 * time.Millisecond, false},
		{`"ninety"`, 0, true},
		{`true`, 0, true},
	} {
		var d result.Duration
		err := json.Unmarshal([]byte(c.in), &d)
		if (err != nil) != c.wantErr || time.Duration(d) != c.want {
			t.Errorf("%s: %v, %v; want %v (error %v)", c.in, time.Duration(d), err, c.want, c.wantErr)
		}
	}
	out, err := json.Marshal(result.Duration(90 * time.Second))
	if diff := cmp.Diff(`"1m30s"`, string(out)); diff != "" || err != nil {
		t.Errorf("marshal: %v %s", err, diff)
	}
}

// TestPassed: full reward, within float rounding of products, is a
// success; anything less is not.
func TestPassed(t *testing.T) {
	for reward, want := range map[float64]bool{1: true, 0.9999995: true, 0.999: false, 0: false} {
		if got := result.Passed(reward); got != want {
			t.Errorf("Passed(%v) = %v, want %v", reward, got, want)
		}
		s := result.Simulation{Reward: reward}
		if s.Passed() != want {
			t.Errorf("Simulation.Passed(%v) disagrees with Passed", reward)
		}
	}
	for _, term := range []result.TerminationReason{result.TermUserStop, result.TermAgentStop} {
		if !term.Rewardable() {
			t.Errorf("%s should be rewardable", term)
		}
	}
	for _, term := range []result.TerminationReason{result.TermMaxSteps, result.TermTimeout, result.TermAgentError, result.TermInfrastructure} {
		if term.Rewardable() {
			t.Errorf("%s should not be rewardable", term)
		}
	}
}

func TestSimulationID(t *testing.T) {
	for _, tc := range []struct {
		task  string
		trial int
		want  string
	}{
		{"add-three", 0, "add-three#0"},
		{"airline/12", 37, "airline/12#37"},
		{"", -1, "#-1"},
		{"é#x", 1000000, "é#x#1000000"},
	} {
		if diff := cmp.Diff(tc.want, result.SimulationID(tc.task, tc.trial)); diff != "" {
			t.Errorf("SimulationID(%q, %d) (-want +got):\n%s", tc.task, tc.trial, diff)
		}
	}
}
