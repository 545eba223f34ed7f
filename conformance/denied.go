package conformance

import (
	"context"
	"errors"
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

// stopOnDenial makes the first connection the dial control refuses with
// an agentdial error stop the run (through stop), and returns what tells
// whether one was refused.
func (o *options) stopOnDenial(stop context.CancelFunc) (denied func() error) {
	control := o.dialControl
	if control == nil {
		return func() error { return nil }
	}
	var first atomic.Pointer[agentdial.DeniedError]
	o.dialControl = func(network, address string, c syscall.RawConn) error {
		err := control(network, address, c)
		var d *agentdial.DeniedError
		if errors.As(err, &d) {
			first.CompareAndSwap(nil, d)
			stop()
		}
		return err
	}
	return func() error {
		if d := first.Load(); d != nil {
			return d
		}
		return nil
	}
}
