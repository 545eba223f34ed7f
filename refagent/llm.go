package refagent

import (
	"context"
	"fmt"
	"net"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/adk/agent/llmagent"
	"google.golang.org/adk/model"
	"google.golang.org/adk/runner"
	adka2a "google.golang.org/adk/server/adka2a/v2"
	"google.golang.org/genai"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/internal/adksession"
	"github.com/proctor-eval/proctor/translation"
)

// baselineInstruction makes a model follow the agentbeats profile: policy
// and tools arrive in the first message, every reply is one JSON call.
const baselineInstruction = `You are a customer-service agent. The first message of each conversation gives you the policy you must follow and the tools you may use (JSON function schemas), followed by the customer's first words. Every later message is either what the customer said or the result of your last tool call.

Answer every message with exactly one JSON object and nothing else:
- to call a tool: {"name": "<tool name>", "arguments": {...}}
- to talk to the customer: {"name": "` + translation.RespondTool + `", "arguments": {"content": "<your message>"}}
Make one tool call per reply and wait for its result. Follow the policy strictly: check identities and conditions it asks for, ask for confirmation where it says so, and transfer or refuse where it says so.`

// BaselineConfig configures the LLM baseline participant.
type BaselineConfig struct {
	// Model answers; the agent keeps each conversation (A2A context) in an
	// ADK session, the last [adksession.MaxSessions] (10,000) conversations
	// to have a turn: an older one continued starts afresh, its history
	// forgotten.
	Model model.LLM
	// Domain names what the agent is for, in its card ("" for any).
	Domain string
	// Temperature, when set, is passed to the model.
	Temperature *float64
}

// NewBaselineHandler serves the baseline participant: an ADK LLM agent that
// follows the agentbeats profile, a ready-made "purple" agent to compare
// real agents against. Its card is at /.well-known/agent-card.json and
// A2A JSON-RPC (protocol 1.0) at every other path; cardURL is the URL the
// card advertises.
func NewBaselineHandler(cfg BaselineConfig, cardURL string) (http.Handler, error) {
	return newBaselineHandler(cfg, cardURL, adksession.MaxSessions)
}

// newBaselineHandler is NewBaselineHandler keeping at most maxSessions
// conversations' ADK sessions.
func newBaselineHandler(cfg BaselineConfig, cardURL string, maxSessions int) (http.Handler, error) {
	if cfg.Model == nil {
		return nil, fmt.Errorf("refagent: the baseline agent needs a model")
	}
	gen := &genai.GenerateContentConfig{ResponseMIMEType: "application/json"}
	if cfg.Temperature != nil {
		gen.Temperature = genai.Ptr(float32(*cfg.Temperature))
	}
	ag, err := llmagent.New(llmagent.Config{
		Name:                  "baseline",
		Description:           "An LLM customer-service agent that follows the policy and tools it is given.",
		Model:                 cfg.Model,
		Instruction:           baselineInstruction,
		GenerateContentConfig: gen,
	})
	if err != nil {
		return nil, fmt.Errorf("refagent: baseline agent: %w", err)
	}
	what := "any domain"
	if cfg.Domain != "" {
		what = "the " + cfg.Domain + " domain"
	}
	card := &a2a.AgentCard{
		Name: "proctor baseline agent (" + cfg.Model.Name() + ")",
		Description: "An LLM agent (" + cfg.Model.Name() + ") for " + what + " that follows proctor's agentbeats profile: " +
			"policy and tools in the first message, one JSON tool call or respond per reply. A baseline to compare agents against.",
		Version: Version,
		SupportedInterfaces: []*a2a.AgentInterface{{
			URL: cardURL, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: protocolVersion,
		}},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{{
			ID: "baseline-support", Name: "Customer support (baseline)",
			Description: "Follows the policy and tools given in the conversation's first message.",
			Tags:        []string{"tau-bench", string(agent.ProfileAgentBeats), "baseline"},
		}},
	}
	executor := adka2a.NewExecutor(adka2a.ExecutorConfig{RunnerConfig: runner.Config{
		AppName: "baseline", Agent: ag, SessionService: adksession.NewBounded(maxSessions),
	}})
	return serveA2A(card, executor, MaxTasks), nil
}

// ServeBaseline runs the baseline participant on ln until ctx ends. Serve
// closes ln.
func ServeBaseline(ctx context.Context, ln net.Listener, cfg BaselineConfig) error {
	h, err := NewBaselineHandler(cfg, BaseURL(ln.Addr()))
	if err != nil {
		ln.Close()
		return err
	}
	return serveHandler(ctx, ln, h)
}
