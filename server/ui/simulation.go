package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/knowledge/kbresult"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
)

// maxActualCalls bounds the calls of a tool shown beside an expected
// action that no call matched.
const maxActualCalls = 5

// callView is one tool call with its result folded in.
type callView struct {
	ID, Name, Requestor string
	// Args is the arguments indented, Brief the same on one line, cut
	// short for the call's summary line.
	Args, Brief      string
	Result           string
	HasResult, Error bool
	// Hits are the documents of a knowledge-base search's result
	// (KB_search, grep), shown instead of its text.
	Hits []hitView
}

// hitView is one document a knowledge-base search found: its line, and
// its content in a fold.
type hitView struct {
	ID, Title, Score string
	// Folded is the content's first words, for the fold's summary line.
	Folded, Content string
}

// foldedChars bounds a found document's content on its summary line.
const foldedChars = 120

// hitsOf reads a tool result that lists knowledge-base documents back
// into them; nil for an error or any other text.
func hitsOf(content string, isError bool) []hitView {
	if isError {
		return nil
	}
	hits, ok := kbresult.Parse(content)
	if !ok {
		return nil
	}
	out := make([]hitView, len(hits))
	for i, h := range hits {
		out[i] = hitView{ID: h.ID, Title: h.Title, Score: h.Score, Folded: kbresult.Fold(h.Content, foldedChars), Content: h.Content}
	}
	return out
}

// chatItem is one bubble of the conversation.
type chatItem struct {
	Role      string // assistant, user, or tool for a result that matches no call
	Requestor string
	Content   string
	Private   string
	History   bool
	// Interim marks what the agent said before its answer in a turn.
	Interim bool
	Turn    int
	Calls   []callView
	// ToolName and Error describe an unmatched tool result (Role tool),
	// Hits the documents it lists when it is a knowledge-base search's.
	ToolName string
	Error    bool
	Hits     []hitView
}

// argDiff is one expected argument of an action against a call's.
type argDiff struct {
	Name, Want, Got string
	Missing, Same   bool
}

// actualCall is a call of an expected action's tool, compared with it.
type actualCall struct {
	Requestor string
	Args      string
	Diffs     []argDiff
}

// actionRow is one ACTION check.
type actionRow struct {
	result.ActionCheck
	Args        string
	CompareArgs string
	Actual      []actualCall
}

// basisRow is one basis of the reward.
type basisRow struct {
	Name          string
	Score         float64
	Scored        bool
	Passed        bool
	AddedByStrict bool
}

// breakdown says why a simulation earned its reward.
type breakdown struct {
	Info        result.RewardInfo
	Bases       []basisRow
	Actions     []actionRow
	Termination string
	Rewardable  bool
	Error       string
}

// simView is the body of the simulation page.
type simView struct {
	EvalID, Domain string
	Sim            *result.Simulation
	// Anchor is the simulation's id as an HTML id, for self-contained
	// files that show several.
	Anchor    string
	Items     []chatItem
	Breakdown breakdown
	// Records lists how the final database differs from the expected one
	// when the DB check failed and the domain is at hand (Options.DBDiff).
	Records *recordsView
	// Wire is the conversation's wire trace (Options.WireTrace).
	Wire *wireView
	// Task is the task the simulation played (Options.Task), shown beside
	// the conversation.
	Task *taskView
}

// recordsView is the differing records of a failed DB check.
type recordsView struct {
	Rows []recordRow
	// Truncated says more records differ than are listed; Note says why
	// none are listed.
	Truncated bool
	Note      string
}

// recordRow is one record or field that differs: its table (the first
// key of its path) and key (the rest), and each side's value.
type recordRow struct {
	Side, Table, Key, Kind string
	Expected, Actual       string
	HasExpected, HasActual bool
}

