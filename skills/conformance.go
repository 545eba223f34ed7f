package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/proctor-eval/proctor/conformance"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/store"
)

// MaxConformanceTimeout bounds a conformance run's timeout.
const MaxConformanceTimeout = 10 * time.Minute

// ConformanceRequest is the check_conformance skill's parameters, with
// their wire names. Zero fields take conformance's defaults.
type ConformanceRequest struct {
	AgentURL  string `json:"agent_url" validate:"required,max=2048"`
	Transport string `json:"transport,omitempty" validate:"omitempty,oneof=jsonrpc rest grpc"`
	Protocol  string `json:"protocol,omitempty" validate:"omitempty,oneof=1.0 0.3 auto"`
	// AuthToken is sent to the agent as a bearer token; it is never
	// echoed, logged or stored.
	AuthToken string `json:"auth_token,omitempty" validate:"max=8192"`
	// Timeout bounds the whole run (default 2m, at most 10m).
	Timeout result.Duration `json:"timeout,omitempty"`
	// The texts sent to the agent (see conformance.Messages).
	Message          string `json:"message,omitempty" validate:"max=65536"`
	SlowMessage      string `json:"slow_message,omitempty" validate:"max=65536"`
	MultiTurnMessage string `json:"multi_turn_message,omitempty" validate:"max=65536"`
	FollowUpMessage  string `json:"follow_up_message,omitempty" validate:"max=65536"`
	// ECPConfig is agent/initialize's config for an ECP agent (agent_url
	// ecp+stdio:... or ecp+ws://...), as run_evaluation's ecp_config.
	ECPConfig map[string]any `json:"ecp_config,omitempty"`
}

// CheckConformanceRequest validates a request without running it.
func (s *Service) CheckConformanceRequest(req ConformanceRequest) error {
	var out []string
	if err := s.validator().Struct(&req); err != nil {
		var inv *InvalidRequestError
		if errors.As(validationError(err), &inv) {
			out = append(out, inv.Violations...)
		}
	}
	switch {
	case ecp.IsTarget(req.AgentURL):
		out = append(out, s.checkECPConformance(req)...)
	case req.ECPConfig != nil:
		out = append(out, "ecp_config is for ECP agents (agent_url ecp+stdio:... or ecp+ws://...)")
	case req.AgentURL != "":
		if u, err := url.Parse(req.AgentURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			out = append(out, fmt.Sprintf("agent_url %q: want an http:// or https:// URL, or an ECP agent (ecp+stdio:COMMAND, ecp+ws://HOST:PORT/PATH)", truncate(req.AgentURL, 100)))
		}
	}
	if req.Timeout < 0 || time.Duration(req.Timeout) > MaxConformanceTimeout {
		out = append(out, fmt.Sprintf("timeout %s: want at most %s", time.Duration(req.Timeout), MaxConformanceTimeout))
	}
	if strings.ContainsAny(req.AuthToken, "\r\n") {
		out = append(out, "auth_token must not contain line breaks")
	}
	if len(out) > 0 {
		slices.Sort(out)
		return &InvalidRequestError{Violations: out}
	}
	return nil
}

// checkECPConformance lists what is wrong with a conformance request for
// an ECP agent: a target or config the service refuses, and the A2A-only
// fields.
func (s *Service) checkECPConformance(req ConformanceRequest) []string {
	var out []string
	var inv *InvalidRequestError
	if errors.As(s.checkECPTarget(req.AgentURL, req.ECPConfig), &inv) {
		out = append(out, inv.Violations...)
	}
	for _, f := range []struct{ name, value string }{{"transport", req.Transport}, {"auth_token", req.AuthToken},
		{"slow_message", req.SlowMessage}, {"multi_turn_message", req.MultiTurnMessage}} {
		if f.value != "" {
			out = append(out, f.name+" is for A2A agents: an ECP agent is checked without it")
		}
	}
	if req.Protocol != "" && req.Protocol != string(conformance.ProtocolAuto) {
		out = append(out, "protocol is for A2A agents: an ECP agent is checked at ECP "+ecp.ProtocolVersion)
	}
	return out
}

