package skills_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/internal/agenttest"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/skills"
	"github.com/proctor-eval/proctor/store"
)

func TestConformanceRequestViolations(t *testing.T) {
	svc := service(t)
	cases := []struct {
		req  skills.ConformanceRequest
		want []string
	}{
		{skills.ConformanceRequest{AgentURL: "http://a.example"}, nil},
		{skills.ConformanceRequest{}, []string{"agent_url is required"}},
		{skills.ConformanceRequest{AgentURL: "ftp://x", Transport: "smoke", Protocol: "2.0"},
			[]string{`agent_url "ftp://x"`, `transport "smoke"`, `protocol "2.0"`}},
		{skills.ConformanceRequest{AgentURL: "http://a", Timeout: result.Duration(time.Hour)}, []string{"timeout 1h0m0s: want at most 10m0s"}},
		{skills.ConformanceRequest{AgentURL: "http://a", AuthToken: "a\nb"}, []string{"auth_token must not contain line breaks"}},
		{skills.ConformanceRequest{AgentURL: "http://a", Message: strings.Repeat("x", 70000)}, []string{"message: at most 65536 characters"}},
	}
	for _, tc := range cases {
		err := svc.CheckConformanceRequest(tc.req)
		var inv *skills.InvalidRequestError
		if tc.want == nil {
			if err != nil {
				t.Errorf("%+v: %v", tc.req, err)
			}
			continue
		}
		if !errors.As(err, &inv) || len(inv.Violations) != len(tc.want) {
			t.Errorf("%+v: %v, want %q", tc.req, err, tc.want)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(strings.Join(inv.Violations, "; "), w) {
				t.Errorf("%+v: violations %q lack %q", tc.req, inv.Violations, w)
			}
		}
	}
}

// TestCheckConformanceStores: the skill's report is stored and reads back.
func TestCheckConformanceStores(t *testing.T) {
	svc := service(t)
	peer := agenttest.StartLifecycle(t, agenttest.LifecycleOptions{Protocols: []string{"1.0"}, Transports: []string{"rest"}})
	rep, err := svc.CheckConformance(context.Background(), skills.ConformanceRequest{AgentURL: peer, Message: "hi",
		SlowMessage: agenttest.LifecycleSlow, AuthToken: "never-stored"})
	if err != nil {
		t.Fatal(err)
	}
	back, err := skills.LoadConformance(context.Background(), svc.Store, rep.ID)
	if err != nil || back.Level != rep.Level || len(back.Results) != len(rep.Results) || back.Requests != rep.Requests {
		t.Fatalf("stored %+v, %v", back, err)
	}
	raw, _ := svc.Store.GetConformance(context.Background(), rep.ID)
	if strings.Contains(string(raw.Data), "never-stored") {
		t.Error("the auth token was stored")
	}
	if runs, _ := svc.Store.ListConformance(context.Background(), store.ConformanceFilter{AgentURL: peer}); len(runs) != 1 {
		t.Errorf("listed %d runs for %s", len(runs), peer)
	}
}

// TestConformanceDeniesPrivateTargets: a shared service refuses to probe
// loopback agents when told to.
func TestConformanceDeniesPrivateTargets(t *testing.T) {
	svc := service(t)
	svc.ConformanceOptions = []conformance.Option{conformance.WithDenyPrivateTargets()}
	peer := agenttest.StartLifecycle(t, agenttest.LifecycleOptions{Protocols: []string{"1.0"}, Transports: []string{"jsonrpc"}})
	rep, err := svc.CheckConformance(context.Background(), skills.ConformanceRequest{AgentURL: peer})
	var inv *skills.InvalidRequestError
	if !errors.As(err, &inv) || rep != nil {
		t.Fatalf("report %+v, error %v (%T); want an invalid request, refused by the guard", rep, err, err)
	}
	if !strings.Contains(err.Error(), "agent_url") || !strings.Contains(err.Error(), "refusing to connect") ||
		!strings.Contains(err.Error(), "--deny-private-targets") {
		t.Errorf("error %q does not say what was refused and why", err)
	}
	// Nothing is stored: the run said nothing about the agent.
	if runs, _ := svc.Store.ListConformance(context.Background(), store.ConformanceFilter{}); len(runs) != 0 {
		t.Errorf("%d conformance runs stored", len(runs))
	}
}
