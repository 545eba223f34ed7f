package ecp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/measure"
)

// Agent is a pool of ECP agents as the simulator's agent under evaluation:
// every conversation draws a client from the pool on its first step and
// gives it back when the simulation ends.
type Agent struct {
	pool *Pool
	// maxRunning bounds the "running" steps of one turn.
	maxRunning int
}

// NewAgent returns pool as the agent under evaluation; maxRunning bounds
// the consecutive "running" steps of one turn (0: agent.DefaultMaxRunning).
func NewAgent(pool *Pool, maxRunning int) *Agent {
	if maxRunning <= 0 {
		maxRunning = agent.DefaultMaxRunning
	}
	return &Agent{pool: pool, maxRunning: maxRunning}
}

// NewConversation implements agent.Agent.
func (a *Agent) NewConversation() agent.Conversation {
	return &conversation{agent: a, id: uuid.NewString()}
}

// conversation is one simulation's dialogue with a pooled ECP agent.
type conversation struct {
	agent  *Agent
	id     string
	client *Client
}

var _ agent.Conversation = (*conversation)(nil)

// ContextID is a fresh id per conversation (ECP has no context ids).
func (c *conversation) ContextID() string { return c.id }

// Close gives the client back to the pool.
func (c *conversation) Close() error {
	if c.client != nil {
		c.client.SetSimulation("")
		c.agent.pool.Put(c.client)
		c.client = nil
	}
	return nil
}

// Step sends one input and steps on while the agent says "running". Its
// answer's latency is the whole step's, a pooled agent's reset included.
func (c *conversation) Step(ctx context.Context, req agent.Request) (*agent.Answer, error) {
	start := time.Now()
	out, err := c.steps(ctx, req)
	out.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	return out, err
}

// steps is Step but for the answer's latency.
func (c *conversation) steps(ctx context.Context, req agent.Request) (*agent.Answer, error) {
	out := &agent.Answer{}
	if c.client == nil {
		start := time.Now()
		cl, err := c.agent.pool.Get(ctx)
		if err != nil {
			out.Requests = append(out.Requests, failedMetrics(MethodReset, start, err))
			return out, err
		}
		c.client = cl
		cl.SetSimulation(req.UserID) // the simulation's id
	}
	params, err := stepParams(req)
	if err != nil {
		return out, err
	}
	var public, private []string
	for n := 0; ; n++ {
		res, m, err := c.step(ctx, params)
		out.Requests = append(out.Requests, m)
		if err != nil {
			return out, err
		}
		public, private = appendText(public, res.PublicOutput), appendText(private, res.PrivateThought)
		if res.Status != StatusRunning {
			out.Reply.Text, out.PrivateThought = strings.Join(public, "\n"), strings.Join(private, "\n")
			out.Reply.ToolCalls = domainCalls(res.ToolCalls)
			out.Reply.Format = agent.ReplyFormatJSON
			if len(res.ToolCalls) == 0 {
				out.Reply.Format = agent.ReplyFormatText
			}
			if out.PrivateThought != "" {
				out.Thoughts = []string{out.PrivateThought}
			}
			if len(res.ToolCalls) == 0 {
				out.State = string(StatusDone)
			}
			if res.Status == StatusPaused && len(res.ToolCalls) == 0 {
				out.NonConformant = append(out.NonConformant, "agent/step: status paused without tool_calls, read as done")
			}
			return out, nil
		}
		if limit := cmp.Or(req.MaxRunning, c.agent.maxRunning); n+1 >= limit {
			return out, fmt.Errorf("ecp: the agent answered \"running\" %d times in a row (--max-steps)", n+1)
		}
		params = StepParams{Context: StepContext{Time: params.Context.Time, UserID: params.Context.UserID, Kind: KindUser}}
	}
}

// step makes one agent/step call and measures it.
func (c *conversation) step(ctx context.Context, p StepParams) (StepResult, measure.Request, error) {
	start := time.Now()
	res, err := c.client.Step(ctx, p)
	m := measure.Request{Method: MethodStep, StartedAt: start.UTC(), LatencyMS: float64(time.Since(start).Microseconds()) / 1000}
	m.BytesSent, m.BytesReceived = c.client.LastCallBytes()
	if err != nil {
		m.ErrorClass, m.Error = errorClass(err), err.Error()
		return res, m, err
	}
	if res.Usage != nil && res.Usage.Reported {
		m.InputTokens, m.OutputTokens = res.Usage.Input, res.Usage.Output
	} else {
		m.TokensEstimated = true
		m.InputTokens = a2aclient.EstimateTokens(p.Input + p.Context.Policy + string(p.Context.Tools) + string(p.Context.History))
		m.OutputTokens = a2aclient.EstimateTokens(deref(res.PublicOutput) + deref(res.PrivateThought))
	}
	return res, m, nil
}

