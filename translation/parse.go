package translation

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
)

// Limits that keep parsing cheap on huge or hostile replies.
const (
	// maxJSONText is the longest reply text searched for JSON; longer
	// text is plain text to the user.
	maxJSONText = 2 << 20
	// maxCandidates is how many JSON candidates are decoded per reply.
	maxCandidates = 32
	// maxJSONDepth is the deepest nesting of objects and arrays accepted in
	// a candidate (and in a data part).
	maxJSONDepth = 64
	// maxDataNodes bounds the values walked in one data part.
	maxDataNodes = 100_000
	// maxToolCalls is the most calls one reply may make; a reply with more
	// is not recognised as calls.
	maxToolCalls = 128
)

// ParseReply parses an agent's reply, whatever profile it was told: text
// parts are searched for a tool call in JSON (the whole text, fenced code
// blocks, <json> tags, then objects embedded in prose) and data parts are
// checked for tool-call objects. Anything unrecognised is plain text to the
// user. File, URL and raw parts are ignored. ParseReply never panics and its
// work is roughly linear in the size of the reply.
//
// Recognised shapes are {"name": N, "arguments": {...}} (or "kwargs" or
// "args", as function-call data parts of tRPC-Agent-Go and ADK have it),
// {"tool_call": {...}}, {"tool_calls": [...]} (including OpenAI-style items
// {"id", "type": "function", "function": {"name", "arguments": "<json>"}}),
// and a JSON array of calls. A call of the [RespondTool] pseudo-tool is not
// a tool call: its content becomes [agent.Reply.Text]. Neither is a tool
// definition in OpenAI format ({"type": "function", "function": {"name",
// "parameters"}} without arguments), as an agent quoting its tools writes.
//
// Once a call shape is recognised, the prose around it is not for the user:
// [agent.Reply.Text] then holds only what respond calls (or an OpenAI-style
// "content" next to "tool_calls") say. Format is "json" for JSON that is the
// whole text or embedded in prose, "fenced_json" and "json_tag" for JSON in
// a code block or <json> tag, "text" when nothing was recognised.
//
// When data parts carry a recognised shape, Format is "data_part": their
// calls are the reply's calls (calls in the text are then ignored, as
// agents often echo them), and the text parts only contribute text.
func ParseReply(parts []*a2a.Part) agent.Reply {
	var texts []string
	var data []any
	for _, p := range parts {
		if p == nil {
			continue
		}
		switch c := p.Content.(type) {
		case a2a.Text:
			texts = append(texts, string(c))
		case a2a.Data:
			if c.Value != nil {
				data = append(data, c.Value)
			}
		}
	}
	r := parseText(strings.TrimSpace(strings.Join(texts, "\n")))
	if d, ok := parseData(data); ok {
		calls := d.calls
		if len(calls) == 0 {
			calls = r.ToolCalls
		}
		r = agent.Reply{
			Text:      joinTexts(append(d.texts, r.Text)),
			ToolCalls: calls,
			Format:    agent.ReplyFormatDataPart,
		}
	}
	assignIDs(r.ToolCalls)
	return r
}

// parsed is what a recognised candidate holds: the tool calls, in order,
// and the contents of its respond calls.
type parsed struct {
	calls []domains.ToolCall
	texts []string
	// decoded says the value was just decoded from the reply's text (by
	// decodeLiterals): its numbers are json.Number already and nothing
	// else holds its maps, so its arguments need no literalNumbers copy.
	decoded bool
}

func (p parsed) reply(format agent.ReplyFormat) agent.Reply {
	return agent.Reply{Text: joinTexts(p.texts), ToolCalls: p.calls, Format: format}
}

func joinTexts(texts []string) string {
	keep := make([]string, 0, len(texts))
	for _, t := range texts {
		if t = strings.TrimSpace(t); t != "" {
			keep = append(keep, t)
		}
	}
	return strings.Join(keep, "\n")
}

// recognise reports whether a decoded JSON value is a tool-call shape;
// decoded is parsed.decoded.
func recognise(v any, decoded bool) (parsed, bool) {
	p := parsed{decoded: decoded}
	switch t := v.(type) {
	case []any:
		if len(t) == 0 || len(t) > maxToolCalls {
			return p, false
		}
		for _, item := range t {
			m, ok := item.(map[string]any)
			if !ok || !p.addCall(m, false) {
				return p, false
			}
		}
		return p, true
	case map[string]any:
		if tc, ok := t["tool_calls"]; ok {
			items, ok := tc.([]any)
			if !ok || len(items) > maxToolCalls {
				return p, false
			}
			p.addContent(t)
			for _, item := range items {
				m, ok := item.(map[string]any)
				if !ok || !p.addCall(m, true) {
					return p, false
				}
			}
			return p, len(p.calls)+len(p.texts) > 0
		}
		if tc, ok := t["tool_call"]; ok {
			m, ok := tc.(map[string]any)
			if !ok {
				return p, false
			}
			p.addContent(t)
			return p, p.addCall(m, true)
		}
		return p, p.addCall(t, false)
	}
	return p, false
}

// addContent keeps the text an OpenAI-style message carries next to its
// tool calls ({"content": "...", "tool_calls": [...]}).
func (p *parsed) addContent(m map[string]any) {
	if s, ok := m["content"].(string); ok && strings.TrimSpace(s) != "" {
		p.texts = append(p.texts, s)
	}
}