func (h *Handler) simulation(w http.ResponseWriter, r *http.Request) {
	evalID, err := pathID(r, "id")
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "%v", err)
		return
	}
	simID, err := param(r, "id")
	if err == nil && simID == "" {
		err = errMissingSim
	}
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, "%v", err)
		return
	}
	db := h.dbOf(r)
	if db == nil {
		h.fail(w, r, http.StatusNotFound, "no evaluation %q: there is no results database yet", evalID)
		return
	}
	st, err := h.results(db).Simulation(r.Context(), evalID, simID)
	if unreadable := (*skills.UnreadableError)(nil); errors.As(err, &unreadable) {
		h.fail(w, r, http.StatusInternalServerError, "%v", err)
		return
	}
	if err != nil {
		h.storeFail(w, r, err)
		return
	}
	eval, evalErr, sim := st.Evaluation, st.EvaluationErr, st.Simulation
	v := newSimView(eval.ID, eval.Domain, sim)
	if c := sim.RewardInfo.DBCheck; c != nil && !c.DBMatch && h.opts.DBDiff != nil {
		v.Records = h.records(eval, evalErr, sim)
	}
	if h.opts.Task != nil {
		v.Task = h.task(eval, evalErr, sim)
	}
	if h.opts.WireTrace != nil {
		if path := h.opts.WireTrace(eval.ID); path != "" {
			v.Wire = loadWireTrace(path, sim.ContextID)
		}
	}
	h.render(w, r, "simulation", "Simulation "+sim.ID, "evaluations", v)
}

// task shows the task sim played (Options.Task); when it cannot be found,
// the expected actions sim's checks name and why the rest is missing.
func (h *Handler) task(eval *result.Evaluation, evalErr error, sim *result.Simulation) *taskView {
	if evalErr != nil {
		return taskFromChecks(sim, "the task is not shown: the evaluation is unreadable: "+evalErr.Error())
	}
	task, err := h.opts.Task(eval, sim.TaskID)
	if err != nil {
		return taskFromChecks(sim, "the user's instructions are not shown: "+err.Error())
	}
	return newTaskView(task, sim)
}

// records lists the records sim's final database differs in (Options.DBDiff).
func (h *Handler) records(eval *result.Evaluation, evalErr error, sim *result.Simulation) *recordsView {
	if evalErr != nil {
		return &recordsView{Note: "records not compared: the evaluation is unreadable: " + evalErr.Error()}
	}
	diff := h.opts.DBDiff(eval)
	if diff == nil {
		return &recordsView{Note: "the domain is not available here: records not compared (give proctor view --tau2-data)"}
	}
	recs, truncated, err := diff(sim)
	return newRecordsView(recs, truncated, err)
}

// newRecordsView shows the result of a report.DBDiffFunc.
func newRecordsView(recs []domains.RecordDiff, truncated bool, err error) *recordsView {
	v := &recordsView{Truncated: truncated}
	switch {
	case err != nil:
		v.Note = "records not compared: " + err.Error()
	case len(recs) == 0:
		v.Note = "replaying the conversation gives the expected records: the recorded state came from elsewhere (a tool that is not deterministic?)"
	}
	for _, d := range recs {
		table, key, _ := strings.Cut(d.Path, "/")
		row := recordRow{Side: d.Side, Table: table, Key: key, Kind: string(d.Kind), HasExpected: d.Expected != nil, HasActual: d.Actual != nil}
		if row.HasExpected {
			row.Expected = prettyJSON(d.Expected)
		}
		if row.HasActual {
			row.Actual = prettyJSON(d.Actual)
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// errMissingSim is the answer to a simulation page without ?id.
const errMissingSim = badRequest("give the simulation as ?id=<task id>#<trial>, as the evaluation page links it")

// badRequest is an error message for a 400 answer.
type badRequest string

func (e badRequest) Error() string { return string(e) }

// newSimView builds the simulation page.
func newSimView(evalID, domain string, sim *result.Simulation) simView {
	return simView{
		EvalID: evalID, Domain: domain, Sim: sim, Anchor: "sim-" + anchorID(sim.ID),
		Items: chatItems(sim.Messages), Breakdown: newBreakdown(sim),
		Task: taskFromChecks(sim, "the user's instructions are not shown: the viewer was not given the domain's tasks"),
	}
}

// anchorID makes an id usable as (part of) an HTML id attribute.
func anchorID(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, id)
}

// chatItems folds tool results into the calls they answer: a result
// follows its call by ToolCallID, else the earliest unanswered call of
// the same tool; a result matching none stands alone.
func chatItems(msgs []result.Message) []chatItem {
	type ref struct{ item, call int }
	var items []chatItem
	var open []ref
	for _, m := range msgs {
		if m.Role == result.RoleTool {
			if i := slices.IndexFunc(open, func(o ref) bool { return matches(items[o.item].Calls[o.call], m) }); i >= 0 {
				c := &items[open[i].item].Calls[open[i].call]
				c.Result, c.HasResult, c.Error, c.Hits = m.Content, true, m.Error, hitsOf(m.Content, m.Error)
				open = slices.Delete(open, i, i+1)
				continue
			}
			items = append(items, chatItem{Role: string(m.Role), Requestor: m.Requestor, Content: m.Content, ToolName: m.Name, Error: m.Error, Turn: m.Turn, History: m.History,
				Hits: hitsOf(m.Content, m.Error)})
			continue
		}
		it := chatItem{Role: string(m.Role), Requestor: m.Requestor, Content: m.Content, Private: strings.TrimSpace(m.PrivateThought), History: m.History,
			Interim: m.Interim, Turn: m.Turn}
		for _, tc := range m.ToolCalls {
			it.Calls = append(it.Calls, callView{ID: tc.ID, Name: tc.Name, Requestor: tc.Requestor, Args: prettyJSON(tc.Arguments), Brief: brief(compactJSON(tc.Arguments))})
		}
		items = append(items, it)
		for c := range it.Calls {
			open = append(open, ref{len(items) - 1, c})
		}
	}
	return items
}

// matches reports whether tool result m answers call c.
func matches(c callView, m result.Message) bool {
	if m.ToolCallID != "" && c.ID != "" {
		return m.ToolCallID == c.ID
	}
	return m.Name == "" || m.Name == c.Name
}

// prettyJSON renders v indented; a value that does not encode is shown
// as Go would print it.
func prettyJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the template escapes
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "(unencodable arguments)"
	}
	return strings.TrimSpace(buf.String())
}

