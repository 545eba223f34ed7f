package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
)

// Protocol bindings as agent cards name them.
const (
	bindingJSONRPC = "JSONRPC"
	bindingREST    = "HTTP+JSON"
	bindingGRPC    = "GRPC"
)

// Protocol versions the suite checks.
const (
	version10 = "1.0"
	version03 = "0.3"
)

// outMessage is a user message the suite sends.
type outMessage struct {
	ID, ContextID, TaskID, Text string
}

// reply is an agent's answer to one call: a decoded object, a protocol
// error, or no usable answer.
type reply struct {
	obj *wireObject
	// rpcErr is a JSON-RPC error answer.
	rpcErr *rpcError
	// status is the HTTP status (0 for gRPC or no answer).
	status int
	// grpcCode is the gRPC status of a gRPC call (OK when it succeeded).
	grpcCode codes.Code
	isGRPC   bool
	// errText is the message of an error answer.
	errText string
	header  http.Header
	// fail is set when there was no usable answer: no connection, a
	// timeout, a body that is not JSON or not an A2A object.
	fail error
	ex   Exchange
	// result is a successful answer's payload as JSON (the JSON-RPC
	// result, the HTTP+JSON body, the gRPC answer's proto JSON), for
	// answers that are not a Task or Message, such as ListTasks pages.
	result json.RawMessage
}

// isError reports whether the agent answered with a protocol error.
func (r reply) isError() bool {
	switch {
	case r.rpcErr != nil:
		return true
	case r.isGRPC:
		return r.fail == nil && r.grpcCode != codes.OK
	}
	return r.fail == nil && r.obj == nil && r.status >= 400
}

// describe says what came back, for messages.
func (r reply) describe() string {
	switch {
	case r.rpcErr != nil:
		return r.rpcErr.describe()
	case r.isGRPC && r.fail == nil && r.grpcCode != codes.OK:
		return fmt.Sprintf("gRPC %s (%s)", grpcName(r.grpcCode), truncateText(r.errText, 80))
	case r.fail != nil:
		if r.status != 0 {
			return fmt.Sprintf("HTTP %d: %v", r.status, r.fail)
		}
		return "no usable answer: " + r.fail.Error()
	case r.obj != nil:
		return "a result, " + r.obj.summary()
	case r.status >= 400:
		if r.errText != "" {
			return fmt.Sprintf("HTTP %d (%s)", r.status, truncateText(r.errText, 80))
		}
		return fmt.Sprintf("HTTP %d", r.status)
	}
	return "an empty answer"
}

// grpcName is a gRPC code as the A2A specification writes it: NOT_FOUND.
func grpcName(c codes.Code) string {
	names := map[codes.Code]string{
		codes.OK: "OK", codes.Canceled: "CANCELLED", codes.Unknown: "UNKNOWN", codes.InvalidArgument: "INVALID_ARGUMENT",
		codes.DeadlineExceeded: "DEADLINE_EXCEEDED", codes.NotFound: "NOT_FOUND", codes.AlreadyExists: "ALREADY_EXISTS",
		codes.PermissionDenied: "PERMISSION_DENIED", codes.ResourceExhausted: "RESOURCE_EXHAUSTED",
		codes.FailedPrecondition: "FAILED_PRECONDITION", codes.Aborted: "ABORTED", codes.OutOfRange: "OUT_OF_RANGE",
		codes.Unimplemented: "UNIMPLEMENTED", codes.Internal: "INTERNAL", codes.Unavailable: "UNAVAILABLE",
		codes.DataLoss: "DATA_LOSS", codes.Unauthenticated: "UNAUTHENTICATED",
	}
	if n, ok := names[c]; ok {
		return n
	}
	return c.String()
}

// wantError is an A2A error as each binding must express it.
type wantError struct {
	name string
	rpc  int
	http []int
	grpc codes.Code
}

func (w wantError) describe(binding string) string {
	switch binding {
	case bindingJSONRPC:
		return fmt.Sprintf("%s, JSON-RPC error code %d", w.name, w.rpc)
	case bindingGRPC:
		return fmt.Sprintf("%s, gRPC status %s", w.name, grpcName(w.grpc))
	}
	codes := make([]string, len(w.http))
	for i, c := range w.http {
		codes[i] = strconv.Itoa(c)
	}
	return fmt.Sprintf("%s, HTTP %s", w.name, strings.Join(codes, " or "))
}

