package a2aclient

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/proctor-eval/proctor/internal/backoff"
)

// Conversation is one dialogue with the agent: every message carries the
// same A2A context id, and a task the agent leaves in input-required is
// continued by the next message. It is not safe for concurrent use: a
// conversation is a sequence.
type Conversation struct {
	client    *Client
	contextID string
	taskID    a2a.TaskID
	// cardNoted says the client's card notes were reported already, on
	// an earlier Response of this conversation.
	cardNoted bool
	// sent is the id of the message being answered, which starts the
	// agent's turn in a task's history; seen are the ids of the agent
	// messages earlier replies reported.
	sent string
	seen map[string]bool
	// jar keeps the cookies the agent sets (see conversationJar); nil
	// when the client's HTTP client has its own jar.
	jar *conversationJar
	// headers go with every request of the conversation.
	headers http.Header
}

func (cv *Conversation) turnStart() turnStart { return turnStart{sent: cv.sent, seen: cv.seen} }

// ContextID returns the A2A context id of the conversation.
func (cv *Conversation) ContextID() string { return cv.contextID }

// Response is one agent reply, normalized.
type Response struct {
	// Parts is what the agent said, from wherever in the reply it was found.
	Parts []*a2a.Part
	// Shape says where Parts were found (ShapeMessage, ShapeArtifacts, ...).
	Shape Shape
	// Events are every part the agent emitted during the turn, in the
	// order they arrived, each with where it came from and its metadata:
	// streamed, the message result or the status updates (interim
	// working ones included) and artifact updates (an artifact's chunks
	// joined as for Parts); unstreamed or polled, the task history's
	// agent messages since the user's message, its status message, then
	// its artifacts. Parts is the answer read from them; Events is the
	// whole turn (tool calls and thoughts an agent reports, say).
	Events []Event
	// TaskID and State describe the task the reply belongs to, when the agent
	// answered with a task; both are empty for a plain message.
	TaskID a2a.TaskID
	State  a2a.TaskState
	// NonConformant is set when the reply broke the protocol but could still
	// be read; it says how (deviations joined by "; "). The first Response
	// of a conversation also reports the agent card's deviations that Dial
	// worked around (Client.CardNotes).
	NonConformant string
	// Metrics is always filled, also when Send returns an error.
	Metrics RequestMetrics
}

// CallError is a failed call to the agent: what kind of failure (Class),
// the HTTP status if the agent answered with an error status, and the
// underlying error.
type CallError struct {
	Class      ErrorClass
	HTTPStatus int
	Err        error
}

