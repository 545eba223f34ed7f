package agenttest

// A peer with the wire shape of fasta2a (pydantic-ai's Agent.to_a2a()):
// pydantic's FastA2A server, which publishes a protocol 0.2.5 card and
// speaks the 0.2.x JSON-RPC methods (message/send, tasks/get, tasks/cancel)
// over a plain Starlette route.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// FastA2AReply is where a fasta2a peer puts its answer in the task.
type FastA2AReply string

// The places pydantic-ai's worker has put an agent's output.
const (
	// FastA2AHistory: an agent message in the task's history, one text
	// part (pydantic-ai for a str output).
	FastA2AHistory FastA2AReply = "history"
	// FastA2ATextArtifact: an artifact named "result" with one text part
	// (pydantic-ai's build_artifacts).
	FastA2ATextArtifact FastA2AReply = "text-artifact"
	// FastA2ADataArtifact: an artifact named "result" with one data part
	// {"result": text} (pydantic-ai for a structured output).
	FastA2ADataArtifact FastA2AReply = "data-artifact"
)

// FastA2ATimestamp is the layout of fasta2a's timestamps: Python's
// datetime.now().isoformat(), local time without a UTC offset.
const FastA2ATimestamp = "2006-01-02T15:04:05.000000"

// FastA2AOptions shape a fasta2a peer.
type FastA2AOptions struct {
	// Reply is where the answer goes; FastA2AHistory when unset.
	Reply FastA2AReply
	// PreferredTransport, when set, is written into the card: fasta2a's
	// card has none, cards written after its example name JSONRPC.
	PreferredTransport string
}

// FastA2A is a running fasta2a-shaped peer.
type FastA2A struct {
	*httptest.Server
	reply ReplyFunc
	opts  FastA2AOptions

	mu    sync.Mutex
	tasks map[string]map[string]any
	// refused counts the requests answered HTTP 500.
	refused int
}

// Refused returns how many requests the peer answered with HTTP 500, as
// fasta2a does for every request its pydantic types reject.
func (f *FastA2A) Refused() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refused
}

// StartFastA2A serves a fasta2a-shaped agent: its card at
// /.well-known/agent.json (protocolVersion 0.2.5, url, streaming false,
// application/json modes) and JSON-RPC at "/". message/send answers a Task
// in state "submitted" whose work is done by the time the client polls
// tasks/get, which then returns it completed with reply's answer where
// opts.Reply says. Timestamps are local time without a UTC offset. As fasta2a does, it
// answers HTTP 500 to a request its types reject: a configuration without
// acceptedOutputModes (required in 0.2.5), a message without kind,
// messageId or role, a part without kind, and any method but message/send,
// tasks/get and tasks/cancel (message/stream included). A message with a
// data part fails its task, as pydantic-ai does.
func StartFastA2A(tb testing.TB, opts FastA2AOptions, reply ReplyFunc) *FastA2A {
	tb.Helper()
	f := &FastA2A{reply: reply, opts: opts, tasks: map[string]map[string]any{}}
	mux := http.NewServeMux()
	f.Server = httptest.NewServer(mux)
	tb.Cleanup(f.Close)
	mux.HandleFunc("GET /.well-known/agent.json", f.serveCard)
	mux.HandleFunc("POST /", f.serveRPC)
	return f
}

