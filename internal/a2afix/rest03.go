package a2afix

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// REST03 stands in front of a2a-go's HTTP+JSON handler at protocol 0.3
// (a2av0.NewRESTHandler), mounted so that it sees the paths a2a-go routes
// ("/v1/message:send"):
//
//   - ProtoJSON parsers accept a field by its JSON name and by its proto
//     name alike ("messageId" and "message_id", "message" and "request"),
//     and the SDKs' 0.3 compat clients (a2a-python 1.x's, say) send proto
//     names; a2a-go reads only JSON names and answers 400 "message is
//     required". The bodies of message:send and message:stream are
//     rewritten to JSON names, the 0.3 proto's SendMessageRequest schema
//     telling which fields are names to rewrite and which (metadata, data)
//     hold the sender's own keys.
//   - a2a-go answers every error of a stream as a 200 event stream whose
//     event is the error object, which 0.3 clients read as a malformed
//     event. An error before the first event is answered as the
//     non-streaming calls answer it (its HTTP status, the error object as
//     the body); one after it is written as an SSE event named "error",
//     which clients report as a stream error (a2a-python raises it,
//     a2a-go, which ignores event names, reads the error object).
func REST03(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		send := r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/message:send")
		stream := r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/message:stream")
		if (send || stream) && r.Body != nil {
			normalizeSendBody(r)
		}
		if stream || (strings.HasSuffix(r.URL.Path, ":subscribe") && r.Method != http.MethodDelete) {
			sw := &sseErrors{rw: w}
			defer sw.finish()
			w = sw
		}
		next.ServeHTTP(w, r)
	})
}

// normalizeSendBody rewrites r's body, a 0.3 SendMessageRequest, to JSON
// field names. A body it cannot read or parse goes on as it is, for
// a2a-go to refuse.
func normalizeSendBody(r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxEnvelopeBytes+1))
	if err != nil || len(body) > maxEnvelopeBytes {
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // numbers in metadata and data parts stay as sent
	var v any
	if dec.Decode(&v) != nil {
		return
	}
	if !renameProtoFields(v, protoSendMessageRequest) {
		return
	}
	out, err := json.Marshal(v)
	if err != nil {
		return
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(out)), int64(len(out))
	r.Header.Del("Content-Length")
}

// protoShape is a message of the 0.3 proto whose fields REST03 renames.
type protoShape int

const (
	protoOpaque protoShape = iota // the sender's own keys: Struct, scalars
	protoSendMessageRequest
	protoMessage
	protoPart
	protoFilePart
	protoSendMessageConfiguration
)

// protoField returns the JSON name of the field a message of shape s
// calls name (name itself when it is one already or is unknown), and the
// shape of its value.
func protoField(s protoShape, name string) (string, protoShape) {
	switch s {
	case protoSendMessageRequest:
		switch name {
		case "request", "message":
			return "message", protoMessage
		case "configuration":
			return name, protoSendMessageConfiguration
		}
	case protoMessage:
		switch name {
		case "content", "parts":
			return name, protoPart
		}
		return camelField(name), protoOpaque
	case protoPart:
		if name == "file" {
			return name, protoFilePart
		}
	case protoFilePart:
		return camelField(name), protoOpaque
	case protoSendMessageConfiguration:
		// PushNotificationConfig's own fields are one word each.
		return camelField(name), protoOpaque
	}
	return name, protoOpaque
}

// camelField is the JSON name protoc gives the proto field name: the
// lowerCamelCase of its snake_case.
func camelField(name string) string {
	if !strings.Contains(name, "_") {
		return name
	}
	var b strings.Builder
	upper := false
	for _, c := range name {
		switch {
		case c == '_':
			upper = true
		case upper && 'a' <= c && c <= 'z':
			b.WriteRune(c - 'a' + 'A')
			upper = false
		default:
			b.WriteRune(c)
			upper = false
		}
	}
	return b.String()
}

