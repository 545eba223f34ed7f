package scoring

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"google.golang.org/adk/model"
	"google.golang.org/genai"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/result"
)

// factPattern finds what a user can state as a fact and a checker can
// trace: e-mail addresses, identifiers mixing letters and digits
// ("EHGLP3", "emma_kim_9957") and numbers of three digits or more.
var factPattern = regexp.MustCompile(`[\w.+-]+@[\w-]+\.[\w.]+|\b[\w-]*\d[\w-]*\b`)

// facts lists the traceable facts in s, as written, without repeats
// (compared regardless of case).
func facts(s string) []string {
	var out []string
	for _, f := range factPattern.FindAllString(s, -1) {
		f = strings.Trim(f, ".-")
		if !isFact(strings.ToLower(f)) || slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, f) }) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// isFact keeps identifiers and long numbers, not "3" or "2nd".
func isFact(f string) bool {
	if strings.Contains(f, "@") {
		return true
	}
	digits, letters := 0, 0
	for _, r := range f {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'a' && r <= 'z':
			letters++
		}
	}
	if letters == 0 {
		return digits >= 3
	}
	return digits > 0 && len(f) >= 5
}

// scenarioText is every string of a user scenario's instructions and
// persona, and known the instructions' known_info alone (tau2's form), or
// nothing when the instructions are plain text.
func scenarioText(s domains.UserScenario) (all, known string) {
	var b strings.Builder
	b.WriteString(s.Persona)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString("\n" + v)
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) { // in one order: the auditor's prompt must repeat
				walk(v[k])
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(s.Instructions)
	if m, ok := s.Instructions.(map[string]any); ok {
		known, _ = m["known_info"].(string)
	}
	return b.String(), known
}

// CheckUser runs the deterministic checks of a user simulator's conduct
// on one conversation (see result.UserCheck): what it ended on, the facts
// it stated that nothing in its scenario or the agent's words gave it, and
// the known identifiers it never gave although it answered the agent's
// questions.
func CheckUser(task *domains.Task, sim *result.Simulation) []result.UserFlag {
	all, known := scenarioText(task.UserScenario)
	seen := strings.ToLower(all)
	var flags []result.UserFlag
	stated := map[string]bool{}
	question, asked := false, false // the agent's last words asked; the user replied to a question
	for _, m := range sim.Messages {
		switch {
		case m.Role == result.RoleAssistant && !m.Interim:
			seen += "\n" + strings.ToLower(m.Content)
			question = strings.Contains(m.Content, "?")
		case m.Role == result.RoleUser && m.Requestor == "" && !m.History:
			asked = asked || question
			for _, f := range facts(m.Content) {
				stated[strings.ToLower(f)] = true
				if !strings.Contains(seen, strings.ToLower(f)) {
					flags = append(flags, result.UserFlag{Check: result.UserInventedFact, Turn: m.Turn,
						Detail: fmt.Sprintf("said %q, which neither its scenario nor the agent gave it", f)})
				}
			}
			seen += "\n" + strings.ToLower(m.Content)
		}
	}
	if f, ok := endedUnanswered(sim); ok {
		flags = append(flags, f)
	}
	for _, f := range facts(known) {
		if asked && !stated[strings.ToLower(f)] {
			flags = append(flags, result.UserFlag{Check: result.UserWithheldInfo,
				Detail: fmt.Sprintf("never gave %q, which its scenario told it (known_info), although it answered the agent's questions", f)})
		}
	}
	return flags
}

// endedUnanswered flags a user that stopped right after an agent message
// that asked a question.
func endedUnanswered(sim *result.Simulation) (result.UserFlag, bool) {
	if sim.TerminationReason != result.TermUserStop {
		return result.UserFlag{}, false
	}
	var lastAgent string
	for i := len(sim.Messages) - 1; i >= 0; i-- {
		m := sim.Messages[i]
		if m.Role == result.RoleAssistant && !m.Interim && m.Content != "" {
			lastAgent = m.Content
			break
		}
		if m.Role == result.RoleUser && i < len(sim.Messages)-1 {
			return result.UserFlag{}, false // the user answered after the agent's last words
		}
	}
	q := strings.TrimSpace(lastAgent)
	if !strings.HasSuffix(q, "?") {
		return result.UserFlag{}, false
	}
	turn := sim.Messages[len(sim.Messages)-1].Turn
	return result.UserFlag{Check: result.UserEndedUnanswered, Turn: turn,
		Detail: fmt.Sprintf("ended the conversation on the agent's question %q", lastSentence(q))}, true
}

// lastSentence is the end of s, from its last sentence break.
func lastSentence(s string) string {
	if i := strings.LastIndexAny(strings.TrimSuffix(s, "?"), ".!?\n"); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	if r := []rune(s); len(r) > 160 {
		s = string(r[:159]) + "…"
	}
	return s
}

// UserAuditor is an LLM that reads a scenario and the user's turns and says
// where the user simulator deviated from it.
type UserAuditor struct{ Model model.LLM }

const auditSystemPrompt = `You audit a user simulator. It was told to play a customer following a scenario, and talked with a customer-service agent. You get the scenario and the conversation. Say where the simulated customer deviated from its scenario: stated facts it was not given, withheld information it was told to give, ignored instructions, or ended the conversation early. Then say whether those deviations could have changed whether the agent succeeded.

Answer with one JSON object and nothing else:
{"deviations": ["one sentence each, naming the turn"], "could_change_outcome": true or false, "reasoning": "one or two sentences"}`

// Audit asks the model about one conversation. An error of the model's is
// returned; a reply that cannot be read is reported in the verdict.
func (a UserAuditor) Audit(ctx context.Context, task *domains.Task, sim *result.Simulation) (*result.AuditorVerdict, error) {
	all, _ := scenarioText(task.UserScenario)
	var b strings.Builder
	fmt.Fprintf(&b, "<scenario>\n%s\n</scenario>\n\n<conversation>\n", strings.TrimSpace(all))
	for _, m := range sim.Messages {
		switch {
		case m.Role == result.RoleUser && m.Content != "":
			fmt.Fprintf(&b, "[turn %d] customer: %s\n", m.Turn, m.Content)
		case m.Role == result.RoleAssistant && m.Content != "" && !m.Interim:
			fmt.Fprintf(&b, "[turn %d] agent: %s\n", m.Turn, m.Content)
		}
	}
	b.WriteString("</conversation>")
	content, err := llm.Generate(llm.WithCallKey(ctx, "audit"), a.Model, &model.LLMRequest{
		Contents: []*genai.Content{genai.NewContentFromText(b.String(), genai.RoleUser)},
		Config: &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(auditSystemPrompt, genai.RoleUser),
			ResponseMIMEType: "application/json"}})
	if err != nil {
		return nil, fmt.Errorf("user auditor: %w", err)
	}
	_, text := llm.SplitContent(content)
	var v result.AuditorVerdict
	obj, _ := jsonObject(text)
	if err := json.Unmarshal([]byte(obj), &v); err != nil {
		return &result.AuditorVerdict{Error: fmt.Sprintf("unreadable reply (%v)", err)}, nil
	}
	if v.Deviations == nil {
		v.Deviations = []string{}
	}
	return &v, nil
}

// jsonObject is a model's reply from its first "{" to its last "}",
// dropping the fences and prose around the object; ok is false when it
// has none (s is then returned whole).
func jsonObject(s string) (string, bool) {
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return s, false
	}
	return s[i : j+1], true
}
