package refagent

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/proctor-eval/proctor/agent"
	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/mock"
	"github.com/proctor-eval/proctor/internal/a2afix"
)

// Version is the reference agent's version, as its agent card reports it.
const Version = "0.1.0"

// MaxContexts bounds the conversations an Agent remembers; beyond it the least
// recently used one is forgotten.
const MaxContexts = 10000

// protocolVersion is the A2A protocol version the agent serves.
const protocolVersion a2a.ProtocolVersion = "1.0"

// Agent is the rule-based reference agent for one domain. It keeps the state
// of each conversation (A2A context) in memory; it is safe for concurrent use.
type Agent struct {
	domain *domains.Domain

	mu    sync.Mutex
	convs map[string]*list.Element // context id -> element of order
	order *list.List               // of *entry, most recently used first
	max   int

	maxTasks int // the tasks its A2A server keeps: MaxTasks, less in tests
}

// entry is one remembered conversation.
type entry struct {
	contextID string
	conv      *conversation
}

// New returns a reference agent for d. Only domains the agent has rules for
// are accepted: for now the built-in mock domain.
func New(d *domains.Domain) (*Agent, error) {
	if err := Supports(d); err != nil {
		return nil, err
	}
	return &Agent{domain: d, convs: make(map[string]*list.Element), order: list.New(), max: MaxContexts, maxTasks: MaxTasks}, nil
}

// Supports says why the reference agent cannot play d, or nil when it can:
// it has rules for the built-in mock domain only.
func Supports(d *domains.Domain) error {
	if d == nil {
		return errors.New("refagent: nil domain")
	}
	if d.Name != mock.Name {
		return fmt.Errorf("refagent: no rules for domain %q (supported: %s)", d.Name, mock.Name)
	}
	have := d.ToolNames()
	for _, t := range mockTools() {
		if !slices.Contains(have, t) {
			return fmt.Errorf("refagent: domain %s lacks the tool %s its rules use", d.Name, t)
		}
	}
	return nil
}

// Card returns the agent card advertising the JSON-RPC interface at url.
func (a *Agent) Card(url string) *a2a.AgentCard {
	description := "A rule-based agent, no LLM, that follows the " + a.domain.Name + " domain's policy. " +
		"It speaks proctor's three message profiles (agentbeats, tau2-a2a and structured), detected from the first message of each conversation, " +
		"and makes at most one tool call per reply. Use it to check that an evaluation pipeline works end to end."
	return &a2a.AgentCard{
		Name:        "proctor reference agent (" + a.domain.Name + ")",
		Description: description,
		Version:     Version,
		SupportedInterfaces: []*a2a.AgentInterface{{
			URL:             url,
			ProtocolBinding: a2a.TransportProtocolJSONRPC,
			ProtocolVersion: protocolVersion,
		}},
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills: []a2a.AgentSkill{{
			ID:          a.domain.Name + "-support",
			Name:        "Taskly help desk",
			Description: a.domain.Description,
			Tags:        []string{"tau-bench", string(agent.ProfileAgentBeats), string(agent.ProfileTau2A2A), string(agent.ProfileStructured), "reference", a.domain.Name},
			Examples:    []string{"Hi, I'm jane.park@example.com. Please add a task 'Order catering' with medium priority."},
		}},
	}
}

// Handler serves the agent: its card at /.well-known/agent-card.json and
// A2A JSON-RPC (protocol 1.0) at every other path. cardURL is the URL the card
// advertises for the JSON-RPC interface, usually the server's base URL.
//
// a2afix stands in front of a2a-go, as in proctor serve, so that the agent
// answers what a2a-go answers wrongly as the specification says (-32600
// for a malformed request, -32602 for invalid ListTasks parameters,
// VersionNotSupportedError for a request that asks for another version
// than 1.0). A request without an A2A-Version header is served when its
// method is a 1.0 one and refused -32009 when it is a 0.3 one
// (a2afix.JSONRPCEndpoint). The card declares no security, so every
// caller is one anonymous user: the task store otherwise refuses
// ListTasks as unauthenticated (-31401). The server keeps the last
// [MaxTasks] tasks.
func (a *Agent) Handler(cardURL string) http.Handler {
	return serveA2A(a.Card(cardURL), &executor{agent: a}, a.maxTasks)
}

// serveA2A serves card and, at every other path, A2A JSON-RPC 1.0 around
// exec, with a2afix in front and every caller the anonymous user. It keeps
// the last maxTasks tasks.
func serveA2A(card *a2a.AgentCard, exec a2asrv.AgentExecutor, maxTasks int) http.Handler {
	store := newTaskStore(maxTasks, func(context.Context) (string, error) { return anonymousUser, nil })
	handler := a2afix.Handler(a2asrv.NewHandler(exec, a2asrv.WithTaskStore(a2afix.Store(store))))
	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/", a2afix.JSONRPCEndpoint{Declared: []a2a.ProtocolVersion{protocolVersion},
		Handlers: map[a2a.ProtocolVersion]http.Handler{protocolVersion: a2asrv.NewJSONRPCHandler(handler)}})
	return mux
}

