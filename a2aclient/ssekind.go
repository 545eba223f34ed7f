package a2aclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"slices"
)

// streamFixer reads an event stream line by line and repairs two
// deviations of agents' event-stream writers, recording each on the
// exchange:
//
//   - a record separator byte (0x1E) before the JSON of a data line, as an
//     SSE writer that frames events as RFC 7464 JSON text sequences sends:
//     it is not JSON, and a2a-go ends the stream at it ("invalid character
//     '\x1e'"); the byte is dropped;
//   - with kinds set (a 0.3 stream), an event that lacks its "kind"
//     discriminator is given the kind its members show. a2a-go's 0.3 client
//     ends the stream at such an event ("unknown event kind"), while the
//     same object in a SendMessage reply is read tolerantly: both paths must
//     be equally tolerant.
type streamFixer struct {
	r     *bufio.Reader
	rc    io.Closer
	ex    *exchange
	kinds bool
	out   []byte // the rest of the current line, to hand out
	err   error
}

// noteRecordSeparator is the deviation a data line that starts with a record
// separator records.
const noteRecordSeparator = "event-stream data starts with a stray record separator byte (0x1E, JSON text sequence framing), " +
	"which is not JSON: the agent's SSE writer is broken; the byte was ignored"

func newStreamFixer(rc io.ReadCloser, ex *exchange, kinds bool) *streamFixer {
	return &streamFixer{r: bufio.NewReaderSize(rc, 64<<10), rc: rc, ex: ex, kinds: kinds}
}

func (f *streamFixer) Read(p []byte) (int, error) {
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

func (f *streamFixer) Close() error { return f.rc.Close() }

// fix returns line with its repairs: a data line without the record
// separators before its value, and, for a 0.3 stream, with the kind of its
// event added when its event (a JSON-RPC result, or for HTTP+JSON the data
// itself) has none.
func (f *streamFixer) fix(line []byte) []byte {
	payload, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return line
	}
	if value := bytes.TrimPrefix(payload, []byte(" ")); len(value) > 0 && value[0] == recordSeparator {
		f.ex.note(noteRecordSeparator)
		payload = bytes.TrimLeft(value, string(rune(recordSeparator)))
		line = append([]byte("data: "), payload...)
	}
	if !f.kinds {
		return line
	}
	return f.fixKind(line, payload)
}

// recordSeparator starts each record of an RFC 7464 JSON text sequence.
const recordSeparator = 0x1E

// fixKind returns line, or the line with the kind of its event added when
// it is a data line (whose value is payload) whose event has none.
func (f *streamFixer) fixKind(line, payload []byte) []byte {
	if !bytes.Contains(payload, []byte("{")) {
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
