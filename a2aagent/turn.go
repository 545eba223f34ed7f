package a2aagent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/evalset"
)

// Data-part kinds of the tool-call convention tRPC-Agent-Go and ADK share:
// the part's metadata "type" (tRPC) or "adk_type" (ADK, and tRPC in its
// ADK compatibility mode) names what the data is.
const (
	kindFunctionCall     = "function_call"
	kindFunctionResponse = "function_response"
)

// dataKind returns the kind a data part's metadata gives it ("adk_type"
// first, as tRPC-Agent-Go reads it), or "" for another part.
func dataKind(p *a2a.Part) string {
	if p == nil || p.Data() == nil {
		return ""
	}
	for _, k := range []string{"adk_type", "type"} {
		if s, ok := p.Metadata[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// turnReading is what one invocation's reply says, read from its Events
// and Parts.
type turnReading struct {
	final         *evalset.Message
	intermediates []*evalset.Message
	tools         []*evalset.Tool
	thoughts      []string
}

// readTurn reads an agent's turn:
//   - tools: every function_call data part of Events, in order, with the
//     function_response data part of the same call id as its result (else
//     the first unanswered call of the same name, else the first unanswered
//     call); a response without any call is a tool of its own with no
//     arguments;
//   - thoughts: every text part marked as a thought, in order;
//   - final: the non-thought text of Response.Parts (the answer proctor
//     reads from the reply) after its last tool-call part, data parts
//     without a kind as JSON, with the thoughts among them as its
//     ReasoningContent; nil when there is neither;
//   - intermediates: each Event's non-thought text that the final answer
//     does not contain (interim status messages, text said before a tool
//     call), with that Event's thoughts.
func readTurn(resp *a2aclient.Response) turnReading {
	var r turnReading
	if resp == nil {
		return r
	}
	calls := toolLedger{}
	for _, ev := range resp.Events {
		for _, p := range ev.Parts {
			switch {
			case dataKind(p) == kindFunctionCall:
				calls.call(p.Data())
			case dataKind(p) == kindFunctionResponse:
				calls.respond(p.Data())
			case a2aclient.IsThought(p):
				r.thoughts = append(r.thoughts, p.Text())
			}
		}
	}
	r.tools = calls.tools
	r.final = finalAnswer(resp.Parts)
	for _, ev := range resp.Events {
		text, thoughts := splitText(ev.Parts)
		if strings.TrimSpace(text) == "" || (r.final != nil && strings.Contains(r.final.Content, text)) {
			continue
		}
		r.intermediates = append(r.intermediates, &evalset.Message{Role: evalset.RoleAssistant, Content: text, ReasoningContent: thoughts})
	}
	return r
}

// finalAnswer is the answer text of parts: what follows the last tool-call
// part.
func finalAnswer(parts []*a2a.Part) *evalset.Message {
	last := -1
	for i, p := range parts {
		if dataKind(p) != "" {
			last = i
		}
	}
	text, thoughts := splitText(parts[last+1:])
	if text == "" && thoughts == "" {
		return nil
	}
	return &evalset.Message{Role: evalset.RoleAssistant, Content: text, ReasoningContent: thoughts}
}

// splitText returns the answer text of parts (text parts, and data parts
// without a kind as JSON, one per line) and their thoughts (one per line).
// Parts with a kind (tool calls, code execution) are neither.
func splitText(parts []*a2a.Part) (text, thoughts string) {
	var said, thought []string
	for _, p := range parts {
		switch {
		case p == nil || dataKind(p) != "":
		case a2aclient.IsThought(p):
			thought = append(thought, p.Text())
		case p.Data() != nil:
			j, err := json.Marshal(p.Data())
			if err == nil {
				said = append(said, string(j))
			}
		case p.Text() != "":
			said = append(said, p.Text())
		}
	}
	return strings.Join(said, "\n"), strings.Join(thought, "\n")
}

// toolLedger pairs the tool calls and responses of a turn.
type toolLedger struct {
	tools    []*evalset.Tool
	answered []bool
}

// call records a function_call: {"id", "name", "args"}, args an object or
// a JSON string (tRPC-Agent-Go sends the model's argument text).
func (l *toolLedger) call(data any) {
	m, _ := data.(map[string]any)
	l.tools = append(l.tools, &evalset.Tool{ID: str(m["id"]), Name: str(m["name"]), Arguments: toolArguments(m["args"])})
	l.answered = append(l.answered, false)
}

// respond records a function_response: {"id", "name", "response"} as the
// result of its call.
func (l *toolLedger) respond(data any) {
	m, _ := data.(map[string]any)
	id, name := str(m["id"]), str(m["name"])
	result := toolResult(m["response"])
	i := l.match(id, name)
	if i < 0 {
		l.tools = append(l.tools, &evalset.Tool{ID: id, Name: name, Result: result})
		l.answered = append(l.answered, true)
		return
	}
	l.tools[i].Result, l.answered[i] = result, true
}

// match finds the unanswered call a response answers: by id, else by
// name, else the first unanswered one; -1 when every call is answered.
func (l *toolLedger) match(id, name string) int {
	for _, same := range []func(*evalset.Tool) bool{
		func(t *evalset.Tool) bool { return id != "" && t.ID == id },
		func(t *evalset.Tool) bool { return name != "" && t.Name == name },
		func(*evalset.Tool) bool { return true },
	} {
		for i, t := range l.tools {
			if !l.answered[i] && same(t) {
				return i
			}
		}
	}
	return -1
}

func str(v any) string {
	switch s := v.(type) {
	case nil:
		return ""
	case string:
		return s
	default:
		return fmt.Sprint(s)
	}
}

// toolArguments reads a call's arguments as tRPC-Agent-Go's evaluator
// does: a JSON string is decoded (an empty one is {}), a string that is
// not JSON stays a string, an object stays as it is.
func toolArguments(v any) any {
	s, ok := v.(string)
	if !ok {
		if v == nil {
			return map[string]any{}
		}
		return evalset.PlainJSON(v)
	}
	if strings.TrimSpace(s) == "" {
		return map[string]any{}
	}
	var out any
	if json.Unmarshal([]byte(s), &out) == nil {
		return out
	}
	return s
}

// toolResult reads a response as tRPC-Agent-Go's evaluator does: a JSON
// string is decoded, anything else stays as it is.
func toolResult(v any) any {
	s, ok := v.(string)
	if !ok {
		return evalset.PlainJSON(v)
	}
	var out any
	if json.Unmarshal([]byte(s), &out) == nil {
		return out
	}
	return s
}
