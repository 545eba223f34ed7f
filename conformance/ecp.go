package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/proctor-eval/proctor/ecp"
)

// AgentProtocolECP is Report.AgentProtocol for a report of RunECP; A2A
// reports leave it empty.
const AgentProtocolECP = "ecp"

// The texts RunECP steps the agent with when no Messages are given.
const (
	DefaultECPMessage  = "Hello! This is an ECP conformance check by proctor. Please answer briefly."
	DefaultECPFollowUp = "Please remember that my favourite colour is green."
)

// ecpClock is the simulated time of the checks' steps: fixed, so that an
// agent that reads it answers the same after a reset.
var ecpClock = time.Date(2024, 5, 15, 15, 0, 0, 0, time.UTC)

// WithECPConfig sets agent/initialize's config for RunECP (an A2A run
// ignores it).
func WithECPConfig(config map[string]any) Option { return func(o *options) { o.ecpConfig = config } }

// RunECP checks the ECP agent at target (ecp+stdio:COMMAND ARGS,
// ecp+ws://HOST:PORT/PATH or ecp+wss://...) against the ECP 0.1.0 draft and
// JSON-RPC 2.0, and returns the report; ECPRequirements lists the checks.
// A stdio agent is launched in its own process group, several times (a
// fresh process for the checks that need one, and after any crash), and
// every process is killed before RunECP returns. Every message is bounded
// by the request timeout and the response size limit, the run by the
// timeout: a hung or crashing agent fails checks, it never hangs the run.
// RunECP fails only when target or the options are unusable, or when the
// private-target guard refuses the WebSocket (ErrDeniedTarget).
func RunECP(ctx context.Context, target string, opts ...Option) (*Report, error) {
	o := newOptions(opts)
	if err := o.validateECP(); err != nil {
		return nil, err
	}
	target = strings.TrimSpace(target)
	t, err := ecp.ParseTarget(target)
	if err != nil {
		return nil, err
	}
	if o.messages.Basic == "" {
		o.messages.Basic = DefaultECPMessage
	}
	if o.messages.FollowUp == "" {
		o.messages.FollowUp = DefaultECPFollowUp
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	r := newECPRun(o, t, target)
	defer r.closeAll()
	if err := r.check(ctx); err != nil {
		return nil, err
	}
	r.closeAll()
	r.rep.Requests = r.requests
	r.rep.DurationMS = float64(time.Since(r.rep.StartedAt).Microseconds()) / 1000
	r.rep.finish()
	return r.rep, nil
}

// validateECP checks the options for an ECP run: the A2A-only ones must be
// left alone.
func (o *options) validateECP() error {
	var errs []string
	if o.transport != "" || o.protocol != ProtocolAuto {
		errs = append(errs, "transport and protocol choose A2A interfaces: an ECP agent has one")
	}
	if o.token != "" {
		errs = append(errs, "an auth token is for A2A agents: give an ECP agent its credentials in its config")
	}
	if o.timeout <= 0 || o.requestTimeout <= 0 {
		errs = append(errs, "timeouts must be positive")
	}
	if o.maxResponseBytes < 1024 {
		errs = append(errs, "the response size limit must be at least 1024 bytes")
	}
	if o.maxRequests < 1 {
		errs = append(errs, "the request limit must be at least 1")
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// ecpRun is the state of one RunECP.
type ecpRun struct {
	*run
	target    ecp.Target
	opts      ecp.Options
	transport string
	// clients are every agent the run started, closed at the end.
	clients  []*ecp.Client
	requests int
	nextID   int
	// envelopeIssues are the responses that broke JSON-RPC's envelope.
	envelopeIssues []envelopeIssue
	responses      int
}

func newECPRun(o *options, t ecp.Target, target string) *ecpRun {
	transport, binding := "ECP stdio", "ecp+stdio"
	if t.URL != "" {
		transport, binding = "ECP WebSocket", strings.SplitN(target, ":", 2)[0]
	}
	rep := &Report{
		AgentURL: target, AgentProtocol: AgentProtocolECP, StartedAt: time.Now().UTC(), Protocol: Protocol(ecp.ProtocolVersion),
		Interfaces: []Interface{{Name: transport, URL: target, ProtocolBinding: binding, ProtocolVersion: ecp.ProtocolVersion, Checked: true}},
	}
	return &ecpRun{
		run: &run{o: o, rep: rep}, target: t, transport: transport,
		opts: ecp.Options{RequestTimeout: o.requestTimeout, MaxResponseBytes: o.maxResponseBytes, Config: o.ecpConfig,
			DenyPrivateTargets: o.dialControl != nil, TracerProvider: o.tracerProvider},
	}
}

// start launches (or connects to) a fresh agent, not initialized.
func (r *ecpRun) start(ctx context.Context) (*ecp.Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("the run's time limit is reached: %w", err)
	}
	c, err := r.target.Start(ctx, r.opts)
	if err != nil {
		return nil, err
	}
	r.clients = append(r.clients, c)
	return c, nil
}

// closeAll kills every agent the run started and waits for them.
func (r *ecpRun) closeAll() {
	for _, c := range r.clients {
		_ = c.Close()
	}
	r.clients = nil
}

// ecpReply is one message sent to an agent and what came back.
type ecpReply struct {
	ex Exchange
	// env is the response, when one came and is a JSON object.
	env *rpcEnvelope
	// fail says why no response came (or why it is not JSON-RPC).
	fail error
	// notSent is a message not sent: the agent had died before it.
	notSent bool
}

// result returns the response's result, if it is a result.
func (p ecpReply) result() (json.RawMessage, bool) {
	if p.env == nil || p.env.Error != nil || p.env.Result == nil {
		return nil, false
	}
	return p.env.Result, true
}

// errorCode returns the response's error code, if it is an error with one.
func (p ecpReply) errorCode() (int, bool) {
	if p.env == nil || p.env.Error == nil || !p.env.Error.CodeOK {
		return 0, false
	}
	return p.env.Error.Code, true
}

// describe says what came back, for messages.
func (p ecpReply) describe() string {
	switch {
	case p.fail != nil:
		return "no answer: " + p.fail.Error()
	case p.env.Error != nil:
		return "JSON-RPC " + p.env.Error.describe()
	case p.env.Result != nil:
		return "result " + truncateText(string(p.env.Result), 200)
	}
	return "a response with neither result nor error"
}

// send sends one message and reads the response; id is the id it carries
// (nil when it has none that can be read). A dead agent is not written to.
func (r *ecpRun) send(ctx context.Context, c *ecp.Client, label string, msg []byte, id json.RawMessage) ecpReply {
	rep := ecpReply{ex: Exchange{Transport: r.transport, Request: label + "\n" + truncateText(string(msg), maxExchangeText)}}
	if err := c.Broken(); err != nil {
		rep.notSent, rep.fail = true, err
		rep.ex.Status = "not sent: the agent had died"
		return rep
	}
	if r.requests >= r.o.maxRequests {
		rep.notSent, rep.fail = true, fmt.Errorf("the run's limit of %d requests is reached", r.o.maxRequests)
		rep.ex.Status = "not sent: " + rep.fail.Error()
		return rep
	}
	r.requests++
	raw, err := c.Exchange(ctx, label, msg)
	if err != nil {
		rep.fail = err
		rep.ex.Status = "no answer: " + err.Error()
		return rep
	}
	rep.ex.Response = truncateText(string(raw), maxExchangeText)
	env, err := decodeEnvelope(raw)
	if err != nil {
		rep.fail = err
		rep.ex.Status = "not JSON-RPC: " + err.Error()
		return rep
	}
	rep.env = &env
	rep.ex.Status = "JSON-RPC result"
	if env.Error != nil {
		rep.ex.Status = "JSON-RPC " + env.Error.describe()
	}
	r.noteEnvelope(rep, id)
	return rep
}

// noteEnvelope records how a response breaks the envelope: its problems,
// and an id other than the request's (null is right when the request's id
// could not be read, and allowed for an invalid request).
func (r *ecpRun) noteEnvelope(rep ecpReply, id json.RawMessage) {
	r.responses++
	problems := rep.env.Problems
	switch {
	case rep.env.ID == nil:
	case id == nil && !isNullID(rep.env.ID):
		problems = append(problems, fmt.Sprintf(`"id" %s answers a request whose id could not be read (want null)`, truncateText(string(rep.env.ID), 40)))
	case id != nil && !sameNumberID(rep.env.ID, id) && !(isNullID(rep.env.ID) && rep.env.Error != nil):
		problems = append(problems, fmt.Sprintf(`"id" %s answers the request with id %s`, truncateText(string(rep.env.ID), 40), id))
	}
	for _, p := range problems {
		r.envelopeIssues = append(r.envelopeIssues, envelopeIssue{problem: p, ex: rep.ex})
	}
}

// sameNumberID reports whether an echoed id is the number sent.
func sameNumberID(echoed, sent json.RawMessage) bool {
	var a, b float64
	return json.Unmarshal(echoed, &a) == nil && json.Unmarshal(sent, &b) == nil && a == b
}

// call sends a well-formed request.
func (r *ecpRun) call(ctx context.Context, c *ecp.Client, method string, params any) ecpReply {
	r.nextID++
	id := json.RawMessage(strconv.Itoa(r.nextID))
	req := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	msg, err := json.Marshal(req)
	if err != nil {
		return ecpReply{fail: err, notSent: true}
	}
	return r.send(ctx, c, method, msg, id)
}

// initialize sends agent/initialize as proctor does.
func (r *ecpRun) initialize(ctx context.Context, c *ecp.Client) ecpReply {
	config := r.o.ecpConfig
	if config == nil {
		config = map[string]any{}
	}
	return r.call(ctx, c, ecp.MethodInitialize, ecp.InitializeParams{ProtocolVersion: ecp.ProtocolVersion, Config: config, Capabilities: map[string]any{}})
}

// step sends agent/step with input, at the n-th second of the simulated
// clock.
func (r *ecpRun) step(ctx context.Context, c *ecp.Client, input string, n int) ecpReply {
	return r.call(ctx, c, ecp.MethodStep, ecp.StepParams{Input: input, Context: ecp.StepContext{
		Time: ecpClock.Add(time.Duration(n) * time.Second).Format(time.RFC3339), UserID: "proctor-conformance", Kind: ecp.KindUser,
	}})
}

// fresh starts a new agent and initializes it; nil with the reason when it
// cannot be had.
func (r *ecpRun) fresh(ctx context.Context) (*ecp.Client, error) {
	c, err := r.start(ctx)
	if err != nil {
		return nil, err
	}
	init := r.initialize(ctx, c)
	if _, ok := init.result(); !ok {
		return nil, fmt.Errorf("agent/initialize: %s", init.describe())
	}
	return c, nil
}
