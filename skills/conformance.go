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
	if req.AgentURL != "" {
		if u, err := url.Parse(req.AgentURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			out = append(out, fmt.Sprintf("agent_url %q: want an http:// or https:// URL", truncate(req.AgentURL, 100)))
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

// CheckConformance is the check_conformance skill: it checks the agent at
// req.AgentURL against the A2A specification and stores the report (when
// the service has a store) under a new id, which the report carries. A bad
// request is an *InvalidRequestError, and so is an agent the service's
// private-target guard refuses to reach (nothing is stored); an agent that
// cannot be reached is a report, not an error.
func (s *Service) CheckConformance(ctx context.Context, req ConformanceRequest) (*conformance.Report, error) {
	if err := s.CheckConformanceRequest(req); err != nil {
		return nil, err
	}
	opts := []conformance.Option{
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
	opts = append(opts, s.ConformanceOptions...)
	rep, err := conformance.Run(ctx, req.AgentURL, opts...)
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