// matches reports whether r is the wanted error on binding.
func (w wantError) matches(r reply, binding string) bool {
	switch binding {
	case bindingJSONRPC:
		return r.rpcErr != nil && r.rpcErr.CodeOK && r.rpcErr.Code == w.rpc
	case bindingGRPC:
		return r.isGRPC && r.fail == nil && r.grpcCode == w.grpc
	}
	for _, s := range w.http {
		if r.obj == nil && r.status == s {
			return true
		}
	}
	return false
}

// The A2A errors the suite provokes (1.0 §5.4; JSON-RPC 2.0 §5.1).
func errTaskNotFound() wantError {
	return wantError{"TaskNotFoundError", -32001, []int{http.StatusNotFound}, codes.NotFound}
}
func errNotCancelable() wantError {
	return wantError{"TaskNotCancelableError", -32002, []int{http.StatusBadRequest, http.StatusConflict}, codes.FailedPrecondition}
}
func errUnsupported() wantError {
	return wantError{"UnsupportedOperationError", -32004, []int{http.StatusBadRequest}, codes.FailedPrecondition}
}
func errMethodNotFound() wantError {
	return wantError{"method not found", -32601, nil, codes.Unimplemented}
}
func errInvalidRequest() wantError {
	return wantError{"invalid request", -32600, nil, codes.InvalidArgument}
}
func errParse() wantError {
	return wantError{"parse error", -32700, []int{http.StatusBadRequest}, codes.InvalidArgument}
}
func errInvalidParams() wantError {
	return wantError{"invalid params", -32602, []int{http.StatusBadRequest}, codes.InvalidArgument}
}

// events is a stream of events an agent is sending.
type events interface {
	// next returns the next event; false at the end of the stream.
	next() (event, bool)
	close()
	// abort ends the stream from another goroutine: a next waiting for an
	// event returns a timed-out problem.
	abort()
	// exchange is the stream's request, status and the events read so far.
	exchange() Exchange
}

// event is one stream event: an object, an error event, or a problem with
// the stream itself.
type event struct {
	obj      *wireObject
	errReply *reply
	// problem says why the stream cannot be read further (a broken
	// connection, a timeout, an undecodable event); the stream ends.
	problem  string
	timedOut bool
}

// caller makes A2A calls on one interface, on the wire.
type caller interface {
	send(ctx context.Context, m outMessage, blocking bool) reply
	get(ctx context.Context, id string, historyLength *int) reply
	cancel(ctx context.Context, id string) reply
	// stream opens SendStreamingMessage. Without a stream, the reply says
	// what came back instead.
	stream(ctx context.Context, m outMessage) (events, reply)
	subscribe(ctx context.Context, id string) (events, reply)
	// list is ListTasks (1.0); the page is in the reply's result.
	list(ctx context.Context, q listQuery) reply
	// getWithoutAuth is GetTask without credentials.
	getWithoutAuth(ctx context.Context, id string) reply
	close()
}

// formExpectation is the wire form a binding must use.
type formExpectation struct {
	forms []string
	names []string
}

// expectedForm says which forms an interface may answer in: what (a
// SendMessage result or stream event, or a GetTask/CancelTask task).
func expectedForm(binding, version string, taskResult bool) formExpectation {
	v1 := formExpectation{forms: []string{formWrapped}, names: []string{namesEnum}}
	if taskResult {
		v1.forms = []string{formBare}
	}
	switch {
	case version == version10 || binding == bindingGRPC:
		return v1
	case binding == bindingJSONRPC:
		return formExpectation{forms: []string{formTagged}, names: []string{namesPlain}}
	}
	// 0.3 HTTP+JSON: the 0.3 specification does not pin the body down;
	// a2a-go and a2a-js use the 0.3 proto JSON, earlier servers the
	// JSON-RPC objects.
	return formExpectation{forms: append(v1.forms, formTagged), names: []string{namesEnum, namesPlain}}
}

