package conformance

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/internal/agentdial"
)

// Defaults of a run's bounds.
const (
	DefaultTimeout          = 2 * time.Minute
	DefaultRequestTimeout   = 15 * time.Second
	DefaultTaskTimeout      = 30 * time.Second
	DefaultMaxResponseBytes = 4 << 20
	// DefaultMaxRequests bounds the requests of one run, so that a
	// misbehaving agent can never turn the suite into a flood.
	DefaultMaxRequests = 400
	// DefaultMessage is the text sent when no message is configured: safe
	// for any agent, whatever its skills.
	DefaultMessage = "Hello! This is an A2A protocol conformance check by proctor. Please answer briefly."
	// DefaultFollowUp answers an agent that asked for input.
	DefaultFollowUp = "Thank you, that is all I need."
)

// Protocol is the protocol version a run checks, as WithProtocol takes it.
type Protocol string

// Protocol choices: one version, or every version the card declares.
const (
	ProtocolAuto Protocol = "auto"
	Protocol10   Protocol = version10
	Protocol03   Protocol = version03
)

// Transport is the transport a run checks, as WithTransport takes it and
// as proctor's other commands name it.
type Transport string

// Transport choices; "" checks every one.
const (
	TransportJSONRPC Transport = "jsonrpc"
	TransportREST    Transport = "rest"
	TransportGRPC    Transport = "grpc"
)

// Messages are the texts the suite sends. Zero fields take defaults: every
// message is DefaultMessage, the follow-up DefaultFollowUp.
type Messages struct {
	// Basic is sent once per interface, blocking; its answer is checked and
	// compared across interfaces.
	Basic string `json:"basic,omitempty"`
	// Slow should start a task that runs for a few seconds: it is sent
	// without blocking, then canceled, subscribed to and disconnected from.
	// If the agent finishes it at once, those checks are skipped.
	Slow string `json:"slow,omitempty"`
	// MultiTurn should make the agent ask for input (input-required); the
	// follow-up answers it. If it does not, the multi-turn check is skipped.
	MultiTurn string `json:"multi_turn,omitempty"`
	FollowUp  string `json:"follow_up,omitempty"`
}

func (m Messages) withDefaults() Messages {
	if m.Basic == "" {
		m.Basic = DefaultMessage
	}
	if m.Slow == "" {
		m.Slow = m.Basic
	}
	if m.MultiTurn == "" {
		m.MultiTurn = m.Basic
	}
	if m.FollowUp == "" {
		m.FollowUp = DefaultFollowUp
	}
	return m
}

type options struct {
	token            string
	protocol         Protocol
	transport        Transport
	timeout          time.Duration
	requestTimeout   time.Duration
	taskTimeout      time.Duration
	maxResponseBytes int64
	maxRequests      int
	dialControl      func(network, address string, c syscall.RawConn) error
	onDenied         func(error) // set by stopOnDenial
	messages         Messages
	ecpConfig        map[string]any // RunECP's agent/initialize config
	// tracerProvider, when set, is handed to the ECP client; the HTTP
	// and gRPC probes send the caller's trace context (WithTracerProvider).
	tracerProvider trace.TracerProvider
}

// WithTracerProvider sends the agent the W3C trace context of the
// caller's span on every request (traceparent and tracestate: HTTP headers,
// gRPC metadata, ECP params' "_meta"), and gives ECP calls spans of their
// own under it. nil (the default) sends nothing.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) { o.tracerProvider = tp }
}

// Option configures Run.
type Option func(*options)

// WithAuthToken sends "Authorization: Bearer token" (gRPC: the same
// metadata) on every call except the card fetch and the auth probes, which
// check what happens without it.
func WithAuthToken(token string) Option { return func(o *options) { o.token = token } }

// WithProtocol checks only the interfaces of one protocol version:
// Protocol10, Protocol03, or ProtocolAuto (every version, the default).
func WithProtocol(p Protocol) Option { return func(o *options) { o.protocol = p } }

// WithTransport checks only the interfaces of one transport:
// TransportJSONRPC, TransportREST or TransportGRPC ("" for all).
func WithTransport(t Transport) Option { return func(o *options) { o.transport = t } }

// WithTimeout bounds the whole run (default DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithRequestTimeout bounds each request (default DefaultRequestTimeout).
func WithRequestTimeout(d time.Duration) Option { return func(o *options) { o.requestTimeout = d } }

// WithTaskTimeout bounds the wait for a task or a stream to end, blocking
// sends included (default DefaultTaskTimeout).
func WithTaskTimeout(d time.Duration) Option { return func(o *options) { o.taskTimeout = d } }

// WithMaxResponseBytes bounds each answer, and each stream as a whole
// (default DefaultMaxResponseBytes).
func WithMaxResponseBytes(n int64) Option { return func(o *options) { o.maxResponseBytes = n } }

// WithMaxRequests bounds the number of requests (default
// DefaultMaxRequests); checks that would exceed it fail saying so.
func WithMaxRequests(n int) Option { return func(o *options) { o.maxRequests = n } }

// WithMessages sets the texts the suite sends.
func WithMessages(m Messages) Option { return func(o *options) { o.messages = m } }

// WithDenyPrivateTargets refuses to connect to loopback, private,
// link-local and other non-public addresses (after DNS resolution, for
// HTTP and gRPC alike), as a2aclient.WithDenyPrivateTargets does: for
// servers that check agents named by untrusted callers.
func WithDenyPrivateTargets() Option {
	return func(o *options) { o.dialControl = agentdial.Control }
}

// dialer is the dialer of every connection when a dial control is set.
func (o *options) dialer() *net.Dialer {
	return &net.Dialer{Timeout: 10 * time.Second, Control: o.dialControl}
}

