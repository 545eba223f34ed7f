package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/llm"
	"google.golang.org/adk/model"
	"google.golang.org/genai"
)

// UserTools is what a user simulator with tools reaches of the simulation:
// the user's tools on its side of the environment. Calls are recorded in the
// transcript.
type UserTools interface {
	Specs() []domains.ToolSpec
	Call(ctx context.Context, call domains.ToolCall) domains.ToolResult
}

// ToolUser is a user simulator that can use the domain's user tools
// (telecom's user acts on their own phone). The simulator hands it the tools
// before the conversation starts.
type ToolUser interface {
	UserSimulator
	UseTools(UserTools)
}

// LLMUserConfig configures the LLM user simulator.
type LLMUserConfig struct {
	// Model plays the user.
	Model model.LLM
	// Temperature and Seed, when set, are passed to the model; tau2 plays
	// its user at temperature 0.
	Temperature *float64
	Seed        *int64
	// MaxToolRounds bounds the user's tool calls between two utterances
	// (0: DefaultMaxUserToolRounds).
	MaxToolRounds int
	// Prompt is the prompt the user speaks from ("": UserPromptProctor).
	// UserPromptTau2 plays tau2's user simulator, at temperature 0 unless
	// Temperature is set.
	Prompt UserPrompt
	// Guidelines are the texts UserPromptTau2 speaks from (nil:
	// EmbeddedTau2Guidelines); see LoadTau2Guidelines.
	Guidelines *Tau2Guidelines
}

// DefaultMaxUserToolRounds bounds a user's consecutive tool-call rounds.
const DefaultMaxUserToolRounds = 10

// LLMUsers is the UserFactory of the LLM user simulator.
func LLMUsers(cfg LLMUserConfig) UserFactory {
	return func(task *domains.Task, _ int) (UserSimulator, error) {
		return NewLLMUser(cfg, task)
	}
}

// LLMUser is a user simulator played by a language model. It is told who to
// be and what to want by its task's persona and instructions; it sees the
// agent's messages (as the other party, roles flipped) and never the agent's
// tool calls; it ends the conversation with a stop token.
type LLMUser struct {
	cfg      LLMUserConfig
	system   string          // proctor's prompt; "" under tau2's
	scenario string          // tau2's str(user_scenario)
	allowed  map[string]bool // nil: every user tool the domain has
	tools    UserTools
	history  []*genai.Content
}

// NewLLMUser returns the LLM user simulator of a task.
func NewLLMUser(cfg LLMUserConfig, task *domains.Task) (*LLMUser, error) {
	if cfg.Model == nil {
		return nil, errors.New("LLM user simulator: no model configured")
	}
	scenario := renderScenario(task.UserScenario)
	if scenario == "" {
		return nil, fmt.Errorf("task %s has no user persona or instructions for the LLM user simulator", task.ID)
	}
	if cfg.MaxToolRounds <= 0 {
		cfg.MaxToolRounds = DefaultMaxUserToolRounds
	}
	u := &LLMUser{cfg: cfg}
	switch cfg.Prompt {
	case "", UserPromptProctor:
		u.system = userSystemPrompt + "\n\n<scenario>\n" + scenario + "\n</scenario>"
	case UserPromptTau2:
		s, err := tau2Scenario(task.UserScenario)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", task.ID, err)
		}
		u.scenario = s
		if cfg.Guidelines == nil {
			u.cfg.Guidelines = EmbeddedTau2Guidelines()
		}
		if cfg.Temperature == nil {
			u.cfg.Temperature = new(float64)
		}
	default:
		return nil, fmt.Errorf("unknown user prompt %q: use %q or %q", cfg.Prompt, UserPromptTau2, UserPromptProctor)
	}
	if task.UserTools != nil {
		u.allowed = map[string]bool{}
		for _, n := range task.UserTools {
			u.allowed[n] = true
		}
	}
	return u, nil
}

