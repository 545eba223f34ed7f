package ui

import (
	"maps"
	"slices"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

// labeledText is one part of a user's instructions: its title and text.
type labeledText struct {
	Title, Text string
}

// expectedAction is one action the task expects, as the task panel
// lists it.
type expectedAction struct {
	Name, Requestor, Info string
	// Args is the arguments indented; CompareArgs names those compared
	// when the action compares only some.
	Args, CompareArgs string
	// Performed is set when the simulation's ACTION check says the
	// action was performed; Checked when it was checked at all.
	Performed, Checked bool
}

// taskView is the task a simulation played, shown beside its
// conversation as tau2's viewer does: what the user simulator was told
// and what the agent was expected to do.
type taskView struct {
	ID, Purpose, Persona, Ticket string
	Instructions                 []labeledText
	Actions                      []expectedAction
	Communicate, NLAssertions    []string
	// Note says why the user's instructions are not shown (the domain is
	// not available here); the expected actions then come from the
	// simulation's own ACTION checks.
	Note string
}

// instructionKey is a key of tau2's structured user instructions and
// its title.
type instructionKey struct{ key, title string }

// instructionKeys are tau2's structured user instructions, in the order
// its viewer shows them; other keys follow in alphabetical order.
func instructionKeys() []instructionKey {
	return []instructionKey{{"domain", "Domain"}, {"reason_for_call", "Reason for call"}, {"known_info", "Known info"},
		{"unknown_info", "Unknown info"}, {"task_instructions", "Task instructions"}}
}

// newTaskView shows task as sim played it: the actions' outcome comes
// from sim's ACTION checks.
func newTaskView(task *domains.Task, sim *result.Simulation) *taskView {
	v := &taskView{ID: task.ID, Persona: strings.TrimSpace(task.UserScenario.Persona), Instructions: instructionsOf(task.UserScenario.Instructions)}
	if d := task.Description; d != nil {
		v.Purpose = strings.TrimSpace(d.Purpose)
	}
	if task.Ticket != nil {
		v.Ticket = strings.TrimSpace(*task.Ticket)
	}
	if len(task.UserScenario.Script) > 0 {
		v.Instructions = append(v.Instructions, labeledText{"Script (said in order)", strings.Join(task.UserScenario.Script, "\n")})
	}
	if c := task.EvaluationCriteria; c != nil {
		for _, a := range c.Actions {
			v.Actions = append(v.Actions, expectedActionOf(a, sim.RewardInfo.ActionChecks))
		}
		v.Communicate, v.NLAssertions = c.CommunicateInfo, c.NLAssertions
	}
	return v
}

// taskFromChecks is the task panel without the task: the expected
// actions, communicated information and assertions the simulation's
// checks name; note says why the rest is missing.
func taskFromChecks(sim *result.Simulation, note string) *taskView {
	v := &taskView{ID: sim.TaskID, Note: note}
	checks := sim.RewardInfo.ActionChecks
	for _, ac := range checks {
		v.Actions = append(v.Actions, expectedActionOf(ac.Action, checks))
	}
	for _, c := range sim.RewardInfo.CommunicateChecks {
		v.Communicate = append(v.Communicate, c.Info)
	}
	for _, a := range sim.RewardInfo.NLAssertions {
		v.NLAssertions = append(v.NLAssertions, a.Assertion)
	}
	return v
}

// expectedActionOf shows action a with the outcome of its check among
// checks (matched by action id, else by name and arguments).
func expectedActionOf(a domains.Action, checks []result.ActionCheck) expectedAction {
	ea := expectedAction{Name: a.Name, Requestor: a.Requestor, Info: a.Info, Args: prettyJSON(a.Arguments)}
	if a.CompareArgs != nil {
		ea.CompareArgs = strings.Join(a.CompareArgs, ", ")
	}
	i := slices.IndexFunc(checks, func(c result.ActionCheck) bool {
		if a.ActionID != "" && c.Action.ActionID != "" {
			return a.ActionID == c.Action.ActionID
		}
		return c.Action.Name == a.Name && compactJSON(c.Action.Arguments) == compactJSON(a.Arguments)
	})
	if i >= 0 {
		ea.Checked, ea.Performed = true, checks[i].ActionMatch
	}
	return ea
}

// instructionsOf reads a user scenario's instructions: tau2's object
// (reason for call, known and unknown info, task instructions) part by
// part, or proctor's text as one part.
func instructionsOf(in any) []labeledText {
	switch x := in.(type) {
	case nil:
		return nil
	case map[string]any:
		var out []labeledText
		done := map[string]bool{}
		for _, k := range instructionKeys() {
			done[k.key] = true
			if t := instructionText(x[k.key]); t != "" {
				out = append(out, labeledText{k.title, t})
			}
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if t := instructionText(x[k]); !done[k] && t != "" {
				out = append(out, labeledText{strings.ReplaceAll(k, "_", " "), t})
			}
		}
		return out
	}
	if t := instructionText(in); t != "" {
		return []labeledText{{"Instructions", t}}
	}
	return nil
}

// instructionText is a part of the instructions as text: a string as it
// is, anything else as indented JSON.
func instructionText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(x)
	}
	return prettyJSON(v)
}
