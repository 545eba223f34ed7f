package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// envelopeIssue is a JSON-RPC envelope deviation and the exchange that
// showed it.
type envelopeIssue struct {
	problem string
	ex      Exchange
}

// jsonrpcCaller speaks the JSON-RPC binding of one protocol version.
type jsonrpcCaller struct {
	p             *prober
	in            Interface
	limits        streamLimits
	streamTimeout time.Duration

	mu     sync.Mutex
	seq    int
	issues []envelopeIssue
}

func newJSONRPCCaller(p *prober, in Interface, limits streamLimits, streamTimeout time.Duration) *jsonrpcCaller {
	return &jsonrpcCaller{p: p, in: in, limits: limits, streamTimeout: streamTimeout}
}

// jsonrpcMethods are a protocol version's method names.
type jsonrpcMethods struct {
	send, stream, get, cancel, subscribe string
}

func methodsFor(version string) jsonrpcMethods {
	if version == version03 {
		return jsonrpcMethods{"message/send", "message/stream", "tasks/get", "tasks/cancel", "tasks/resubscribe"}
	}
	return jsonrpcMethods{"SendMessage", "SendStreamingMessage", "GetTask", "CancelTask", "SubscribeToTask"}
}

func (c *jsonrpcCaller) nextID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	return fmt.Sprintf("proctor-%d", c.seq)
}

func (c *jsonrpcCaller) note(problem string, ex Exchange) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.issues) < 50 {
		c.issues = append(c.issues, envelopeIssue{problem, ex})
	}
}

// envelopeIssues returns the envelope deviations seen so far.
func (c *jsonrpcCaller) envelopeIssues() []envelopeIssue {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]envelopeIssue(nil), c.issues...)
}

// messageJSON is a user message in the version's JSON-RPC form.
func messageJSON(version string, m outMessage) map[string]any {
	msg := map[string]any{"messageId": m.ID}
	if version == version03 {
		msg["kind"] = "message"
		msg["role"] = "user"
		msg["parts"] = []any{map[string]any{"kind": "text", "text": m.Text}}
	} else {
		msg["role"] = "ROLE_USER"
		msg["parts"] = []any{map[string]any{"text": m.Text}}
	}
	if m.ContextID != "" {
		msg["contextId"] = m.ContextID
	}
	if m.TaskID != "" {
		msg["taskId"] = m.TaskID
	}
	return msg
}

// sendParams are SendMessage's params.
func sendParams(version string, m outMessage, blocking bool) map[string]any {
	cfg := map[string]any{"returnImmediately": !blocking}
	if version == version03 {
		cfg = map[string]any{"blocking": blocking}
	}
	return map[string]any{"message": messageJSON(version, m), "configuration": cfg}
}

func rpcBody(id, method string, params any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return b
}

func (c *jsonrpcCaller) call(ctx context.Context, method string, params any, noAuth bool) reply {
	id := c.nextID()
	return c.post(ctx, httpRequest{body: rpcBody(id, method, params), noAuth: noAuth}, id, false)
}

// post sends a request (its body, credentials and patience) and decodes
// the answer. wantID is the id the answer must echo; nullOK accepts null
// instead (the request's id was unreadable).
func (c *jsonrpcCaller) post(ctx context.Context, hr httpRequest, wantID string, nullOK bool) reply {
	hr.method, hr.url, hr.version = http.MethodPost, c.in.URL, c.in.ProtocolVersion
	ans, ex, err := c.p.do(ctx, c.in.Name, hr)
	r := reply{ex: ex}
	if ans != nil {
		r.status, r.header = ans.Status, ans.Header
	}
	if err != nil {
		r.fail = err
		return r
	}
	return c.decode(r, ans.Body, wantID, nullOK)
}

