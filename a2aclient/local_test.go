//go:build linux

package a2aclient_test

import (
	"context"
	"errors"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/internal/agenttest"
)

// TestOutOfFileDescriptorsIsLocal runs proctor out of file descriptors (a
// soft RLIMIT_NOFILE of 3: no new descriptor can be made) as a send opens
// its connection: the failure is classed ErrClassLocal, proctor's own, and
// never a connection failure of the agent.
func TestOutOfFileDescriptorsIsLocal(t *testing.T) {
	agent := agenttest.Start(t, agenttest.Sorry)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// No kept-alive connection: the send below must open a new one.
	noReuse := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	c, err := a2aclient.Dial(ctx, agent.URL, a2aclient.WithHTTPClient(noReuse), a2aclient.WithRetries(0, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conv := c.NewConversation()

	var saved syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &saved); err != nil {
		t.Skipf("getrlimit: %v", err)
	}
	low := saved
	low.Cur = 3
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skipf("setrlimit: %v", err)
	}
	resp, sendErr := conv.Send(ctx, []*a2a.Part{a2a.NewTextPart("hello")})
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &saved); err != nil {
		t.Fatalf("restore RLIMIT_NOFILE: %v", err)
	}

	var cerr *a2aclient.CallError
	if !errors.As(sendErr, &cerr) || cerr.Class != a2aclient.ErrClassLocal || !a2aclient.IsLocalExhaustion(sendErr) {
		t.Fatalf("send without file descriptors: %v (%T); want class %s", sendErr, sendErr, a2aclient.ErrClassLocal)
	}
	if !errors.Is(sendErr, syscall.EMFILE) {
		t.Errorf("the error %v does not wrap EMFILE", sendErr)
	}
	if resp != nil && resp.Metrics.ErrorClass != a2aclient.ErrClassLocal {
		t.Errorf("metrics record class %q, want %q", resp.Metrics.ErrorClass, a2aclient.ErrClassLocal)
	}
}
