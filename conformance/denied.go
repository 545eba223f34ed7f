package conformance

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"syscall"

	"github.com/proctor-eval/proctor/internal/agentdial"
)

// ErrDeniedTarget matches, with errors.Is, the error of a Run that
// WithDenyPrivateTargets (or a WithDialControl guard built on the same
// errors) stopped: the agent, or an address it sent the checks to, is not
// one this run may reach. Such a run has no report: its failures would be
// the guard's, not the agent's.
var ErrDeniedTarget = agentdial.ErrDenied

// stopOnDenial makes the first connection the guard refuses (the dial
// control, or dial's host check) stop the run (through stop), and returns
// what tells whether one was refused.
func (o *options) stopOnDenial(stop context.CancelFunc) (denied func() error) {
	var first atomic.Pointer[agentdial.DeniedError]
	o.onDenied = func(err error) {
		var d *agentdial.DeniedError
		if errors.As(err, &d) {
			first.CompareAndSwap(nil, d)
			stop()
		}
	}
	if control := o.dialControl; control != nil {
		o.dialControl = func(network, address string, c syscall.RawConn) error {
			err := control(network, address, c)
			o.onDenied(err)
			return err
		}
	}
	return func() error {
		if d := first.Load(); d != nil {
			return d
		}
		return nil
	}
}

// dial connects to address through the dial control, which there must
// be. A host that spells an IPv4 address in a legacy form is refused
// before it is resolved (agentdial.CheckHost).
func (o *options) dial(ctx context.Context, network, address string) (net.Conn, error) {
	if err := agentdial.CheckHost(address); err != nil {
		if o.onDenied != nil {
			o.onDenied(err)
		}
		return nil, err
	}
	return o.dialer().DialContext(ctx, network, address)
}
