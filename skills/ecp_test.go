package skills_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/refagent"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/scoring"
	"github.com/proctor-eval/proctor/skills"
)

// TestECPTargetsFollowTheServicePolicy checks what a service lets a
// request launch or reach: ecp+stdio: only with an allow-listed command,
// environment references in ecp_config only where allowed.
func TestECPTargetsFollowTheServicePolicy(t *testing.T) {
	tests := []struct {
		name     string
		settings skills.ECPSettings
		req      skills.EvaluationRequest
		wantErr  string
	}{
		{"no allow-list", skills.ECPSettings{}, skills.EvaluationRequest{AgentURL: "ecp+stdio:python3 agent.py"}, `launches no command "python3"`},
		{"not on the allow-list", skills.ECPSettings{Commands: []string{"node"}}, skills.EvaluationRequest{AgentURL: "ecp+stdio:python3 agent.py"}, "--ecp-allow-command"},
		{"allow-listed", skills.ECPSettings{Commands: []string{"python3"}}, skills.EvaluationRequest{AgentURL: "ecp+stdio:python3 agent.py"}, ""},
		{"any command", skills.ECPSettings{AnyCommand: true}, skills.EvaluationRequest{AgentURL: "ecp+stdio:./agent"}, ""},
		{"bad command line", skills.ECPSettings{AnyCommand: true}, skills.EvaluationRequest{AgentURL: `ecp+stdio:"x`}, "unterminated"},
		{"websocket", skills.ECPSettings{}, skills.EvaluationRequest{AgentURL: "ecp+ws://agent.example.com/ecp"}, ""},
		{"env refused", skills.ECPSettings{}, skills.EvaluationRequest{AgentURL: "ecp+ws://agent.example.com/", ECPConfig: map[string]any{"key": map[string]any{"$env": "HOME"}}}, "environment references are not allowed"},
		{"env allowed", skills.ECPSettings{Env: true}, skills.EvaluationRequest{AgentURL: "ecp+ws://agent.example.com/", ECPConfig: map[string]any{"key": map[string]any{"$env": "HOME"}}}, ""},
		{"config for A2A", skills.ECPSettings{}, skills.EvaluationRequest{AgentURL: "http://agent.example.com/", ECPConfig: map[string]any{"a": 1}}, "ecp_config is for ECP agents"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := service(t)
			svc.ECP = tt.settings
			tt.req.Domain = "mock"
			err := svc.Check(tt.req)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			var inv *skills.InvalidRequestError
			if !errors.As(err, &inv) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Check = %v, want an invalid request saying %q", err, tt.wantErr)
			}
		})
	}
}