// WithDialControl checks every connection with control (a net.Dialer
// Control function) before it is made.
func WithDialControl(control func(network, address string, c syscall.RawConn) error) Option {
	return func(o *options) { o.dialControl = control }
}

// newOptions is the defaults with opts applied (nil ones skipped).
func newOptions(opts []Option) *options {
	o := &options{
		protocol: ProtocolAuto, timeout: DefaultTimeout, requestTimeout: DefaultRequestTimeout, taskTimeout: DefaultTaskTimeout,
		maxResponseBytes: DefaultMaxResponseBytes, maxRequests: DefaultMaxRequests,
	}
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	return o
}

// Run checks the agent at target (its base URL, or the URL of its agent
// card) against the A2A specification and returns the report. It fails
// only when target or the options are unusable, or when the private-target
// guard refuses a connection (ErrDeniedTarget: the run stops at once); an
// agent that cannot be reached is a report whose card checks fail.
func Run(ctx context.Context, target string, opts ...Option) (*Report, error) {
	o := newOptions(opts)
	if err := o.validate(); err != nil {
		return nil, err
	}
	target = strings.TrimSpace(target)
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("agent URL %q: want an absolute http:// or https:// URL", target)
	}
	o.messages = o.messages.withDefaults()
	o.requestTimeout = min(o.requestTimeout, o.timeout)
	o.taskTimeout = min(o.taskTimeout, o.timeout)

	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	denied := o.stopOnDenial(cancel)
	r := &run{o: o, p: newProber(o), rep: &Report{AgentURL: target, StartedAt: time.Now().UTC(), Protocol: o.protocol, Transport: o.transport}}
	defer r.p.close()
	r.check(ctx, u)
	r.cleanup(context.WithoutCancel(ctx))
	if err := denied(); err != nil {
		return nil, err
	}
	r.rep.Requests = int(min(r.p.requests.Load(), int64(o.maxRequests)))
	r.rep.DurationMS = float64(time.Since(r.rep.StartedAt).Microseconds()) / 1000
	r.rep.finish()
	return r.rep, nil
}

func (o *options) validate() error {
	var errs []string
	if o.protocol != ProtocolAuto && o.protocol != Protocol10 && o.protocol != Protocol03 {
		errs = append(errs, fmt.Sprintf("protocol %q: want 1.0, 0.3 or auto", o.protocol))
	}
	switch o.transport {
	case "", TransportJSONRPC, TransportREST, TransportGRPC:
	default:
		errs = append(errs, fmt.Sprintf("transport %q: want jsonrpc, rest or grpc", o.transport))
	}
	if o.timeout <= 0 || o.requestTimeout <= 0 || o.taskTimeout <= 0 {
		errs = append(errs, "timeouts must be positive")
	}
	if o.maxResponseBytes < 1024 {
		errs = append(errs, "the response size limit must be at least 1024 bytes")
	}
	if o.maxRequests < 1 {
		errs = append(errs, "the request limit must be at least 1")
	}
	if strings.ContainsAny(o.token, "\r\n") {
		errs = append(errs, "the auth token must not contain line breaks")
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// run is the state of one Run.
type run struct {
	o   *options
	p   *prober
	rep *Report
	// created are tasks the run started, canceled at the end if they are
	// still running.
	created []createdTask
	// samples are the basic message's outcomes per interface, compared
	// for transport equivalence.
	samples []sample
}

type createdTask struct {
	c     caller
	id    string
	state string // the last state seen
}

// sample is what the basic message produced on one interface.
type sample struct {
	iface string
	kind  string // kindTask, kindMessage, or "error"
	state string // the task's final state
	what  string
}

// result records a result for requirement id.
func (r *run) result(id string, transports []string, st Status, msg string, exs ...Exchange) *Result {
	req, ok := requirementByID(id)
	if !ok {
		req = Requirement{ID: id, Category: CategoryErrors, Level: Must, Title: id}
	}
	res := Result{Requirement: req, Transports: transports, Status: st, Message: msg}
	if st == Fail {
		res.Exchanges = exs
	} else {
		res.Remediation = "" // said only where something is to be done
	}
	r.rep.Results = append(r.rep.Results, res)
	return &r.rep.Results[len(r.rep.Results)-1]
}

func (r *run) pass(id string, transports []string, msg string) { r.result(id, transports, Pass, msg) }

func (r *run) skip(id string, transports []string, msg string) { r.result(id, transports, Skip, msg) }

// fail records a failure: what was expected, what came instead, and the
// exchanges that show it.
func (r *run) fail(id string, transports []string, expected, received string, exs ...Exchange) {
	msg := expected + " expected, " + received + " received"
	res := r.result(id, transports, Fail, msg, exs...)
	res.Expected, res.Received = expected, received
}

// failMsg records a failure described in one message.
func (r *run) failMsg(id string, transports []string, msg string, exs ...Exchange) {
	r.result(id, transports, Fail, msg, exs...)
}

func newID() string { return uuid.NewString() }

// unknownTaskID is a task id no agent has.
func unknownTaskID() string { return "proctor-conformance-no-such-task-" + uuid.NewString() }

// cleanup cancels the tasks the run started that are still running, so
// that checking a production agent leaves no work behind.
func (r *run) cleanup(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 2*r.o.requestTimeout)
	defer cancel()
	for _, t := range r.created {
		if !terminalState(t.state) {
			t.c.cancel(ctx, t.id)
		}
	}
}

// track remembers a task the run started, or its new state.
func (r *run) track(c caller, id, state string) {
	for i := range r.created {
		if r.created[i].id == id && r.created[i].c == c {
			r.created[i].state = state
			return
		}
	}
	r.created = append(r.created, createdTask{c: c, id: id, state: state})
}