// Error implements error.
func (e *CallError) Error() string {
	if e.HTTPStatus != 0 && e.Class == ErrClassHTTPStatus {
		return fmt.Sprintf("agent answered HTTP %d: %v", e.HTTPStatus, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Class, e.Err)
}

// Unwrap returns the underlying error.
func (e *CallError) Unwrap() error { return e.Err }

// Send sends one user message made of parts and waits for the agent's reply.
// A task the agent leaves submitted or working is polled until it reaches a
// state where the agent has finished its turn.
func (cv *Conversation) Send(ctx context.Context, parts []*a2a.Part) (*Response, error) {
	c := cv.client
	ctx, cancel := context.WithTimeout(ctx, c.opts.requestTimeout)
	defer cancel()
	ctx, ex := withExchange(ctx, c.bodies)
	defer ex.release()
	ex.jar, ex.headers, ex.contextID = cv.jar, cv.headers, cv.contextID

	msg := a2a.NewMessage(a2a.MessageRoleUser, parts...)
	msg.ContextID = cv.contextID
	msg.TaskID = cv.taskID
	cv.sent = msg.ID
	method := "SendMessage"
	if c.streaming {
		method = "SendStreamingMessage"
	}
	ctx, span := cv.startSpan(ctx, method)
	resp, err := cv.send1(ctx, ex, msg, method, parts)
	cv.endSpan(span, resp, err)
	return resp, err
}

// send1 makes Send's call, with its retries and polling, and reads the
// reply.
func (cv *Conversation) send1(ctx context.Context, ex *exchange, msg *a2a.Message, method string, parts []*a2a.Part) (*Response, error) {
	c := cv.client
	resp := &Response{Metrics: RequestMetrics{Method: method, StartedAt: time.Now().UTC()}}
	start := time.Now()

	var (
		out           extracted
		nonConformant string
		err           error
	)
	for attempt := 0; ; attempt++ {
		out, nonConformant, err = cv.attempt(ctx, ex, msg)
		if err == nil || attempt >= c.opts.retries || ctx.Err() != nil || !transient(err, ex) {
			break
		}
		resp.Metrics.Retries++
		if backoff.Wait(ctx, retryDelay(c.opts.retryBase, attempt)) != nil {
			break
		}
	}
	resp.Metrics.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	status, sent, received, _, tooLarge := ex.snapshot()
	resp.Metrics.HTTPStatus, resp.Metrics.BytesSent, resp.Metrics.BytesReceived = status, sent, received
	resp.Metrics.GRPCCode = ex.code()
	resp.Metrics.Resends = ex.resent()
	if err == nil && bindingName(c.endpoint.ProtocolBinding) == TransportGRPC {
		// A stream is left as soon as its final event arrives, before gRPC
		// reports its status: a complete turn is an OK call.
		resp.Metrics.GRPCCode = "OK"
	}
	if err != nil {
		cerr := classify(ctx, err, status, resp.Metrics.GRPCCode, tooLarge, ex.bodyReadErr())
		resp.Metrics.ErrorClass, resp.Metrics.Error = cerr.Class, cerr.Error()
		cv.fillTokens(resp, parts, nil)
		return resp, cerr
	}

	resp.Parts, resp.Shape, resp.TaskID, resp.State = out.parts, out.shape, out.taskID, out.state
	resp.Events = out.events
	resp.NonConformant = cv.deviations(nonConformant)
	for _, id := range out.said {
		if id != "" {
			if cv.seen == nil {
				cv.seen = map[string]bool{}
			}
			cv.seen[id] = true
		}
	}
	if out.contextID != "" && out.contextID != cv.contextID {
		cv.contextID = out.contextID // the server assigns contexts it does not know
	}
	if out.isTask && out.state == a2a.TaskStateInputRequired {
		cv.taskID = out.taskID
	} else {
		cv.taskID = ""
	}
	cv.fillTokens(resp, parts, out.metadata)
	if out.isTask && failedState(out.state) {
		why := out.statusParts // the status message says why, if there is one
		if len(why) == 0 {
			why = out.parts
		}
		cerr := &CallError{Class: ErrClassTaskFailed, Err: fmt.Errorf("agent ended the task %s: %s", stateName(out.state), summarize(why))}
		resp.Metrics.ErrorClass, resp.Metrics.Error = cerr.Class, cerr.Error()
		return resp, cerr
	}
	return resp, nil
}

// deviations joins the reply's deviation (nonConformant) with the card's,
// which only a conversation's first reply reports.
func (cv *Conversation) deviations(nonConformant string) string {
	var all []string
	if !cv.cardNoted {
		cv.cardNoted = true
		all = append(all, cv.client.cardNotes...)
	}
	if nonConformant != "" {
		all = append(all, nonConformant)
	}
	return strings.Join(all, "; ")
}

// attempt makes one try at the call: the request (streamed or not), then
// polling while the task is unfinished.
func (cv *Conversation) attempt(ctx context.Context, ex *exchange, msg *a2a.Message) (extracted, string, error) {
	var (
		out           extracted
		nonConformant string
		err           error
	)
	if cv.client.streaming {
		out, err = cv.stream(ctx, ex, msg)
		nonConformant = strings.Join(ex.deviations(), "; ")
	} else {
		out, nonConformant, err = cv.send(ctx, ex, msg)
	}
	if err == nil && out.isTask && !turnOver(out.state) {
		var pollNC string
		before := out.events
		out, pollNC, err = cv.poll(ctx, ex, out)
		var log turnLog
		log.addAll(before)
		log.addAll(out.events)
		out.events = log.list()
		if nonConformant == "" {
			nonConformant = pollNC
		}
	}
	return out, nonConformant, err
}

// send makes the call; when a2a-go cannot decode a 200 reply, the raw body is
// read tolerantly and the reply flagged as non-conformant.
func (cv *Conversation) send(ctx context.Context, ex *exchange, msg *a2a.Message) (extracted, string, error) {
	res, err := cv.client.sdk.SendMessage(ctx, cv.client.sendRequest(msg))
	if err == nil {
		return fromResult(res, cv.turnStart()), "", nil
	}
	if out, nc, ok := readTolerantly(ctx, ex, err); ok {
		return out, nc, nil
	}
	return extracted{}, "", err
}

// sendRequest is the request that sends msg, with the client's
// sendConfig.
func (c *Client) sendRequest(msg *a2a.Message) *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: msg, Config: c.sendConfig()}
}

// sendConfig is the configuration of every SendMessage request of the
// client, made once and shared by its requests (a2a-go copies a request's
// configuration before it adds to it; nothing writes to this one). It
// names the output modes proctor reads (text parts, and data parts as
// JSON; "text" is how many cards write text/plain): A2A 0.2.5 requires
// acceptedOutputModes, and fasta2a answers HTTP 500 to a request without
// it. 0.3 and 1.0 leave it optional; it is sent on every wire alike. It
// asks for the task's whole history where leaving historyLength out asks
// for none (see historyLength).
func (c *Client) sendConfig() *a2a.SendMessageConfig {
	c.sendConfigOnce.Do(func() {
		c.sendConfigShared = &a2a.SendMessageConfig{
			AcceptedOutputModes: []string{"text/plain", "text", "application/json"},
			HistoryLength:       c.historyLength(),
		}
	})
	return c.sendConfigShared
}