// failedMetrics are the metrics of a call that failed before a step.
func failedMetrics(method string, start time.Time, err error) measure.Request {
	return measure.Request{
		Method: method, StartedAt: start.UTC(), LatencyMS: float64(time.Since(start).Microseconds()) / 1000,
		ErrorClass: errorClass(err), Error: err.Error(),
	}
}

// errorClass maps a failure to the request metrics' error classes.
func errorClass(err error) measure.ErrorClass {
	var ce *CallError
	if !errors.As(err, &ce) {
		return measure.ErrClassConnection
	}
	switch ce.Kind {
	case FailTimeout:
		return measure.ErrClassTimeout
	case FailTooLarge:
		return measure.ErrClassTooLarge
	case FailNotJSON, FailProtocol, FailRefused:
		return measure.ErrClassProtocol
	case FailRPCError:
		return measure.ErrClassRPC
	case FailCanceled:
		return measure.ErrClassCanceled
	}
	return measure.ErrClassConnection
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func appendText(list []string, s *string) []string {
	if s == nil || *s == "" {
		return list
	}
	return append(list, *s)
}

// domainCalls converts calls, naming those without an id "call-N" (their
// position) and renaming repeated ids, as translation.ParseReply does.
func domainCalls(calls []ToolCall) []domains.ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]domains.ToolCall, len(calls))
	seen := map[string]bool{}
	for i, c := range calls {
		id := c.ID
		if id == "" || seen[id] {
			id = "call-" + strconv.Itoa(i+1)
		}
		seen[id] = true
		args := c.Arguments
		if args == nil {
			args = map[string]any{}
		}
		out[i] = domains.ToolCall{ID: id, Name: c.Name, Arguments: args}
	}
	return out
}

// stepParams builds agent/step's parameters for one simulator input.
func stepParams(req agent.Request) (StepParams, error) {
	p := StepParams{Input: req.Input.UserText, Context: StepContext{
		Time: req.Time.UTC().Format(time.RFC3339), UserID: req.UserID, Kind: KindUser,
	}}
	if len(req.Input.ToolResults) > 0 {
		items := make([]ToolResult, len(req.Input.ToolResults))
		for i, o := range req.Input.ToolResults {
			items[i] = ToolResult{ID: o.Call.ID, Name: o.Call.Name, Content: o.Result.Content, Error: o.Result.Error}
		}
		b, err := json.Marshal(ToolResults{ToolResults: items})
		if err != nil {
			return p, fmt.Errorf("ecp: encode tool results: %w", err)
		}
		p.Input, p.Context.Kind = string(b), KindToolResults
	}
	if req.First {
		var err error
		if p.Context.Tools, err = json.Marshal(openAITools(req.Setup.Tools)); err != nil {
			return p, fmt.Errorf("ecp: encode tools: %w", err)
		}
		p.Context.Policy = strings.TrimSpace(req.Setup.Policy)
		if len(req.Input.History) > 0 {
			if p.Context.History, err = json.Marshal(historyMessages(req.Input.History)); err != nil {
				return p, fmt.Errorf("ecp: encode history: %w", err)
			}
		}
	}
	return p, nil
}

// openAITool is a tool in OpenAI function format.
type openAITool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	} `json:"function"`
}

func openAITools(specs []domains.ToolSpec) []openAITool {
	out := make([]openAITool, len(specs))
	for i, s := range specs {
		out[i].Type = "function"
		out[i].Function.Name, out[i].Function.Description, out[i].Function.Parameters = s.Name, s.Description, s.Parameters
	}
	return out
}

// historyMessage is one message of context.history.
type historyMessage struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Error      bool       `json:"error,omitempty"`
}

func historyMessages(h []domains.HistoryMessage) []historyMessage {
	out := make([]historyMessage, len(h))
	for i, m := range h {
		out[i] = historyMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Error: m.Error}
		for _, c := range m.ToolCalls {
			out[i].ToolCalls = append(out[i].ToolCalls, ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
	}
	return out
}
