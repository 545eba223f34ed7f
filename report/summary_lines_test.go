package report

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/result"
)

// TestSummaryLines: the summary's lines agree with their counts and stay
// readable whatever the evaluation's size.
func TestSummaryLines(t *testing.T) {
	ids := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "task-" + strconv.Itoa(i)
		}
		return out
	}
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"one vacuous task", VacuousNote([]string{"t1"}, 10), "1 vacuous task: t1"},
		{"vacuous tasks", VacuousNote([]string{"a", "b", "c"}, 10), "3 vacuous tasks: a, b, c"},
		{"many vacuous tasks", VacuousNote(ids(23), 3), "23 vacuous tasks: task-0, task-1, task-2 and 20 more"},
		{"complete", SimulationsNote(&result.Evaluation{
			Config:  result.Config{TaskIDs: ids(17), NumTrials: 12},
			Summary: result.Summary{NumSimulations: 204, NumTasks: 17, NumTrials: 12},
		}), "204 (17 tasks x 12 trials)"},
		{"interrupted: every task started, not every trial", SimulationsNote(&result.Evaluation{
			Config:  result.Config{TaskIDs: ids(17), NumTrials: 12},
			Summary: result.Summary{NumSimulations: 40, NumTasks: 17, NumTrials: 3},
		}), "40 of 204 (17 tasks x 12 trials)"},
		{"interrupted on the last trial of a task", SimulationsNote(&result.Evaluation{
			Config:  result.Config{TaskIDs: ids(2), NumTrials: 2},
			Summary: result.Summary{NumSimulations: 2, NumTasks: 2, NumTrials: 1},
		}), "2 of 4 (2 tasks x 2 trials)"},
		{"stored without its plan", SimulationsNote(&result.Evaluation{
			Summary: result.Summary{NumSimulations: 5, NumTasks: 3, NumTrials: 2},
		}), "5 (3 tasks, up to 2 trials each)"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

// TestWidePassK: 100 trials give pass^k for k = 1..100; the table and
// Markdown show k = 1, 2, 4... and 100 on a line of bounded width, and the
// JSON every k.
func TestWidePassK(t *testing.T) {
	e := sample()
	e.Summary.PassHatK, e.Summary.PassAtK = map[string]float64{}, map[string]float64{}
	for k := 1; k <= 100; k++ {
		e.Summary.PassHatK[strconv.Itoa(k)] = 1 / float64(k)
		e.Summary.PassAtK[strconv.Itoa(k)] = 1
	}
	for _, format := range []Format{Table, Markdown} {
		var b bytes.Buffer
		if err := Write(&b, format, e); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(b.String(), "\n") {
			if len(line) > 160 {
				t.Errorf("%s: a line of %d characters: %s", format, len(line), line)
			}
			if strings.Contains(line, "pass^k") && !strings.Contains(line, "k=1 1.000  k=2 0.500  k=4 0.250  k=8 0.125  k=16 0.062  k=32 0.031  k=64 0.016  k=100 0.010  (every k: --format json)") {
				t.Errorf("%s: pass^k line %q", format, line)
			}
		}
	}
	var b bytes.Buffer
	if err := Write(&b, JSON, e); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"100": 0.01`) || !strings.Contains(b.String(), `"37": `) {
		t.Errorf("the JSON lacks some k:\n%s", b.String())
	}
}

// TestFailedEvaluationSaysWhy: an evaluation whose simulations all failed
// before an outcome says so in the table and in Markdown, not only in JSON.
func TestFailedEvaluationSaysWhy(t *testing.T) {
	e := sample()
	for i := range e.Simulations {
		e.Simulations[i].TerminationReason, e.Simulations[i].Error = result.TermAgentError, "HTTP 501 Not Implemented"
	}
	why := result.NoOutcome(e.Simulations)
	if want := "every simulation failed before an outcome (2 agent_error); t1#0: HTTP 501 Not Implemented"; why != want {
		t.Fatalf("NoOutcome = %q, want %q", why, want)
	}
	e.Status, e.Error = result.StatusFailed, why
	for _, format := range []Format{Table, Markdown} {
		var b bytes.Buffer
		if err := Write(&b, format, e); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "failed") || !strings.Contains(b.String(), "every simulation failed before an outcome") ||
			!strings.Contains(b.String(), "HTTP 501") {
			t.Errorf("%s output does not say why the evaluation failed:\n%s", format, b.String())
		}
	}
	e.Simulations[1].TerminationReason = result.TermUserStop
	if why := result.NoOutcome(e.Simulations); why != "" {
		t.Errorf("one simulation with an outcome: NoOutcome = %q, want none", why)
	}
}
