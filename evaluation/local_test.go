//go:build linux

package evaluation_test

import (
	"context"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
)

// TestOutOfFileDescriptorsIsNotTheAgents plays a simulation while proctor
// cannot open a file descriptor (a soft RLIMIT_NOFILE of 3), as when one
// request asks for more conversations than the machine can hold: the
// simulation ends infrastructure_error, saying so, never agent_error.
func TestOutOfFileDescriptorsIsNotTheAgents(t *testing.T) {
	d := counterDomain(t)
	task, _ := d.Task("add-two")
	noReuse := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	client := dial(t, agenttest.Start(t, counterAgent).URL, a2aclient.WithHTTPClient(noReuse), a2aclient.WithRetries(0, time.Millisecond))
	user, err := rollout.NewScriptedUser(task)
	if err != nil {
		t.Fatal(err)
	}
	sim := rollout.NewSimulator(d, agent.ProfileAgentBeats, rollout.Limits{})

	var saved syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &saved); err != nil {
		t.Skipf("getrlimit: %v", err)
	}
	low := saved
	low.Cur = 3
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skipf("setrlimit: %v", err)
	}
	res, aborted := play(context.Background(), sim, task, 0, a2aagent.New(client), user)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &saved); err != nil {
		t.Fatalf("restore RLIMIT_NOFILE: %v", err)
	}
	if aborted {
		t.Fatal("simulation reported aborted")
	}
	if res.TerminationReason != result.TermInfrastructure || !strings.Contains(res.Error, "too many open files") {
		t.Fatalf("termination %s (%q); want %s naming the exhaustion", res.TerminationReason, res.Error, result.TermInfrastructure)
	}
	if len(res.Requests) != 1 || res.Requests[0].ErrorClass != a2aclient.ErrClassLocal {
		t.Errorf("requests %+v: want one, of class %s", res.Requests, a2aclient.ErrClassLocal)
	}
}