// userSystemPrompt tells the model how to play a user.
const userSystemPrompt = `You are role-playing a customer who contacts a customer-service agent. Stay in character for the whole conversation; you are the customer, never the agent.

How to play:
- Write only the customer's next message, one message per turn, short and natural, as a person would type it.
- Follow the scenario below. Give information only when the agent asks for it or when it is needed; never invent facts the scenario does not give you: say you do not know.
- Do not pursue goals the scenario does not give you, and do not do the agent's work for it.
- When your goal is reached, or the scenario says to end the conversation, reply with only ` + StopToken + `.
- If the agent transfers you to a human agent, reply with only ` + TransferToken + `.
- If the conversation moves outside what the scenario covers so that you cannot continue, reply with only ` + OutOfScopeToken + `.
- If you have tools, they act on your own device or account: when the agent asks you to do or check something there, use them rather than describing what you would do, then tell the agent what you saw.`

// renderScenario writes a task's persona and instructions as text. tau2
// gives instructions as an object (domain, reason_for_call, known_info,
// unknown_info, task_instructions); proctor's domains as a string.
func renderScenario(s domains.UserScenario) string {
	var b strings.Builder
	if p := strings.TrimSpace(s.Persona); p != "" {
		b.WriteString("Persona:\n" + p + "\n")
	}
	switch in := s.Instructions.(type) {
	case nil:
	case string:
		if strings.TrimSpace(in) != "" {
			b.WriteString("Instructions:\n" + strings.TrimSpace(in) + "\n")
		}
	case map[string]any:
		known := []struct{ key, title string }{
			{"domain", "Domain"}, {"reason_for_call", "Reason for call"}, {"known_info", "Known info"},
			{"unknown_info", "Unknown info"}, {"task_instructions", "Task instructions"},
		}
		done := map[string]bool{}
		var parts []string
		for _, k := range known {
			if v := textOf(in[k.key]); v != "" {
				parts = append(parts, k.title+":\n"+v)
			}
			done[k.key] = true
		}
		var rest []string
		for k := range in {
			if !done[k] {
				rest = append(rest, k)
			}
		}
		sort.Strings(rest)
		for _, k := range rest {
			if v := textOf(in[k]); v != "" {
				parts = append(parts, strings.ReplaceAll(k, "_", " ")+":\n"+v)
			}
		}
		if len(parts) > 0 {
			b.WriteString("Instructions:\n" + strings.Join(parts, "\n\n") + "\n")
		}
	default:
		if v := textOf(in); v != "" {
			b.WriteString("Instructions:\n" + v + "\n")
		}
	}
	return strings.TrimSpace(b.String())
}

func textOf(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(x)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
}

// UseTools implements ToolUser.
func (u *LLMUser) UseTools(t UserTools) { u.tools = t }

// Reply implements UserSimulator.
func (u *LLMUser) Reply(ctx context.Context, agentText string) (string, error) {
	ctx = llm.WithCallKey(ctx, "user")
	// Roles flipped: the agent is the model's interlocutor ("user"), the
	// model's own earlier utterances are its turns ("model").
	u.history = append(u.history, genai.NewContentFromText(agentText, genai.RoleUser))
	decls := u.declarations()
	cfg := &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(u.systemPrompt(len(decls) > 0), genai.RoleUser)}
	if u.cfg.Temperature != nil {
		cfg.Temperature = genai.Ptr(float32(*u.cfg.Temperature))
	}
	if u.cfg.Seed != nil {
		cfg.Seed = genai.Ptr(int32(*u.cfg.Seed))
	}
	if len(decls) > 0 {
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	for round := 0; ; round++ {
		content, err := llm.Generate(ctx, u.cfg.Model, &model.LLMRequest{Contents: u.history, Config: cfg})
		if err != nil {
			return "", err
		}
		calls, text := llm.SplitContent(content)
		u.history = append(u.history, &genai.Content{Role: genai.RoleModel, Parts: content.Parts})
		if len(calls) == 0 {
			if strings.TrimSpace(text) == "" {
				return "", errors.New("the user model replied with no text")
			}
			return strings.TrimSpace(text), nil
		}
		if len(decls) == 0 {
			return "", fmt.Errorf("the user model called %s but the user has no tools", calls[0].Name)
		}
		if round >= u.cfg.MaxToolRounds {
			return "", fmt.Errorf("the user model made %d rounds of tool calls without saying anything", round+1)
		}
		responses := make([]*genai.Part, 0, len(calls))
		for _, fc := range calls {
			res := domains.ToolResult{Content: fmt.Sprintf("Error: tool %s is not available to the user", fc.Name), Error: true}
			if u.allowed == nil || u.allowed[fc.Name] {
				res = u.tools.Call(ctx, domains.ToolCall{ID: fc.ID, Name: fc.Name, Arguments: fc.Args, Requestor: domains.RequestorUser})
			}
			responses = append(responses, &genai.Part{FunctionResponse: &genai.FunctionResponse{
				ID: fc.ID, Name: fc.Name, Response: u.toolResponse(res.Content, res.Error)}})
		}
		u.history = append(u.history, &genai.Content{Role: genai.RoleUser, Parts: responses})
	}
}