// CheckConformance is the check_conformance skill: it checks the agent at
// req.AgentURL against the A2A specification (an ECP agent: against the
// ECP draft, see conformance.RunECP) and stores the report (when the
// service has a store) under a new id, which the report carries. A bad
// request is an *InvalidRequestError, and so is an agent the service's
// private-target guard refuses to reach (nothing is stored); an agent that
// cannot be reached is a report, not an error.
func (s *Service) CheckConformance(ctx context.Context, req ConformanceRequest) (*conformance.Report, error) {
	if err := s.CheckConformanceRequest(req); err != nil {
		return nil, err
	}
	run, opts := conformance.Run, []conformance.Option{
		conformance.WithTransport(conformance.Transport(req.Transport)),
		conformance.WithAuthToken(req.AuthToken),
		conformance.WithMessages(conformance.Messages{Basic: req.Message, Slow: req.SlowMessage,
			MultiTurn: req.MultiTurnMessage, FollowUp: req.FollowUpMessage}),
	}
	if req.Protocol != "" {
		opts = append(opts, conformance.WithProtocol(conformance.Protocol(req.Protocol)))
	}
	if req.Timeout > 0 {
		opts = append(opts, conformance.WithTimeout(time.Duration(req.Timeout)))
	}
	if ecp.IsTarget(req.AgentURL) {
		config, err := resolveECPConfig(req.ECPConfig, s.ECP.Env)
		if err != nil {
			return nil, invalid("ecp_config: %v", err)
		}
		run, opts = conformance.RunECP, []conformance.Option{conformance.WithECPConfig(config),
			conformance.WithMessages(conformance.Messages{Basic: req.Message, FollowUp: req.FollowUpMessage})}
		if req.Timeout > 0 {
			opts = append(opts, conformance.WithTimeout(time.Duration(req.Timeout)))
		}
		if s.ECP.DenyPrivateTargets {
			opts = append(opts, conformance.WithDenyPrivateTargets())
		}
	}
	opts = append(opts, s.ConformanceOptions...)
	if s.TracerProvider != nil {
		opts = append(opts, conformance.WithTracerProvider(s.TracerProvider))
	}
	ctx, span := s.startConformanceSpan(ctx, req.AgentURL)
	rep, err := run(ctx, req.AgentURL, opts...)
	endConformanceSpan(span, rep, err)
	if errors.Is(err, conformance.ErrDeniedTarget) {
		return nil, invalid("agent_url %q: %v", truncate(req.AgentURL, 100), err)
	}
	if err != nil {
		return nil, invalid("%v", err)
	}
	rep.ID = store.NewID()
	if err := ctx.Err(); err != nil {
		// An interrupted run's failures are the interruption's: not kept.
		return rep, fmt.Errorf("conformance check interrupted: %w", err)
	}
	if s.Store != nil {
		data, err := json.Marshal(rep)
		if err != nil {
			return rep, fmt.Errorf("encode conformance report: %w", err)
		}
		if err := s.Store.PutConformance(context.WithoutCancel(ctx), store.ConformanceRun{
			ID: rep.ID, AgentURL: rep.AgentURL, Level: string(rep.Level), CreatedAt: rep.StartedAt, Data: data,
		}); err != nil {
			return rep, fmt.Errorf("store conformance report: %w", err)
		}
	}
	return rep, nil
}

// LoadConformance reads a stored conformance report by id or unique id
// prefix.
func LoadConformance(ctx context.Context, db *store.DB, id string) (*conformance.Report, error) {
	run, err := db.GetConformance(ctx, id)
	if err != nil {
		return nil, err
	}
	var rep conformance.Report
	if err := json.Unmarshal(run.Data, &rep); err != nil {
		return nil, fmt.Errorf("conformance run %s: unreadable report: %w", run.ID, err)
	}
	rep.ID = run.ID
	return &rep, nil
}
