package a2aclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"golang.org/x/sync/semaphore"
)

// DefaultMaxResponseValues is the default of WithMaxResponseValues: the
// JSON values (or, over gRPC, protobuf messages) one reply may hold.
const DefaultMaxResponseValues = 1 << 18

// valuesInFlightPerReply is how many replies at the per-reply limit a
// Client decodes at once (see WithMaxResponseValues).
const valuesInFlightPerReply = 4

// WithMaxResponseValues caps the number of values in one reply (for a
// streamed reply, in the whole stream), so that a reply small in bytes
// cannot grow huge once decoded: a2a-go turns every JSON value of a data
// part into a Go value, and an empty object `{}` (3 bytes on the wire)
// into a map of some 200 bytes; over gRPC every structpb null (4 bytes)
// becomes a message and then a Go value. Values are counted on the raw
// bytes before a2a-go decodes anything: over JSON-RPC and HTTP+JSON each
// object, array, string, number, true, false and null counts once (object
// keys do not); over gRPC each protobuf message counts once. A reply over
// the cap fails as ErrClassTooLarge without being decoded.
//
// The Client also bounds the values of all the replies it decodes at once
// to four times n: a reply waits, within its request timeout, until the
// replies before it are done (a call holds its reply's values until it
// returns); a stream that would go over fails as ErrClassTooLarge. Normal
// replies (hundreds of values) never wait. n <= 0 removes both bounds.
// Default DefaultMaxResponseValues.
func WithMaxResponseValues(n int64) Option { return func(o *options) { o.maxResponseValues = n } }

// valueLimits is a Client's bound on the values of replies: per reply, and
// in flight across its calls.
type valueLimits struct {
	perReply int64
	inFlight *semaphore.Weighted
}

// newValueLimits returns the limits for WithMaxResponseValues(n), nil for
// none.
func newValueLimits(n int64) *valueLimits {
	if n <= 0 {
		return nil
	}
	return &valueLimits{perReply: n, inFlight: semaphore.NewWeighted(valuesInFlightPerReply * n)}
}

// tooMany is the error of a reply with more than the allowed number of
// values; what names them ("JSON values", "protobuf messages").
func (l *valueLimits) tooMany(what string) error {
	return fmt.Errorf("%w: the reply has more than %d %s (proctor's limit per reply, which keeps a small reply from growing huge once decoded; the agent sent something like a data part of millions of empty objects or nulls)",
		errResponseTooLarge, l.perReply, what)
}

// hold makes the exchange hold k more values of the in-flight budget,
// until its next request or its end. An exchange that holds none waits for
// them, within ctx; one that already holds some (a stream, event after
// event) fails at once rather than wait, since two such waiters could each
// hold what the other waits for.
func (ex *exchange) hold(ctx context.Context, l *valueLimits, k int64) error {
	if k <= 0 {
		return nil
	}
	ex.mu.Lock()
	holding := ex.heldValues > 0
	ex.mu.Unlock()
	if holding {
		if !l.inFlight.TryAcquire(k) {
			return fmt.Errorf("%w: the replies being decoded at once hold more than %d values (%d per reply, %d replies)",
				errResponseTooLarge, valuesInFlightPerReply*l.perReply, l.perReply, valuesInFlightPerReply)
		}
	} else if err := l.inFlight.Acquire(ctx, k); err != nil {
		return fmt.Errorf("waiting for other replies to be decoded: %w", err)
	}
	ex.mu.Lock()
	ex.heldValues += k
	ex.heldFrom = l.inFlight
	ex.mu.Unlock()
	return nil
}

// releaseValuesLocked gives back the values the exchange holds; ex.mu
// must be held.
func (ex *exchange) releaseValuesLocked() {
	if ex.heldValues > 0 {
		ex.heldFrom.Release(ex.heldValues)
	}
	ex.heldValues, ex.heldFrom = 0, nil
}

// refuseValues marks the exchange as over a limit, with err saying which.
func (ex *exchange) refuseValues(err error) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	ex.tooLarge = true
	if ex.limitErr == nil {
		ex.limitErr = err
	}
}

// overLimitErr is the error of a response that went over a limit: the
// value limit's own, or the byte cap's; nil when none did.
func (ex *exchange) overLimitErr(maxBytes int64) error {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	switch {
	case ex.limitErr != nil:
		return ex.limitErr
	case ex.tooLarge:
		return fmt.Errorf("%w (%d bytes)", errResponseTooLarge, maxBytes)
	}
	return nil
}

// jsonCounter counts the values of JSON text fed to it in pieces, without
// allocating and without parsing: each '{' and '[' opens one, each string
// is one unless a ':' follows it (an object key), and each run of other
// bytes outside strings (a number, true, false, null) is one. It does not
// check that the text is JSON: the decoder that reads it afterwards does.
type jsonCounter struct {
	n        int64
	inString bool
	escaped  bool // the previous byte in a string was a backslash
	inBare   bool // inside a number or literal
	// afterString: a string just ended, and whether it was a key depends
	// on the next byte that is not white space.
	afterString bool
}

