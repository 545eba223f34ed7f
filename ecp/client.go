package ecp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/internal/tracing"
)

// Defaults of Options.
const (
	DefaultRequestTimeout   = 5 * time.Minute
	DefaultMaxResponseBytes = 16 << 20
)

// Options configure a Client.
type Options struct {
	// RequestTimeout bounds one call; 0 means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// MaxResponseBytes bounds one message from the agent; 0 means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Framing forces the stdio framing; FramingAuto detects it.
	Framing Framing
	// Config is agent/initialize's config.
	Config map[string]any
	// Stderr, when set, receives what a stdio agent writes to its stderr,
	// line by line and bounded (MaxStderrLine, MaxStderrLogged), from one
	// goroutine per agent. Whether or not it is set, the last 16 KiB are
	// kept, and a failed call's error quotes their end.
	Stderr func(StderrLine)
	// Dir and Env are a stdio agent's working directory and environment
	// (nil: proctor's own).
	Dir string
	Env []string
	// DenyPrivateTargets refuses WebSocket agents at private, loopback
	// and link-local addresses.
	DenyPrivateTargets bool
	// TracerProvider, when set, gets a span per call ("ecp agent/step",
	// …) under the caller's span, whose W3C trace context goes to the
	// agent in the params' "_meta" member (MetaMember) and, over
	// WebSocket, in the upgrade request's traceparent header. nil
	// records and sends nothing.
	TracerProvider trace.TracerProvider
}

func (o *Options) timeout() time.Duration {
	if o.RequestTimeout <= 0 {
		return DefaultRequestTimeout
	}
	return o.RequestTimeout
}

func (o *Options) maxResponse() int64 {
	if o.MaxResponseBytes <= 0 {
		return DefaultMaxResponseBytes
	}
	return o.MaxResponseBytes
}

// FailureKind says how a call to the agent failed.
type FailureKind string

// The failure kinds.
const (
	FailCrashed  FailureKind = "crashed"   // the process ended or the connection closed
	FailTimeout  FailureKind = "timeout"   // no answer within the request timeout
	FailNotJSON  FailureKind = "not_json"  // output that is not a JSON-RPC message
	FailTooLarge FailureKind = "too_large" // a message over the size limit
	FailProtocol FailureKind = "protocol"  // a message that breaks JSON-RPC or ECP
	FailRPCError FailureKind = "rpc_error" // a JSON-RPC error response
	FailRefused  FailureKind = "refused"   // agent/reset answered false
	FailCanceled FailureKind = "canceled"  // proctor stopped waiting
)

// CallError is a failed call: which method, how it failed, and what the
// agent did (its exit status and stderr tail, when launched).
type CallError struct {
	Method string
	Kind   FailureKind
	Err    error
	Detail string
}

// Error implements error.
func (e *CallError) Error() string {
	s := fmt.Sprintf("%s: %s: %v", e.Method, e.Kind, e.Err)
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// Unwrap returns the underlying error (an *RPCError for FailRPCError).
func (e *CallError) Unwrap() error { return e.Err }

// Client speaks ECP to one agent (one process or one connection). Calls
// are sequential: it is safe for concurrent use, but one call waits for
// the previous one. After a failure other than a JSON-RPC error response
// the agent is killed and the client is broken: every later call fails.
type Client struct {
	t    transport
	opts Options

	mu     sync.Mutex
	nextID int64
	broken error
	// sent and received count the JSON bytes of the latest call.
	sent, received int64
	// timer aborts a call that outlives the request timeout, and sets
	// expired; enc and encoder encode requests.
	timer   *time.Timer
	expired atomic.Bool
	enc     bytes.Buffer
	encoder *json.Encoder
	idBuf   [20]byte

	// Info is agent/initialize's result.
	Info InitializeResult

	// tracer makes the calls' spans (nil: none); transportName names
	// the transport in them.
	tracer        trace.Tracer
	transportName string
}

// newClient wraps t.
func newClient(t transport, opts Options) *Client {
	c := &Client{t: t, opts: opts, transportName: transportStdio}
	if _, ok := t.(*wsTransport); ok {
		c.transportName = transportWS
	}
	if opts.TracerProvider != nil {
		c.tracer = tracing.Tracer(opts.TracerProvider)
	}
	return c
}

// Broken returns the failure that broke the client, nil while it works.
func (c *Client) Broken() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.broken
}

// PID returns the process id of a stdio agent, which is also its process
// group's id; 0 for a WebSocket agent.
func (c *Client) PID() int {
	if p, ok := c.t.(interface{ pid() int }); ok {
		return p.pid()
	}
	return 0
}