// TestECPWebSocketDeniedPrivate checks that a service with the private
// target guard refuses an ecp+ws:// agent on loopback as an invalid
// request, and that the same agent is evaluated without the guard.
func TestECPWebSocketDeniedPrivate(t *testing.T) {
	d, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	a, err := refagent.New(d)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ecp.WebSocketHandler(a.ECPFactory(), 0))
	defer srv.Close()
	req := skills.EvaluationRequest{Domain: "mock", AgentURL: "ecp+ws://" + strings.TrimPrefix(srv.URL, "http://") + "/", TaskIDs: []string{"mock-02"}}

	svc := service(t)
	svc.ECP = skills.ECPSettings{DenyPrivateTargets: true}
	_, err = svc.Prepare(context.Background(), req)
	var inv *skills.InvalidRequestError
	if !errors.As(err, &inv) || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("Prepare = %v, want an invalid request refusing the loopback address", err)
	}

	svc = service(t)
	run, err := svc.Prepare(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if err := run.Execute(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := run.Evaluation().Summary.PassHatK["1"]; got != 1 {
		t.Errorf("pass^1 = %v, want 1", got)
	}
}

// refagentWS serves the mock domain's reference agent over ECP on a
// loopback WebSocket and returns its agent_url; configs receives the
// config of every agent/initialize.
func refagentWS(t *testing.T, configs chan<- map[string]any) string {
	t.Helper()
	d, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	a, err := refagent.New(d)
	if err != nil {
		t.Fatal(err)
	}
	factory := func() ecp.Handler { return configRecorder{a.ECP(), configs} }
	srv := httptest.NewServer(ecp.WebSocketHandler(factory, 0))
	t.Cleanup(srv.Close)
	return "ecp+ws://" + strings.TrimPrefix(srv.URL, "http://") + "/"
}

// configRecorder is an ECP agent that passes on the config it is
// initialized with.
type configRecorder struct {
	ecp.Handler
	configs chan<- map[string]any
}

func (r configRecorder) Initialize(ctx context.Context, p ecp.InitializeParams) (ecp.InitializeResult, error) {
	r.configs <- p.Config
	return r.Handler.Initialize(ctx, p)
}

// TestECPAllowTools checks the manifest of permissions: ecp_allow_tools
// takes precedence over ecp_config's allow_tools; a call outside it is
// refused (the agent gets a tool error, the environment never sees it)
// and recorded as a policy violation; the reward is computed as without a
// manifest, on what the environment saw.
func TestECPAllowTools(t *testing.T) {
	configs := make(chan map[string]any, 16)
	agentURL := refagentWS(t, configs)
	cfgTools := map[string]any{"allow_tools": []any{"find_user_by_email", "create_task"}}
	tests := []struct {
		name           string
		req            skills.EvaluationRequest
		wantAllow      []string
		wantViolations []result.PolicyViolation
		wantReward     float64
	}{
		{"config file's list", skills.EvaluationRequest{ECPConfig: cfgTools}, []string{"find_user_by_email", "create_task"}, nil, 1},
		{"request's list first", skills.EvaluationRequest{ECPConfig: cfgTools, ECPAllowTools: []string{"find_user_by_email", "list_tasks"}},
			[]string{"find_user_by_email", "list_tasks"}, []result.PolicyViolation{{Tool: "create_task", CallID: "call-1", Turn: 5}}, 0},
		{"none", skills.EvaluationRequest{}, nil, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			req.Domain, req.AgentURL, req.TaskIDs = "mock", agentURL, []string{"mock-02"}
			svc := service(t)
			run, err := svc.Prepare(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			defer run.Close()
			if err := run.Execute(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			ev := run.Evaluation()
			if diff := cmp.Diff(tt.wantAllow, ev.Config.ECPAllowTools); diff != "" {
				t.Errorf("recorded allow-list (-want +got):\n%s", diff)
			}
			sim := ev.Simulations[0]
			if diff := cmp.Diff(tt.wantViolations, sim.RewardInfo.PolicyViolations); diff != "" {
				t.Errorf("policy violations (-want +got):\n%s", diff)
			}
			if sim.Reward != tt.wantReward {
				t.Errorf("reward %v, want %v", sim.Reward, tt.wantReward)
			}
			for _, v := range tt.wantViolations {
				m := sim.Messages[v.Turn]
				if !m.Refused || !m.Error || !strings.Contains(m.Content, "not permitted") {
					t.Errorf("turn %d: %+v, want a refused tool error", v.Turn, m)
				}
			}
			checkReplayedHash(t, sim)
			// The agent is told the manifest in force, whichever way it came.
			sent := (<-configs)["allow_tools"]
			if tt.wantAllow == nil {
				if sent != nil {
					t.Errorf("config.allow_tools %v sent without a manifest", sent)
				}
			} else if diff := cmp.Diff(toAny(tt.wantAllow), sent); diff != "" {
				t.Errorf("config.allow_tools the agent got (-want +got):\n%s", diff)
			}
		})
	}
}

// toAny is names as JSON decodes them.
func toAny(names []string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}

// checkReplayedHash checks that rebuilding a simulation's environment
// from its transcript gives the hash the rollout recorded: refused calls
// are not replayed.
func checkReplayedHash(t *testing.T, sim result.Simulation) {
	t.Helper()
	d, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	task, _ := d.Task(sim.TaskID)
	env, err := scoring.Replay(d, task, sim.Messages)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := env.Hash(); err != nil || h != sim.FinalHash {
		t.Errorf("replayed hash %s (%v), recorded %s", h, err, sim.FinalHash)
	}
}

// TestECPAllowToolsChecked checks that a manifest of permissions is
// checked before anything starts.
func TestECPAllowToolsChecked(t *testing.T) {
	tests := []struct {
		name    string
		req     skills.EvaluationRequest
		wantErr string
	}{
		{"unknown tool", skills.EvaluationRequest{AgentURL: "ecp+ws://agent.example.com/", ECPAllowTools: []string{"list_tasks", "drop_table"}},
			`no tool "drop_table" in domain mock; its tools are find_user_by_email, get_user, list_tasks`},
		{"unknown tool in the config", skills.EvaluationRequest{AgentURL: "ecp+ws://agent.example.com/", ECPConfig: map[string]any{"allow_tools": []any{"nope"}}},
			`no tool "nope"`},
		{"not a list", skills.EvaluationRequest{AgentURL: "ecp+ws://agent.example.com/", ECPConfig: map[string]any{"allow_tools": "list_tasks"}},
			"ecp_config.allow_tools: want a list of tool names"},
		{"not names", skills.EvaluationRequest{AgentURL: "ecp+ws://agent.example.com/", ECPConfig: map[string]any{"allow_tools": []any{1.0}}},
			"ecp_config.allow_tools: want a list of tool names"},
		{"A2A agent", skills.EvaluationRequest{AgentURL: "http://agent.example.com/", ECPAllowTools: []string{"list_tasks"}},
			"ecp_allow_tools is for ECP agents"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := service(t)
			tt.req.Domain = "mock"
			for _, check := range []func() error{
				func() error { return svc.Check(tt.req) },
				func() error { _, err := svc.Prepare(context.Background(), tt.req); return err },
			} {
				err := check()
				var inv *skills.InvalidRequestError
				if !errors.As(err, &inv) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("got %v, want an invalid request saying %q", err, tt.wantErr)
				}
			}
		})
	}
}

