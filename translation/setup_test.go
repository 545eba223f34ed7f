package translation

import (
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
)

// TestNewSetupRendersTheSame: a Setup from NewSetup, whose renderings are
// computed once, gives exactly what a plain Setup gives, for every profile,
// also when many conversations render with it at once.
func TestNewSetupRendersTheSame(t *testing.T) {
	tools := []domains.ToolSpec{{Name: "get_user", Description: "Look up a user.", Parameters: []byte(`{"type":"object","properties":{"id":{"type":"string"}}}`)}}
	plain := agent.Setup{Policy: "Be kind.", Tools: tools}
	memo := agent.NewSetup("Be kind.", tools)
	in := agent.Input{UserText: "hello"}
	for _, name := range ProfileNames() {
		p, _ := ProfileByName(agent.ProfileName(name))
		want := p.Render(plain, true, in)
		var wg sync.WaitGroup
		got := make([][]*a2a.Part, 16)
		for i := range got {
			wg.Add(1)
			go func() { defer wg.Done(); got[i] = p.Render(memo, true, in) }()
		}
		wg.Wait()
		for _, g := range got {
			if diff := cmp.Diff(want, g); diff != "" {
				t.Fatalf("%s: memoised setup renders differently (-want +got):\n%s", name, diff)
			}
		}
	}
}

func TestDerivedComputesOnce(t *testing.T) {
	s := agent.NewSetup("p", nil)
	calls := 0
	for range 3 {
		if v := derived(s, "k", func() int { calls++; return 7 }); v != 7 {
			t.Fatalf("derived = %d", v)
		}
	}
	if calls != 1 {
		t.Errorf("built %d times, want once", calls)
	}
	calls = 0
	for range 2 {
		derived(agent.Setup{}, "k", func() int { calls++; return 0 })
	}
	if calls != 2 {
		t.Errorf("a plain Setup must not memoise: built %d times", calls)
	}
}
