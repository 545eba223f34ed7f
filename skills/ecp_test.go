package skills_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/refagent"
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
