package ecp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Framing is how JSON-RPC messages are delimited on a byte stream.
type Framing string

// The framings.
const (
	// FramingAuto reads the agent's first output to decide: a
	// Content-Length header selects FramingContentLength, anything else
	// FramingNewline. Until then proctor writes newline-delimited JSON.
	FramingAuto Framing = ""
	// FramingNewline is one JSON value per line.
	FramingNewline Framing = "newline"
	// FramingContentLength is LSP-style "Content-Length: N\r\n\r\n" headers
	// before each message.
	FramingContentLength Framing = "content-length"
)

// Limits of framing.
const (
	// maxHeaderLine bounds one header line of Content-Length framing.
	maxHeaderLine = 4 << 10
	// maxHeaders bounds the header lines before one message.
	maxHeaders = 32
)

// Errors of framing; a FrameError wraps one of them.
var (
	// ErrNotJSON is output on stdout that is not a JSON-RPC message.
	ErrNotJSON = errors.New("output that is not JSON")
	// ErrTooLarge is a message larger than the response limit.
	ErrTooLarge = errors.New("message larger than the limit")
	// ErrBadHeader is a malformed Content-Length header block.
	ErrBadHeader = errors.New("malformed Content-Length header")
)

// FrameError is a broken frame: what kind (ErrNotJSON, ErrTooLarge,
// ErrBadHeader) and a short quote of what was read.
type FrameError struct {
	Kind  error
	Quote string
}

// Error implements error.
func (e *FrameError) Error() string {
	if e.Quote == "" {
		return e.Kind.Error()
	}
	return fmt.Sprintf("%v: %q", e.Kind, e.Quote)
}

// Unwrap returns the kind.
func (e *FrameError) Unwrap() error { return e.Kind }

// quote is at most 120 bytes of b, for error messages.
func quote(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 120 {
		return string(b[:120]) + "..."
	}
	return string(b)
}

// frameReader reads messages from an agent's output, detecting the framing
// from the first bytes when it is FramingAuto.
type frameReader struct {
	r       *bufio.Reader
	framing Framing
	max     int64
	// everyMessage detects the framing of every message anew (a server
	// reads what each request is written in).
	everyMessage bool
}

func newFrameReader(r io.Reader, framing Framing, max int64) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), framing: framing, max: max}
}

// Framing returns the framing in use: FramingAuto until the first message.
func (f *frameReader) Framing() Framing { return f.framing }

// Next returns the next message, a JSON value no longer than the limit,
// valid until the next call. io.EOF is a clean end between messages.
func (f *frameReader) Next() ([]byte, error) {
	if f.framing == FramingAuto || f.everyMessage {
		if err := f.detect(); err != nil {
			return nil, err
		}
	}
	if f.framing == FramingContentLength {
		return f.nextContentLength()
	}
	return f.nextLine()
}

// detect skips leading blank space and decides the framing from what follows.
func (f *frameReader) detect() error {
	for {
		b, err := f.r.Peek(1)
		if err != nil {
			return err
		}
		if !isSpace(b[0]) {
			break
		}
		_, _ = f.r.ReadByte()
	}
	const header = "content-length:"
	b, _ := f.r.Peek(len(header))
	if strings.EqualFold(string(b), header) {
		f.framing = FramingContentLength
	} else {
		f.framing = FramingNewline
	}
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// nextLine reads one non-blank line of at most max bytes.
func (f *frameReader) nextLine() ([]byte, error) {
	for {
		line, err := f.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && len(bytes.TrimSpace(line)) > 0 {
				return checkJSON(line)
			}
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return checkJSON(line)
		}
	}
}

// readLine reads up to a newline (excluded), bounded by max. A line that
// fits the reader's buffer is returned in place, valid until the next read.
func (f *frameReader) readLine() ([]byte, error) {
	chunk, err := f.r.ReadSlice('\n')
	if err == nil && int64(len(chunk)) <= f.max+1 {
		return chunk[:len(chunk)-1], nil
	}
	if int64(len(chunk)) > f.max+1 {
		return nil, &FrameError{Kind: ErrTooLarge, Quote: quote(chunk)}
	}
	line := append([]byte(nil), chunk...)
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	for {
		chunk, err := f.r.ReadSlice('\n')
		if int64(len(line)+len(chunk)) > f.max+1 {
			return nil, &FrameError{Kind: ErrTooLarge, Quote: quote(append(line, chunk...))}
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, err
		}
	}
}

// nextContentLength reads a header block and the body it announces.
func (f *frameReader) nextContentLength() ([]byte, error) {
	length := int64(-1)
	for n := 0; ; n++ {
		if n >= maxHeaders {
			return nil, &FrameError{Kind: ErrBadHeader, Quote: "more than 32 header lines"}
		}
		line, err := f.readHeaderLine()
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			if n == 0 {
				continue // blank lines between messages
			}
			break
		}
		name, value, ok := strings.Cut(string(line), ":")
		if !ok {
			return nil, &FrameError{Kind: ErrBadHeader, Quote: quote(line)}
		}
		if strings.EqualFold(strings.TrimSpace(name), "content-length") {
			v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || v < 0 {
				return nil, &FrameError{Kind: ErrBadHeader, Quote: quote(line)}
			}
			length = v
		}
	}
	if length < 0 {
		return nil, &FrameError{Kind: ErrBadHeader, Quote: "no Content-Length header"}
	}
	if length > f.max {
		return nil, &FrameError{Kind: ErrTooLarge, Quote: fmt.Sprintf("Content-Length: %d", length)}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(f.r, body); err != nil {
		return nil, fmt.Errorf("message body cut short: %w", io.ErrUnexpectedEOF)
	}
	return checkJSON(body)
}

// readHeaderLine reads one header line without its CRLF or LF.
func (f *frameReader) readHeaderLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxHeaderLine {
			return nil, &FrameError{Kind: ErrBadHeader, Quote: quote(line)}
		}
		if err == nil {
			return bytes.TrimRight(line, "\r\n"), nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if len(line) > 0 && errors.Is(err, io.EOF) {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// checkJSON returns b when it starts as a JSON object, else a FrameError.
// The full syntax is checked where the message is decoded (decodeJSON),
// not twice.
func checkJSON(b []byte) ([]byte, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return nil, &FrameError{Kind: ErrNotJSON, Quote: quote(b)}
	}
	return b, nil
}

// decodeJSON decodes a message; a syntax error is a FrameError of kind
// ErrNotJSON, like any other output that is not JSON.
func decodeJSON(b []byte, v any) error {
	err := json.Unmarshal(b, v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &FrameError{Kind: ErrNotJSON, Quote: quote(b)}
	}
	return err
}

// appendFrame appends msg framed as f (FramingAuto writes newline-delimited).
func appendFrame(dst []byte, f Framing, msg []byte) []byte {
	if f == FramingContentLength {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, int64(len(msg)), 10)
		dst = append(dst, "\r\n\r\n"...)
		return append(dst, msg...)
	}
	dst = append(dst, msg...)
	return append(dst, '\n')
}
