package skills

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/result"
)

// ECPSettings say which ECP agents a Service may reach and how.
type ECPSettings struct {
	// AnyCommand lets ecp+stdio: agents be launched with any command: for
	// the CLI, whose user is the operator. A service leaves it off.
	AnyCommand bool
	// Commands allow-lists the commands (the first word of the command
	// line, exactly as written) ecp+stdio: agents may be launched with
	// when AnyCommand is off. Allowing an interpreter (python3, node)
	// allows whatever it can run.
	Commands []string
	// Env lets ecp_config reference environment variables ({"$env":
	// "NAME"} is replaced by NAME's value when the agent is initialized,
	// and never stored). A service leaves it off: callers could read its
	// secrets.
	Env bool
	// DenyPrivateTargets refuses ecp+ws:// agents at loopback, private
	// and link-local addresses.
	DenyPrivateTargets bool
	// Stderr, when set, receives what stdio agents write to stderr.
	Stderr func([]byte)
}

// envRefKey is the key of an environment reference in ecp_config.
const envRefKey = "$env"

// checkECP checks an ECP agent_url and ecp_config against the settings.
func (s *Service) checkECP(req EvaluationRequest) error {
	if !ecp.IsTarget(req.AgentURL) {
		if req.ECPConfig != nil && req.Resume == "" {
			return invalid("ecp_config is for ECP agents (agent_url ecp+stdio:... or ecp+ws://...)")
		}
		return nil
	}
	return s.checkECPTarget(req.AgentURL, req.ECPConfig)
}

// checkECPTarget checks an ECP agent_url and its ecp_config against the
// settings: a command the service may launch, a config it may resolve.
func (s *Service) checkECPTarget(agentURL string, config map[string]any) error {
	t, err := ecp.ParseTarget(agentURL)
	if err != nil {
		return invalid("agent_url %q: %v", truncate(agentURL, 100), err)
	}
	if t.Command != nil && !s.ECP.AnyCommand && !slices.Contains(s.ECP.Commands, t.Command[0]) {
		return invalid("agent_url %q: this service launches no command %q (its operator allow-lists commands with --ecp-allow-command)", truncate(agentURL, 100), truncate(t.Command[0], 100))
	}
	if _, err := resolveECPConfig(config, s.ECP.Env); err != nil {
		return invalid("ecp_config: %v", err)
	}
	return nil
}

// resolveECPConfig replaces environment references; without env they are
// refused. An unset variable is an error.
func resolveECPConfig(cfg map[string]any, env bool) (map[string]any, error) {
	if cfg == nil {
		return map[string]any{}, nil
	}
	v, err := resolveValue(cfg, env, "")
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

func resolveValue(v any, env bool, path string) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if name, ok := x[envRefKey].(string); ok && len(x) == 1 {
			if !env {
				return nil, fmt.Errorf("%s: environment references are not allowed here", cmpPath(path))
			}
			val, set := os.LookupEnv(name)
			if !set {
				return nil, fmt.Errorf("%s: environment variable %s is not set", cmpPath(path), name)
			}
			return val, nil
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := resolveValue(e, env, path+"."+k)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := resolveValue(e, env, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

func cmpPath(p string) string {
	if p == "" {
		return "config"
	}
	return "config" + p
}

// connectECP starts (or dials) one ECP agent to check it answers, and
// keeps it in the run's pool, which the simulations draw from.
func (s *Service) connectECP(ctx context.Context, run *Run, cfg result.Config) error {
	t, err := ecp.ParseTarget(cfg.Agent)
	if err != nil {
		return invalid("agent_url %q: %v", truncate(cfg.Agent, 100), err)
	}
	config, err := resolveECPConfig(cfg.ECPConfig, s.ECP.Env)
	if err != nil {
		return invalid("ecp_config: %v", err)
	}
	if cfg.MaxResponseBytes == 0 || cfg.MaxResponseBytes > s.maxResponse() {
		cfg.MaxResponseBytes = s.maxResponse()
	}
	pool := ecp.NewPool(t, ecp.Options{
		RequestTimeout: time.Duration(cfg.RequestTimeout), MaxResponseBytes: cfg.MaxResponseBytes,
		Config: config, StderrLog: s.ECP.Stderr, DenyPrivateTargets: s.ECP.DenyPrivateTargets,
	})
	info, err := pool.Warm(ctx)
	if err != nil {
		pool.Close()
		if errors.Is(err, ecp.ErrDeniedTarget) {
			return invalid("agent_url %q: %v", truncate(cfg.Agent, 100), err)
		}
		return &AgentError{Target: cfg.Agent, Err: err}
	}
	run.ecpPool, run.ecpInfo = pool, info
	return nil
}

// ecpAgentInfo describes an ECP agent as its initialize result says.
func ecpAgentInfo(target string, info ecp.InitializeResult) result.AgentInfo {
	transport := "ecp+stdio"
	if !strings.HasPrefix(target, ecp.SchemeStdio) {
		transport = strings.SplitN(target, ":", 2)[0]
	}
	return result.AgentInfo{URL: target, Name: info.Name, Transport: transport, ProtocolVersion: "ECP " + ecp.ProtocolVersion}
}
