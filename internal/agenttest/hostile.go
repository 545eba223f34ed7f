package agenttest

// Hostile agents: servers that serve a valid agent card and then misbehave
// on the A2A endpoint the way broken or malicious agents do on the wire:
// replies far larger than any sane answer, streams that never end,
// connections reset in the middle of a reply, and JSON cut short. They speak
// JSON-RPC at protocol 1.0, like Start.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Hostile is a running hostile agent. It counts the A2A calls it received
// (the card fetch is not one), so that tests can tell whether a failure was
// retried.
type Hostile struct {
	*httptest.Server
	calls atomic.Int64
}

// Calls returns the number of A2A calls the agent has received.
func (h *Hostile) Calls() int { return int(h.calls.Load()) }

// rpcRequest is what a hostile agent reads of a JSON-RPC request.
type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Message struct {
			ContextID string `json:"contextId"`
		} `json:"message"`
	} `json:"params"`
}

// id is the request id to echo, null when the request had none.
func (r rpcRequest) id() json.RawMessage {
	if len(r.ID) == 0 {
		return json.RawMessage("null")
	}
	return r.ID
}

// envelope renders a JSON-RPC success response around result, a JSON value.
func (r rpcRequest) envelope(result []byte) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, r.id(), result)
}

// serveHostile mounts answer at "/" beside a 1.0 JSON-RPC agent card that
// declares streaming when streaming is set (so that proctor's client, by
// default, calls SendStreamingMessage). The request is decoded (at most
// 1 MiB of it) before answer runs.
func serveHostile(tb testing.TB, streaming bool, answer func(w http.ResponseWriter, r *http.Request, req rpcRequest)) *Hostile {
	tb.Helper()
	h := &Hostile{}
	mux := http.NewServeMux()
	h.Server = httptest.NewServer(mux)
	tb.Cleanup(h.Close)
	card := Card(h.URL)
	card.Capabilities.Streaming = streaming
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.calls.Add(1)
		var req rpcRequest
		_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req)
		answer(w, r, req)
	}))
	return h
}

// flushEvery is how much a streaming hostile agent writes between flushes.
const flushEvery = 64 << 10

// writeFiller writes n bytes of 'x' to w in fixed-size pieces, so that the
// agent never holds more than one piece in memory, flushing as it goes. It
// stops at the first write error (the client hung up).
func writeFiller(w io.Writer, n int64) error {
	piece := bytes.Repeat([]byte("x"), flushEvery)
	f, _ := w.(http.Flusher)
	for n > 0 {
		chunk := piece[:min(int64(len(piece)), n)]
		if _, err := w.Write(chunk); err != nil {
			return err
		}
		n -= int64(len(chunk))
		if f != nil {
			f.Flush()
		}
	}
	return nil
}

// hugeMessageParts returns what comes before and after the n-byte text of a
// JSON-RPC result holding one agent message with one text part.
func hugeMessageParts(req rpcRequest) (head, tail []byte) {
	head = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"message":{"messageId":"huge","role":"ROLE_AGENT","contextId":%q,"parts":[{"text":"`,
		req.id(), req.Params.Message.ContextID)
	return head, []byte(`"}]}}}`)
}

// HugeReplyAgent answers every A2A call with status 200 and a well-formed
// JSON-RPC result: an agent message whose one text part is n bytes long.
// The body is generated as it is sent (chunked, without a Content-Length),
// so the agent's own memory stays small whatever n is; it stops when the
// client hangs up.
func HugeReplyAgent(tb testing.TB, n int64) *Hostile {
	return serveHostile(tb, false, func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		head, tail := hugeMessageParts(req)
		w.Header().Set("Content-Type", "application/json")
		if _, err := w.Write(head); err != nil {
			return
		}
		if writeFiller(w, n) != nil {
			return
		}
		_, _ = w.Write(tail)
	})
}

// HugeEventAgent declares streaming and answers every call with one
// server-sent event whose data is a JSON-RPC result holding an agent message
// with an n-byte text part, generated as it is sent.
func HugeEventAgent(tb testing.TB, n int64) *Hostile {
	return serveHostile(tb, true, func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		head, tail := hugeMessageParts(req)
		sseHeaders(w)
		if _, err := fmt.Fprintf(w, "id: huge\ndata: %s", head); err != nil {
			return
		}
		if writeFiller(w, n) != nil {
			return
		}
		_, _ = fmt.Fprintf(w, "%s\n\n", tail)
	})
}

// sseHeaders starts a server-sent event stream as a2a-go's server does.
func sseHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
}