// SetSimulation labels the agent's stderr lines, from now on, with the id
// of the simulation it serves ("" for none). A WebSocket agent has no
// stderr.
func (c *Client) SetSimulation(id string) {
	if t, ok := c.t.(interface{ setSimulation(string) }); ok {
		t.setSimulation(id)
	}
}

// LastCallBytes returns the JSON bytes sent and received by the latest
// call (framing excluded).
func (c *Client) LastCallBytes() (sent, received int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent, c.received
}

// Close kills the agent (its whole process group) and waits for it.
func (c *Client) Close() error {
	c.t.abort() // first: a call in progress holds c.mu until it fails
	c.mu.Lock()
	if c.broken == nil {
		c.broken = errors.New("ecp: client closed")
	}
	c.mu.Unlock()
	return c.t.close()
}

// Call sends method with params and decodes the result into result (nil
// to discard it), within the request timeout.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	ctx, span := c.startCallSpan(ctx, method)
	err := c.call(ctx, method, params, result)
	endCallSpan(span, err)
	return err
}

// call is Call under the call's span.
func (c *Client) call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(method); err != nil {
		return err
	}
	stop := c.arm(ctx)
	if err := c.disarm(stop, c.roundTrip(ctx, method, params, result)); err != nil {
		return c.fail(ctx, method, err)
	}
	return nil
}

// Exchange sends msg to the agent exactly as given (framed, but neither
// checked nor given an id; under newline framing it must hold no newline)
// and returns the next message the agent sends back that is not a request
// or notification of its own, undecoded: for conformance checks, which
// send malformed requests on purpose. It is bounded like Call, and a
// failure kills the agent and breaks the client; label names the
// exchange in errors.
func (c *Client) Exchange(ctx context.Context, label string, msg []byte) (json.RawMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(label); err != nil {
		return nil, err
	}
	stop := c.arm(ctx)
	raw, err := c.rawRoundTrip(ctx, msg)
	if err := c.disarm(stop, err); err != nil {
		return nil, c.fail(ctx, label, err)
	}
	return raw, nil
}

// usable fails when an earlier failure broke the client. c.mu is held.
func (c *Client) usable(method string) error {
	if c.broken != nil {
		return &CallError{Method: method, Kind: FailCrashed, Err: fmt.Errorf("agent unusable after an earlier failure: %w", c.broken)}
	}
	return nil
}

// arm starts the bounds of one call: the request timeout and ctx's end
// both abort the transport, which ends a blocked read or write. One timer
// per client, reset per call, keeps a step cheap. c.mu is held.
func (c *Client) arm(ctx context.Context) (stop func() bool) {
	c.expired.Store(false)
	if c.timer == nil {
		c.timer = time.AfterFunc(c.opts.timeout(), func() { c.expired.Store(true); c.t.abort() })
	} else {
		c.timer.Reset(c.opts.timeout())
	}
	stop = func() bool { return true }
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, c.t.abort)
	}
	return stop
}

// disarm ends the bounds arm started and returns the call's error: an
// abort that raced with the answer still killed the agent.
func (c *Client) disarm(stop func() bool, err error) error {
	if aborted := !stop(); (!c.timer.Stop() && c.expired.Load() || aborted) && err == nil {
		err = errors.New("the call was cut short as it ended")
	}
	return err
}

// rawRoundTrip writes msg as it is and reads until a message that is
// not the agent's own request or notification, which it returns (a copy).
func (c *Client) rawRoundTrip(ctx context.Context, msg []byte) (json.RawMessage, error) {
	c.sent, c.received = int64(len(msg)), 0
	if err := c.t.send(ctx, msg); err != nil {
		return nil, err
	}
	for {
		b, err := c.t.recv(ctx)
		if err != nil {
			return nil, err
		}
		c.received += int64(len(b))
		var env envelope
		if decodeJSON(b, &env) == nil && env.Method != "" {
			if err := c.answerAgentRequest(ctx, env); err != nil {
				return nil, err
			}
			continue
		}
		return append(json.RawMessage(nil), b...), nil
	}
}

// protocolError is a message that breaks JSON-RPC or ECP.
type protocolError struct{ err error }

func (e *protocolError) Error() string { return e.err.Error() }
func (e *protocolError) Unwrap() error { return e.err }