// wholeHistory is the historyLength that asks for a task's whole history:
// the most a 0.3 int32 field holds.
const wholeHistory = math.MaxInt32

// historyLength is the historyLength proctor sends in a SendMessage or
// GetTask, or nil to send none. A2A 0.3's gRPC and HTTP+JSON bindings carry
// historyLength as a proto3 int32 without presence, so a request without
// one reads as 0 to a proto decoder, and a server that honours 0 literally
// (the Python SDK 1.1.0's 0.3 compatibility layer) answers with a task
// without history: an agent's interim status messages, which an unstreamed
// reply holds only in the history, are lost. There proctor asks for the
// whole history. JSON-RPC and 1.0 (where the field is optional and absent
// means no limit) send none, as before.
func (c *Client) historyLength() *int {
	b := bindingName(c.endpoint.ProtocolBinding)
	if versionName(c.endpoint.ProtocolVersion) != Protocol03 || (b != TransportGRPC && b != TransportREST) {
		return nil
	}
	n := wholeHistory
	return &n
}

// readTolerantly reads the body of the last 200 reply, which a2a-go could
// not decode (err) or decoded into nothing, with fromRaw. ok is false when
// there is no such body or nothing in it can be read.
func readTolerantly(ctx context.Context, ex *exchange, err error) (out extracted, nonConformant string, ok bool) {
	status, _, _, body, tooLarge := ex.snapshot()
	var rpcErr *a2a.Error
	if !success(status) || tooLarge || ctx.Err() != nil || errors.As(err, &rpcErr) || len(body) == 0 {
		return extracted{}, "", false
	}
	var envelope struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if jerr := json.Unmarshal(body, &envelope); jerr != nil {
		return extracted{}, "", false
	}
	result := envelope.Result
	if len(result) == 0 {
		if len(envelope.Error) > 0 {
			return extracted{}, "", false
		}
		result = body // HTTP+JSON: the body is the result itself
	}
	out, ok = fromRaw(result)
	if !ok {
		return extracted{}, "", false
	}
	if kind := missingKind(result); kind != "" {
		return out, "a " + kind + " reply has no kind; read as one", true
	}
	why := "it decoded to an empty task"
	if err != nil {
		why = firstLine(err.Error())
	}
	return out, fmt.Sprintf("reply rejected by the A2A types (%v); read tolerantly", why), true
}

// missingKind returns the kind a 0.3 result object's members show when it
// lacks its "kind" discriminator (which a2a-go's 0.3 decoder refuses as
// "unknown event kind"), and "" otherwise.
func missingKind(result json.RawMessage) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(result, &obj) != nil {
		return ""
	}
	if _, ok := obj["kind"]; ok {
		return ""
	}
	return eventKind(obj)
}

// poll follows a task the agent has not finished with GetTask and backoff.
func (cv *Conversation) poll(ctx context.Context, ex *exchange, out extracted) (extracted, string, error) {
	if out.taskID == "" {
		return out, "", fmt.Errorf("agent left a task %s without a task id to poll", stateName(out.state))
	}
	delay := 50 * time.Millisecond
	var nonConformant string
	for {
		select {
		case <-ctx.Done():
			return out, nonConformant, &CallError{Class: ErrClassNonTerminal, Err: fmt.Errorf("task %s still %s when the request timed out", out.taskID, stateName(out.state))}
		case <-time.After(delay):
		}
		delay = min(delay*2, 2*time.Second)
		task, err := cv.client.sdk.GetTask(ctx, &a2a.GetTaskRequest{ID: out.taskID, HistoryLength: cv.client.historyLength()})
		switch {
		case err == nil && task.ID != "":
			out = fromTask(task, cv.turnStart())
		default:
			// Rejected by a2a-go's types, or decoded into a task without an
			// id (a {"task": {...}} wrapper, say): read the body ourselves.
			raw, nc, ok := readTolerantly(ctx, ex, err)
			if !ok {
				if err == nil {
					err = fmt.Errorf("GetTask %s returned a task without an id", out.taskID)
				}
				return out, nonConformant, err
			}
			if !raw.isTask {
				return out, nonConformant, fmt.Errorf("GetTask %s returned a message, not a task", out.taskID)
			}
			if raw.taskID == "" {
				raw.taskID = out.taskID
			}
			out, nonConformant = raw, nc
		}
		if turnOver(out.state) {
			return out, nonConformant, nil
		}
	}
}

func turnOver(s a2a.TaskState) bool {
	return s.Terminal() || s == a2a.TaskStateInputRequired || s == a2a.TaskStateAuthRequired || s == a2a.TaskStateUnspecified
}