// renameProtoFields renames, in place, the fields of v (a decoded message
// of shape s, or a list of them) to their JSON names, and reports whether
// it renamed any. A field named both ways keeps the value of its JSON name.
func renameProtoFields(v any, s protoShape) bool {
	if s == protoOpaque {
		return false
	}
	changed := false
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			changed = renameProtoFields(e, s) || changed
		}
	case map[string]any:
		renames := map[string]string{}
		for name, value := range v {
			jsonName, shape := protoField(s, name)
			changed = renameProtoFields(value, shape) || changed
			if jsonName != name {
				renames[name] = jsonName
			}
		}
		for name, jsonName := range renames {
			if _, both := v[jsonName]; !both {
				v[jsonName] = v[name]
			}
			delete(v, name)
			changed = true
		}
	}
	return changed
}

// sseErrors is the http.ResponseWriter REST03 gives a2a-go's stream
// handlers. It holds the response's header until the first event, so that
// an error there can still be answered with its own status, and names the
// error events after it.
type sseErrors struct {
	rw          http.ResponseWriter
	status      int  // what a2a-go wrote, held until the first event
	committed   bool // the header went to rw
	passthrough bool // not an event stream: written as it comes
	done        bool // an error was answered; the rest is dropped
	pending     []byte
}

func (s *sseErrors) Header() http.Header { return s.rw.Header() }

// Unwrap lets http.ResponseController reach the connection's deadlines.
func (s *sseErrors) Unwrap() http.ResponseWriter { return s.rw }

func (s *sseErrors) WriteHeader(code int) {
	if s.status != 0 {
		return
	}
	s.status = code
	if !strings.HasPrefix(s.rw.Header().Get("Content-Type"), "text/event-stream") {
		s.passthrough = true
		s.commit()
	}
}

func (s *sseErrors) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.WriteHeader(http.StatusOK)
	}
	switch {
	case s.passthrough:
		return s.rw.Write(b)
	case s.done:
		return len(b), nil
	}
	s.pending = append(s.pending, b...)
	for {
		i := bytes.Index(s.pending, []byte("\n\n"))
		if i < 0 {
			return len(b), nil
		}
		event := s.pending[:i+2]
		s.pending = s.pending[i+2:]
		if err := s.event(event); err != nil {
			return 0, err
		}
	}
}

// event writes one whole event (its lines and the blank line ending it).
func (s *sseErrors) event(event []byte) error {
	status, isErr := streamError(event)
	switch {
	case isErr && !s.committed:
		s.done = true
		s.rw.Header().Set("Content-Type", "application/json")
		s.rw.Header().Del("Cache-Control")
		s.status = status
		s.commit()
		_, err := s.rw.Write(eventData(event))
		return err
	case isErr:
		if _, err := s.rw.Write([]byte("event: error\n")); err != nil {
			return err
		}
	}
	s.commit()
	_, err := s.rw.Write(event)
	return err
}

func (s *sseErrors) commit() {
	if !s.committed {
		s.committed = true
		s.rw.WriteHeader(s.status)
	}
}

// Flush passes on a2a-go's flushes once the stream has begun.
func (s *sseErrors) Flush() {
	if s.committed {
		if f, ok := s.rw.(http.Flusher); ok {
			f.Flush()
		}
	}
}

// finish writes what the handler left held: a header without events, an
// event without its blank line.
func (s *sseErrors) finish() {
	if s.status == 0 || s.done || s.passthrough {
		return
	}
	s.commit()
	if len(s.pending) > 0 {
		_, _ = s.rw.Write(s.pending)
	}
}

// eventData returns the data of an event: its data lines' contents, joined
// with newlines.
func eventData(event []byte) []byte {
	var data [][]byte
	for line := range bytes.SplitSeq(event, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(d, []byte(" ")))
		}
	}
	return bytes.Join(data, []byte("\n"))
}

// streamError reports whether an event carries an error object
// ({"error": {"code": 400, ...}}, a2a-go's REST error) rather than a
// StreamResponse, and the HTTP status it names (500 when none).
func streamError(event []byte) (status int, isErr bool) {
	var v struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	data := eventData(event)
	if !bytes.Contains(data, []byte(`"error"`)) || json.Unmarshal(data, &v) != nil || v.Error == nil {
		return 0, false
	}
	if v.Error.Code < 400 || v.Error.Code > 599 {
		return http.StatusInternalServerError, true
	}
	return v.Error.Code, true
}
