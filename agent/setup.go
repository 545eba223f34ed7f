package agent

import (
	"sync"

	"github.com/proctor-eval/proctor/domains"
)

// Setup is what the agent is told once, at the start of a conversation: the
// domain policy it must follow and the tools it may call.
type Setup struct {
	// Policy is the domain policy the agent must follow.
	Policy string
	// Tools are the domain's tools, in the order they are presented.
	Tools []domains.ToolSpec

	// memo holds what profiles derive from the Setup alone (the rendered
	// tool schemas, say), so that a Setup made once with NewSetup and used
	// for a whole evaluation renders them once. Nil renders every time.
	memo *setupMemo
}

// NewSetup returns a Setup whose profile-independent renderings are
// computed once and shared by every conversation that uses it. It is safe
// for concurrent use.
func NewSetup(policy string, tools []domains.ToolSpec) Setup {
	return Setup{Policy: policy, Tools: tools, memo: &setupMemo{values: map[string]any{}}}
}

type setupMemo struct {
	mu     sync.Mutex
	values map[string]any
}

// Derived returns what build derives from the Setup alone (a profile's
// rendering of the tools, say), computed once per key for a Setup made by
// [NewSetup] and shared by every conversation that uses it; a Setup made
// otherwise builds it on every call. key names the value, prefixed by
// whoever derives it ("structured/tools"): one key, one build. Callers must
// treat the value as read-only: it is shared.
func (s Setup) Derived(key string, build func() any) any {
	if s.memo == nil {
		return build()
	}
	s.memo.mu.Lock()
	defer s.memo.mu.Unlock()
	if v, ok := s.memo.values[key]; ok {
		return v
	}
	v := build()
	s.memo.values[key] = v
	return v
}
