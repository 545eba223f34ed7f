package ui

import (
	"fmt"
	"io"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
)

// WriteEvaluation writes eval as one self-contained HTML file: the
// viewer's evaluation page with its stylesheet inlined and no links to
// other pages, followed by the failed simulations in full (conversation
// and reward breakdown; the first 20), for attaching to a pull request or
// keeping as a CI artifact. The latency histogram is drawn from lat, the
// latencies of its requests in milliseconds (RequestLatencies or
// StoredLatencies); without them it is left out.
func WriteEvaluation(w io.Writer, eval *result.Evaluation, lat []float64) error {
	v := newEvalView(eval, lat)
	for i := range eval.Simulations {
		s := &eval.Simulations[i]
		if s.Passed() {
			continue
		}
		if len(v.Failed) == maxStandaloneSims {
			v.FailedMore++
			continue
		}
		sv := newSimView(eval.ID, eval.Domain, s)
		sv.Anchor = fmt.Sprintf("sim-%d-%s", len(v.Failed), anchorID(s.ID)) // unique though ids map to one
		v.Failed = append(v.Failed, sv)
	}
	anchors := map[string]string{}
	for _, f := range v.Failed {
		anchors[f.Sim.ID] = f.Anchor
	}
	for i := range v.Tasks {
		for j := range v.Tasks[i].Sims {
			v.Tasks[i].Sims[j].Anchor = anchors[v.Tasks[i].Sims[j].ID]
		}
	}
	return writeStandalone(w, "evaluation", "Evaluation "+eval.ID, v)
}

// WriteEvalSetRun writes an eval-set run as one self-contained HTML file.
func WriteEvalSetRun(w io.Writer, run *result.EvalSetRun) error {
	return writeStandalone(w, "evalset", "Eval-set run "+run.ID, newEvalSetView(run))
}

// WriteConformance writes a conformance report as one self-contained
// HTML file.
func WriteConformance(w io.Writer, rep *conformance.Report) error {
	return writeStandalone(w, "conformance", "Conformance report "+rep.ID, newConformanceView(rep))
}

// RequestLatencies returns the latencies of the requests of sims, from
// their request metrics held in memory (Simulation.Requests, set by a run).
func RequestLatencies(sims []result.Simulation) []float64 {
	var lat []float64
	for _, s := range sims {
		for _, q := range s.Requests {
			lat = append(lat, q.LatencyMS)
		}
	}
	return lat
}

func writeStandalone(w io.Writer, name, title string, body any) error {
	tpl, err := parseTemplates()
	if err != nil {
		return err
	}
	if err := tpl.execute(w, name, page{Title: title, Base: "/", Standalone: true, Body: body}); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	return nil
}

// WriteComparison writes the comparison of two evaluations (proctor
// compare --format html) as one self-contained HTML file: the viewer's
// compare page without its form and links.
func WriteComparison(w io.Writer, cmp report.EvaluationComparison) error {
	return writeStandalone(w, "compare", "Compare "+cmp.Base.ID+" and "+cmp.Current.ID, compareView{A: cmp.Base.ID, B: cmp.Current.ID, Cmp: &cmp})
}

// WriteLeaderboard writes a leaderboard (proctor leaderboard --format
// html) as one self-contained HTML file: the viewer's leaderboard page
// without its form and links.
func WriteLeaderboard(w io.Writer, lb report.Leaderboard) error {
	return writeStandalone(w, "leaderboard", "Leaderboard "+lb.Domain, leaderboardView{Domain: lb.Domain, Split: lb.Split, Latest: lb.Latest, Boards: []report.Leaderboard{lb}})
}
