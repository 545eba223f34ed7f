package conformance

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// sseEvent is one Server-Sent Event.
type sseEvent struct {
	Event string
	ID    string
	Data  []byte
}

// errSSETooLarge is returned when an event (or a line) exceeds the reader's
// limit.
var errSSETooLarge = errors.New("server-sent event larger than the limit")

// sseReader decodes a text/event-stream body (WHATWG HTML §9.2.6) without
// trusting it: lines may end in LF, CR or CRLF, comments and unknown fields
// are skipped, data lines are joined with LF, and no event or line may grow
// past max bytes.
type sseReader struct {
	r   *bufio.Reader
	max int
	// pendingCR is set when the previous line ended in a lone CR, so that a
	// following LF is part of the same line ending.
	pendingCR bool
}

func newSSEReader(r io.Reader, max int) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 4096), max: max}
}

// Next returns the next event that carries data. It returns io.EOF at the
// end of the stream; an event cut off by the end of the stream is dropped,
// as the standard says.
func (s *sseReader) Next() (sseEvent, error) {
	var ev sseEvent
	var data bytes.Buffer
	hasData := false
	for {
		line, err := s.line()
		if err != nil {
			return sseEvent{}, err
		}
		if len(line) == 0 { // dispatch
			if hasData {
				ev.Data = data.Bytes()
				return ev, nil
			}
			ev = sseEvent{}
			continue
		}
		if line[0] == ':' {
			continue // comment, keep-alive
		}
		field, value, found := bytes.Cut(line, []byte(":"))
		if found && len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(field) {
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			hasData = true
			if data.Len()+len(value) > s.max {
				return sseEvent{}, errSSETooLarge
			}
			data.Write(value)
		case "event":
			ev.Event = string(value)
		case "id":
			if !bytes.ContainsRune(value, 0) {
				ev.ID = string(value)
			}
		}
	}
}

// line reads one line without its ending.
func (s *sseReader) line() ([]byte, error) {
	var out []byte
	for {
		b, err := s.r.ReadByte()
		if err != nil {
			// At io.EOF a last line without an ending belongs to an
			// incomplete event, which is dropped.
			return nil, err
		}
		if s.pendingCR {
			s.pendingCR = false
			if b == '\n' {
				continue
			}
		}
		switch b {
		case '\n':
			return out, nil
		case '\r':
			s.pendingCR = true
			return out, nil
		}
		if len(out) >= s.max {
			return nil, fmt.Errorf("%w (%d bytes)", errSSETooLarge, s.max)
		}
		out = append(out, b)
	}
}
