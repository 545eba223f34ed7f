package ui

import (
	"cmp"
	"errors"
	"html/template"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/proctor-eval/proctor/evaluation"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/report"
	"github.com/proctor-eval/proctor/result"
)

// maxStandaloneSims bounds the failed simulations a self-contained file
// shows in full, so that a file for a large evaluation stays small.
const maxStandaloneSims = 20

// count is one entry of a histogram shown as a table.
type count struct {
	Key string
	N   int
}

// simLink is one simulation of a task, as the evaluation page lists it.
type simLink struct {
	ID          string
	Trial       int
	Reward      float64
	Passed      bool
	Termination string
	// Why says which check a failed simulation failed (report.WhyFailed,
	// as proctor show says it).
	Why string
	// Anchor is set in a self-contained file on the simulations it shows
	// in full: the id of their section.
	Anchor string
}

// taskRow is one task of the evaluation page.
type taskRow struct {
	result.TaskSummary
	Vacuous      bool
	EnvUnchecked bool
	Sims         []simLink
	// Why lists the distinct reasons its simulations failed.
	Why []string
}

// llmRow is what proctor's own model calls cost in one role.
type llmRow struct {
	Role string
	llm.Usage
}

// evalView is the body of the evaluation page.
type evalView struct {
	Eval         *result.Evaluation
	Agent        string
	PassHat1     float64
	Curves       template.HTML
	Histogram    template.HTML
	Tasks        []taskRow
	Terminations []count
	StatusCodes  []count
	ErrorClasses []count
	LLM          []llmRow
	Latencies    int
	// Failed holds the failed simulations drawn in full in a
	// self-contained file (at most maxStandaloneSims), and FailedMore how
	// many more there are.
	Failed     []simView
	FailedMore int
	// Filter is the search within the simulations, Matched how many
	// match it, and the choices its form offers.
	Filter             simFilter
	Matched            int
	Outcomes           []string
	Checks             []string
	TerminationChoices []string
	// PassCurvesSame is set when pass^k equals pass@k at every k: the
	// two curves are drawn one over the other.
	PassCurvesSame bool
}

func (h *Handler) evaluation(w http.ResponseWriter, r *http.Request) {
	id, db, ok := h.recordOf(w, r, "evaluation")
	if !ok {
		return
	}
	filter, err := readSimFilter(r)
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "%v", err)
		return
	}
	eval, err := h.results(db).Evaluation(r.Context(), id)
	if errors.Is(err, evaluation.ErrEvalSetRun) {
		http.Redirect(w, r, h.opts.Base+"evalset/"+urlPath(id), http.StatusFound)
		return
	}
	if err != nil {
		h.storeFail(w, r, err)
		return
	}
	eval.Status = result.Status(h.shownStatus(string(eval.Status)))
	lat, err := h.results(db).RequestLatencies(r.Context(), eval)
	if err != nil {
		h.storeFail(w, r, err)
		return
	}
	v := newEvalView(eval, lat)
	v.Filter = filter
	v.Tasks, v.Matched = filterTasks(eval, filter)
	h.render(w, r, "evaluation", "Evaluation "+eval.ID, "evaluations", v)
}

// newEvalView builds the evaluation page from a loaded evaluation and the
// latencies of its requests.
func newEvalView(eval *result.Evaluation, lat []float64) evalView {
	sum := eval.Summary
	v := evalView{
		Eval:               eval,
		Agent:              report.AgentLabel(eval.Agent),
		PassHat1:           sum.PassHatK["1"],
		Curves:             passCurves(sum),
		Histogram:          latencyHistogram(lat),
		Latencies:          len(lat),
		Tasks:              taskRows(eval),
		Terminations:       counts(sum.TerminationReasons),
		StatusCodes:        counts(eval.Metrics.StatusCodes),
		ErrorClasses:       counts(eval.Metrics.ErrorClasses),
		Matched:            len(eval.Simulations),
		Outcomes:           []string{outcomePassed, outcomeFailed},
		Checks:             filterChecks(),
		TerminationChoices: slices.Sorted(maps.Keys(sum.TerminationReasons)),
		PassCurvesSame:     len(sum.PassHatK) > 0 && maps.Equal(sum.PassHatK, sum.PassAtK),
	}
	for _, role := range slices.Sorted(maps.Keys(eval.Metrics.LLMUsage)) {
		v.LLM = append(v.LLM, llmRow{Role: role, Usage: eval.Metrics.LLMUsage[role]})
	}
	return v
}

// taskRows lists the summary's tasks with their simulations; simulations
// of tasks the summary lacks (a summary stored before them) follow.
func taskRows(eval *result.Evaluation) []taskRow {
	vacuous := setOf(eval.Summary.VacuousTasks)
	unchecked := setOf(eval.Summary.EnvUncheckedTasks)
	rows := make([]taskRow, 0, len(eval.Summary.Tasks))
	pos := map[string]int{}
	for _, t := range eval.Summary.Tasks {
		pos[t.TaskID] = len(rows)
		rows = append(rows, taskRow{TaskSummary: t, Vacuous: vacuous[t.TaskID], EnvUnchecked: unchecked[t.TaskID]})
	}
	for _, s := range eval.Simulations {
		i, ok := pos[s.TaskID]
		if !ok {
			i = len(rows)
			pos[s.TaskID] = i
			rows = append(rows, taskRow{TaskSummary: result.TaskSummary{TaskID: s.TaskID}})
		}
		link := simLink{ID: s.ID, Trial: s.Trial, Reward: s.Reward, Passed: s.Passed(), Termination: string(s.TerminationReason)}
		if !link.Passed {
			link.Why = report.WhyFailed(s)
			if link.Why == "" {
				link.Why = "reward " + strconv.FormatFloat(s.Reward, 'f', 3, 64) + ", " + link.Termination
			}
			if !slices.Contains(rows[i].Why, link.Why) {
				rows[i].Why = append(rows[i].Why, link.Why)
			}
		}
		rows[i].Sims = append(rows[i].Sims, link)
	}
	return rows
}

// filterTasks is the task rows with only the simulations f matches, and
// how many those are; with f active, tasks none of whose simulations
// match are left out.
func filterTasks(eval *result.Evaluation, f simFilter) ([]taskRow, int) {
	if !f.active() {
		return taskRows(eval), len(eval.Simulations)
	}
	kept := *eval
	kept.Simulations = nil
	for i := range eval.Simulations {
		if f.matches(&eval.Simulations[i]) {
			kept.Simulations = append(kept.Simulations, eval.Simulations[i])
		}
	}
	var rows []taskRow
	for _, t := range taskRows(&kept) {
		if len(t.Sims) > 0 {
			rows = append(rows, t)
		}
	}
	return rows, len(kept.Simulations)
}

func setOf(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// counts sorts a histogram largest first, then by key.
func counts(m map[string]int) []count {
	out := make([]count, 0, len(m))
	for k, n := range m {
		out = append(out, count{k, n})
	}
	slices.SortFunc(out, func(a, b count) int {
		return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.Key, b.Key))
	})
	return out
}

// passKs lists 1..n as the summary's keys.
func passKs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i + 1)
	}
	return out
}
