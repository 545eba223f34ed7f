package a2aclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"slices"
)

// kindFixer reads a 0.3 event stream and gives every event that lacks its
// "kind" discriminator the kind its members show, recording the deviation
// on the exchange. a2a-go's 0.3 client ends the stream at such an event
// ("unknown event kind"), while the same object in a SendMessage reply is
// read tolerantly: both paths must be equally tolerant.
type kindFixer struct {
	r   *bufio.Reader
	rc  io.Closer
	ex  *exchange
	out []byte // the rest of the current line, to hand out
	err error
}

func newKindFixer(rc io.ReadCloser, ex *exchange) *kindFixer {
	return &kindFixer{r: bufio.NewReaderSize(rc, 64<<10), rc: rc, ex: ex}
}

func (f *kindFixer) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, err := f.r.ReadBytes('\n')
		f.err = err
		f.out = f.fix(line)
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

func (f *kindFixer) Close() error { return f.rc.Close() }

// fix returns line, or the line with the kind of its event added when it
// is a data line whose event (a JSON-RPC result, or for HTTP+JSON the data
// itself) has none.
func (f *kindFixer) fix(line []byte) []byte {
	payload, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok || !bytes.Contains(payload, []byte("{")) {
		return line
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(payload, &top) != nil || top == nil {
		return line
	}
	event, inResult := top, false
	if raw, ok := top["result"]; ok {
		if json.Unmarshal(raw, &event) != nil || event == nil {
			return line
		}
		inResult = true
	} else if _, ok := top["jsonrpc"]; ok {
		return line // an error, say
	}
	if _, ok := event["kind"]; ok {
		return line
	}
	kind := eventKind(event)
	if kind == "" {
		return line
	}
	event["kind"], _ = json.Marshal(kind)
	fixed, err := json.Marshal(event)
	if err != nil {
		return line
	}
	if inResult {
		top["result"] = fixed
		if fixed, err = json.Marshal(top); err != nil {
			return line
		}
	}
	f.ex.note("a streamed " + kind + " event has no kind; read as one")
	out := append([]byte("data: "), fixed...)
	if bytes.HasSuffix(line, []byte("\r\n")) {
		return append(out, '\r', '\n')
	}
	if bytes.HasSuffix(line, []byte("\n")) {
		return append(out, '\n')
	}
	return out
}

// eventKind tells a 0.3 event's kind from its members, "" when they do
// not show it.
func eventKind(ev map[string]json.RawMessage) string {
	has := func(k string) bool { _, ok := ev[k]; return ok }
	switch {
	case has("artifact") && has("taskId"):
		return "artifact-update"
	case has("status") && has("taskId"):
		return "status-update"
	case has("status") && has("id"):
		return "task"
	case has("parts") && has("role"):
		return "message"
	}
	return ""
}

// note records a deviation the client worked around during the exchange,
// once.
func (ex *exchange) note(s string) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if !slices.Contains(ex.notes, s) {
		ex.notes = append(ex.notes, s)
	}
}

// deviations returns the deviations noted during the exchange.
func (ex *exchange) deviations() []string {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return slices.Clone(ex.notes)
}
