package rollout

import (
	"context"
	"errors"
	"strings"

	"google.golang.org/adk/model"
	"google.golang.org/genai"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/llm"
)

// ScenarioUser plays the user of an eval case's conversation scenario
// (tRPC-Agent-Go's conversationScenario, ADK's conversation_scenario) with
// a language model: it follows the scenario's plan, opens with its
// starting prompt when it has one, and ends the conversation when it says
// the stop signal (its whole message, case aside, as tRPC-Agent-Go
// compares) or after the scenario's maximum invocations. It sees the
// agent's answers only: never its tool calls, never its thoughts.
type ScenarioUser struct {
	cfg       LLMUserConfig
	system    string
	starting  string
	stop      string
	max       int
	generated int
	started   bool
	history   []*genai.Content
}

// NewScenarioUser returns the user of a scenario. A scenario with neither
// a stop signal nor a maximum of invocations could run forever and is an
// error, as it is for tRPC-Agent-Go.
func NewScenarioUser(cfg LLMUserConfig, s *evalset.Scenario) (*ScenarioUser, error) {
	if cfg.Model == nil {
		return nil, errors.New("conversation scenario: no user simulator model configured (give one with --user-model)")
	}
	if s == nil || strings.TrimSpace(s.Plan) == "" {
		return nil, errors.New("conversation scenario: conversationPlan is empty; say what the simulated user wants")
	}
	u := &ScenarioUser{cfg: cfg, starting: strings.TrimSpace(s.StartingPrompt), stop: strings.TrimSpace(s.StopSignal)}
	if s.MaxInvocations != nil {
		if *s.MaxInvocations < 0 {
			return nil, errors.New("conversation scenario: maxAllowedInvocations is negative; give 0 (no bound) or more")
		}
		u.max = *s.MaxInvocations
	}
	if u.stop == "" && u.max == 0 {
		return nil, errors.New("conversation scenario: give a stopSignal or a maxAllowedInvocations, or it never ends")
	}
	u.system = scenarioPrompt(u.starting, u.stop, s.Plan)
	return u, nil
}

// scenarioPrompt tells the model how to play the scenario's user.
func scenarioPrompt(starting, stop, plan string) string {
	lines := []string{
		"You play the user in a conversation that tests an AI agent. Each turn you are given the agent's latest answer (empty when the conversation has not started) and you write the user's next message.",
		"",
		"Rules:",
		"- Write one message only, as the user would type it, and nothing else: no explanation, no description of your plan.",
		"- Follow the conversation plan below; it says what the user wants and how the user behaves.",
		"- Answer what the agent asks, give the details it needs, and ask for the next step toward the goal; correct the agent when it goes wrong.",
	}
	if stop != "" {
		lines = append(lines, "- Once the user's goal is met, reply with exactly "+stop+" and nothing else.")
	}
	if starting != "" {
		lines = append(lines, "", "The user has already opened the conversation with:", starting)
	}
	return strings.Join(append(lines, "", "Conversation plan:", strings.TrimSpace(plan)), "\n")
}

// openingCue stands for the agent's answer before the conversation starts
// (a model's history opens with the other party's turn).
const openingCue = "(The agent has said nothing yet. Write the user's first message.)"

// Next returns the user's next message, given the agent's latest answer
// ("" before the first turn), or stop when the conversation is over.
func (u *ScenarioUser) Next(ctx context.Context, agentAnswer string) (message string, stop bool, err error) {
	if u.max > 0 && u.generated >= u.max {
		return "", true, nil
	}
	if !u.started {
		u.started = true
		if u.starting != "" {
			u.generated++
			u.history = append(u.history, genai.NewContentFromText(openingCue, genai.RoleUser), genai.NewContentFromText(u.starting, genai.RoleModel))
			return u.starting, false, nil
		}
	}
	reply, err := u.generate(ctx, agentAnswer)
	if err != nil {
		return "", false, err
	}
	if u.stop != "" && strings.EqualFold(reply, u.stop) {
		return "", true, nil
	}
	u.generated++
	return reply, false, nil
}

// generate asks the model for the user's next message, roles flipped as
// LLMUser has them: the agent is the model's interlocutor.
func (u *ScenarioUser) generate(ctx context.Context, agentAnswer string) (string, error) {
	ctx = llm.WithCallKey(ctx, "user")
	said := agentAnswer
	if strings.TrimSpace(said) == "" {
		said = openingCue
	}
	u.history = append(u.history, genai.NewContentFromText(said, genai.RoleUser))
	cfg := &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(u.system, genai.RoleUser)}
	if u.cfg.Temperature != nil {
		cfg.Temperature = genai.Ptr(float32(*u.cfg.Temperature))
	}
	if u.cfg.Seed != nil {
		cfg.Seed = genai.Ptr(int32(*u.cfg.Seed))
	}
	content, err := llm.Generate(ctx, u.cfg.Model, &model.LLMRequest{Contents: u.history, Config: cfg})
	if err != nil {
		return "", err
	}
	_, text := llm.SplitContent(content)
	text = strings.TrimSpace(text)
	if text == "" {
		return "", errors.New("the user simulator's model replied with no text")
	}
	u.history = append(u.history, genai.NewContentFromText(text, genai.RoleModel))
	return text, nil
}
