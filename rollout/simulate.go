package rollout

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/measure"
	"github.com/proctor-eval/proctor/result"
)

// Agent opens conversations with the agent under evaluation: the one
// protocol-neutral interface of package agent, named here for the
// simulator's callers. Package a2aagent adapts an A2A client to it, package
// ecp a pool of ECP agents.
type Agent = agent.Agent

// Conversation is a dialogue with the agent under evaluation (see Agent).
type Conversation = agent.Conversation

// SimulatedClock is the simulated time at a transcript message: 2024-05-15
// 15:00:00 UTC at a simulation's start, one second more per message.
func SimulatedClock(turn int) time.Time {
	return time.Date(2024, 5, 15, 15, 0, 0, 0, time.UTC).Add(time.Duration(turn) * time.Second)
}

// Limits bound a simulation.
type Limits struct {
	// MaxSteps bounds the transcript length: every message (agent, user or
	// tool result) is one step.
	MaxSteps int
	// MaxErrors bounds failed tool calls.
	MaxErrors int
	// Timeout bounds the simulation's wall-clock time.
	Timeout time.Duration
}

// Default limits (tau2-bench's defaults for steps and errors).
const (
	DefaultMaxSteps  = 100
	DefaultMaxErrors = 10
	DefaultTimeout   = 30 * time.Minute
)

// Simulator plays simulations of one domain and records them; it does not
// score them (package scoring does, from the recording).
type Simulator struct {
	domain  *domains.Domain
	profile agent.ProfileName
	limits  Limits
	// allowed, when not nil, is the agent's manifest of permissions: the
	// only domain tools it may call (see WithAllowedTools).
	allowed []string
	// setup is shared by all simulations, so what the profile renders from
	// the policy and tools alone is rendered once.
	setup agent.Setup
	// tracer makes the tool calls' spans; nil makes none.
	tracer trace.Tracer
	// faults corrupts a share of the agent's tool results (WithFaults).
	faults Faults
}

