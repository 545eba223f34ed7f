//go:build unix

package interop

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

// proctorRejects are the sets proctor refuses before playing anything,
// where the framework runs them and fails in silence: a metric without a
// criterion (the framework fails every case). Each maps to what proctor's
// error must say.
var proctorRejects = map[string]string{
	"nil_criterion": "criterion",
}

// deviations are cases proctor scores otherwise, on purpose, each with what
// proctor must have recorded instead:
//   - agent_error: the agent fails its second turn in a way no A2A client
//     can see: server/a2a answers the model's error with an ordinary
//     message (serverErrorReply) in place of failing the task, so the
//     framework's in-process evaluator fails the case and proctor, over
//     A2A, scores the reply like any other;
//   - no_session_input: the framework fails a case without sessionInput
//     before inference, as it needs one to create the session; proctor,
//     which creates none (the agent keeps its own sessions by context id),
//     plays it.
var deviations = map[string]string{"agent_error": serverErrorReply, "no_session_input": "The result is 5."}

// serverErrorReply is what server/a2a says when the agent's model fails.
const serverErrorReply = "An error occurred while processing your request."

// unknownEvaluator is the metric of the edges set that names no evaluator:
// the framework leaves it out of its results, proctor refuses the set. The
// parity of the rest of the set is checked without it.
const unknownEvaluator = "no_such_evaluator"

// loadParitySet reads a set of the oracle's data as proctor does, but for
// the edges set's unknown evaluator, whose refusal it checks apart.
func loadParitySet(t *testing.T, set string) ([]*evalset.Set, error) {
	t.Helper()
	path := filepath.Join(trpcEvalSetsDir, trpcEvalApp, set+".evalset.json")
	if set != "edges" {
		return evalset.Load(path)
	}
	if _, err := evalset.Load(path); err == nil || !strings.Contains(err.Error(), `unknown metric "`+unknownEvaluator+`"`) {
		t.Errorf("edges with %s: proctor answered %v, want it refused by name", unknownEvaluator, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := evalset.Decode(filepath.Join(trpcEvalApp, set+".evalset.json"), data)
	if err != nil {
		return nil, err
	}
	if _, err := evalset.LoadMetrics(strings.TrimSuffix(path, ".evalset.json") + ".metrics.json"); err == nil {
		t.Fatalf("edges metrics: no error for %s", unknownEvaluator)
	}
	raw, err := os.ReadFile(strings.TrimSuffix(path, ".evalset.json") + ".metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	var all []map[string]any
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	all = slices.DeleteFunc(all, func(m map[string]any) bool { return m["metricName"] == unknownEvaluator })
	kept, _ := json.Marshal(all)
	metrics, err := evalset.DecodeMetrics("edges.metrics.json", kept)
	if err != nil {
		t.Fatal(err)
	}
	s.Metrics = metrics
	return []*evalset.Set{s}, nil
}

// checkProctorParity plays every set with proctor, over A2A against the
// calculator agent that server/a2a serves (the agent the framework's own
// evaluator ran in-process), trpcEvalRuns times, and holds each set's case
// results to the reference's, case by case, run by run, metric by metric.
func checkProctorParity(t *testing.T, base string, refs map[string]*trpcEvalSetResult) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "proctor.db"), store.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	svc := &skills.Service{Store: db}
	for _, set := range trpcEvalSetIDs() {
		t.Run(set, func(t *testing.T) {
			sets, err := loadParitySet(t, set)
			if want, rejected := proctorRejects[set]; rejected {
				if err == nil {
					_, err = svc.PrepareEvalSets(t.Context(), skills.EvalSetRequest{AgentURL: base}, sets)
				}
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("set %s: proctor answered %v, want a refusal that says %q", set, err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			job, err := svc.PrepareEvalSets(t.Context(), skills.EvalSetRequest{AgentURL: base, NumRuns: trpcEvalRuns, Concurrency: 4}, sets)
			if err != nil {
				t.Fatal(err)
			}
			defer job.Close()
			if err := job.Execute(t.Context(), nil); err != nil {
				t.Fatal(err)
			}
			var played, deviating []*result.CaseResult
			for _, c := range job.Run().Cases {
				if _, ok := deviations[c.EvalID]; ok {
					deviating = append(deviating, c)
					continue
				}
				played = append(played, c)
			}
			ref := *refs[set]
			ref.EvalCaseResults = slices.DeleteFunc(slices.Clone(ref.EvalCaseResults), func(c *result.CaseResult) bool {
				_, ok := deviations[c.EvalID]
				return ok
			})
			checkTRPCParity(t, set, &ref, played)
			if set == "edges" && len(deviating) != len(deviations)*trpcEvalRuns {
				t.Errorf("edges: %d runs of the deviating cases, want %d", len(deviating), len(deviations)*trpcEvalRuns)
			}
			checkDeviations(t, deviating)
			if t.Failed() {
				logCases(t, job.Run().Cases)
			}
		})
	}
}

// checkDeviations checks that proctor played each deviating case to its
// end, its last turn answered as deviations says.
func checkDeviations(t *testing.T, cases []*result.CaseResult) {
	t.Helper()
	for _, c := range cases {
		n := len(c.Actual)
		if want := deviations[c.EvalID]; c.ErrorMessage != "" || n == 0 || c.Actual[n-1].FinalResponse.Text() != want {
			t.Errorf("case %s run %d: error %q, last turn %+v; want it played, answered %q", c.EvalID, c.RunID, c.ErrorMessage, c.Actual, want)
		}
	}
}

// logCases shows proctor's verdicts, for a failing comparison.
func logCases(t *testing.T, cases []*result.CaseResult) {
	t.Helper()
	for _, c := range cases {
		var ms []string
		for _, m := range c.OverallEvalMetricResults {
			reason := ""
			if m.Details != nil {
				reason = m.Details.Reason
			}
			ms = append(ms, m.MetricName+"="+string(m.EvalStatus)+" "+reason)
		}
		var turns []string
		for i, tr := range c.Turns {
			fr := ""
			if i < len(c.Actual) && c.Actual[i].FinalResponse != nil {
				fr = c.Actual[i].FinalResponse.Text()
			}
			turns = append(turns, fmt.Sprintf("%s %q %s", tr.State, fr, tr.Error))
		}
		t.Logf("%s run %d: %s %s [%s] turns %v", c.EvalID, c.RunID, c.FinalEvalStatus, c.ErrorMessage, strings.Join(ms, "; "), turns)
	}
}
