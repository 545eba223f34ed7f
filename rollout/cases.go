package rollout

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/measure"
	"github.com/proctor-eval/proctor/result"
)

// HeaderAgent is an Agent whose conversations can carry headers of their
// own (see agent.HeaderAgent): an eval case's user id goes in one.
type HeaderAgent = agent.HeaderAgent

// Defaults of CaseOptions.
const (
	DefaultInvocationTimeout = 5 * time.Minute
	DefaultCaseTimeout       = 30 * time.Minute
	DefaultMaxInvocations    = 100
	// DefaultUserIDHeader is the header tRPC-Agent-Go's server/a2a reads
	// the user id from unless configured otherwise (WithUserIDHeader).
	DefaultUserIDHeader = "X-User-ID"
)

// CaseOptions configure a CasePlayer. Zero values take the defaults.
type CaseOptions struct {
	// InvocationTimeout bounds one invocation: the agent's whole turn,
	// polling included.
	InvocationTimeout time.Duration
	// CaseTimeout bounds a whole case.
	CaseTimeout time.Duration
	// MaxInvocations bounds the invocations of a case: a conversation
	// longer than that ends with an error in the recording; a scenario
	// stops there (its own maxAllowedInvocations may stop it sooner).
	MaxInvocations int
	// UserIDHeader is the header sessionInput.userId is sent in, on every
	// request of the case's conversation. tRPC-Agent-Go's server/a2a
	// reads it (X-User-ID by default) and keys sessions by it and the
	// context id; ADK's adka2a takes the user from the request's
	// authenticated caller (a2asrv.CallContext.User), so an ADK
	// deployment that should see the user id maps this header to it.
	UserIDHeader string
	// ScenarioUser configures the LLM user simulator of
	// conversationScenario cases; without a Model they cannot be played.
	ScenarioUser LLMUserConfig
	// TracerProvider, when set, gets a span per invocation
	// ("proctor.invocation") under the case's span; nil records none.
	TracerProvider trace.TracerProvider
}

// CasePlayer plays eval cases against an agent (A2A or ECP, through the
// agent interface) and records what the agent did; it does not score
// them.
type CasePlayer struct {
	opts CaseOptions
}

// NewCasePlayer returns a CasePlayer.
func NewCasePlayer(opts CaseOptions) *CasePlayer {
	if opts.InvocationTimeout <= 0 {
		opts.InvocationTimeout = DefaultInvocationTimeout
	}
	if opts.CaseTimeout <= 0 {
		opts.CaseTimeout = DefaultCaseTimeout
	}
	if opts.MaxInvocations <= 0 {
		opts.MaxInvocations = DefaultMaxInvocations
	}
	if strings.TrimSpace(opts.UserIDHeader) == "" {
		opts.UserIDHeader = DefaultUserIDHeader
	}
	return &CasePlayer{opts: opts}
}

// CaseRecording is what playing one case produced, unscored.
type CaseRecording struct {
	// Actual is what the agent did, one invocation per turn played.
	Actual []*evalset.Invocation
	// Turns are what proctor saw of each invocation, index for index
	// with Actual.
	Turns []result.Turn
	// Requests are the metrics of every request to the agent.
	Requests      []measure.Request
	NonConformant []string
	// ContextID is the A2A context id of the case's conversation ("" for
	// a trace-mode case).
	ContextID string
	// UserID is the case's sessionInput.userId, sent in
	// CaseOptions.UserIDHeader.
	UserID string
	// LLMCalls are the user simulator's model calls.
	LLMCalls []measure.LLMCall
	// Inspections are what agent/inspect returned for the case's inspect
	// assertions, after its last invocation (ECP agents).
	Inspections []result.Inspection
	StartedAt   time.Time
	DurationMS  float64
	// Error says why the case ended before its end: an invocation failed
	// or timed out, the agent made more tool calls than the case's
	// max_steps, the conversation is longer than MaxInvocations, the user
	// simulator failed. "" when it was played to its end.
	Error string
}

