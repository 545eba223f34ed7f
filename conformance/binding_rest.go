package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// restCaller speaks the HTTP+JSON binding of one protocol version: 1.0
// paths at the interface URL, 0.3 paths below /v1.
type restCaller struct {
	p             *prober
	in            Interface
	limits        streamLimits
	streamTimeout time.Duration
}

func newRESTCaller(p *prober, in Interface, limits streamLimits, streamTimeout time.Duration) *restCaller {
	return &restCaller{p: p, in: in, limits: limits, streamTimeout: streamTimeout}
}

func (c *restCaller) path(p string) string {
	base := strings.TrimRight(c.in.URL, "/")
	if c.in.ProtocolVersion == version03 {
		base += "/v1"
	}
	return base + p
}

func taskPath(id, action string) string { return "/tasks/" + url.PathEscape(id) + action }

// restMessage is a user message in the version's HTTP+JSON form: 1.0's
// JSON, or the 0.3 proto JSON (parts under "content").
func restMessage(version string, m outMessage) map[string]any {
	msg := messageJSON(version10, m)
	if version == version03 {
		msg["content"] = msg["parts"]
		delete(msg, "parts")
	}
	return msg
}

func (c *restCaller) sendBody(m outMessage, blocking bool) []byte {
	cfg := map[string]any{"returnImmediately": !blocking}
	if c.in.ProtocolVersion == version03 {
		cfg = map[string]any{"blocking": blocking}
	}
	b, _ := json.Marshal(map[string]any{"message": restMessage(c.in.ProtocolVersion, m), "configuration": cfg})
	return b
}

func (c *restCaller) do(ctx context.Context, method, path string, body []byte, noAuth bool) reply {
	return c.doRequest(ctx, httpRequest{method: method, url: c.path(path), body: body, noAuth: noAuth})
}

func (c *restCaller) doRequest(ctx context.Context, hr httpRequest) reply {
	hr.version = c.in.ProtocolVersion
	ans, ex, err := c.p.do(ctx, c.in.Name, hr)
	r := reply{ex: ex}
	if ans != nil {
		r.status, r.header = ans.Status, ans.Header
	}
	if err != nil {
		r.fail = err
		return r
	}
	return decodeREST(r, ans.Body)
}

// decodeREST reads an HTTP+JSON answer: an A2A object for 2xx, an error
// body (google.rpc.Status, problem+json, or anything) otherwise.
func decodeREST(r reply, body []byte) reply {
	if r.status >= 400 {
		r.errText = restErrorText(body)
		return r
	}
	if r.status < 200 || r.status > 299 {
		r.fail = fmt.Errorf("unexpected HTTP status %d", r.status)
		return r
	}
	if m, ok := object(body); ok && m["error"] != nil && len(m) == 1 {
		r.fail = fmt.Errorf("HTTP %d with an error body: %s", r.status, restErrorText(body))
		return r
	}
	if json.Valid(body) {
		r.result = body
	}
	o, err := decodeObject(body)
	if err != nil {
		r.fail = fmt.Errorf("the answer is not an A2A object: %w", err)
		return r
	}
	r.obj = &o
	return r
}

// restErrorText finds an error body's message.
func restErrorText(body []byte) string {
	var v struct {
		Error *struct {
			Message string `json:"message"`
			Status  string `json:"status"`
		} `json:"error"`
		Detail string `json:"detail"`
		Title  string `json:"title"`
	}
	if json.Unmarshal(body, &v) == nil {
		switch {
		case v.Error != nil && v.Error.Message != "":
			return v.Error.Message
		case v.Detail != "":
			return v.Detail
		case v.Title != "":
			return v.Title
		}
	}
	return truncateText(strings.TrimSpace(string(body)), 120)
}

func (c *restCaller) send(ctx context.Context, m outMessage, blocking bool) reply {
	return c.doRequest(ctx, httpRequest{method: http.MethodPost, url: c.path("/message:send"), body: c.sendBody(m, blocking), long: blocking})
}

func (c *restCaller) get(ctx context.Context, id string, historyLength *int) reply {
	p := taskPath(id, "")
	if historyLength != nil {
		p += "?historyLength=" + strconv.Itoa(*historyLength)
	}
	return c.do(ctx, http.MethodGet, p, nil, false)
}

func (c *restCaller) list(ctx context.Context, q listQuery) reply {
	p := "/tasks"
	if v := q.queryValues(); len(v) > 0 {
		p += "?" + v.Encode()
	}
	return c.do(ctx, http.MethodGet, p, nil, false)
}

func (c *restCaller) getWithoutAuth(ctx context.Context, id string) reply {
	return c.do(ctx, http.MethodGet, taskPath(id, ""), nil, true)
}

func (c *restCaller) cancel(ctx context.Context, id string) reply {
	return c.do(ctx, http.MethodPost, taskPath(id, ":cancel"), []byte("{}"), false)
}

func (c *restCaller) stream(ctx context.Context, m outMessage) (events, reply) {
	return c.openStream(ctx, http.MethodPost, "/message:stream", c.sendBody(m, false))
}

func (c *restCaller) subscribe(ctx context.Context, id string) (events, reply) {
	// 1.0 maps SubscribeToTask to GET (a2a.proto), 0.3 to POST.
	if c.in.ProtocolVersion == version03 {
		return c.openStream(ctx, http.MethodPost, taskPath(id, ":subscribe"), []byte("{}"))
	}
	return c.openStream(ctx, http.MethodGet, taskPath(id, ":subscribe"), nil)
}

func (c *restCaller) openStream(ctx context.Context, method, path string, body []byte) (events, reply) {
	sctx, cancel := context.WithTimeout(ctx, c.streamTimeout)
	resp, ex, err := c.p.open(sctx, c.in.Name, httpRequest{method: method, url: c.path(path), body: body,
		version: c.in.ProtocolVersion, accept: "text/event-stream"})
	if err != nil {
		cancel()
		return nil, reply{fail: err, ex: ex}
	}
	decode := func(data []byte) event {
		if m, ok := object(data); ok && m["error"] != nil && len(m) == 1 {
			r := reply{status: http.StatusOK, errText: restErrorText(data), ex: ex}
			r.rpcErr = restStreamError(m["error"])
			return event{errReply: &r}
		}
		return decodeJSONEvent(data)
	}
	notStream := func(ans *httpAnswer) reply {
		return decodeREST(reply{status: ans.Status, header: ans.Header}, ans.Body)
	}
	return openSSE(sctx, cancel, resp, ex, c.limits, decode, notStream)
}

// restStreamError turns an error event of an HTTP+JSON stream into an
// rpcError, so that checks can tell it is an error; its code is the HTTP
// status the body names.
func restStreamError(raw json.RawMessage) *rpcError {
	var v struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(raw, &v)
	return &rpcError{Code: v.Code, CodeOK: v.Code != 0, Message: v.Message}
}

// raw sends a hand-made request (the error probes).
func (c *restCaller) raw(ctx context.Context, method, path string, body []byte) reply {
	return c.do(ctx, method, path, body, false)
}

func (c *restCaller) close() {}
