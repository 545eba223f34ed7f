package server

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Paths of proctor's A2A endpoints, below the card URL.
const (
	// PathJSONRPC serves JSON-RPC at protocol 1.0.
	PathJSONRPC = "/a2a/jsonrpc"
	// PathREST prefixes HTTP+JSON at protocol 1.0.
	PathREST = "/a2a/rest"
	// PathJSONRPC03 serves JSON-RPC at protocol 0.3.
	PathJSONRPC03 = "/a2a/v0.3/jsonrpc"
	// PathREST03 prefixes HTTP+JSON at protocol 0.3.
	PathREST03 = "/a2a/v0.3/rest"
	// PathHealth answers {"status": "ok", "draining": b, "running": n, "queued": m,
	// "connections": {"open": o, "unauthenticated": u}},
	// without a token.
	PathHealth = "/healthz"
	// PathReady answers 200 {"status": "ready"} while the server takes
	// work, 503 {"status": "draining"} once it is stopping: a readiness
	// probe. It is public, as PathHealth is.
	PathReady = "/readyz"
	// PathUI is where the web viewer is mounted when Config.UI is set.
	PathUI = "/ui/"
)

// Version is the server's version in its agent card.
const Version = "0.1.0"

// Card is the server's agent card: proctor served at cardURL, with gRPC at
// grpcAddr ("" when gRPC is not served).
func Card(cardURL, grpcAddr string) *a2a.AgentCard {
	io := []string{"application/json", "text/plain"}
	return &a2a.AgentCard{
		Name: "proctor",
		Description: "Evaluates A2A agents: drives them through tau-bench style conversations with a simulated user, " +
			"runs their tool calls against a simulated domain, scores every conversation and reports pass^k, " +
			"rewards, latency, token and status metrics.",
		Version:             Version,
		SupportedInterfaces: cardInterfaces(strings.TrimRight(cardURL, "/"), grpcAddr),
		Capabilities:        a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:   io,
		DefaultOutputModes:  io,
		Skills:              cardSkills(io),
	}
}

// cardInterfaces are the card's interfaces below base, and gRPC at
// grpcAddr unless it is "": 1.0 first, then 0.3.
func cardInterfaces(base, grpcAddr string) []*a2a.AgentInterface {
	ifaces := []*a2a.AgentInterface{
		{URL: base + PathJSONRPC, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version},
		{URL: base + PathREST, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2a.Version},
	}
	if grpcAddr != "" {
		ifaces = append(ifaces, &a2a.AgentInterface{URL: grpcAddr, ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2a.Version})
	}
	return append(ifaces,
		&a2a.AgentInterface{URL: base + PathJSONRPC03, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version},
		&a2a.AgentInterface{URL: base + PathREST03, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2av0.Version},
	)
}

