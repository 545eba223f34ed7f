package bench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/translation"
)

// Conversation is a dialogue with the agent under evaluation.
type Conversation interface {
	Send(ctx context.Context, parts []*a2a.Part) (*a2aclient.Response, error)
	ContextID() string
}

// Agent opens conversations with the agent under evaluation.
type Agent interface {
	NewConversation() Conversation
}

type clientAgent struct{ c *a2aclient.Client }

func (a clientAgent) NewConversation() Conversation { return a.c.NewConversation() }

// ClientAgent adapts an a2aclient.Client to Agent.
func ClientAgent(c *a2aclient.Client) Agent { return clientAgent{c} }

// Limits bound a simulation and say how strictly it is scored.
type Limits struct {
	// MaxSteps bounds the transcript length: every message (agent, user or
	// tool result) is one step.
	MaxSteps int
	// MaxErrors bounds failed tool calls.
	MaxErrors int
	// Timeout bounds the simulation's wall-clock time.
	Timeout time.Duration
	// Strict adds ACTION to the reward basis of every task that expects
	// the agent to call tools and does not score actions already: reaching
	// the right database, or saying the right things, is not enough without
	// the expected calls. A task with no expected actions gets no ACTION
	// basis. Reward info lists the added basis under added_by_strict.
	// An evaluation records the mode in Config.Strict.
	Strict bool
}

// Default limits (tau2-bench's defaults for steps and errors).
const (
	DefaultMaxSteps  = 100
	DefaultMaxErrors = 10
	DefaultTimeout   = 30 * time.Minute
)

// Simulator runs simulations of one domain.
type Simulator struct {
	domain  *domains.Domain
	profile translation.Profile
	limits  Limits
	judge   Judge
	// setup is shared by all simulations, so what the profile renders from
	// the policy and tools alone is rendered once.
	setup translation.Setup

	mu        sync.Mutex
	gold      map[string]string // task id -> gold DB hash
	doNothing map[string]*doNothingEntry
	fresh     struct { // the hash of the domain's initial database
		once sync.Once
		hash string
		err  error
	}
}

