package ui

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

// Outcomes and checks the evaluation page's simulations can be filtered on.
const (
	outcomePassed = "passed"
	outcomeFailed = "failed"
	// checkError is a simulation that ended in an error rather than a
	// failed check.
	checkError = "error"
)

// simFilter is what the evaluation page's search form asks for: every
// field empty shows every simulation.
type simFilter struct {
	Outcome, Termination, Check, Text string
}

// active reports whether the filter leaves any simulation out.
func (f simFilter) active() bool { return f != simFilter{} }

// filterChecks are the checks a simulation can fail, as the form offers
// them.
func filterChecks() []string {
	return []string{string(domains.BasisDB), string(domains.BasisAction), string(domains.BasisCommunicate),
		string(domains.BasisNLAssertion), string(domains.BasisEnvAssertion), checkError}
}

// readSimFilter reads the evaluation page's query, refusing values the
// form does not offer.
func readSimFilter(r *http.Request) (simFilter, error) {
	var f simFilter
	for name, dst := range map[string]*string{"outcome": &f.Outcome, "termination": &f.Termination, "check": &f.Check, "q": &f.Text} {
		v, err := param(r, name)
		if err != nil {
			return f, err
		}
		*dst = v
	}
	if f.Outcome != "" && f.Outcome != outcomePassed && f.Outcome != outcomeFailed {
		return f, fmt.Errorf("outcome %q: want passed or failed", f.Outcome)
	}
	if f.Check != "" && !slices.Contains(filterChecks(), f.Check) {
		return f, fmt.Errorf("check %q: want one of %s", f.Check, strings.Join(filterChecks(), ", "))
	}
	return f, nil
}

// matches reports whether s is one the filter asks for.
func (f simFilter) matches(s *result.Simulation) bool {
	switch {
	case f.Outcome == outcomePassed && !s.Passed(), f.Outcome == outcomeFailed && s.Passed():
		return false
	case f.Termination != "" && string(s.TerminationReason) != f.Termination:
		return false
	case f.Check != "" && !failedCheck(s, f.Check):
		return false
	}
	return f.Text == "" || containsText(s, strings.ToLower(f.Text))
}

// failedCheck reports whether s failed check (a reward basis, or error).
func failedCheck(s *result.Simulation, check string) bool {
	if check == checkError {
		return s.Error != ""
	}
	score, scored := s.RewardInfo.RewardBreakdown[domains.Basis(check)]
	return scored && !result.Passed(score)
}

// containsText reports whether s's task, id, error or any message holds
// text (lower case), ignoring case.
func containsText(s *result.Simulation, text string) bool {
	has := func(v string) bool { return strings.Contains(strings.ToLower(v), text) }
	if has(s.ID) || has(s.Error) {
		return true
	}
	for _, m := range s.Messages {
		if has(m.Content) {
			return true
		}
		for _, tc := range m.ToolCalls {
			if has(tc.Name) || has(compactJSON(tc.Arguments)) {
				return true
			}
		}
	}
	return false
}