func (c *jsonrpcCaller) decode(r reply, body []byte, wantID string, nullOK bool) reply {
	env, err := decodeEnvelope(body)
	if err != nil {
		r.fail = fmt.Errorf("the answer is not a JSON-RPC response: %w", err)
		return r
	}
	// A refusal for lack of credentials often comes from a layer in front
	// of the JSON-RPC handler, which cannot know the request's id.
	auth := r.status == http.StatusUnauthorized || r.status == http.StatusForbidden
	for _, p := range env.Problems {
		c.note(p, r.ex)
	}
	if env.ID != nil && validID(env.ID) && !sameID(env.ID, wantID) && !(isNullID(env.ID) && (nullOK || auth)) {
		c.note(fmt.Sprintf("the response id %s does not echo the request id %q", truncateText(string(env.ID), 40), wantID), r.ex)
	}
	if env.Error != nil {
		r.rpcErr, r.errText = env.Error, env.Error.Message
		return r
	}
	if env.Result == nil {
		r.fail = errors.New("the response holds neither a result nor an error")
		return r
	}
	r.result = env.Result
	o, err := decodeObject(env.Result)
	if err != nil {
		r.fail = fmt.Errorf("the result is not an A2A object: %w", err)
		return r
	}
	r.obj = &o
	return r
}

func (c *jsonrpcCaller) send(ctx context.Context, m outMessage, blocking bool) reply {
	id := c.nextID()
	body := rpcBody(id, methodsFor(c.in.ProtocolVersion).send, sendParams(c.in.ProtocolVersion, m, blocking))
	return c.post(ctx, httpRequest{body: body, long: blocking}, id, false)
}

func (c *jsonrpcCaller) get(ctx context.Context, id string, historyLength *int) reply {
	params := map[string]any{"id": id}
	if historyLength != nil {
		params["historyLength"] = *historyLength
	}
	return c.call(ctx, methodsFor(c.in.ProtocolVersion).get, params, false)
}

func (c *jsonrpcCaller) getWithoutAuth(ctx context.Context, id string) reply {
	return c.call(ctx, methodsFor(c.in.ProtocolVersion).get, map[string]any{"id": id}, true)
}

func (c *jsonrpcCaller) cancel(ctx context.Context, id string) reply {
	return c.call(ctx, methodsFor(c.in.ProtocolVersion).cancel, map[string]any{"id": id}, false)
}

func (c *jsonrpcCaller) list(ctx context.Context, q listQuery) reply {
	return c.call(ctx, "ListTasks", q.jsonParams(), false)
}

func (c *jsonrpcCaller) stream(ctx context.Context, m outMessage) (events, reply) {
	return c.openStream(ctx, methodsFor(c.in.ProtocolVersion).stream, sendParams(c.in.ProtocolVersion, m, false))
}

func (c *jsonrpcCaller) subscribe(ctx context.Context, id string) (events, reply) {
	return c.openStream(ctx, methodsFor(c.in.ProtocolVersion).subscribe, map[string]any{"id": id})
}

func (c *jsonrpcCaller) openStream(ctx context.Context, method string, params any) (events, reply) {
	id := c.nextID()
	sctx, cancel := context.WithTimeout(ctx, c.streamTimeout)
	resp, ex, err := c.p.open(sctx, c.in.Name, httpRequest{method: http.MethodPost, url: c.in.URL, body: rpcBody(id, method, params),
		version: c.in.ProtocolVersion, accept: "text/event-stream"})
	if err != nil {
		cancel()
		return nil, reply{fail: err, ex: ex}
	}
	decode := func(data []byte) event {
		r := c.decode(reply{ex: ex}, data, id, false)
		switch {
		case r.rpcErr != nil:
			return event{errReply: &r}
		case r.fail != nil:
			return event{problem: "an event that is not a JSON-RPC response with an A2A object: " + r.fail.Error()}
		}
		return event{obj: r.obj}
	}
	notStream := func(ans *httpAnswer) reply {
		r := reply{status: ans.Status, header: ans.Header}
		return c.decode(r, ans.Body, id, false)
	}
	return openSSE(sctx, cancel, resp, ex, c.limits, decode, notStream)
}

// raw posts a hand-made body (the error probes).
func (c *jsonrpcCaller) raw(ctx context.Context, body []byte, wantID string, nullOK bool) reply {
	return c.post(ctx, httpRequest{body: body}, wantID, nullOK)
}

func (c *jsonrpcCaller) close() {}
