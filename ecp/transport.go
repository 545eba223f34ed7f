package ecp

import (
	"context"
	"sync"
)

// transport carries framed JSON-RPC messages to and from one agent.
type transport interface {
	// send writes one message.
	send(ctx context.Context, msg []byte) error
	// recv returns the next message; an error ends the transport.
	recv(ctx context.Context) ([]byte, error)
	// abort ends the transport at once (kills an agent process and its
	// group) so that blocked send and recv calls return. It is safe to
	// call more than once and concurrently.
	abort()
	// close aborts and waits until nothing is left running.
	close() error
	// settle waits, until ctx ends, for an agent whose output ended to
	// end on its own, so that detail can tell how it ended.
	settle(ctx context.Context)
	// detail says what the agent did, for error messages: its exit status
	// and the tail of its stderr. Empty when there is nothing to say.
	detail() string
}

// tailBuffer keeps the last bytes written to it and copies everything to
// an optional log. It is safe for concurrent use.
type tailBuffer struct {
	mu   sync.Mutex
	buf  []byte
	max  int
	log  func([]byte)
	seen int64
}

func newTailBuffer(max int, log func([]byte)) *tailBuffer {
	return &tailBuffer{max: max, log: log}
}

// Write implements io.Writer; it never fails.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seen += int64(len(p))
	if t.log != nil {
		t.log(p)
	}
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// String returns the kept tail.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