// cardSkills are the card's entries for the structured skills, which take
// and give the io media types.
func cardSkills(io []string) []a2a.AgentSkill {
	return []a2a.AgentSkill{
		{
			ID: string(SkillRunEvaluation), Name: "Run an evaluation",
			Description: "Evaluate the A2A agent at agent_url on a domain's tasks. Returns a task at once; it reports progress " +
				"and ends with an artifact named Result holding a Markdown summary and the results JSON. " +
				`Send {"skill": "run_evaluation", "params": {...}} or an AgentBeats assessment {"participants": {"agent": URL}, "config": {...}}.`,
			Tags: []string{"evaluation", "benchmark", "tau-bench", "a2a"},
			Examples: []string{
				`{"skill": "run_evaluation", "params": {"domain": "mock", "agent_url": "https://agent.example.com", "num_trials": 2}}`,
				`{"participants": {"agent": "https://agent.example.com"}, "config": {"domain": "mock", "num_tasks": 5}}`,
			},
			InputModes: io, OutputModes: io,
		},
		{
			ID: string(SkillRunEvalSet), Name: "Run an eval set",
			Description: "Play the cases of an inline eval set against the A2A agent at agent_url and score them the way " +
				"tRPC-Agent-Go and Google ADK score them: eval_set is a tRPC-Agent-Go or ADK eval set (format told from content), " +
				"metrics a tRPC-Agent-Go metrics list or an ADK test_config object; or yaml_cases, a list of YAML case texts. " +
				"The agent's tool calls are read from the wire. At most 4 MiB and 10,000 cases. Returns a task at once; it " +
				"reports progress and ends with an artifact named Result holding a Markdown summary and the run JSON.",
			Tags: []string{"evaluation", "evalset", "trpc-agent-go", "adk", "a2a"},
			Examples: []string{
				`{"skill": "run_evalset", "params": {"agent_url": "https://agent.example.com", "num_runs": 2, ` +
					`"eval_set": {"evalSetId": "calc", "evalCases": [{"evalId": "add", "conversation": [{"invocationId": "add-1", ` +
					`"userContent": {"role": "user", "content": "calc add 2 3"}, "finalResponse": {"role": "assistant", "content": "The result is 5."}, ` +
					`"tools": [{"name": "calculator", "arguments": {"operation": "add", "a": 2, "b": 3}}]}]}]}, ` +
					`"metrics": [{"metricName": "tool_trajectory_avg_score", "threshold": 1, "criterion": {"toolTrajectory": {"orderSensitive": true, ` +
					`"defaultStrategy": {"name": {"matchStrategy": "exact"}, "arguments": {"matchStrategy": "exact"}}}}}]}}`,
				`{"skill": "run_evalset", "params": {"agent_url": "https://agent.example.com", "yaml_cases": ` +
					`["case: add\ninput:\n  content: calc add 2 3\nexpected:\n  tool_calls:\n    - name: calculator\n      args_contain: [add]\n  final_response:\n    contains: \"5\"\n"]}}`,
			},
			InputModes: io, OutputModes: io,
		},
		{
			ID: string(SkillListDomains), Name: "List domains",
			Description: "The domains agents can be evaluated on, with descriptions, task counts and tool names.",
			Tags:        []string{"evaluation", "domains"},
			Examples:    []string{`{"skill": "list_domains"}`},
			InputModes:  io, OutputModes: io,
		},
		{
			ID: string(SkillGetResults), Name: "Get results",
			Description: "One evaluation or eval-set run by id (or short id: a unique prefix or suffix), or a page of recent evaluations filtered by domain, agent or status.",
			Tags:        []string{"evaluation", "results"},
			Examples: []string{
				`{"skill": "get_results", "params": {"id": "01a1fd45"}}`,
				`{"skill": "get_results", "params": {"domain": "mock", "limit": 10, "include_transcripts": false}}`,
			},
			InputModes: io, OutputModes: io,
		},
		{
			ID: string(SkillCheckConformance), Name: "Check A2A conformance",
			Description: "Check the agent at agent_url against the A2A specification (1.0 and 0.3) on every interface its card " +
				"declares: card, task lifecycle, streaming, errors, authentication, transport equivalence. Returns a task that " +
				"ends with an artifact named ConformanceReport (a Markdown summary and the report JSON); its level is full, " +
				"partial, minimal or non-conformant.",
			Tags: []string{"a2a", "conformance", "interoperability"},
			Examples: []string{
				`{"skill": "check_conformance", "params": {"agent_url": "https://agent.example.com"}}`,
				`{"skill": "check_conformance", "params": {"agent_url": "https://agent.example.com", "protocol": "1.0", "transport": "jsonrpc"}}`,
			},
			InputModes: io, OutputModes: io,
		},
	}
}

// cardPaths are the paths below a URL where the card is served: A2A's
// well-known path and the one of A2A 0.2 and earlier.
var cardPaths = []string{a2asrv.WellKnownAgentCardPath, "/.well-known/agent.json"}

// routeCards serves the card, publicly, at the well-known paths below the
// base URL and below each HTTP interface's URL, where platforms that take
// an interface's URL for the agent's look for it.
func routeCards(mux *http.ServeMux, card *a2a.AgentCard) {
	h := cardHandler(card)
	for _, base := range []string{"", PathJSONRPC, PathREST, PathJSONRPC03, PathREST03} {
		for _, p := range cardPaths {
			mux.Handle(base+p, h)
		}
	}
}

// isJSONRPCPath reports whether path is one of the JSON-RPC endpoints
// (the root and the two interfaces), whose refusals are JSON-RPC errors.
func isJSONRPCPath(path string) bool {
	return path == "/" || path == PathJSONRPC || path == PathJSONRPC03
}

// root answers what no other route takes: GET / points to the card and
// the interfaces, anything else is a 404 that says where to look. (POST /
// is JSON-RPC, routed before this.)
func (s *Server) root(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	body := map[string]any{
		"agent_card": a2asrv.WellKnownAgentCardPath,
		"jsonrpc":    "POST / or an interface URL of the card",
	}
	switch {
	case r.URL.Path != "/":
		w.WriteHeader(http.StatusNotFound)
		body["error"] = "no such path: " + truncate(r.URL.Path, 100) + "; proctor serves A2A at the interface URLs of its agent card"
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		body["name"] = s.card.Name
		body["interfaces"] = s.card.SupportedInterfaces
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		w.WriteHeader(http.StatusMethodNotAllowed)
		body["error"] = r.Method + " /: POST A2A JSON-RPC here, or GET the agent card"
	}
	_ = json.NewEncoder(w).Encode(body)
}

// cardHandler serves the card in the form the client speaks. A request that
// says A2A-Version 1.x gets the 1.0 card; others get a2a-go's union of the
// 1.0 and 0.3 forms, which clients of either version read. The union can
// hold security schemes in the 0.3 form only, which 1.0 parsers reject:
// 1.0 clients of a server that requires tokens must say their version.
func cardHandler(card *a2a.AgentCard) http.Handler {
	v10 := a2asrv.NewStaticAgentCardHandler(card)
	union := a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(card))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", a2a.SvcParamVersion)
		if v := strings.TrimSpace(r.Header.Get(a2a.SvcParamVersion)); v == "1" || strings.HasPrefix(v, "1.") {
			v10.ServeHTTP(w, r)
			return
		}
		union.ServeHTTP(w, r)
	})
}