func failedState(s a2a.TaskState) bool {
	return s == a2a.TaskStateFailed || s == a2a.TaskStateRejected || s == a2a.TaskStateCanceled || s == a2a.TaskStateAuthRequired
}

func stateName(s a2a.TaskState) string {
	return strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_"))
}

func (cv *Conversation) fillTokens(resp *Response, sent []*a2a.Part, metadata []map[string]any) {
	for _, m := range metadata {
		if u, ok := ReportedUsage(m); ok {
			resp.Metrics.InputTokens, resp.Metrics.OutputTokens = u.InputTokens, u.OutputTokens
			return
		}
	}
	resp.Metrics.TokensEstimated = true
	resp.Metrics.InputTokens = estimatePartTokens(sent)
	resp.Metrics.OutputTokens = estimatePartTokens(resp.Parts)
}

// estimatePartTokens is EstimateTokens(PartsText(parts)) without building
// the text.
func estimatePartTokens(parts []*a2a.Part) int64 {
	runes := 0
	for i, p := range parts {
		if p == nil {
			continue
		}
		if i > 0 {
			runes++
		}
		if d := p.Data(); d != nil {
			j, _ := json.Marshal(d)
			runes += utf8.RuneCount(j)
		} else {
			runes += runeCount(p.Text())
		}
	}
	return tokensForRunes(runes)
}

// PartsText renders parts as text: text parts as they are, data parts as
// JSON, one part per line.
func PartsText(parts []*a2a.Part) string {
	var b strings.Builder
	for i, p := range parts {
		if p == nil {
			continue
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		switch {
		case p.Data() != nil:
			j, _ := json.Marshal(p.Data())
			b.Write(j)
		default:
			b.WriteString(p.Text())
		}
	}
	return b.String()
}

func summarize(parts []*a2a.Part) string {
	s := strings.TrimSpace(PartsText(parts))
	if s == "" {
		return "(no message)"
	}
	return truncate(s, 500)
}

// truncate cuts s to at most n bytes plus an ellipsis, on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return truncate(s, 200)
}

// classify sorts a failed call into an error class. status, tooLarge and
// readErr are what the HTTP layer saw of the latest response.
// success reports whether an HTTP status says the call worked: 200, or the
// 201 and 202 some servers answer with.
func success(status int) bool {
	return status == http.StatusOK || status == http.StatusCreated || status == http.StatusAccepted
}

func classify(ctx context.Context, err error, status int, grpcCode string, tooLarge bool, readErr error) *CallError {
	var cerr *CallError
	if errors.As(err, &cerr) {
		return cerr
	}
	var rpcErr *a2a.Error
	var netErr net.Error
	switch {
	case errors.Is(err, ErrDeniedTarget):
		return &CallError{Class: ErrClassDenied, Err: err}
	case IsLocalExhaustion(err):
		return localError(err)
	case tooLarge || errors.Is(err, errResponseTooLarge):
		return &CallError{Class: ErrClassTooLarge, Err: err}
	case errors.Is(err, bufio.ErrTooLong):
		// a2a-go reads server-sent events with a bufio.Scanner that refuses
		// one event (line) over 10 MiB: a reply too large, not a malformed
		// one, even though it comes before the response cap.
		return &CallError{Class: ErrClassTooLarge, Err: fmt.Errorf("a streamed event exceeds a2a-go's 10 MiB event limit: %w", err)}
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return &CallError{Class: ErrClassTimeout, Err: fmt.Errorf("no reply in time: %w", err)}
	case errors.Is(err, context.Canceled):
		return &CallError{Class: ErrClassCanceled, Err: err}
	case status != 0 && !success(status):
		return &CallError{Class: ErrClassHTTPStatus, HTTPStatus: status, Err: err}
	case grpcCode == "Unavailable":
		return &CallError{Class: ErrClassConnection, Err: err}
	case grpcCode == "ResourceExhausted":
		return &CallError{Class: ErrClassTooLarge, Err: err}
	case grpcCode != "" && grpcCode != "OK":
		return &CallError{Class: ErrClassRPC, Err: fmt.Errorf("gRPC %s: %w", grpcCode, err)}
	case errors.As(err, &rpcErr):
		return &CallError{Class: ErrClassRPC, Err: err}
	case readErr != nil:
		// The connection broke while the body was arriving.
		return &CallError{Class: ErrClassConnection, Err: err}
	case success(status):
		// The whole reply arrived and it is wrong, however the decoder put
		// it (an empty or cut-short body reads as EOF, too).
		return &CallError{Class: ErrClassProtocol, Err: err}
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, io.EOF), errors.As(err, &netErr):
		return &CallError{Class: ErrClassConnection, Err: err}
	}
	return &CallError{Class: ErrClassProtocol, Err: err}
}
