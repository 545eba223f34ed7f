package refagent

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/translation"
)

// The agent speaks the three message profiles of package translation. The
// profile of a conversation is detected from its first message and kept in
// the conversation's state; only the framing of messages and replies
// differs between profiles, the rules are the same.
//
// A conversation whose first message was not recognised (say, a context
// that was forgotten) is taken to be in the default profile, agentbeats.

// message is an incoming A2A message reduced to what the parsers read.
type message struct {
	// text is the message's text parts joined by newlines, with CRLF line
	// ends turned into LF.
	text string
	// data are the message's data parts that hold a JSON object, in order.
	data []map[string]json.RawMessage
}

// readMessage reads the text and data parts of a message; other parts are
// ignored.
func readMessage(parts []*a2a.Part) message {
	var m message
	var texts []string
	for _, p := range parts {
		if p == nil {
			continue
		}
		switch c := p.Content.(type) {
		case a2a.Text:
			if c != "" {
				texts = append(texts, string(c))
			}
		case a2a.Data:
			if obj, ok := jsonObject(c.Value); ok {
				m.data = append(m.data, obj)
			}
		}
	}
	m.text = strings.ReplaceAll(strings.Join(texts, "\n"), "\r\n", "\n")
	return m
}

// jsonObject returns v, the value of a data part, as a JSON object. Data
// part values are map[string]any after any transport, but a value made in
// process may be any type that encodes as a JSON object.
func jsonObject(v any) (map[string]json.RawMessage, bool) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, false
	}
	return obj, true
}

// parseFirst recognises the first message of a conversation and the profile
// it is framed in:
//
//   - structured: a data part with the policy and the tools
//     (translation.SetupPolicyKey, translation.SetupToolsKey; the
//     reply format is not needed); the text parts are the user's words.
//   - tau2-a2a: text with the policy between <policy> and </policy>, then
//     the user's words, then the tools in an <available_tools> block (see
//     [parseTau2First]).
//   - agentbeats: any other text with a <policy> marker (see [parseInput]).
//
// It reports false for a message that does not open a conversation.
func parseFirst(m message) (input, bool) {
	for _, d := range m.data {
		if in, ok := parseStructuredSetup(d); ok {
			in.User = strings.TrimSpace(m.text)
			return in, true
		}
	}
	if !strings.Contains(m.text, policyOpen) {
		return input{}, false
	}
	if in, ok := parseTau2First(m.text); ok {
		return in, true
	}
	in := parseInput(m.text)
	in.Profile = agent.ProfileAgentBeats
	return in, true
}

// parseLater reads a message of a conversation that is under way in the
// given profile.
func parseLater(m message, profile agent.ProfileName) input {
	switch profile {
	case agent.ProfileTau2A2A, agent.ProfileStructured:
		return parseResultsOrUser(m)
	}
	return parseInput(m.text)
}

// parseStructuredSetup reads the setup data part of the structured
// profile's first message.
func parseStructuredSetup(d map[string]json.RawMessage) (input, bool) {
	rawPolicy, okPolicy := d[translation.SetupPolicyKey]
	rawTools, okTools := d[translation.SetupToolsKey]
	if !okPolicy || !okTools {
		return input{}, false
	}
	in := input{First: true, Profile: agent.ProfileStructured}
	_ = json.Unmarshal(rawPolicy, &in.Policy) // a policy that is not a string is left empty
	in.Policy = strings.TrimSpace(in.Policy)
	in.Tools = toolNames(string(rawTools))
	return in, true
}

var (
	toolsOpenRE  = regexp.MustCompile(`(?m)^[ \t]*` + regexp.QuoteMeta(translation.AvailableToolsOpen) + `[ \t]*$`)
	toolsCloseRE = regexp.MustCompile(`(?m)^[ \t]*` + regexp.QuoteMeta(translation.AvailableToolsClose) + `[ \t]*$`)
)

// parseTau2First reads the first message of the tau2-a2a profile: the
// policy between <policy> and </policy>, the user's words, the tools as a
// JSON array between lines <available_tools> and </available_tools>, and
// the reply instructions. The tool list is the last such block, so the
// user's words are everything between the policy and it.
//
// An agentbeats first message whose user's words hold an <available_tools>
// block is not mistaken for one: there the tool list (a JSON array) comes
// before the first "User message:" line, and no <available_tools> line
// does.
func parseTau2First(text string) (input, bool) {
	i := strings.Index(text, policyOpen)
	if i < 0 {
		return input{}, false
	}
	rest := text[i+len(policyOpen):]
	j := strings.Index(rest, policyClose)
	if j < 0 {
		return input{}, false
	}
	after := rest[j+len(policyClose):]
	opens := toolsOpenRE.FindAllStringIndex(after, -1)
	if len(opens) == 0 {
		return input{}, false
	}
	if u := userLineRE.FindStringIndex(after); u != nil && u[0] < opens[0][0] && toolNames(after[:u[0]]) != nil {
		return input{}, false // agentbeats
	}
	open := opens[len(opens)-1]
	block := after[open[1]:]
	end := toolsCloseRE.FindStringIndex(block)
	if end == nil {
		return input{}, false
	}
	return input{
		First:   true,
		Profile: agent.ProfileTau2A2A,
		Policy:  strings.TrimSpace(rest[:j]),
		Tools:   toolNames(block[:end[0]]),
		User:    strings.TrimSpace(after[:open[0]]),
	}, true
}