// roundTrip writes one request and reads until its response, whose
// result it decodes into result (nil: discarded).
func (c *Client) roundTrip(ctx context.Context, method string, params, result any) error {
	c.nextID++
	id := strconv.AppendInt(c.idBuf[:0], c.nextID, 10)
	msg, err := c.encodeRequest(id, method, params)
	if err != nil {
		return fmt.Errorf("ecp: encode %s: %w", method, err)
	}
	msg = appendMeta(ctx, msg, params != nil)
	c.sent, c.received = int64(len(msg)), 0
	if err := c.t.send(ctx, msg); err != nil {
		return err
	}
	for {
		b, err := c.t.recv(ctx)
		if err != nil {
			return err
		}
		c.received += int64(len(b))
		env, err := decodeResponse(b, method, result)
		if err != nil {
			return err
		}
		if env.Method != "" {
			if err := c.answerAgentRequest(ctx, env.envelope()); err != nil {
				return err
			}
			continue // a notification or a request of the agent's
		}
		return env.check(id)
	}
}

// responseEnvelope is an incoming message decoded in one pass, its result
// straight into the caller's value (Result holds a pointer to it; JSON
// null leaves Result nil).
type responseEnvelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  any             `json:"result"`
	Error   *RPCError       `json:"error"`
	// hasResult says the message has a result member.
	hasResult bool
}

// discard is where a result nobody wants is decoded.
type discard struct{}

func (*discard) UnmarshalJSON([]byte) error { return nil }