// TestECPConformance checks an ECP agent with the check_conformance
// skill: a request follows the service's ECP policy and refuses A2A-only
// fields, the report is the ECP one and is stored, and the private-target
// guard refuses a loopback WebSocket.
func TestECPConformance(t *testing.T) {
	d, err := mock.New()
	if err != nil {
		t.Fatal(err)
	}
	a, err := refagent.New(d)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ecp.WebSocketHandler(a.ECPFactory(), 0))
	defer srv.Close()
	target := "ecp+ws://" + strings.TrimPrefix(srv.URL, "http://") + "/"

	svc := service(t)
	for _, tt := range []struct {
		req  skills.ConformanceRequest
		want string
	}{
		{skills.ConformanceRequest{AgentURL: "ecp+stdio:python3 agent.py"}, `launches no command "python3"`},
		{skills.ConformanceRequest{AgentURL: target, Transport: "grpc"}, "transport is for A2A agents"},
		{skills.ConformanceRequest{AgentURL: target, AuthToken: "x"}, "auth_token is for A2A agents"},
		{skills.ConformanceRequest{AgentURL: target, Protocol: "1.0"}, "protocol is for A2A agents"},
		{skills.ConformanceRequest{AgentURL: target, ECPConfig: map[string]any{"k": map[string]any{"$env": "HOME"}}}, "environment references are not allowed"},
		{skills.ConformanceRequest{AgentURL: "http://agent.example.com", ECPConfig: map[string]any{}}, "ecp_config is for ECP agents"},
	} {
		var inv *skills.InvalidRequestError
		if err := svc.CheckConformanceRequest(tt.req); !errors.As(err, &inv) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an invalid request saying %q", tt.req, err, tt.want)
		}
	}

	rep, err := svc.CheckConformance(context.Background(), skills.ConformanceRequest{AgentURL: target, ECPConfig: map[string]any{"mode": "test"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Level != conformance.LevelFull || rep.AgentProtocol != conformance.AgentProtocolECP || rep.ID == "" {
		t.Errorf("level %s, protocol %q, id %q: want a stored full ECP report", rep.Level, rep.AgentProtocol, rep.ID)
	}
	if back, err := skills.LoadConformance(context.Background(), svc.Store, rep.ID); err != nil || back.AgentProtocol != conformance.AgentProtocolECP {
		t.Errorf("stored report %+v, %v", back, err)
	}

	svc = service(t)
	svc.ECP = skills.ECPSettings{DenyPrivateTargets: true}
	var inv *skills.InvalidRequestError
	if _, err := svc.CheckConformance(context.Background(), skills.ConformanceRequest{AgentURL: target}); !errors.As(err, &inv) {
		t.Errorf("with the guard: %v, want an invalid request", err)
	}
}