// parseResultsOrUser reads a later message of the tau2-a2a or structured
// profile: tool results, as the object {"tool_results": [...]} in a data
// part or as the text of the message, or else the user's words. Text that
// follows a tool results object is the user's words.
func parseResultsOrUser(m message) input {
	var in input
	for _, d := range m.data {
		if rs, ok := resultsOf(d); ok {
			in.Results = append(in.Results, rs...)
		}
	}
	text := strings.TrimSpace(m.text)
	if len(in.Results) == 0 && strings.HasPrefix(text, "{") {
		dec := json.NewDecoder(strings.NewReader(text))
		var obj map[string]json.RawMessage
		if err := dec.Decode(&obj); err == nil {
			if rs, ok := resultsOf(obj); ok {
				in.Results = rs
				text = strings.TrimSpace(text[dec.InputOffset():])
			}
		}
	}
	in.User = text
	return in
}

// resultsOf reads a tool results object (see translation.ToolResultsKey).
// A content that is not a string is taken as its JSON text.
func resultsOf(obj map[string]json.RawMessage) ([]toolResult, bool) {
	raw, ok := obj[translation.ToolResultsKey]
	if !ok {
		return nil, false
	}
	var items []struct {
		Name    string          `json:"name"`
		Content json.RawMessage `json:"content"`
		Error   bool            `json:"error"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, false
	}
	out := make([]toolResult, len(items))
	for k, it := range items {
		out[k] = toolResult{Name: it.Name, Error: it.Error}
		if err := json.Unmarshal(it.Content, &out[k].Content); err != nil && len(it.Content) > 0 && string(it.Content) != "null" {
			out[k].Content = string(it.Content)
		}
	}
	return out, true
}

// renderReply frames a reply of the rules in a profile:
//
//   - agentbeats: one text part, the JSON object {"name", "arguments"}, a
//     call of the respond pseudo-tool to talk to the user.
//   - tau2-a2a: one text part, the words for the user or the JSON object
//     {"tool_call": {"name", "arguments"}}.
//   - structured: one text part with the words for the user, or one data
//     part {"tool_calls": [{"name", "arguments"}]}.
func renderReply(profile agent.ProfileName, r reply) []*a2a.Part {
	if r.Arguments == nil {
		r.Arguments = map[string]any{}
	}
	text, speaks := r.Arguments["content"].(string)
	speaks = speaks && r.Name == respondTool
	switch profile {
	case agent.ProfileTau2A2A:
		if speaks {
			return []*a2a.Part{a2a.NewTextPart(text)}
		}
		b, err := json.Marshal(map[string]reply{translation.ToolCallKey: r})
		if err != nil { // arguments are strings and numbers: cannot happen
			return []*a2a.Part{a2a.NewTextPart("Sorry, something went wrong on my side.")}
		}
		return []*a2a.Part{a2a.NewTextPart(string(b))}
	case agent.ProfileStructured:
		if speaks {
			return []*a2a.Part{a2a.NewTextPart(text)}
		}
		// Only generic JSON values travel in a data part on every transport.
		args, ok := genericJSON(r.Arguments)
		if !ok {
			return []*a2a.Part{a2a.NewTextPart("Sorry, something went wrong on my side.")}
		}
		call := map[string]any{"name": r.Name, "arguments": args}
		return []*a2a.Part{a2a.NewDataPart(map[string]any{translation.ToolCallsKey: []any{call}})}
	}
	return []*a2a.Part{a2a.NewTextPart(r.JSON())}
}

// genericJSON converts v to generic JSON values (map[string]any, []any,
// string, float64, bool, nil).
func genericJSON(v any) (any, bool) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, false
	}
	return out, true
}

// partsText is the text of reply parts: text parts as they are and data
// parts as JSON, joined by newlines.
func partsText(parts []*a2a.Part) string {
	var texts []string
	for _, p := range parts {
		if p == nil {
			continue
		}
		switch c := p.Content.(type) {
		case a2a.Text:
			if c != "" {
				texts = append(texts, string(c))
			}
		case a2a.Data:
			if b, err := json.Marshal(c.Value); err == nil {
				texts = append(texts, string(b))
			}
		}
	}
	return strings.Join(texts, "\n")
}
