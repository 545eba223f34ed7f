package skills

import (
	"net/url"

	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/evalset"
)

// checkEvalSetAgent checks the agent of an eval-set run and what the sets
// ask of it: an A2A agent at an http(s) URL, or an ECP agent (ecp+stdio:
// or ecp+ws://) the service may reach. Only an ECP agent can be
// inspected, and only an A2A agent has transports to choose from.
func (s *Service) checkEvalSetAgent(req EvalSetRequest, sets []*evalset.Set) error {
	if ecp.IsTarget(req.AgentURL) {
		if err := s.checkECPTarget(req.AgentURL, req.ECPConfig); err != nil {
			return err
		}
		for _, set := range sets {
			for _, c := range set.Cases {
				if c != nil && c.Transport != "" {
					return invalid("eval set %s, case %s: transport %s is an A2A binding, but the agent %q speaks ECP: remove the case's transport",
						set.ID, c.ID, c.Transport, truncate(req.AgentURL, 100))
				}
			}
		}
		return nil
	}
	if u, err := url.Parse(req.AgentURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return invalid("agent_url %q: want an http:// or https:// URL (A2A), or ecp+stdio:COMMAND or ecp+ws://HOST/PATH (ECP)", truncate(req.AgentURL, 100))
	}
	if req.ECPConfig != nil {
		return invalid("ecp_config is for ECP agents (agent_url ecp+stdio:... or ecp+ws://...)")
	}
	if set, c, ok := evalset.HasInspect(sets); ok {
		return invalid("eval set %s, case %s: inspect assertions read the agent's state with ECP's agent/inspect, which needs an ECP agent (agent_url ecp+stdio:... or ecp+ws://...); %q is an A2A agent",
			set.ID, c.ID, truncate(req.AgentURL, 100))
	}
	return nil
}