// NewSimulator returns a simulator; zero limits take the defaults.
func NewSimulator(d *domains.Domain, p translation.Profile, l Limits) *Simulator {
	if l.MaxSteps <= 0 {
		l.MaxSteps = DefaultMaxSteps
	}
	if l.MaxErrors <= 0 {
		l.MaxErrors = DefaultMaxErrors
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	return &Simulator{domain: d, profile: p, limits: l, gold: map[string]string{},
		doNothing: map[string]*doNothingEntry{}, setup: translation.NewSetup(d.Policy, d.Tools)}
}

// WithJudge sets the judge of NL_ASSERTION criteria.
func (s *Simulator) WithJudge(j Judge) *Simulator { s.judge = j; return s }

func (s *Simulator) goldHash(task *domains.Task) (string, error) {
	s.mu.Lock()
	h, ok := s.gold[task.ID]
	s.mu.Unlock()
	if ok {
		return h, nil
	}
	h, err := s.domain.GoldHash(task)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.gold[task.ID] = h
	s.mu.Unlock()
	return h, nil
}

// simRun is the state of one running simulation.
type simRun struct {
	s      *Simulator
	task   *domains.Task
	res    *Simulation
	env    domains.Env
	turn   int
	errors int
}

func (r *simRun) add(m Message) {
	m.Turn = r.turn
	r.turn++
	r.res.Messages = append(r.res.Messages, m)
}

// Run plays one simulation to its end and scores it. It never panics and
// always returns a result; Aborted reports whether ctx ended it (a result
// that must not be recorded).
func (s *Simulator) Run(ctx context.Context, task *domains.Task, trial int, agent Agent, user UserSimulator) (sim Simulation, aborted bool) {
	start := time.Now()
	res := Simulation{ID: SimulationID(task.ID, trial), TaskID: task.ID, Trial: trial, StartedAt: start.UTC()}
	r := &simRun{s: s, task: task, res: &res}
	bases, added := strictBases(task, s.limits.Strict)
	vacuous := false
	// Model calls (user simulator, judge) are metered into the
	// simulation's ledger and keyed for cassettes by task and trial.
	ledger := &llm.Ledger{}
	ctx = llm.WithCallKey(llm.WithLedger(ctx, ledger), task.ID, strconv.Itoa(trial))
	defer func() {
		if p := recover(); p != nil {
			res.TerminationReason, res.Error = TermInfrastructure, fmt.Sprintf("internal error: %v", p)
			res.Reward, res.RewardInfo = 0, RewardInfo{RewardBasis: bases, AddedByStrict: added, Note: "simulation failed inside proctor"}
		}
		res.RewardInfo.DoNothingPasses = vacuous
		res.DurationMS = float64(time.Since(start).Microseconds()) / 1000
		res.Metrics = aggregate(res.Requests)
		res.LLMCalls = ledger.Calls()
		res.Metrics.LLMUsage = llm.UsageByRole(res.LLMCalls)
		sim = res
	}()
	// A task whose data is broken fails the simulation below, where the
	// error is reported; here it only leaves the task unmarked.
	vacuous, _ = s.DoNothingPasses(task)

	simCtx, cancel := context.WithTimeout(ctx, s.limits.Timeout)
	defer cancel()
	term, err := r.loop(simCtx, agent, user)
	if ctx.Err() != nil {
		return res, true
	}
	res.TerminationReason = term
	if err != nil {
		res.Error = err.Error()
	}
	in := scoreInput{task: task, bases: bases, strictAdded: added, messages: res.Messages, termination: term, env: r.env}
	if term == TermUserStop || term == TermAgentStop {
		if in.goldHash, err = s.goldHash(task); err == nil && r.env != nil {
			in.finalHash, err = r.env.Hash()
		}
		if err != nil {
			res.TerminationReason, res.Error = TermInfrastructure, err.Error()
			in.termination = TermInfrastructure
		}
	}
	res.RewardInfo = score(ctx, in, s.judge)
	res.Reward = res.RewardInfo.Reward
	return res, false
}

func (r *simRun) loop(ctx context.Context, agent Agent, user UserSimulator) (string, error) {
	env, err := r.s.domain.NewEnv(r.task)
	if err != nil {
		return TermInfrastructure, err
	}
	r.env = env
	if tu, ok := user.(ToolUser); ok && len(r.s.domain.UserTools) > 0 {
		tu.UseTools(simUserTools{r})
	}
	r.add(Message{Role: RoleAssistant, Content: AgentGreeting})
	utterance, err := user.Reply(ctx, AgentGreeting)
	if err != nil {
		return r.timeoutOr(ctx, TermUserError, fmt.Errorf("user simulator: %w", err))
	}
	r.add(Message{Role: RoleUser, Content: utterance})
	if isUserStop(utterance) {
		return TermUserStop, nil
	}

	conv := agent.NewConversation()
	r.res.ContextID = conv.ContextID()
	setup := r.s.setup
	input := translation.Input{UserText: utterance}
	for first := true; ; first = false {
		if len(r.res.Messages) >= r.s.limits.MaxSteps {
			return TermMaxSteps, nil
		}
		if ctx.Err() != nil {
			return TermTimeout, fmt.Errorf("simulation exceeded its %s timeout", r.s.limits.Timeout)
		}
		resp, err := conv.Send(ctx, r.s.profile.Render(setup, first, input))
		if resp != nil {
			r.res.Requests = append(r.res.Requests, resp.Metrics)
			if resp.NonConformant != "" {
				r.res.NonConformant = append(r.res.NonConformant, resp.NonConformant)
			}
		}
		if err != nil {
			return r.timeoutOr(ctx, TermAgentError, fmt.Errorf("agent: %w", err))
		}
		reply := translation.ParseReply(resp.Parts)
		if len(reply.ToolCalls) > 0 {
			r.add(Message{Role: RoleAssistant, Content: reply.Text, ToolCalls: reply.ToolCalls})
			outcomes := make([]translation.ToolOutcome, 0, len(reply.ToolCalls))
			for _, call := range reply.ToolCalls {
				call.Requestor = RoleAssistant
				out := r.env.Call(call)
				r.add(Message{Role: RoleTool, Content: out.Content, ToolCallID: call.ID, Name: call.Name, Error: out.Error})
				outcomes = append(outcomes, translation.ToolOutcome{Call: call, Result: out})
				if out.Error {
					r.errors++
				}
			}
			if r.errors >= r.s.limits.MaxErrors {
				return TermTooManyErrors, fmt.Errorf("%d tool calls failed", r.errors)
			}
			input = translation.Input{ToolResults: outcomes}
			continue
		}
		r.add(Message{Role: RoleAssistant, Content: reply.Text})
		if strings.Contains(reply.Text, StopToken) {
			return TermAgentStop, nil
		}
		if len(r.res.Messages) >= r.s.limits.MaxSteps {
			return TermMaxSteps, nil
		}
		utterance, err = user.Reply(ctx, reply.Text)
		if err != nil {
			return r.timeoutOr(ctx, TermUserError, fmt.Errorf("user simulator: %w", err))
		}
		r.add(Message{Role: RoleUser, Content: utterance})
		if isUserStop(utterance) {
			return TermUserStop, nil
		}
		input = translation.Input{UserText: utterance}
	}
}

// simUserTools runs a user simulator's tool calls on the user's side of the
// simulation's environment and records them in the transcript.
type simUserTools struct{ r *simRun }

func (t simUserTools) Specs() []domains.ToolSpec { return t.r.s.domain.UserTools }

func (t simUserTools) Call(_ context.Context, call domains.ToolCall) domains.ToolResult {
	call.Requestor = domains.RequestorUser
	if call.ID == "" {
		call.ID = fmt.Sprintf("user-call-%d", t.r.turn)
	}
	t.r.add(Message{Role: RoleUser, ToolCalls: []domains.ToolCall{call}})
	out := t.r.env.Call(call)
	t.r.add(Message{Role: RoleTool, Content: out.Content, ToolCallID: call.ID, Name: call.Name, Error: out.Error, Requestor: domains.RequestorUser})
	return out
}

// timeoutOr attributes a failure to the simulation's timeout when that is
// what cut it short.
func (r *simRun) timeoutOr(ctx context.Context, reason string, err error) (string, error) {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return TermTimeout, fmt.Errorf("simulation exceeded its %s timeout: %w", r.s.limits.Timeout, err)
	}
	return reason, err
}
