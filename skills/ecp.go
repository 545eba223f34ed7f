package skills

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/result"
	"github.com/proctor-eval/proctor/rollout"
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
	// Stderr, when set, receives what stdio agents write to stderr, line
	// by line and bounded (see ecp.Options.Stderr), with the id of the
	// evaluation the agent serves.
	Stderr func(evaluationID string, line ecp.StderrLine)
}

// envRefKey is the key of an environment reference in ecp_config.
const envRefKey = "$env"

// checkECP checks an ECP agent_url and ecp_config against the settings.
func (s *Service) checkECP(req EvaluationRequest) error {
	if !ecp.IsTarget(req.AgentURL) {
		if req.ECPConfig != nil && req.Resume == "" {
			return invalid("ecp_config is for ECP agents (agent_url ecp+stdio:... or ecp+ws://...)")
		}
		if req.ECPAllowTools != nil && req.Resume == "" {
			return invalid("ecp_allow_tools is for ECP agents (agent_url ecp+stdio:... or ecp+ws://...)")
		}
		return nil
	}
	if _, err := allowTools(req); err != nil {
		return err
	}
	return s.checkECPTarget(req.AgentURL, req.ECPConfig)
}

// checkECPTarget checks an ECP agent_url and its ecp_config against the
// settings.
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

// allowToolsKey is the manifest of permissions' key in ecp_config.
const allowToolsKey = "allow_tools"

// allowTools is a request's manifest of permissions: ecp_allow_tools when
// given, else ecp_config's allow_tools (a list of tool names), else nil
// (every tool allowed).
func allowTools(req EvaluationRequest) ([]string, error) {
	if req.ECPAllowTools != nil {
		return req.ECPAllowTools, nil
	}
	v, ok := req.ECPConfig[allowToolsKey]
	if !ok {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, invalid("ecp_config.allow_tools: want a list of tool names")
	}
	names := make([]string, 0, len(list))
	for _, e := range list {
		name, ok := e.(string)
		if !ok || name == "" || len(name) > 200 {
			return nil, invalid("ecp_config.allow_tools: want a list of tool names, found %s", truncate(fmt.Sprint(e), 60))
		}
		names = append(names, name)
	}
	return names, nil
}

// checkAllowTools checks a manifest of permissions against the domain's
// tools.
func checkAllowTools(d *domains.Domain, names []string) error {
	if err := rollout.CheckToolNames(d, names); err != nil {
		return invalid("ecp_allow_tools: %v", err)
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
func (s *Service) connectECP(ctx context.Context, run *Run, evalID string, cfg result.Config) error {
	pool, info, err := s.startECPPool(ctx, ecpStart{
		agent: cfg.Agent, config: cfg.ECPConfig, allowTools: cfg.ECPAllowTools,
		requestTimeout: time.Duration(cfg.RequestTimeout), maxResponse: cfg.MaxResponseBytes, logID: evalID,
	})
	if err != nil {
		return err
	}
	run.ecpPool, run.ecpInfo = pool, info
	return nil
}

// ecpStart is what starting a pool of ECP agents takes.
type ecpStart struct {
	agent          string         // the ecp+stdio: or ecp+ws:// target
	config         map[string]any // ecp_config, secrets still as {"$env": NAME}
	allowTools     []string       // the manifest of permissions; nil when none is given
	requestTimeout time.Duration
	maxResponse    int64
	logID          string // labels the agents' stderr lines: the evaluation or run id
}

// startECPPool makes the pool of ECP agents start describes and starts one
// of them, to check it answers.
func (s *Service) startECPPool(ctx context.Context, start ecpStart) (*ecp.Pool, ecp.InitializeResult, error) {
	agentURL := start.agent
	t, err := ecp.ParseTarget(agentURL)
	if err != nil {
		return nil, ecp.InitializeResult{}, invalid("agent_url %q: %v", truncate(agentURL, 100), err)
	}
	config, err := resolveECPConfig(start.config, s.ECP.Env)
	if err != nil {
		return nil, ecp.InitializeResult{}, invalid("ecp_config: %v", err)
	}
	if start.allowTools != nil {
		// The agent is told its permissions, whichever way they were given.
		config[allowToolsKey] = start.allowTools
	}
	maxResponse := start.maxResponse
	if maxResponse == 0 || maxResponse > s.maxResponse() {
		maxResponse = s.maxResponse()
	}
	pool := ecp.NewPool(t, ecp.Options{
		RequestTimeout: start.requestTimeout, MaxResponseBytes: maxResponse,
		Config: config, Stderr: s.agentStderr(start.logID), DenyPrivateTargets: s.ECP.DenyPrivateTargets,
		TracerProvider: s.TracerProvider,
	})
	info, err := pool.Warm(ctx)
	if err != nil {
		pool.Close()
		if errors.Is(err, ecp.ErrDeniedTarget) {
			return nil, info, invalid("agent_url %q: %v", truncate(agentURL, 100), err)
		}
		return nil, info, &AgentError{Target: agentURL, Err: err}
	}
	return pool, info, nil
}

// agentStderr is where the stdio agents of evaluation id write their
// stderr lines: the service's log, if it keeps one.
func (s *Service) agentStderr(id string) func(ecp.StderrLine) {
	if s.ECP.Stderr == nil {
		return nil
	}
	log := s.ECP.Stderr
	return func(l ecp.StderrLine) { log(id, l) }
}

// ecpAgentInfo describes an ECP agent as its initialize result says.
func ecpAgentInfo(target string, info ecp.InitializeResult) result.AgentInfo {
	transport := "ecp+stdio"
	if !strings.HasPrefix(target, ecp.SchemeStdio) {
		transport = strings.SplitN(target, ":", 2)[0]
	}
	return result.AgentInfo{URL: target, Name: info.Name, Transport: transport, ProtocolVersion: "ECP " + ecp.ProtocolVersion}
}