// compactJSON renders v on one line.
func compactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "?"
	}
	return strings.TrimSpace(buf.String())
}

// newBreakdown explains the simulation's reward basis by basis.
func newBreakdown(sim *result.Simulation) breakdown {
	info := sim.RewardInfo
	b := breakdown{Info: info, Termination: string(sim.TerminationReason), Rewardable: sim.TerminationReason.Rewardable(), Error: sim.Error}
	for _, basis := range info.RewardBasis {
		score, scored := info.RewardBreakdown[basis]
		b.Bases = append(b.Bases, basisRow{Name: string(basis), Score: score, Scored: scored, Passed: !scored || result.Passed(score),
			AddedByStrict: slices.Contains(info.AddedByStrict, basis)})
	}
	calls := allCalls(sim.Messages)
	for _, ac := range info.ActionChecks {
		row := actionRow{ActionCheck: ac, Args: prettyJSON(ac.Action.Arguments)}
		if ac.Action.CompareArgs != nil {
			row.CompareArgs = strings.Join(ac.Action.CompareArgs, ", ")
		}
		if !ac.ActionMatch {
			row.Actual = actualCalls(ac.Action, calls)
		}
		b.Actions = append(b.Actions, row)
	}
	return b
}

// allCalls lists the tool calls of a transcript, the message's requestor
// standing in for a call's own when it has none.
func allCalls(msgs []result.Message) []domains.ToolCall {
	var out []domains.ToolCall
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if tc.Requestor == "" {
				tc.Requestor = m.Requestor
			}
			out = append(out, tc)
		}
	}
	return out
}

// actualCalls lists the calls of the action's tool, each compared with
// the action's arguments (those of compare_args when it lists them).
func actualCalls(a domains.Action, calls []domains.ToolCall) []actualCall {
	names := a.CompareArgs
	if names == nil {
		names = slices.Sorted(maps.Keys(a.Arguments))
	}
	var out []actualCall
	for _, c := range calls {
		if c.Name != a.Name {
			continue
		}
		ac := actualCall{Requestor: c.Requestor, Args: prettyJSON(c.Arguments)}
		for _, n := range names {
			want := a.Arguments[n]
			gv, present := c.Arguments[n]
			ac.Diffs = append(ac.Diffs, argDiff{Name: n, Want: compactJSON(want), Got: compactJSON(gv), Missing: !present, Same: present && reflect.DeepEqual(want, gv)})
		}
		out = append(out, ac)
		if len(out) == maxActualCalls {
			break
		}
	}
	return out
}

// maxBrief is the length of a call's arguments on its summary line.
const maxBrief = 80

// brief cuts s to maxBrief runes.
func brief(s string) string {
	r := []rune(s)
	if len(r) <= maxBrief {
		return s
	}
	return string(r[:maxBrief-1]) + "…"
}