// addCall adds one call object. Outside a tool_call/tool_calls wrapper
// (lenient false) the object must carry "arguments", "kwargs" or "args" (or an
// OpenAI "function"), so that ordinary JSON with a "name" field is not
// mistaken for a call. An OpenAI "function" with "parameters" but no
// arguments is a tool definition, as in the tools a profile lists, not a
// call: an agent that quotes its tool list calls nothing.
func (p *parsed) addCall(m map[string]any, lenient bool) bool {
	src := m
	fn, isFunction := m["function"].(map[string]any)
	if isFunction {
		src, lenient = fn, true
	}
	var rawArgs any
	hasArgs := false
	for _, key := range argumentKeys {
		if rawArgs, hasArgs = src[key]; hasArgs {
			break
		}
	}
	if _, hasParams := src["parameters"]; isFunction && hasParams && !hasArgs {
		return false
	}
	if !hasArgs && !lenient {
		return false
	}
	name, ok := src["name"].(string)
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return false
	}
	args, ok := toArguments(rawArgs)
	if !ok {
		return false
	}
	if !p.decoded {
		args = literalNumbers(args).(map[string]any)
	}
	if name == RespondTool {
		text, ok := respondText(args)
		if ok {
			p.texts = append(p.texts, text)
		}
		return ok
	}
	if len(p.calls) >= maxToolCalls {
		return false
	}
	p.calls = append(p.calls, domains.ToolCall{ID: callID(m), Name: name, Arguments: args})
	return true
}

// argumentKeys name a call's arguments, by precedence: "arguments"
// (OpenAI), "kwargs", and "args", which the function-call data parts of
// tRPC-Agent-Go's server/a2a ({"id", "type": "function", "name", "args":
// "<json>"}) and ADK's ({"id", "name", "args": {...}}) carry.
var argumentKeys = []string{"arguments", "kwargs", "args"}

// toArguments accepts an object, a JSON-encoded object, or nothing.
func toArguments(v any) (map[string]any, bool) {
	switch a := v.(type) {
	case nil:
		return map[string]any{}, true
	case map[string]any:
		if a == nil {
			a = map[string]any{}
		}
		return a, true
	case string:
		s := strings.TrimSpace(a)
		if s == "" {
			return map[string]any{}, true
		}
		if s[0] != '{' || !depthWithin(s, maxJSONDepth) {
			return nil, false
		}
		var m map[string]any
		if err := decodeLiterals(s, &m); err != nil {
			return nil, false
		}
		if m == nil {
			m = map[string]any{}
		}
		return m, true
	}
	return nil, false
}

// respondText is the message of a respond call: arguments.content, or
// arguments.message / arguments.text when content is absent.
func respondText(args map[string]any) (string, bool) {
	for _, k := range []string{"content", "message", "text"} {
		if s, ok := args[k].(string); ok {
			return strings.TrimSpace(s), true
		}
	}
	return "", false
}

func callID(m map[string]any) string {
	for _, k := range []string{"id", "call_id"} {
		if s, ok := m[k].(string); ok {
			if s = strings.TrimSpace(s); s != "" {
				return s
			}
		}
	}
	return ""
}

// assignIDs gives every call an ID unique within the reply: the agent's own
// when it gave one (first use wins), else "call-<position>".
func assignIDs(calls []domains.ToolCall) {
	used := make(map[string]bool, len(calls))
	for i := range calls {
		if id := calls[i].ID; id != "" && !used[id] {
			used[id] = true
		} else {
			calls[i].ID = ""
		}
	}
	for i := range calls {
		if calls[i].ID != "" {
			continue
		}
		id := "call-" + strconv.Itoa(i+1)
		for n := 2; used[id]; n++ {
			id = fmt.Sprintf("call-%d-%d", i+1, n)
		}
		used[id] = true
		calls[i].ID = id
	}
}

// parseData checks data parts for tool calls. It reports whether any data
// part held a recognised shape.
func parseData(values []any) (parsed, bool) {
	var all parsed
	found := false
	for _, v := range values {
		g, ok := genericJSON(v)
		if !ok {
			continue
		}
		if p, ok := recognise(g, false); ok {
			if len(all.calls)+len(p.calls) > maxToolCalls {
				continue
			}
			all.calls = append(all.calls, p.calls...)
			all.texts = append(all.texts, p.texts...)
			found = true
		}
	}
	return all, found
}

// genericJSON returns a data value as generic JSON (maps, slices, strings,
// float64, bools, nil) within the depth and size limits. Values that arrived
// over the wire already are; other Go values go through encoding/json.
func genericJSON(v any) (out any, ok bool) {
	nodes := 0
	switch walkGeneric(v, 0, &nodes) {
	case walkOK:
		return v, true
	case walkTooBig:
		return nil, false
	}
	defer func() {
		// A foreign value's MarshalJSON may panic; the reply then simply
		// has no data-part calls.
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	raw, err := json.Marshal(v)
	if err != nil || len(raw) > maxJSONText || !depthWithin(string(raw), maxJSONDepth) {
		return nil, false
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, false
	}
	return out, true
}

type walkResult int

const (
	walkOK      walkResult = iota
	walkForeign            // holds a non-generic Go value
	walkTooBig             // too deep or too many values
)

func walkGeneric(v any, depth int, nodes *int) walkResult {
	*nodes++
	if *nodes > maxDataNodes || depth > maxJSONDepth {
		return walkTooBig
	}
	switch t := v.(type) {
	case nil, string, float64, bool, json.Number:
		return walkOK
	case map[string]any:
		for _, e := range t {
			if r := walkGeneric(e, depth+1, nodes); r != walkOK {
				return r
			}
		}
		return walkOK
	case []any:
		for _, e := range t {
			if r := walkGeneric(e, depth+1, nodes); r != walkOK {
				return r
			}
		}
		return walkOK
	}
	return walkForeign
}