// writeEvent writes one server-sent event in a2a-go's framing ("id:" and
// "data:" lines, then a blank line) and flushes it.
func writeEvent(w http.ResponseWriter, id string, data []byte) error {
	if _, err := fmt.Fprintf(w, "id: %s\ndata: %s\n\n", id, data); err != nil {
		return err
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

// workingEvent is the JSON-RPC result of a status update saying the task is
// still working.
func workingEvent(req rpcRequest, taskID string) []byte {
	ev := &a2a.TaskStatusUpdateEvent{
		TaskID:    a2a.TaskID(taskID),
		ContextID: req.Params.Message.ContextID,
		Status:    a2a.TaskStatus{State: a2a.TaskStateWorking},
	}
	result, err := json.Marshal(a2a.StreamResponse{Event: ev})
	if err != nil {
		panic(err) // a fixed, valid event
	}
	return req.envelope(result)
}

// EndlessStreamAgent declares streaming and answers every call with a
// stream of well-formed "task still working" status updates, one every
// interval (as fast as the client reads them when interval <= 0), that
// never ends: only the client hanging up (or the test ending) stops it.
func EndlessStreamAgent(tb testing.TB, interval time.Duration) *Hostile {
	done := make(chan struct{})
	h := serveHostile(tb, true, func(w http.ResponseWriter, r *http.Request, req rpcRequest) {
		sseHeaders(w)
		data := workingEvent(req, "endless-task")
		var tick <-chan time.Time
		if interval > 0 {
			t := time.NewTicker(interval)
			defer t.Stop()
			tick = t.C
		}
		for i := 0; ; i++ {
			if writeEvent(w, strconv.Itoa(i), data) != nil {
				return
			}
			if tick == nil {
				select {
				case <-r.Context().Done():
					return
				case <-done:
					return
				default:
					continue
				}
			}
			select {
			case <-tick:
			case <-r.Context().Done():
				return
			case <-done:
				return
			}
		}
	})
	// Registered after the server's Close, so it runs first: Close waits for
	// handlers to return.
	tb.Cleanup(func() { close(done) })
	return h
}

// hijack takes over the connection of the request, after the request body
// has been read.
func hijack(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("agenttest: the server does not support hijacking")
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		panic(fmt.Sprintf("agenttest: hijack: %v", err))
	}
	return conn, rw
}

// resetConn closes conn with an RST rather than a FIN, as a crashing
// process, a killed pod or a middlebox dropping state does.
func resetConn(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// ResetAgent answers every call with the start of a reply and then resets
// the TCP connection. With streaming, the card declares streaming and the
// reply is an SSE stream (chunked) holding half an event; without, it is a
// JSON body whose Content-Length promises more than the half sent. The
// connection is reset after a short pause, so that the client has read the
// headers and the half reply: the reset comes mid-stream, not before the
// response.
func ResetAgent(tb testing.TB, streaming bool) *Hostile {
	return serveHostile(tb, streaming, func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		full := req.envelope([]byte(`{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}`))
		half := full[:len(full)/2]
		conn, rw := hijack(w)
		if streaming {
			chunk := fmt.Appendf(nil, "id: 1\ndata: %s", half)
			fmt.Fprintf(rw, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(chunk), chunk)
		} else {
			fmt.Fprintf(rw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(full), half)
		}
		_ = rw.Flush()
		time.Sleep(20 * time.Millisecond)
		resetConn(conn)
	})
}

// Truncation says how TruncatedAgent cuts its reply short.
type Truncation int

const (
	// TruncateBody sends a JSON-RPC response cut in the middle of an object,
	// with a Content-Length that matches what is sent: the HTTP exchange is
	// complete, its JSON is not.
	TruncateBody Truncation = iota
	// TruncateContentLength sends the whole response but with a
	// Content-Length that stops in the middle of an object ("Connection:
	// close", then it closes the connection): the client reads a body that
	// is complete by HTTP and cut by JSON.
	TruncateContentLength
	// TruncateEvent declares streaming and sends one SSE event whose JSON
	// is cut in the middle, then ends the stream cleanly.
	TruncateEvent
)

// truncatedReply is the valid reply that TruncatedAgent cuts: a JSON-RPC
// result holding an agent message.
func truncatedReply(req rpcRequest) []byte {
	return req.envelope(fmt.Appendf(nil, `{"message":{"messageId":"m1","role":"ROLE_AGENT","contextId":%q,"parts":[{"text":"{\"name\":\"respond\",\"arguments\":{\"content\":\"Hello there\"}}"}]}}`,
		req.Params.Message.ContextID))
}

// TruncatedAgent answers every call with status 200 and JSON cut short in
// the middle of an object, in the way how says.
func TruncatedAgent(tb testing.TB, how Truncation) *Hostile {
	return serveHostile(tb, how == TruncateEvent, func(w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		full := truncatedReply(req)
		cut := full[:len(full)*2/3]
		switch how {
		case TruncateBody:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(cut)))
			_, _ = w.Write(cut)
		case TruncateContentLength:
			conn, rw := hijack(w)
			fmt.Fprintf(rw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(cut), full)
			_ = rw.Flush()
			_ = conn.Close()
		case TruncateEvent:
			sseHeaders(w)
			_ = writeEvent(w, "1", cut)
		}
	})
}