// formProblems lists how o deviates from the form its interface must use.
func formProblems(o *wireObject, binding, version string, taskResult bool) []string {
	want := expectedForm(binding, version, taskResult)
	var out []string
	if !contains(want.forms, o.Form) {
		out = append(out, fmt.Sprintf("%s arrived in the %s form; %s %s uses the %s form", o.summary(), o.Form, binding, version, strings.Join(want.forms, " or ")))
	}
	if o.Names == namesMixed {
		out = append(out, "states and roles mix enum names (TASK_STATE_COMPLETED, ROLE_AGENT) and plain names (completed, agent)")
	} else if o.Names != "" && !contains(want.names, o.Names) {
		example := map[string]string{namesEnum: "TASK_STATE_COMPLETED, ROLE_AGENT", namesPlain: "completed, agent"}
		out = append(out, fmt.Sprintf("states and roles are written as %s names; %s %s uses %s names (%s)",
			o.Names, binding, version, want.names[0], example[want.names[0]]))
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// streamLimits bounds what a stream may send.
type streamLimits struct {
	maxEvents int
	maxBytes  int64
}

// sseEvents reads events from an SSE body.
type sseEvents struct {
	body    io.ReadCloser
	rd      *sseReader
	decode  func([]byte) event
	ex      Exchange
	log     strings.Builder
	n       int
	limits  streamLimits
	read    int64
	cancel  context.CancelFunc
	done    bool
	timeout func() bool
}

func (s *sseEvents) next() (event, bool) {
	if s.done {
		return event{}, false
	}
	if s.n >= s.limits.maxEvents {
		s.done = true
		return event{problem: fmt.Sprintf("the stream sent more than %d events", s.limits.maxEvents)}, true
	}
	ev, err := s.rd.Next()
	if err != nil {
		s.done = true
		if errors.Is(err, io.EOF) {
			return event{}, false
		}
		if s.timeout() {
			return event{problem: "no further event before the time limit", timedOut: true}, true
		}
		return event{problem: "the stream broke: " + describeNetError(err).Error()}, true
	}
	s.n++
	s.read += int64(len(ev.Data))
	if s.read > s.limits.maxBytes {
		s.done = true
		return event{problem: fmt.Sprintf("the stream sent more than %d bytes", s.limits.maxBytes)}, true
	}
	if s.log.Len() < maxExchangeText {
		fmt.Fprintf(&s.log, "data: %s\n\n", truncateText(string(ev.Data), maxExchangeText-s.log.Len()))
	}
	return s.decode(ev.Data), true
}

func (s *sseEvents) close() {
	s.done = true
	_ = s.body.Close()
	s.cancel()
}

func (s *sseEvents) abort() { s.cancel() }

func (s *sseEvents) exchange() Exchange {
	ex := s.ex
	ex.Response = s.log.String()
	return ex
}

// decodeJSONEvent decodes a stream event that is an A2A object.
func decodeJSONEvent(data []byte) event {
	o, err := decodeObject(data)
	if err != nil {
		return event{problem: "an event that is not an A2A object: " + err.Error()}
	}
	return event{obj: &o}
}

// openSSE checks that an HTTP answer is an event stream and wraps it. When
// it is not, the body is read (bounded) and decoded with notStream to say
// what came instead.
func openSSE(ctx context.Context, cancel context.CancelFunc, resp *http.Response, ex Exchange, limits streamLimits,
	decode func([]byte) event, notStream func(*httpAnswer) reply) (events, reply) {
	if resp.StatusCode == http.StatusOK && mediaType(resp.Header.Get("Content-Type")) == "text/event-stream" {
		return &sseEvents{
			body: resp.Body, rd: newSSEReader(resp.Body, int(min(limits.maxBytes, 16<<20))), decode: decode, ex: ex, limits: limits,
			cancel: cancel, timeout: func() bool { return ctx.Err() != nil },
		}, reply{status: resp.StatusCode, header: resp.Header, ex: ex}
	}
	defer cancel()
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limits.maxBytes))
	ex.Response = truncateText(string(body), maxExchangeText)
	ans := &httpAnswer{Status: resp.StatusCode, Header: resp.Header, Body: body}
	r := notStream(ans)
	r.ex = ex
	if err != nil && r.fail == nil {
		r.fail = fmt.Errorf("reading the answer: %w", err)
	}
	return nil, r
}

// jsonString quotes s as JSON.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
