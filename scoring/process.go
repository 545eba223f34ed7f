package scoring

import (
	"encoding/json"
	"strings"

	"github.com/proctor-eval/proctor/result"
)

// isRead says whether a tool, by its name, only reads: its name starts
// with one of the verbs of reading tools in tau2's domains and most
// others. Any other tool is taken to change state.
func isRead(name string) bool {
	n := strings.ToLower(name)
	for _, p := range []string{"get", "find", "search", "list", "check", "calculate", "lookup", "read", "fetch", "query", "show", "view", "think", "transfer_to_human"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// ProcessOf measures how the agent worked in sims (see result.Process).
func ProcessOf(sims []result.Simulation) result.Process {
	var p result.Process
	passed, turns, requests, tokens := 0, 0, 0, int64(0)
	for i := range sims {
		s := &sims[i]
		tokens += s.Metrics.InputTokens + s.Metrics.OutputTokens
		processOfOne(s, &p)
		if s.Passed() {
			passed++
			turns += lastTurn(s.Messages)
			requests += s.Metrics.Requests
		}
	}
	if passed > 0 {
		p.TurnsToSuccess = round6(float64(turns) / float64(passed))
		p.RequestsToSuccess = round6(float64(requests) / float64(passed))
		p.TokensPerSuccess = round6(float64(tokens) / float64(passed))
	}
	if p.ToolCalls > 0 {
		p.ToolErrorRate = round6(float64(p.ToolErrors) / float64(p.ToolCalls))
	}
	return p
}

// processOfOne adds one simulation's tool calls to p.
func processOfOne(s *result.Simulation, p *result.Process) {
	seen := map[string]bool{}
	pendingWrites := 0
	for _, m := range s.Messages {
		if m.History || m.Requestor != "" {
			continue
		}
		switch m.Role {
		case result.RoleAssistant:
			for _, c := range m.ToolCalls {
				p.ToolCalls++
				args, _ := json.Marshal(c.Arguments)
				key := c.Name + "\x00" + string(args)
				if seen[key] {
					p.RepeatedCalls++
				}
				seen[key] = true
				if isRead(c.Name) {
					pendingWrites = 0
				} else {
					pendingWrites++
				}
			}
		case result.RoleTool:
			if m.Error { // the agent's: the user's and the history's are skipped above
				p.ToolErrors++
			}
		}
	}
	p.UnverifiedWrites += pendingWrites
}

// lastTurn is the turn of a transcript's last message.
func lastTurn(messages []result.Message) int {
	if len(messages) == 0 {
		return 0
	}
	return messages[len(messages)-1].Turn
}