// Play plays one case on its own conversation (a fresh context id and
// cookie jar) and records it:
//   - a trace-mode case contacts no agent: Actual is its
//     actualConversation, else its conversation;
//   - a conversationScenario case is driven by a ScenarioUser;
//   - any other case sends its invocations' user contents in order.
//
// The case's contextMessages are sent once, before the first invocation's
// user content, and an invocation's own contextMessages before its user
// content: as one text part each (see ContextText), ahead of the user's
// parts. The agent keeps them in its session as it keeps the user's turns,
// so every later turn sees them, as tRPC-Agent-Go's evaluator injects them
// into every run. Each actual invocation carries the contextMessages it
// was played with (the case's when it has none of its own), as
// tRPC-Agent-Go attaches them.
//
// Every invocation is played in steps (see invokeTraced): an A2A agent
// answers in one, an ECP agent (reset before the case as it is drawn from
// its pool) steps on while it asks for tools. After the
// last invocation of a case played to its end, the case's inspect
// assertions are read with agent/inspect (see Inspector) into
// Inspections, and the conversation is closed, which gives the agent back.
//
// The agent's failures (an invocation that errs or times out, more tool
// calls than the case's max_steps) end the case with Error set in the
// recording. Play returns an error, with what was recorded so far, only
// when the case cannot be played (no user content, a scenario without a
// user simulator) or ctx ended (a recording that must not be kept).
// Callers key the user simulator's model calls for cassettes with
// llm.WithCallKey on ctx; the case id is used otherwise.
func (p *CasePlayer) Play(ctx context.Context, agent Agent, c *evalset.Case) (*CaseRecording, error) {
	if c == nil {
		return nil, errors.New("eval case is nil")
	}
	start := time.Now()
	rec := &CaseRecording{StartedAt: start.UTC()}
	if c.SessionInput != nil {
		rec.UserID = c.SessionInput.UserID
	}
	ledger := &llm.Ledger{}
	ctx = llm.WithLedger(ctx, ledger)
	if llm.CallKey(ctx) == "" {
		ctx = llm.WithCallKey(ctx, c.ID)
	}
	defer func() {
		rec.DurationMS = float64(time.Since(start).Microseconds()) / 1000
		rec.LLMCalls = ledger.Calls()
	}()
	if c.Mode == evalset.ModeTrace {
		rec.Actual = traceInvocations(c)
		return rec, nil
	}
	caseCtx, cancel := context.WithTimeout(ctx, p.opts.CaseTimeout)
	defer cancel()
	run := &caseRun{p: p, c: c, rec: rec}
	var err error
	if c.Scenario != nil {
		err = run.playScenario(caseCtx, agent)
	} else {
		err = run.playConversation(caseCtx, agent)
	}
	run.inspect(caseCtx)
	if run.conv != nil {
		_ = run.conv.Close() // an ECP agent goes back to its pool
	}
	if ctx.Err() != nil {
		return rec, fmt.Errorf("case %s: %w", c.ID, ctx.Err())
	}
	return rec, err
}

// traceInvocations are a trace-mode case's recorded invocations, copied.
func traceInvocations(c *evalset.Case) []*evalset.Invocation {
	src := c.ActualConversation
	if len(src) == 0 {
		src = c.Conversation
	}
	out := make([]*evalset.Invocation, 0, len(src))
	for _, inv := range src {
		if inv == nil {
			continue
		}
		cp := *inv
		if len(cp.ContextMessages) == 0 {
			cp.ContextMessages = c.ContextMessages
		}
		out = append(out, &cp)
	}
	return out
}

// caseRun is one case being played.
type caseRun struct {
	p    *CasePlayer
	c    *evalset.Case
	rec  *CaseRecording
	conv Conversation
	// steps counts the conversation's steps (its simulated clock); mocks
	// answer the tool calls the agent asks proctor to run.
	steps int
	mocks *caseMocks
}

// open starts the case's conversation, with the user id header when the
// case names a user.
func (r *caseRun) open(agent Agent) {
	if r.rec.UserID != "" {
		if ha, ok := agent.(HeaderAgent); ok {
			r.conv = ha.NewConversationWithHeaders(http.Header{http.CanonicalHeaderKey(r.p.opts.UserIDHeader): {r.rec.UserID}})
		}
	}
	if r.conv == nil {
		r.conv = agent.NewConversation()
	}
	r.rec.ContextID = r.conv.ContextID()
}

