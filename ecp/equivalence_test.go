package ecp_test

import (
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/proctor-eval/proctor/a2aagent"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/refagent"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
	"github.com/proctor-eval/proctor/scoring"
)

func mockDomain(t testing.TB) *domains.Domain {
	t.Helper()
	d, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// playAll plays and scores every task of d once against agent, four at a
// time, as an evaluation does.
func playAll(t *testing.T, d *domains.Domain, ag rollout.Agent) []result.Simulation {
	t.Helper()
	sim := rollout.NewSimulator(d, agent.ProfileStructured, rollout.Limits{})
	scorer := scoring.NewScorer(d, false)
	out := make([]result.Simulation, len(d.Tasks))
	sem := make(chan struct{}, 4)
	done := make(chan struct{})
	for i := range d.Tasks {
		go func() {
			sem <- struct{}{}
			defer func() { <-sem; done <- struct{}{} }()
			task := &d.Tasks[i]
			user, err := rollout.NewScriptedUser(task)
			if err != nil {
				t.Error(err)
				return
			}
			rec, _ := sim.Run(context.Background(), task, 0, ag, user)
			scorer.Score(context.Background(), task, &rec.Simulation, rec.Env)
			out[i] = rec.Simulation
		}()
	}
	for range d.Tasks {
		<-done
	}
	return out
}

// a2aBaseline plays the mock domain against the reference agent over A2A
// (structured profile, on a loopback port).
func a2aBaseline(t *testing.T, d *domains.Domain) []result.Simulation {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- refagent.Serve(ctx, ln, d) }()
	defer func() { cancel(); <-served }()
	client, err := a2aclient.Dial(ctx, refagent.BaseURL(ln.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	return playAll(t, d, a2aagent.New(client))
}

// transcriptOnly compares what the simulations did and earned, not how
// long or over which protocol.
var transcriptOnly = cmp.Options{
	cmpopts.IgnoreFields(result.Simulation{}, "ContextID", "Requests", "Metrics", "StartedAt", "DurationMS", "NonConformant"),
	cmpopts.IgnoreFields(result.Message{}, "PrivateThought"),
	cmpopts.EquateEmpty(),
}

// TestSameAsA2A evaluates the mock domain with the reference agent over
// ECP (stdio and WebSocket) and over A2A: the same rewards and the same
// transcripts, and the agent's private thoughts kept in their own field.
func TestSameAsA2A(t *testing.T) {
	d := mockDomain(t)
	want := a2aBaseline(t, d)
	for _, s := range want {
		if s.Reward != 1 {
			t.Fatalf("A2A baseline %s: reward %v (%s %s)", s.ID, s.Reward, s.TerminationReason, s.Error)
		}
	}
	a, err := refagent.New(d)
	if err != nil {
		t.Fatal(err)
	}
	ws := httptest.NewServer(ecp.WebSocketHandler(a.ECPFactory(), 0))
	defer ws.Close()
	targets := map[string]string{
		"stdio":     agentTarget(t, "refagent"),
		"websocket": "ecp+ws://" + strings.TrimPrefix(ws.URL, "http://") + "/",
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			tgt, err := ecp.ParseTarget(target)
			if err != nil {
				t.Fatal(err)
			}
			pool := ecp.NewPool(tgt, ecp.Options{RequestTimeout: 30 * time.Second})
			defer pool.Close()
			got := playAll(t, d, ecp.NewAgent(pool, 0))
			if diff := cmp.Diff(want, got, transcriptOnly); diff != "" {
				t.Errorf("ECP over %s differs from A2A (-a2a +ecp):\n%s", name, diff)
			}
			checkThoughts(t, got)
			st := pool.Stats()
			if st.Started > 0 {
				t.Logf("%s pool: %d agents started for %d simulations; start+initialize %v each on average, paid once per agent, not per simulation",
					name, st.Started, st.Uses, st.StartTime/time.Duration(st.Started))
			}
			if st.Started > 4 || st.Uses != len(d.Tasks) || st.Replaced != 0 {
				t.Errorf("pool stats %+v: want at most 4 agents (the concurrency) for %d uses, none replaced", st, len(d.Tasks))
			}
		})
	}
}

// checkThoughts checks that every agent message carries a private thought
// apart from its content.
func checkThoughts(t *testing.T, sims []result.Simulation) {
	t.Helper()
	for _, s := range sims {
		for _, m := range s.Messages {
			if m.Role != result.RoleAssistant || m.Turn == 0 {
				continue // the greeting is proctor's
			}
			if !strings.HasPrefix(m.PrivateThought, refagent.ThoughtMarker) || strings.Contains(m.Content, refagent.ThoughtMarker) {
				t.Fatalf("%s turn %d: private thought %q, content %q", s.ID, m.Turn, m.PrivateThought, m.Content)
			}
		}
	}
}