func (f *FastA2A) serveCard(w http.ResponseWriter, _ *http.Request) {
	card := map[string]any{
		"name": "pydantic-ai agent", "description": "An AI agent exposed as an A2A agent.",
		"url": f.URL, "version": "1.0.0", "protocolVersion": "0.2.5",
		"capabilities":      map[string]any{"streaming": false, "pushNotifications": false, "stateTransitionHistory": false},
		"defaultInputModes": []string{"application/json"}, "defaultOutputModes": []string{"application/json"},
		"skills": []any{},
	}
	if f.opts.PreferredTransport != "" {
		card["preferredTransport"] = f.opts.PreferredTransport
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(card)
}

// fastA2ARequest is a JSON-RPC request as fasta2a reads it.
type fastA2ARequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

func (f *FastA2A) serveRPC(w http.ResponseWriter, r *http.Request) {
	var req fastA2ARequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.JSONRPC != "2.0" {
		f.refuse(w)
		return
	}
	var result any
	var ok bool
	switch req.Method {
	case "message/send":
		result, ok = f.send(r.Context(), req.Params)
	case "tasks/get", "tasks/cancel":
		result, ok = f.taskCall(req.Method, req.Params)
	}
	if !ok {
		f.refuse(w)
		return
	}
	out := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	if e, isErr := result.(fastA2AError); isErr {
		out["error"] = map[string]any{"code": e.code, "message": e.message}
	} else {
		out["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// refuse answers as Starlette does to an exception the route did not catch.
func (f *FastA2A) refuse(w http.ResponseWriter) {
	f.mu.Lock()
	f.refused++
	f.mu.Unlock()
	http.Error(w, "Internal Server Error", http.StatusInternalServerError)
}

// fastA2AError is a JSON-RPC error result.
type fastA2AError struct {
	code    int
	message string
}

// fastA2AMessage is the part of a message/send's params fasta2a validates.
type fastA2AMessage struct {
	Kind      string           `json:"kind"`
	Role      string           `json:"role"`
	MessageID string           `json:"messageId"`
	ContextID string           `json:"contextId"`
	Parts     []map[string]any `json:"parts"`
}

// valid says whether pydantic's MessageSendParams would accept the message.
func (m fastA2AMessage) valid() bool {
	if m.Kind != "message" || (m.Role != "user" && m.Role != "agent") || m.MessageID == "" || m.Parts == nil {
		return false
	}
	for _, p := range m.Parts {
		switch p["kind"] {
		case "text", "file", "data":
		default:
			return false
		}
	}
	return true
}

// send is message/send: it stores the task, does its work and answers the
// task as it was when submitted.
func (f *FastA2A) send(ctx context.Context, raw json.RawMessage) (any, bool) {
	var params struct {
		Message       *fastA2AMessage `json:"message"`
		Configuration *struct {
			AcceptedOutputModes []string `json:"acceptedOutputModes"`
		} `json:"configuration"`
	}
	if json.Unmarshal(raw, &params) != nil || params.Message == nil || !params.Message.valid() {
		return nil, false
	}
	if params.Configuration != nil && params.Configuration.AcceptedOutputModes == nil {
		return nil, false
	}
	var message map[string]any
	_ = json.Unmarshal(mustField(raw, "message"), &message)
	contextID := params.Message.ContextID
	if contextID == "" {
		contextID = uuid.NewString()
	}
	taskID := uuid.NewString()
	message["taskId"], message["contextId"] = taskID, contextID
	task := map[string]any{"id": taskID, "contextId": contextID, "kind": "task",
		"status": fastA2AStatus("submitted"), "history": []any{message}}
	submitted, _ := json.Marshal(task)
	f.mu.Lock()
	f.tasks[taskID] = task
	f.mu.Unlock()
	f.work(ctx, task, params.Message.Parts)
	return json.RawMessage(submitted), true
}

// mustField returns one member of a JSON object already decoded once.
func mustField(raw json.RawMessage, name string) json.RawMessage {
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(raw, &obj)
	return obj[name]
}

func fastA2AStatus(state string) map[string]any {
	return map[string]any{"state": state, "timestamp": time.Now().Format(FastA2ATimestamp)}
}

// work runs the agent on the message's parts and completes (or fails) the
// task, as pydantic-ai's AgentWorker does.
func (f *FastA2A) work(ctx context.Context, task map[string]any, parts []map[string]any) {
	var text strings.Builder
	for _, p := range parts {
		if p["kind"] == "data" {
			f.update(task, "failed", nil, nil)
			return
		}
		if s, ok := p["text"].(string); ok {
			text.WriteString(s)
		}
	}
	answer := f.reply(ctx, task["contextId"].(string), text.String())
	switch f.opts.Reply {
	case FastA2ATextArtifact:
		f.update(task, "completed", nil, fastA2AArtifact(map[string]any{"kind": "text", "text": answer}))
	case FastA2ADataArtifact:
		f.update(task, "completed", nil, fastA2AArtifact(map[string]any{"kind": "data", "data": map[string]any{"result": answer}}))
	default:
		msg := map[string]any{"role": "agent", "kind": "message", "messageId": uuid.NewString(),
			"taskId": task["id"], "contextId": task["contextId"], "parts": []any{map[string]any{"kind": "text", "text": answer}}}
		f.update(task, "completed", msg, nil)
	}
}

func fastA2AArtifact(part map[string]any) map[string]any {
	return map[string]any{"artifactId": uuid.NewString(), "name": "result", "parts": []any{part}}
}

// update moves a stored task to state, adding a history message and an
// artifact when given.
func (f *FastA2A) update(task map[string]any, state string, msg, artifact map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	task["status"] = fastA2AStatus(state)
	if msg != nil {
		task["history"] = append(task["history"].([]any), msg)
	}
	if artifact != nil {
		task["artifacts"] = []any{artifact}
	}
}

// taskCall is tasks/get or tasks/cancel: the stored task, or fasta2a's
// TaskNotFoundError.
func (f *FastA2A) taskCall(method string, raw json.RawMessage) (any, bool) {
	var params struct {
		ID *string `json:"id"`
	}
	if json.Unmarshal(raw, &params) != nil || params.ID == nil {
		return nil, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	task, ok := f.tasks[*params.ID]
	if !ok {
		return fastA2AError{code: -32001, message: "Task not found"}, true
	}
	if method == "tasks/cancel" {
		task["status"] = fastA2AStatus("canceled")
	}
	b, _ := json.Marshal(task)
	return json.RawMessage(b), true
}
