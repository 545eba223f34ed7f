package a2aclient

import "io"

// recordSeparator starts each record of an RFC 7464 JSON text sequence.
const recordSeparator = 0x1E

// noteRecordSeparator is the deviation an event stream whose data starts
// with a record separator records.
const noteRecordSeparator = "event-stream data starts with a stray record separator byte (0x1E, JSON text sequence framing), " +
	"which is not JSON: the agent's SSE writer is broken; the byte was ignored"

// rsFilter drops the record separator bytes (0x1E) that start the value of
// an event stream's data lines ("data: \x1e{...}"), as an SSE writer that
// frames its events as RFC 7464 JSON text sequences (VoltAgent's) sends
// them, and records the deviation on the exchange. They are not JSON, and
// a2a-go ends the stream at them ("invalid character '\x1e'"). Every other
// byte passes unchanged; the filter holds no more than the bytes of one
// Read, whatever the length of the stream's lines.
type rsFilter struct {
	rc io.ReadCloser
	ex *exchange
	// state is where the filter is in the current line.
	state rsState
	// matched counts the bytes of "data:" seen at the line's start.
	matched int
}

// rsState is where an rsFilter is in a line.
type rsState int

const (
	rsFieldName  rsState = iota // at the line's start, matching "data:"
	rsAfterColon                // after "data:", before the optional space
	rsValueStart                // in the record separators that start the value
	rsRest                      // anywhere else: bytes pass until the line ends
)

func newRSFilter(rc io.ReadCloser, ex *exchange) *rsFilter {
	return &rsFilter{rc: rc, ex: ex}
}

func (f *rsFilter) Read(p []byte) (int, error) {
	for {
		n, err := f.rc.Read(p)
		kept := f.filter(p[:n])
		if kept > 0 || err != nil || n == 0 {
			return kept, err
		}
		// Every byte read was a record separator: read on rather than
		// answer 0, nil.
	}
}

func (f *rsFilter) Close() error { return f.rc.Close() }

// filter drops the record separators of buf in place and returns how many
// bytes remain.
func (f *rsFilter) filter(buf []byte) int {
	w := 0
	for _, b := range buf {
		if f.keep(b) {
			buf[w] = b
			w++
		}
	}
	return w
}

// keep advances the filter over b and reports whether b passes.
func (f *rsFilter) keep(b byte) bool {
	if b == '\n' || b == '\r' {
		f.state, f.matched = rsFieldName, 0
		return true
	}
	switch f.state {
	case rsFieldName:
		if b != "data:"[f.matched] {
			f.state = rsRest
			return true
		}
		if f.matched++; f.matched == len("data:") {
			f.state = rsAfterColon
		}
		return true
	case rsAfterColon, rsValueStart:
		switch {
		case b == recordSeparator:
			f.ex.note(noteRecordSeparator)
			return false
		case b == ' ' && f.state == rsAfterColon:
			f.state = rsValueStart // the one space SSE strips
		default:
			f.state = rsRest
		}
	}
	return true
}