// playConversation sends the case's invocations in order.
func (r *caseRun) playConversation(ctx context.Context, agent Agent) error {
	invs := r.c.Conversation
	if len(invs) == 0 {
		return fmt.Errorf("case %s has no conversation to play (and no conversationScenario)", r.c.ID)
	}
	for i, inv := range invs {
		if inv == nil || inv.UserContent == nil || strings.TrimSpace(inv.UserContent.Text()) == "" {
			return fmt.Errorf("case %s: invocation %d has no user content to send", r.c.ID, i+1)
		}
	}
	r.open(agent)
	for i, inv := range invs {
		if i >= r.p.opts.MaxInvocations {
			r.rec.Error = fmt.Sprintf("the case has %d invocations, more than the limit of %d; the rest were not played", len(invs), r.p.opts.MaxInvocations)
			return nil
		}
		var caseContext []*evalset.Message
		if i == 0 {
			caseContext = r.c.ContextMessages
		}
		if !r.invoke(ctx, inv.ID, caseContext, inv.ContextMessages, inv.UserContent) {
			return nil
		}
	}
	return nil
}

// playScenario lets a ScenarioUser drive the conversation.
func (r *caseRun) playScenario(ctx context.Context, agent Agent) error {
	user, err := NewScenarioUser(r.p.opts.ScenarioUser, r.c.Scenario)
	if err != nil {
		return fmt.Errorf("case %s: %w", r.c.ID, err)
	}
	r.open(agent)
	answer := ""
	for i := 0; ; i++ {
		msg, stop, err := user.Next(ctx, answer)
		switch {
		case err != nil:
			r.rec.Error = fmt.Sprintf("user simulator: %v", err)
			return nil
		case stop:
			return nil
		case i >= r.p.opts.MaxInvocations:
			r.rec.Error = fmt.Sprintf("the scenario went on past the limit of %d invocations", r.p.opts.MaxInvocations)
			return nil
		}
		var caseContext []*evalset.Message
		if i == 0 {
			caseContext = r.c.ContextMessages
		}
		if !r.invoke(ctx, "", caseContext, nil, &evalset.Message{Role: evalset.RoleUser, Content: msg}) {
			return nil
		}
		answer = ""
		if final := r.rec.Actual[len(r.rec.Actual)-1].FinalResponse; final != nil {
			answer = final.Content // never its ReasoningContent: thoughts are private
		}
	}
}

// invoke sends one user content and records the agent's turn. It reports
// whether the case goes on.
func (r *caseRun) invoke(ctx context.Context, id string, caseContext, ownContext []*evalset.Message, user *evalset.Message) bool {
	ctx, span := r.p.startInvocationSpan(ctx, id, len(r.rec.Actual)+1)
	goOn := r.invokeTraced(ctx, id, caseContext, ownContext, user)
	endInvocationSpan(span, r.rec.Turns)
	return goOn
}

// userParts are the texts of a user message: its content, then its
// content parts' texts, the empty ones left out.
func userParts(m *evalset.Message) []string {
	var parts []string
	if m.Content != "" {
		parts = append(parts, m.Content)
	}
	for _, cp := range m.ContentParts {
		if cp.Text != nil && *cp.Text != "" {
			parts = append(parts, *cp.Text)
		}
	}
	return parts
}

// ContextText renders context messages as the text part that carries them
// to the agent, or "" when there are none: a block that names each
// message's role, ended by a blank line, so that an agent that joins a
// message's text parts (tRPC-Agent-Go's server/a2a) still reads the
// user's own words apart:
//
//	<context>
//	system: You are a travel agent.
//	user: I live in Paris.
//	</context>
func ContextText(msgs []*evalset.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		if m == nil || strings.TrimSpace(m.Text()) == "" {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("<context>\n")
		}
		role := string(m.Role)
		if role == "" {
			role = string(evalset.RoleUser)
		}
		b.WriteString(role + ": " + strings.TrimSpace(m.Text()) + "\n")
	}
	if b.Len() == 0 {
		return ""
	}
	b.WriteString("</context>\n\n")
	return b.String()
}