// NewSimulator returns a simulator; zero limits take the defaults. p names
// the profile an agent that reads text is told the domain through (see
// agent.Request.Profile).
func NewSimulator(d *domains.Domain, p agent.ProfileName, l Limits) *Simulator {
	if l.MaxSteps <= 0 {
		l.MaxSteps = DefaultMaxSteps
	}
	if l.MaxErrors <= 0 {
		l.MaxErrors = DefaultMaxErrors
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	return &Simulator{domain: d, profile: p, limits: l, setup: agent.NewSetup(d.Policy, d.Tools)}
}

// WithAllowedTools limits the domain tools the agent may call to names (a
// manifest of permissions); nil allows every tool. A call outside the
// list is not run: the agent gets a tool error saying the tool is not
// permitted, the tool message is marked refused in the transcript, and the
// call counts as a failed tool call (--max-errors). A name that is not one
// of the domain's tools is an error that lists them.
func (s *Simulator) WithAllowedTools(names []string) (*Simulator, error) {
	if names == nil {
		s.allowed = nil
		return s, nil
	}
	if err := CheckToolNames(s.domain, names); err != nil {
		return nil, err
	}
	s.allowed = slices.Clone(names)
	return s, nil
}

// WithFaults has the simulator corrupt a share of the agent's tool
// results (see Faults); the zero Faults corrupts none.
func (s *Simulator) WithFaults(f Faults) *Simulator {
	s.faults = f
	return s
}

// CheckToolNames checks that every name is one of d's tools (the agent's).
func CheckToolNames(d *domains.Domain, names []string) error {
	known := d.ToolNames()
	var unknown []string
	for _, n := range names {
		if !slices.Contains(known, n) {
			unknown = append(unknown, strconv.Quote(n))
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("no tool %s in domain %s; its tools are %s", strings.Join(unknown, ", "), d.Name, strings.Join(known, ", "))
	}
	return nil
}

// permitted reports whether the agent may call the tool name.
func (s *Simulator) permitted(name string) bool {
	return s.allowed == nil || slices.Contains(s.allowed, name)
}

// refusal is the tool error an agent gets for a call outside its
// permissions.
func (s *Simulator) refusal(name string) domains.ToolResult {
	allowed := "no tool"
	if len(s.allowed) > 0 {
		allowed = strings.Join(s.allowed, ", ")
	}
	return domains.ToolResult{Error: true, Content: fmt.Sprintf("Error: tool %q is not permitted for this agent (permitted: %s). The call was not run.", name, allowed)}
}

// Domain returns the domain the simulator plays.
func (s *Simulator) Domain() *domains.Domain { return s.domain }

// simRun is the state of one running simulation.
type simRun struct {
	s *Simulator
	// setup is the simulator's, or the task's own when the domain's
	// policy depends on the task.
	setup  agent.Setup
	task   *domains.Task
	res    *result.Simulation
	env    domains.Env
	turn   int
	errors int
	// history counts the transcript's leading history messages, and
	// interim the agent's interim messages: neither is a step of the
	// simulation.
	history, interim int
	// calls counts the agent's tool calls run so far (Faults' draw).
	calls int
}

// steps is the number of messages the simulation itself added.
func (r *simRun) steps() int { return len(r.res.Messages) - r.history - r.interim }

// addInterim records what the agent said in a turn before its answer,
// each marked interim, with the turn of the answer to come.
func (r *simRun) addInterim(texts []string) {
	for _, text := range texts {
		r.push(result.Message{Role: result.RoleAssistant, Content: text, Interim: true, Turn: r.turn})
		r.interim++
	}
}

func (r *simRun) add(m result.Message) {
	m.Turn = r.turn
	r.turn++
	r.push(m)
}

// firstMessages is the room the transcript gets with its first message:
// a short simulation's whole transcript, which would otherwise be copied
// as it grows to it (1, 2, 4, then 8 messages).
const firstMessages = 8

// push appends m to the transcript, which has no room before its first
// message: a simulation without messages keeps a nil transcript.
func (r *simRun) push(m result.Message) {
	if r.res.Messages == nil {
		r.res.Messages = make([]result.Message, 0, firstMessages)
	}
	r.res.Messages = append(r.res.Messages, m)
}

// Recording is what a rollout produced: the simulation as it happened,
// unscored (no Reward, no RewardInfo), and the environment it ended with,
// which scorers may read (ENV_ASSERTION) instead of rebuilding it.
type Recording struct {
	Simulation result.Simulation
	// Env is nil when the simulation ended before its environment was
	// set up.
	Env domains.Env
}

// Run plays one simulation to its end and records it: the transcript, the
// agent's and the user's tool calls with their results, the final database
// hash of a conversation that can earn reward, request metrics and model
// calls. It never panics and always returns a recording; aborted reports
// whether ctx ended it (a recording that must not be kept).
func (s *Simulator) Run(ctx context.Context, task *domains.Task, trial int, agent Agent, user UserSimulator) (rec Recording, aborted bool) {
	start := time.Now()
	res := result.Simulation{ID: result.SimulationID(task.ID, trial), TaskID: task.ID, Trial: trial, StartedAt: start.UTC()}
	r := &simRun{s: s, task: task, res: &res}
	// Model calls (user simulator, judge) are metered into the
	// simulation's ledger and keyed for cassettes by task and trial.
	ledger := &llm.Ledger{}
	ctx = WithSimulation(ctx, ledger, task.ID, trial)
	defer func() {
		if p := recover(); p != nil {
			res.TerminationReason, res.Error = result.TermInfrastructure, fmt.Sprintf("internal error: %v", p)
		}
		res.DurationMS = float64(time.Since(start).Microseconds()) / 1000
		res.Metrics = result.AggregateRequests(res.Requests)
		res.LLMCalls = ledger.Calls()
		res.Metrics.LLMUsage = measure.UsageByRole(res.LLMCalls)
		rec = Recording{Simulation: res, Env: r.env}
	}()

	simCtx, cancel := context.WithTimeout(ctx, s.limits.Timeout)
	defer cancel()
	term, err := r.loop(simCtx, agent, user)
	if ctx.Err() != nil {
		return rec, true
	}
	res.TerminationReason = term
	if err != nil {
		res.Error = err.Error()
	}
	if term.Rewardable() && r.env != nil {
		if res.FinalHash, err = r.env.Hash(); err != nil {
			res.TerminationReason, res.Error = result.TermInfrastructure, err.Error()
		}
	}
	return rec, false
}

// WithSimulation returns a context whose model calls are metered into
// ledger and keyed, for cassettes, by the simulation's task and trial: the
// user simulator's calls during the rollout and the judge's while scoring
// share the key, so a cassette recorded by one run replays in a rescore.
func WithSimulation(ctx context.Context, ledger *llm.Ledger, taskID string, trial int) context.Context {
	return llm.WithCallKey(llm.WithLedger(ctx, ledger), taskID, strconv.Itoa(trial))
}

func (r *simRun) loop(ctx context.Context, ag Agent, user UserSimulator) (result.TerminationReason, error) {
	env, err := r.s.domain.NewEnv(r.task)
	if err != nil {
		return result.TermInfrastructure, err
	}
	r.env = env
	r.setup = r.s.setup
	if r.s.domain.HasTaskPolicy() {
		policy, err := r.s.domain.PolicyFor(r.task)
		if err != nil {
			return result.TermInfrastructure, err
		}
		r.setup = agent.NewSetup(policy, r.s.domain.Tools)
	}
	if tu, ok := user.(ToolUser); ok && len(r.s.domain.UserTools) > 0 {
		tu.UseTools(simUserTools{r})
	}
	history, err := domains.History(r.task)
	if err != nil {
		return result.TermInfrastructure, fmt.Errorf("task %s: message_history: %w", r.task.ID, err)
	}
	var input agent.Input
	var term result.TerminationReason
	if len(history) > 0 {
		input, term, err = r.startFromHistory(ctx, history, user)
	} else {
		input, term, err = r.startFromGreeting(ctx, user)
	}
	if term != "" {
		return term, err
	}

	conv := ag.NewConversation()
	defer conv.Close()
	r.res.ContextID = conv.ContextID()
	for first := true; ; first = false {
		if r.steps() >= r.s.limits.MaxSteps {
			return result.TermMaxSteps, nil
		}
		if ctx.Err() != nil {
			return result.TermTimeout, fmt.Errorf("simulation exceeded its %s timeout", r.s.limits.Timeout)
		}
		reply, thought, interim, err := r.ask(ctx, conv, first, input)
		r.addInterim(interim)
		if err != nil {
			if isLocal(err) {
				// proctor's own machine ran out (too many open files...):
				// not the agent's failure.
				return result.TermInfrastructure, fmt.Errorf("proctor: %w", err)
			}
			return r.timeoutOr(ctx, agentOutcome(err), fmt.Errorf("agent: %w", err))
		}
		if len(reply.ToolCalls) > 0 {
			r.add(result.Message{Role: result.RoleAssistant, Content: reply.Text, ToolCalls: reply.ToolCalls, PrivateThought: thought})
			outcomes := r.runAgentCalls(ctx, reply.ToolCalls)
			if r.errors >= r.s.limits.MaxErrors {
				return result.TermTooManyErrors, fmt.Errorf("%d tool calls failed", r.errors)
			}
			input = agent.Input{ToolResults: outcomes}
			continue
		}
		r.add(result.Message{Role: result.RoleAssistant, Content: reply.Text, PrivateThought: thought})
		if strings.Contains(reply.Text, StopToken) {
			return result.TermAgentStop, nil
		}
		if r.steps() >= r.s.limits.MaxSteps {
			return result.TermMaxSteps, nil
		}
		utterance, err := user.Reply(ctx, reply.Text)
		if err != nil {
			return r.timeoutOr(ctx, result.TermUserError, fmt.Errorf("user simulator: %w", err))
		}
		r.add(result.Message{Role: result.RoleUser, Content: utterance})
		if isUserStop(utterance) {
			return result.TermUserStop, nil
		}
		input = agent.Input{UserText: utterance}
	}
}

// firstRequests is the room the simulation's request metrics get with the
// first: a short simulation's requests, without copies as they grow.
const firstRequests = 4

// ask gives the agent its next input and returns its parsed reply, its
// private thought and what it said before its answer (interim), recording
// the requests' metrics.
func (r *simRun) ask(ctx context.Context, conv Conversation, first bool, input agent.Input) (reply agent.Reply, thought string, interim []string, err error) {
	out, err := conv.Step(ctx, agent.Request{
		Setup: r.setup, First: first, Input: input, Profile: r.s.profile,
		UserID: r.res.ID, Time: SimulatedClock(r.turn),
	})
	if out == nil {
		return agent.Reply{}, "", nil, err
	}
	if r.res.Requests == nil && len(out.Requests) > 0 {
		r.res.Requests = make([]measure.Request, 0, max(firstRequests, len(out.Requests)))
	}
	r.res.Requests = append(r.res.Requests, out.Requests...)
	r.res.NonConformant = append(r.res.NonConformant, out.NonConformant...)
	if err != nil {
		return agent.Reply{}, "", nil, err
	}
	for _, said := range out.Interim {
		interim = append(interim, said.Text)
	}
	return out.Reply, out.PrivateThought, interim, nil
}

// isLocal reports whether a step failed for want of proctor's own
// resources (agent.LocalError).
func isLocal(err error) bool {
	var local *agent.LocalError
	return errors.As(err, &local)
}

// agentOutcome is how a failed exchange with the agent ends the
// simulation: agent_error, unless the error names an outcome of its own
// (an ECP agent's refusal: safety_violation, context_window_exceeded,
// capability_missing), by a TerminationReason method.
func agentOutcome(err error) result.TerminationReason {
	var named interface {
		TerminationReason() result.TerminationReason
	}
	if errors.As(err, &named) {
		return named.TerminationReason()
	}
	return result.TermAgentError
}

// runAgentCalls runs the agent's tool calls on the agent's side, records
// their results and counts the failures. A call the agent is not
// permitted (WithAllowedTools) is refused instead of run.
func (r *simRun) runAgentCalls(ctx context.Context, calls []domains.ToolCall) []agent.ToolOutcome {
	outcomes := make([]agent.ToolOutcome, 0, len(calls))
	for _, call := range calls {
		call.Requestor = string(result.RoleAssistant)
		span := r.s.toolSpan(ctx, call)
		if !r.s.permitted(call.Name) {
			out := r.s.refusal(call.Name)
			endToolSpan(span, out, true)
			r.add(result.Message{Role: result.RoleTool, Content: out.Content, ToolCallID: call.ID, Name: call.Name, Error: true, Refused: true})
			outcomes = append(outcomes, agent.ToolOutcome{Call: call, Result: out})
			r.errors++
			continue
		}
		out := domains.CallContext(ctx, r.env, call)
		out, fault := r.s.faults.corrupt(r.task.ID, r.res.Trial, r.calls, out)
		r.calls++
		endToolSpan(span, out, false)
		r.add(result.Message{Role: result.RoleTool, Content: out.Content, ToolCallID: call.ID, Name: call.Name, Error: out.Error, Fault: fault})
		outcomes = append(outcomes, agent.ToolOutcome{Call: call, Result: out})
		if out.Error {
			r.errors++
		}
	}
	return outcomes
}

// startFromGreeting opens a conversation as tau2 does without a message
// history: the agent greets, the user answers. A non-empty reason ends
// the simulation.
func (r *simRun) startFromGreeting(ctx context.Context, user UserSimulator) (agent.Input, result.TerminationReason, error) {
	r.add(result.Message{Role: result.RoleAssistant, Content: AgentGreeting})
	utterance, err := user.Reply(ctx, AgentGreeting)
	if err != nil {
		term, err := r.timeoutOr(ctx, result.TermUserError, fmt.Errorf("user simulator: %w", err))
		return agent.Input{}, term, err
	}
	r.add(result.Message{Role: result.RoleUser, Content: utterance})
	if isUserStop(utterance) {
		return agent.Input{}, result.TermUserStop, nil
	}
	return agent.Input{UserText: utterance}, "", nil
}

// simUserTools runs a user simulator's tool calls on the user's side of the
// simulation's environment and records them in the transcript.
type simUserTools struct{ r *simRun }

func (t simUserTools) Specs() []domains.ToolSpec { return t.r.s.domain.UserTools }

func (t simUserTools) Call(ctx context.Context, call domains.ToolCall) domains.ToolResult {
	call.Requestor = domains.RequestorUser
	if call.ID == "" {
		call.ID = fmt.Sprintf("user-call-%d", t.r.turn)
	}
	t.r.add(result.Message{Role: result.RoleUser, ToolCalls: []domains.ToolCall{call}})
	span := t.r.s.toolSpan(ctx, call)
	out := domains.CallContext(ctx, t.r.env, call)
	endToolSpan(span, out, false)
	t.r.add(result.Message{Role: result.RoleTool, Content: out.Content, ToolCallID: call.ID, Name: call.Name, Error: out.Error, Requestor: domains.RequestorUser})
	return out
}

// timeoutOr attributes a failure to the simulation's timeout when that is
// what cut it short.
func (r *simRun) timeoutOr(ctx context.Context, reason result.TerminationReason, err error) (result.TerminationReason, error) {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return result.TermTimeout, fmt.Errorf("simulation exceeded its %s timeout: %w", r.s.limits.Timeout, err)
	}
	return reason, err
}
