package rollout

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/proctor-eval/proctor/evalset"
)

// caseMocks are the tool results a case gives an agent whose tool calls
// proctor answers (ECP): the results of the case's expected tools.
type caseMocks struct {
	tools []mockTool
}

// mockTool is an expected tool with a result, and the invocation it is in.
type mockTool struct {
	invocation string
	tool       *evalset.Tool
	args       any
	used       bool
}

// newCaseMocks gathers the expected tools of c that have a result.
func newCaseMocks(c *evalset.Case) *caseMocks {
	m := &caseMocks{}
	for _, inv := range c.Conversation {
		if inv == nil {
			continue
		}
		for _, t := range inv.Tools {
			if t != nil && t.Result != nil {
				m.tools = append(m.tools, mockTool{invocation: inv.ID, tool: t, args: evalset.PlainJSON(t.Arguments)})
			}
		}
	}
	return m
}

// result is the result for a call of name with args in the invocation:
// the first expected tool that matches it (same name; arguments equal as
// JSON, else containing every args_contain text, else any arguments when
// the expected tool gives none), those of the invocation itself first and
// unused ones before used ones. ok is false when no expected tool matches.
func (m *caseMocks) result(invocation, name string, args any) (any, bool) {
	best := -1
	rank := func(i int) int {
		r := 0
		if invocation == "" || m.tools[i].invocation != invocation {
			r += 2
		}
		if m.tools[i].used {
			r++
		}
		return r
	}
	for i := range m.tools {
		if !m.tools[i].matches(name, args) {
			continue
		}
		if best < 0 || rank(i) < rank(best) {
			best = i
		}
	}
	if best < 0 {
		return nil, false
	}
	m.tools[best].used = true
	return evalset.PlainJSON(m.tools[best].tool.Result), true
}

// matches says whether the expected tool stands for a call of name with
// args.
func (t *mockTool) matches(name string, args any) bool {
	if t.tool.Name != name {
		return false
	}
	switch {
	case len(t.tool.ArgsContain) > 0:
		text := argsText(args)
		for _, s := range t.tool.ArgsContain {
			if !strings.Contains(text, s) {
				return false
			}
		}
		return true
	case t.tool.Arguments == nil:
		return true
	}
	return reflect.DeepEqual(t.args, args)
}

// argsText is arguments as JSON text, as args_contain reads them.
func argsText(args any) string {
	if s, ok := args.(string); ok {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(args) != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}