// anonymousUser is the user every call of the reference agent is made by.
const anonymousUser = "anonymous"

// Serve runs a reference agent for d on ln until ctx ends, then shuts down
// gracefully. The card advertises the listener's address (a loopback address
// when it listens on all interfaces); to advertise another URL, serve
// [Agent.Handler] yourself. Serve closes ln.
func Serve(ctx context.Context, ln net.Listener, d *domains.Domain) error {
	a, err := New(d)
	if err != nil {
		ln.Close()
		return err
	}
	return serveHandler(ctx, ln, a.Handler(BaseURL(ln.Addr())))
}

// serveHandler serves h on ln until ctx ends, then shuts down gracefully.
func serveHandler(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("refagent: serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
		return fmt.Errorf("refagent: shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("refagent: serve: %w", err)
	}
	return nil
}

// BaseURL is the http URL of a listener's address, with a trailing slash.
// An unspecified host (0.0.0.0, ::) becomes the loopback address.
func BaseURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + "/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// Reply computes the agent's reply to one incoming message of a
// conversation that is a single text part, and returns the reply's text (a
// data part as its JSON). It suits the agentbeats and tau2-a2a profiles,
// whose messages are text only; the A2A server [Agent.Handler] also reads
// data parts, as the structured profile needs.
func (a *Agent) Reply(contextID, text string) string {
	return partsText(a.respond(contextID, []*a2a.Part{a2a.NewTextPart(text)}))
}

// respond computes the agent's reply to one incoming message, given by its
// parts. A first message, one that carries the policy and the tools,
// starts the conversation afresh in the profile it is framed in; later
// messages are read, and the reply framed, in that profile.
func (a *Agent) respond(contextID string, parts []*a2a.Part) (out []*a2a.Part) {
	m := readMessage(parts)
	in, first := parseFirst(m)
	if !first {
		in = parseLater(m, a.profile(contextID))
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	conv := a.conversation(contextID, first)
	if first {
		conv.profile = in.Profile
	}
	defer func() {
		// A bug in the rules must cost one conversation, not the server.
		if r := recover(); r != nil {
			profile := conv.profile
			a.conversation(contextID, true).profile = profile
			out = renderReply(profile, say("Sorry, something went wrong on my side. Let's start over: what can I do for you?"))
		}
	}()
	return renderReply(conv.profile, conv.step(in))
}

// profile returns the message profile of a conversation: the one its first
// message was framed in, "" for a context the agent does not remember.
func (a *Agent) profile(contextID string) agent.ProfileName {
	a.mu.Lock()
	defer a.mu.Unlock()
	if el, ok := a.convs[contextID]; ok {
		return el.Value.(*entry).conv.profile
	}
	return ""
}

// conversation returns the state of a context, creating it (or replacing it,
// when fresh is set) and marking it most recently used. a.mu must be held.
func (a *Agent) conversation(contextID string, fresh bool) *conversation {
	if el, ok := a.convs[contextID]; ok {
		a.order.MoveToFront(el)
		e := el.Value.(*entry)
		if fresh {
			e.conv = &conversation{}
		}
		return e.conv
	}
	e := &entry{contextID: contextID, conv: &conversation{}}
	a.convs[contextID] = a.order.PushFront(e)
	for a.order.Len() > a.max {
		oldest := a.order.Back()
		a.order.Remove(oldest)
		delete(a.convs, oldest.Value.(*entry).contextID)
	}
	return e.conv
}

// contexts reports how many conversations the agent remembers.
func (a *Agent) contexts() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.order.Len()
}

// executor adapts the Agent to a2asrv: every request gets a task,
// completed at once, whose status message is the agent's reply.
type executor struct{ agent *Agent }

var _ a2asrv.AgentExecutor = (*executor)(nil)

// Execute answers the request's message with the agent's reply, as a task
// that is already completed: the reply is a whole turn, and the
// conversation goes on in the context (a later message starts a new task
// in it). A task, rather than a bare message, leaves a record that GetTask
// and ListTasks find, which tools listing an agent's work expect.
func (e *executor) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		var parts []*a2a.Part
		if ec.Message != nil {
			parts = ec.Message.Parts
		}
		reply := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, e.agent.respond(ec.ContextID, parts)...)
		task := a2a.NewSubmittedTask(ec, ec.Message)
		if ec.Message == nil {
			task.History = nil
		}
		now := time.Now().UTC()
		task.Status = a2a.TaskStatus{State: a2a.TaskStateCompleted, Message: reply, Timestamp: &now}
		yield(task, nil)
	}
}

// Cancel cancels nothing: every task is completed as it is created, so
// a2a-go refuses to cancel it before asking the executor.
func (e *executor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}
