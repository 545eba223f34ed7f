package server

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// TestStreamLimits opens and closes streams against the per-task and
// per-caller bounds: a stream over either is refused, naming the flag, and
// a closed stream frees its place. A task's streams count per tenant: one
// tenant's streams leave another's places free.
func TestStreamLimits(t *testing.T) {
	h := newStreamLimits(nil, 2, 3)
	steps := []struct {
		open          bool
		task          a2a.TaskID
		tenant        string
		caller        string
		wantRefusedBy string // "" when admitted
	}{
		{true, "t1", "", "alice", ""},
		{true, "t1", "", "bob", ""},
		{true, "t1", "", "carol", "--max-streams-per-task"},
		{true, "t1", "root", "root", ""},
		{true, "t1", "root", "root", ""},
		{true, "t1", "root", "root", "--max-streams-per-task"},
		{true, "t2", "", "alice", ""},
		{true, "", "", "alice", ""},
		{true, "t3", "", "alice", "--max-streams-per-caller"},
		{false, "t1", "", "bob", ""},
		{true, "t1", "", "carol", ""},
		{false, "t2", "", "alice", ""},
		{true, "t3", "", "alice", ""},
	}
	for i, st := range steps {
		f := taskFollower{task: st.task, tenant: st.tenant}
		if !st.open {
			h.release(f, st.caller)
			continue
		}
		err := h.admit(f, st.caller)
		switch {
		case st.wantRefusedBy == "" && err != nil:
			t.Errorf("step %d (%s on %q): refused: %v", i, st.caller, st.task, err)
		case st.wantRefusedBy != "" && (err == nil || !errors.Is(err, a2a.ErrUnauthorized) || !strings.Contains(err.Error(), st.wantRefusedBy)):
			t.Errorf("step %d (%s on %q): %v; want a refusal naming %s", i, st.caller, st.task, err, st.wantRefusedBy)
		}
	}
}

// TestCallerOf names callers by token (never the token itself) or by host.
func TestCallerOf(t *testing.T) {
	withToken, _ := a2asrv.NewCallContext(context.Background(), a2asrv.NewServiceParams(map[string][]string{"Authorization": {"Bearer s3cret"}}))
	withHost := context.WithValue(context.Background(), remoteHostKey{}, "192.0.2.7")
	if got := callerOf(withToken); !strings.HasPrefix(got, "token ") || strings.Contains(got, "s3cret") {
		t.Errorf("caller with a token: %q", got)
	}
	if got := callerOf(withHost); got != "host 192.0.2.7" {
		t.Errorf("caller by host: %q", got)
	}
}
