package scoring

import (
	"strings"

	"github.com/proctor-eval/proctor/result"
)

// problemWords are what an agent's words to the user say when it tells
// them something went wrong.
func problemWords() []string {
	return []string{"error", "issue", "problem", "unable", "couldn't", "could not", "can't", "cannot", "try again",
		"sorry", "unavailable", "incomplete", "seems wrong", "doesn't match", "does not match", "not match", "inconsistent"}
}

// RobustnessOf scores how the agent met the corrupted tool results of sims
// (result.Message.Fault): after each, did it call the same tool again, or
// tell the user of a problem in its next words to them. Nil when no result
// was corrupted.
func RobustnessOf(sims []result.Simulation) *result.Robustness {
	var r result.Robustness
	r.ByKind = map[string]int{}
	for i := range sims {
		robustnessOfOne(sims[i].Messages, &r)
	}
	if r.Faults == 0 {
		return nil
	}
	r.HandledShare = round6(float64(r.Handled) / float64(r.Faults))
	return &r
}

func robustnessOfOne(messages []result.Message, r *result.Robustness) {
	for i, m := range messages {
		if m.Role != result.RoleTool || m.Fault == "" {
			continue
		}
		r.Faults++
		r.ByKind[string(m.Fault)]++
		rechecked, told := afterFault(messages[i+1:], m.Name)
		if rechecked {
			r.Rechecked++
		}
		if told {
			r.ToldUser++
		}
		if rechecked || told {
			r.Handled++
		}
	}
}

// afterFault reads what the agent did after a corrupted result of tool:
// whether it called tool again, and whether its next words to the user
// (its first message with text) spoke of a problem.
func afterFault(rest []result.Message, tool string) (rechecked, told bool) {
	spoke := false
	for _, m := range rest {
		if m.Role != result.RoleAssistant || m.Requestor != "" || m.Interim {
			continue
		}
		for _, c := range m.ToolCalls {
			if c.Name == tool {
				rechecked = true
			}
		}
		if !spoke && strings.TrimSpace(m.Content) != "" {
			spoke = true
			text := strings.ToLower(m.Content)
			for _, w := range problemWords() {
				if strings.Contains(text, w) {
					told = true
					break
				}
			}
		}
	}
	return rechecked, told
}
