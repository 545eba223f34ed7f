package rollout

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/proctor-eval/proctor/domains"
)

// UserPrompt names the system prompt an LLM user simulator speaks from.
type UserPrompt string

// The user prompts.
const (
	// UserPromptTau2 is tau2-bench's own user simulator: its guideline text
	// (tau2user/*.md, MIT), its scenario layout, raw tool results and
	// temperature 0 unless set. Scores are comparable with tau2's. The
	// guidelines are the tau2 data's copy when it has one (LoadTau2Guidelines).
	UserPromptTau2 UserPrompt = "tau2"
	// UserPromptProctor is proctor's own, shorter prompt.
	UserPromptProctor UserPrompt = "proctor"
)

// ParseUserPrompt reads a user prompt name; "" is UserPromptTau2.
func ParseUserPrompt(s string) (UserPrompt, error) {
	switch p := UserPrompt(strings.TrimSpace(s)); p {
	case "":
		return UserPromptTau2, nil
	case UserPromptTau2, UserPromptProctor:
		return p, nil
	}
	return "", fmt.Errorf("unknown user prompt %q: use %q or %q", s, UserPromptTau2, UserPromptProctor)
}

//go:embed tau2user/simulation_guidelines.md
var tau2Guidelines string

//go:embed tau2user/simulation_guidelines_tools.md
var tau2GuidelinesTools string

// systemPrompt is tau2's UserSimulator.system_prompt: the guidelines
// (with tools or without) and the scenario as str(task.user_scenario).
func (tg *Tau2Guidelines) systemPrompt(scenario string, withTools bool) string {
	g := tg.plain
	if withTools {
		g = tg.tools
	}
	g = strings.ReplaceAll(g, "<PERSONA_GUIDELINES>", "")
	return g + "\n\n<scenario>\n" + scenario + "\n</scenario>"
}

// tau2Scenario is str(UserScenario) of tau2: "Persona:" and "Instructions:"
// with their text indented by a tab; structured instructions as
// StructuredUserInstructions.__str__ lays them out.
func tau2Scenario(s domains.UserScenario) (string, error) {
	var lines []string
	if s.Persona != "" {
		lines = append(lines, "Persona:", pyIndent(s.Persona, "\t"))
	}
	var text string
	switch in := s.Instructions.(type) {
	case string:
		text = in
	case map[string]any:
		var err error
		if text, err = tau2StructuredInstructions(in); err != nil {
			return "", err
		}
	default:
		return "", fmt.Errorf("user instructions of type %T: tau2 expects a string or an object", in)
	}
	lines = append(lines, "Instructions:", pyIndent(text, "\t"))
	return strings.Join(lines, "\n"), nil
}

func tau2StructuredInstructions(in map[string]any) (string, error) {
	field := func(k string, required bool) (string, bool, error) {
		v, ok := in[k]
		if !ok || v == nil {
			if required {
				return "", false, fmt.Errorf("user instructions lack %q", k)
			}
			return "", false, nil
		}
		s, ok := v.(string)
		if !ok {
			return "", false, fmt.Errorf("user instructions' %q is %T, not a string", k, v)
		}
		return s, true, nil
	}
	var lines []string
	for _, f := range []struct {
		key, title string
		required   bool
	}{{"domain", "Domain", true}, {"reason_for_call", "Reason for call", true}, {"known_info", "Known info", false},
		{"unknown_info", "Unknown info", false}, {"task_instructions", "Task instructions", true}} {
		v, ok, err := field(f.key, f.required)
		if err != nil {
			return "", err
		}
		switch {
		case !ok:
		case f.key == "domain":
			lines = append(lines, "Domain: "+v)
		default:
			lines = append(lines, f.title+":\n"+pyIndent(v, "\t"))
		}
	}
	return strings.Join(lines, "\n"), nil
}

// pyIndent is Python's textwrap.indent: prefix every line (as
// str.splitlines(keepends=True) splits) that is not only whitespace.
func pyIndent(text, prefix string) string {
	var b strings.Builder
	for _, line := range pySplitLinesKeepEnds(text) {
		if strings.TrimSpace(line) != "" {
			b.WriteString(prefix)
		}
		b.WriteString(line)
	}
	return b.String()
}

// pySplitLinesKeepEnds is Python's str.splitlines(keepends=True).
func pySplitLinesKeepEnds(s string) []string {
	var out []string
	start := 0
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '\r':
			if i+1 < len(rs) && rs[i+1] == '\n' {
				i++
			}
		case '\n', '\v', '\f', '\x1c', '\x1d', '\x1e', '\u0085', '\u2028', '\u2029':
		default:
			continue
		}
		out = append(out, string(rs[start:i+1]))
		start = i + 1
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	return out
}
