package server

import (
	"context"
	"errors"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestCardEvalSetExamples: the card's run_evalset examples are requests
// whose sets decode.
func TestCardEvalSetExamples(t *testing.T) {
	n := 0
	for _, s := range Card("http://proctor.example.com", "").Skills {
		if s.ID != string(SkillRunEvalSet) {
			continue
		}
		for _, ex := range s.Examples {
			n++
			req, err := parseRequest(a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(ex)))
			if err != nil || req.kind != SkillRunEvalSet {
				t.Fatalf("example %s: %v (kind %q)", ex, err, req.kind)
			}
			sets, err := req.evalSet.sets(context.Background())
			if err != nil || len(sets) != 1 || len(sets[0].Cases) != 1 {
				t.Errorf("example %s: sets %v, %v", ex, sets, err)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d run_evalset examples in the card, want 2", n)
	}
}

// TestEvalSetDecodeEndsWithRequest: the inline set is read no further once
// the request's context ends, and the context's error says so.
func TestEvalSetDecodeEndsWithRequest(t *testing.T) {
	cases := make([]string, MaxEvalSetCases)
	for i := range cases {
		cases[i] = "case: a\ninput: hi\n"
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := &evalSetParams{YAMLCases: cases}
	sets, err := p.sets(ctx)
	if !errors.Is(err, context.Canceled) || sets != nil {
		t.Errorf("sets after the request ended: %v, %v; want no sets and context.Canceled", sets, err)
	}
}