// scan counts the values in p, the text's next bytes.
func (c *jsonCounter) scan(p []byte) {
	for i := 0; i < len(p); {
		if c.inString {
			i = c.skipString(p, i)
			continue
		}
		b := p[i]
		i++
		if b == ' ' || b == '\t' || b == '\n' || b == '\r' {
			c.inBare = false
			continue
		}
		if c.afterString {
			c.afterString = false
			if b != ':' {
				c.n++
			}
		}
		switch b {
		case '"':
			c.inString, c.inBare = true, false
		case '{', '[':
			c.n++
			c.inBare = false
		case '}', ']', ',', ':':
			c.inBare = false
		default:
			if !c.inBare {
				c.inBare = true
				c.n++
			}
		}
	}
}

// skipString moves through a string from p[i]: it returns the index after
// the string's closing quote or after a backslash in it, or len(p) when
// the string goes on. It looks for both with bytes.IndexByte, which runs
// through long strings (a big text part) many bytes at a time.
func (c *jsonCounter) skipString(p []byte, i int) int {
	if c.escaped {
		c.escaped = false
		return i + 1
	}
	rest := p[i:]
	q := bytes.IndexByte(rest, '"')
	before := rest
	if q >= 0 {
		before = rest[:q]
	}
	if b := bytes.IndexByte(before, '\\'); b >= 0 {
		c.escaped = true
		return i + b + 1
	}
	if q < 0 {
		return len(p)
	}
	c.inString, c.afterString = false, true
	return i + q + 1
}

// finish counts a string left pending at the end of the text and resets
// the scanning state (not the count), so that the next text starts afresh.
func (c *jsonCounter) finish() {
	if c.afterString {
		c.n++
	}
	c.inString, c.escaped, c.inBare, c.afterString = false, false, false, false
}

// space separates what comes before from what comes after, as white space
// does (the line break between two data lines of one event).
func (c *jsonCounter) space() { c.inBare = false }

// eventValues counts the JSON values in the data lines of a stream of
// server-sent events as the stream is read, for WithMaxResponseValues: the
// whole stream may hold limits.perReply of them, and each event holds its
// own count of the Client's in-flight budget once it has arrived. Past
// either limit the stream fails, without the event that went over reaching
// a2a-go.
type eventValues struct {
	ctx    context.Context
	rc     io.ReadCloser
	ex     *exchange
	limits *valueLimits
	count  jsonCounter
	held   int64 // count.n when the latest event ended
	// line is what the current line is known to be; start holds its
	// first bytes while it could still be a data line.
	line  lineKind
	start int // how many bytes of "data:" the line has matched so far
	err   error
}

// lineKind says what an event stream's current line is.
type lineKind int

const (
	lineUnknown lineKind = iota // still matching "data:"
	lineData
	lineOther
)

const dataPrefix = "data:"

func newEventValues(ctx context.Context, rc io.ReadCloser, ex *exchange, limits *valueLimits) *eventValues {
	return &eventValues{ctx: ctx, rc: rc, ex: ex, limits: limits}
}

func (e *eventValues) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.rc.Read(p)
	if cerr := e.scan(p[:n]); cerr != nil {
		e.err = cerr
		return 0, cerr
	}
	return n, err
}

// scan follows the stream's lines through p, counting the values of data
// lines and ending an event at each blank line.
func (e *eventValues) scan(p []byte) error {
	for len(p) > 0 {
		if e.line == lineUnknown {
			b := p[0]
			p = p[1:]
			if err := e.lineStart(b); err != nil {
				return err
			}
			continue
		}
		nl := bytes.IndexByte(p, '\n')
		end := nl
		if nl < 0 {
			end = len(p)
		}
		if e.line == lineData {
			e.count.scan(p[:end])
			e.count.space()
			if e.count.n > e.limits.perReply {
				return e.refuse(e.limits.tooMany("JSON values"))
			}
		}
		if nl < 0 {
			return nil
		}
		p = p[nl+1:]
		e.line, e.start = lineUnknown, 0
	}
	return nil
}

// lineStart takes byte b of a line not yet known to be a data line.
func (e *eventValues) lineStart(b byte) error {
	switch {
	case b == '\r' && e.start == 0:
		// part of a CRLF line break
	case b == '\n' && e.start == 0:
		return e.endEvent() // a blank line
	case b == '\n':
		e.start = 0 // a line that was a prefix of "data:"
	case b == dataPrefix[e.start]:
		e.start++
		if e.start == len(dataPrefix) {
			e.line = lineData
		}
	default:
		e.line = lineOther
	}
	return nil
}

// endEvent ends an event: its values hold their share of the budget.
func (e *eventValues) endEvent() error {
	e.count.finish()
	if e.count.n > e.limits.perReply {
		return e.refuse(e.limits.tooMany("JSON values"))
	}
	if err := e.ex.hold(e.ctx, e.limits, e.count.n-e.held); err != nil {
		if errors.Is(err, errResponseTooLarge) {
			return e.refuse(err)
		}
		return err // the call ended while it waited
	}
	e.held = e.count.n
	return nil
}

// refuse marks the exchange as over a limit, with err.
func (e *eventValues) refuse(err error) error {
	e.ex.refuseValues(err)
	return err
}

func (e *eventValues) Close() error { return e.rc.Close() }
