package a2aclient

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// ssePeer is a hand-made JSON-RPC agent that answers each streaming call
// with the server-sent events script returns, in protocol 1.0 or 0.3 wire
// shape, and each unary call (SendMessage, GetTask) with unary's result.
// Its card declares streaming; the events are written exactly as given.
type ssePeer struct {
	*httptest.Server
	protocol ProtocolVersion
	mu       sync.Mutex
	methods  []string
}

// wire builds the events of a script in the peer's protocol.
type wire struct{ v ProtocolVersion }

func (w wire) text(s string) string {
	if w.v == Protocol03 {
		return fmt.Sprintf(`{"kind":"text","text":%q}`, s)
	}
	return fmt.Sprintf(`{"text":%q}`, s)
}

func (w wire) state(s string) string {
	if w.v == Protocol03 {
		return s
	}
	return map[string]string{"submitted": "TASK_STATE_SUBMITTED", "working": "TASK_STATE_WORKING",
		"input-required": "TASK_STATE_INPUT_REQUIRED", "completed": "TASK_STATE_COMPLETED"}[s]
}

func (w wire) message(id, role string, texts ...string) string {
	if w.v != Protocol03 {
		role = map[string]string{"agent": "ROLE_AGENT", "user": "ROLE_USER"}[role]
	}
	parts := ""
	for i, s := range texts {
		if i > 0 {
			parts += ","
		}
		parts += w.text(s)
	}
	kind := ""
	if w.v == Protocol03 {
		kind = `"kind":"message",`
	}
	return fmt.Sprintf(`{%s"messageId":%q,"role":%q,"parts":[%s]}`, kind, id, role, parts)
}

// task is a task snapshot; history holds messages built by message.
func (w wire) task(id, ctx, state string, history ...string) string {
	return w.taskWithStatus(id, ctx, state, "", history...)
}

// taskWithStatus is a task snapshot whose status carries msg, a message
// built by message, or "" for none.
func (w wire) taskWithStatus(id, ctx, state, msg string, history ...string) string {
	h := ""
	for i, m := range history {
		if i > 0 {
			h += ","
		}
		h += m
	}
	m := ""
	if msg != "" {
		m = `,"message":` + msg
	}
	body := fmt.Sprintf(`"id":%q,"contextId":%q,"status":{"state":%q%s},"history":[%s]`, id, ctx, w.state(state), m, h)
	if w.v == Protocol03 {
		return `{"kind":"task",` + body + `}`
	}
	return `{"task":{` + body + `}}`
}

// status is a status update; msg is a message built by message, or "".
func (w wire) status(task, ctx, state, msg string, final bool) string {
	m := ""
	if msg != "" {
		m = `,"message":` + msg
	}
	body := fmt.Sprintf(`"taskId":%q,"contextId":%q,"status":{"state":%q%s}`, task, ctx, w.state(state), m)
	if w.v == Protocol03 {
		return fmt.Sprintf(`{"kind":"status-update",%s,"final":%v}`, body, final)
	}
	return `{"statusUpdate":{` + body + `}}`
}

// artifact is an artifact update with one text part; appendFlag "" leaves
// the append member out.
func (w wire) artifact(task, ctx, artifactID, text, appendFlag string) string {
	app := ""
	if appendFlag != "" {
		app = `,"append":` + appendFlag
	}
	body := fmt.Sprintf(`"taskId":%q,"contextId":%q,"artifact":{"artifactId":%q,"parts":[%s]}%s`, task, ctx, artifactID, w.text(text), app)
	if w.v == Protocol03 {
		return `{"kind":"artifact-update",` + body + `}`
	}
	return `{"artifactUpdate":{` + body + `}}`
}

// peerRequest is what the peer tells script about a call.
type peerRequest struct {
	Method    string
	ContextID string
	MessageID string
	TaskID    string
}

func startSSEPeer(t *testing.T, v ProtocolVersion, stream func(req peerRequest) []string, unary func(req peerRequest) string) *ssePeer {
	t.Helper()
	return startFramedSSEPeer(t, v, "", stream, unary)
}

// startFramedSSEPeer is startSSEPeer whose event data starts with prefix,
// before the JSON.
func startFramedSSEPeer(t *testing.T, v ProtocolVersion, prefix string, stream func(req peerRequest) []string, unary func(req peerRequest) string) *ssePeer {
	t.Helper()
	p := &ssePeer{protocol: v}
	mux := http.NewServeMux()
	p.Server = httptest.NewServer(mux)
	t.Cleanup(p.Close)
	mux.HandleFunc("GET /.well-known/agent-card.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		ifaces := fmt.Sprintf(`"supportedInterfaces":[{"url":"%s/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]`, p.URL)
		if v == Protocol03 {
			ifaces = fmt.Sprintf(`"url":"%s/rpc","preferredTransport":"JSONRPC","protocolVersion":"0.3.0"`, p.URL)
		}
		_, _ = fmt.Fprintf(w, `{"name":"sse peer","description":"scripted","version":"1",%s,"capabilities":{"streaming":true},`+
			`"defaultInputModes":["text"],"defaultOutputModes":["text"],"skills":[{"id":"s","name":"s","description":"s","tags":["s"]}]}`, ifaces)
	})
	mux.HandleFunc("POST /rpc", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ID      string `json:"id"`
				Message struct {
					MessageID string `json:"messageId"`
					ContextID string `json:"contextId"`
					TaskID    string `json:"taskId"`
				} `json:"message"`
			} `json:"params"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		p.methods = append(p.methods, req.Method)
		p.mu.Unlock()
		pr := peerRequest{Method: req.Method, ContextID: req.Params.Message.ContextID, MessageID: req.Params.Message.MessageID, TaskID: req.Params.Message.TaskID}
		if pr.TaskID == "" {
			pr.TaskID = req.Params.ID
		}
		envelope := func(result string) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
		}
		switch req.Method {
		case "SendStreamingMessage", "message/stream":
			w.Header().Set("Content-Type", "text/event-stream")
			for _, ev := range stream(pr) {
				_, _ = fmt.Fprintf(w, "data: %s%s\n\n", prefix, envelope(ev))
				w.(http.Flusher).Flush()
			}
		default:
			if unary == nil {
				http.Error(w, "unexpected "+req.Method, http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, envelope(unary(pr)))
		}
	})
	return p
}

func (p *ssePeer) calls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.methods...)
}