// decodeResponse decodes a message from the agent, its result into result.
func decodeResponse(b []byte, method string, result any) (responseEnvelope, error) {
	if res, ok := result.(*StepResult); ok {
		if env, ok := fastStep(b, res); ok {
			return env, nil
		}
		*res = StepResult{}
	}
	if result == nil {
		result = &discard{}
	}
	env := responseEnvelope{Result: result}
	if err := decodeJSON(b, &env); err != nil {
		var fe *FrameError
		if errors.As(err, &fe) {
			return env, err
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && !strings.HasPrefix(te.Field, "result") {
			return env, &protocolError{fmt.Errorf("not a JSON-RPC message: %w", err)}
		}
		return env, &protocolError{fmt.Errorf("result does not fit %s: %w", method, err)}
	}
	if env.Result == nil {
		// "result": null: decoded as it stands, for the caller to judge.
		env.hasResult = true
		if err := json.Unmarshal([]byte("null"), result); err != nil {
			return env, &protocolError{fmt.Errorf("result does not fit %s: %w", method, err)}
		}
		return env, nil
	}
	// The message is valid JSON with a "result" key somewhere: a response
	// that lacks one at the top level (the key only inside some string)
	// decodes to the zero result, which every method's checks refuse.
	env.hasResult = bytes.Contains(b, []byte(`"result"`))
	return env, nil
}

// envelope is the message as a request of the agent's.
func (e responseEnvelope) envelope() envelope {
	return envelope{JSONRPC: e.JSONRPC, ID: e.ID, Method: e.Method}
}

// check says whether the message is the response to request id: an
// error response is its *RPCError.
func (e responseEnvelope) check(id []byte) error {
	if string(e.ID) != string(id) {
		return &protocolError{fmt.Errorf("response id %s, want %s", quote(e.ID), id)}
	}
	if e.Error != nil {
		return e.Error
	}
	if e.JSONRPC != "2.0" {
		return &protocolError{fmt.Errorf(`response without "jsonrpc": "2.0"`)}
	}
	if !e.hasResult {
		return &protocolError{errors.New("response with neither result nor error")}
	}
	return nil
}

// encodeRequest encodes a request into the client's buffer (valid until
// the next call): the envelope by hand, the params of a plain step too
// (appendStepParams), other params by encoding/json.
func (c *Client) encodeRequest(id []byte, method string, params any) ([]byte, error) {
	c.enc.Reset()
	b := c.enc.AvailableBuffer()
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"method":`...)
	b = appendJSONString(b, method)
	if p, ok := params.(StepParams); ok && plainStepParams(p) {
		b = append(b, `,"params":`...)
		b = append(appendStepParams(b, p), '}')
		c.enc.Write(b)
		return c.enc.Bytes(), nil
	}
	c.enc.Write(b)
	if params != nil {
		c.enc.WriteString(`,"params":`)
		if c.encoder == nil {
			c.encoder = json.NewEncoder(&c.enc)
		}
		if err := c.encoder.Encode(params); err != nil {
			return nil, err
		}
		c.enc.Truncate(c.enc.Len() - 1) // Encode's newline
	}
	c.enc.WriteByte('}')
	return c.enc.Bytes(), nil
}

// answerAgentRequest refuses a request the agent sends proctor (the
// runtime serves no methods); notifications are ignored.
func (c *Client) answerAgentRequest(ctx context.Context, env envelope) error {
	if len(env.ID) == 0 || string(env.ID) == "null" {
		return nil
	}
	b, err := json.Marshal(response{JSONRPC: "2.0", ID: env.ID, Error: &RPCError{Code: CodeMethodNotFound, Message: "proctor serves no methods: " + env.Method}})
	if err != nil {
		return err
	}
	return c.t.send(ctx, b)
}

// fail classifies err; anything but a JSON-RPC error response kills the
// agent and breaks the client. c.mu is held.
func (c *Client) fail(ctx context.Context, method string, err error) error {
	ce := &CallError{Method: method, Err: err, Kind: classify(ctx, err)}
	if c.expired.Load() {
		ce.Kind = FailTimeout
	}
	if ce.Kind == FailTimeout {
		ce.Err = fmt.Errorf("no answer within %s; the agent was killed", c.opts.timeout())
	}
	if ce.Kind == FailRPCError {
		return ce
	}
	if ce.Kind == FailCrashed {
		// Let a crashed agent's exit status be known before it is killed.
		waitCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		c.t.settle(waitCtx)
		cancel()
	}
	ce.Detail = c.t.detail()
	c.broken = ce
	c.t.abort()
	return ce
}

// classify says what kind of failure err is.
func classify(ctx context.Context, err error) FailureKind {
	var rpc *RPCError
	var pe *protocolError
	switch {
	case errors.As(err, &rpc):
		return FailRPCError
	case errors.Is(err, ErrNotJSON):
		return FailNotJSON
	case errors.Is(err, ErrTooLarge):
		return FailTooLarge
	case errors.Is(err, ErrBadHeader), errors.As(err, &pe):
		return FailProtocol
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return FailTimeout
	case ctx.Err() != nil:
		return FailCanceled
	}
	return FailCrashed
}

// Initialize calls agent/initialize and checks the protocol version the
// agent answers with, when it gives one.
func (c *Client) Initialize(ctx context.Context) (InitializeResult, error) {
	params := InitializeParams{ProtocolVersion: ProtocolVersion, Config: c.opts.Config, Capabilities: map[string]any{}}
	if params.Config == nil {
		params.Config = map[string]any{}
	}
	var res InitializeResult
	if err := c.Call(ctx, MethodInitialize, params, &res); err != nil {
		return res, err
	}
	if res.ProtocolVersion != "" && res.ProtocolVersion != ProtocolVersion {
		c.mu.Lock()
		err := c.fail(ctx, MethodInitialize, &protocolError{fmt.Errorf("agent speaks ECP %q, proctor speaks %q", res.ProtocolVersion, ProtocolVersion)})
		c.mu.Unlock()
		return res, err
	}
	c.Info = res
	return res, nil
}

// Reset calls agent/reset; a result other than true is a FailRefused
// error, and the agent is then killed (its state is unknown).
func (c *Client) Reset(ctx context.Context) error {
	var ok json.RawMessage
	if err := c.Call(ctx, MethodReset, nil, &ok); err != nil {
		c.breakOn(err)
		return err
	}
	if string(ok) != "true" {
		err := &CallError{Method: MethodReset, Kind: FailRefused, Err: fmt.Errorf("agent answered %s, not true", quote(ok))}
		c.breakOn(err)
		return err
	}
	return nil
}

// breakOn marks the client broken by err and kills the agent.
func (c *Client) breakOn(err error) {
	c.mu.Lock()
	if c.broken == nil {
		c.broken = err
	}
	c.mu.Unlock()
	c.t.abort()
}

// Step calls agent/step and checks the result's status.
func (c *Client) Step(ctx context.Context, p StepParams) (StepResult, error) {
	var res StepResult
	if err := c.Call(ctx, MethodStep, p, &res); err != nil {
		return res, err
	}
	switch res.Status {
	case StatusDone, StatusPaused, StatusRunning:
	default:
		err := &CallError{Method: MethodStep, Kind: FailProtocol, Err: fmt.Errorf("status %q: want done, paused or running", res.Status)}
		c.breakOn(err)
		return res, err
	}
	if res.Status == StatusPaused && len(res.ToolCalls) == 0 && res.PublicOutput == nil {
		err := &CallError{Method: MethodStep, Kind: FailProtocol, Err: errors.New("status paused without tool_calls")}
		c.breakOn(err)
		return res, err
	}
	return res, nil
}

// Inspect calls agent/inspect and returns the value at path.
func (c *Client) Inspect(ctx context.Context, path string) (json.RawMessage, error) {
	var res struct {
		Value json.RawMessage `json:"value"`
	}
	if err := c.Call(ctx, MethodInspect, map[string]string{"path": path}, &res); err != nil {
		return nil, err
	}
	return res.Value, nil
}
