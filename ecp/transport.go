package ecp

import "context"

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