// systemPrompt is the user's system instruction; tau2's guidelines depend on
// whether the user has tools.
func (u *LLMUser) systemPrompt(withTools bool) string {
	if u.cfg.Prompt == UserPromptTau2 {
		return u.cfg.Guidelines.systemPrompt(u.scenario, withTools)
	}
	return u.system
}

// toolResponse is a user tool's result as the model sees it: tau2 sends the
// tool's text as it is (the "output" convention of genai, which the OpenAI
// adapter sends verbatim), proctor's prompt a JSON object.
func (u *LLMUser) toolResponse(content string, isErr bool) map[string]any {
	switch {
	case u.cfg.Prompt == UserPromptTau2:
		return map[string]any{"output": content}
	case isErr:
		return map[string]any{"error": content}
	}
	return map[string]any{"result": content}
}

func (u *LLMUser) declarations() []*genai.FunctionDeclaration {
	if u.tools == nil {
		return nil
	}
	var out []*genai.FunctionDeclaration
	for _, s := range u.tools.Specs() {
		if u.allowed != nil && !u.allowed[s.Name] {
			continue
		}
		d := &genai.FunctionDeclaration{Name: s.Name, Description: s.Description}
		if len(s.Parameters) > 0 {
			var schema any
			if err := json.Unmarshal(s.Parameters, &schema); err == nil {
				d.ParametersJsonSchema = schema
			}
		}
		out = append(out, d)
	}
	return out
}

// StartFrom implements HistoryUser: the prior messages become the model's
// conversation so far, roles flipped as in Reply (the user's own messages
// and tool calls are the model's turns, the agent's messages and the tool
// results the other party's).
func (u *LLMUser) StartFrom(history []domains.HistoryMessage) {
	for _, m := range history {
		switch m.Role {
		case domains.RequestorUser:
			var parts []*genai.Part
			if m.Content != "" {
				parts = append(parts, genai.NewPartFromText(m.Content))
			}
			for _, c := range m.ToolCalls {
				parts = append(parts, &genai.Part{FunctionCall: &genai.FunctionCall{ID: c.ID, Name: c.Name, Args: c.Arguments}})
			}
			u.history = append(u.history, &genai.Content{Role: genai.RoleModel, Parts: parts})
		case domains.RequestorAssistant:
			u.history = append(u.history, genai.NewContentFromText(m.Content, genai.RoleUser))
		case domains.RoleTool:
			u.history = append(u.history, &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{
				ID: m.ToolCallID, Name: toolName(history, m.ToolCallID), Response: u.toolResponse(m.Content, m.Error)}}}})
		}
	}
}

// toolName is the name of the call with the given id in history.
func toolName(history []domains.HistoryMessage, id string) string {
	for _, m := range history {
		for _, c := range m.ToolCalls {
			if c.ID == id {
				return c.Name
			}
		}
	}
	return ""
}
