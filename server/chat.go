package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"google.golang.org/adk/agent/llmagent"
	"google.golang.org/adk/model"
	"google.golang.org/adk/runner"
	adka2a "google.golang.org/adk/server/adka2a/v2"

	"github.com/proctor-eval/proctor/internal/adksession"
	"github.com/proctor-eval/proctor/skills"
)

// SkillChat is the card's skill for free-text requests (with a chat model).
const SkillChat Skill = "chat"

// chatInstruction tells the chat model what it is for.
const chatInstruction = `You are proctor, a service that evaluates AI agents speaking the A2A protocol. People ask you, in plain language, to evaluate their agent on a domain, to list the domains, or to show results.

Use your tools:
- list_domains: what domains exist, with their task counts.
- run_evaluation: evaluate an agent (agent_url, domain, num_trials...). It runs to its end and returns pass^1 (the share of tasks solved), the average reward, the do-nothing baseline and the failed simulations. agent_url "builtin" is proctor's own reference agent. When the user does not name an agent or a domain, leave them out: the tool reuses the ones this conversation used last.
- get_results: the results of the conversation's last evaluation (leave evaluation_id out), of another one by id, or a list of recent ones.

Report numbers exactly as the tools return them, with the evaluation id. Say "pass^1" for the pass rate. When asked for failures, list the failed simulations (task id and trial, termination reason). Never invent results; if a tool returns an error, explain it and what the user could change. Keep answers short.`

// newChatExecutor serves free-text requests with an ADK LLM agent whose
// tools are the skills, through ADK's A2A executor. Evaluations it starts
// wait their turn in the server's queue like structured ones, within
// their tenant's limits, and none starts while the server drains. It
// keeps the ADK sessions of the last [adksession.MaxSessions] (10,000)
// conversations to have a turn; an older one continued starts afresh.
func newChatExecutor(m model.LLM, svc *skills.Service, q *queue, gate *tenantGate, drain *drainState) (*adka2a.Executor, error) {
	fts, err := svc.FunctionTools(func(ctx context.Context, simulations int) (func(), error) {
		if drain.isDraining() {
			return nil, errors.New(drainingReason)
		}
		if err := gate.simulationsError(simulations); err != nil {
			return nil, err
		}
		return gate.acquire(ctx, q)
	})
	if err != nil {
		return nil, err
	}
	ag, err := llmagent.New(llmagent.Config{
		Name:        "proctor",
		Description: "Evaluates A2A agents on simulated customer-service domains.",
		Model:       m,
		Instruction: chatInstruction,
		Tools:       fts,
	})
	if err != nil {
		return nil, fmt.Errorf("chat agent: %w", err)
	}
	return adka2a.NewExecutor(adka2a.ExecutorConfig{RunnerConfig: runner.Config{
		AppName: "proctor", Agent: ag, SessionService: adksession.NewBounded(adksession.MaxSessions),
	}}), nil
}

// chatSkill is the card's entry for free-text requests, when a chat model
// answers them.
func chatSkill() a2a.AgentSkill {
	io := []string{"text/plain"}
	return a2a.AgentSkill{
		ID: string(SkillChat), Name: "Chat",
		Description: "Ask in plain language: list the domains, evaluate an agent, show results and failures. " +
			"The conversation remembers the last evaluation, agent and domain.",
		Tags: []string{"evaluation", "chat"},
		Examples: []string{
			"Which domains can you evaluate on?",
			"Evaluate the agent at http://localhost:9019 on mock and show me the failures.",
			"How did it do? Run it again with 3 trials.",
		},
		InputModes: io, OutputModes: io,
	}
}
