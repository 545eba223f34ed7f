package evaluation

import (
	"context"
	"errors"
	"sync"
)

// ErrDraining is what a simulation waiting for a slot gets once the slots
// are drained: it is not started, and its evaluation ends interrupted (and
// resumable) when the simulations already running finish.
var ErrDraining = errors.New("draining: no new simulations start")

// Slots bounds how many simulations run at once across every Runner that
// shares it: a server's evaluations together never exceed what its machine
// can hold. A nil *Slots bounds nothing. Drain stops every further
// simulation from starting.
type Slots struct {
	sem       chan struct{} // nil: unbounded
	drainOnce sync.Once
	drained   chan struct{}
}

// NewSlots returns n slots (at least one).
func NewSlots(n int) *Slots {
	return &Slots{sem: make(chan struct{}, max(n, 1)), drained: make(chan struct{})}
}

// NewUnboundedSlots returns slots that bound nothing but can be drained.
func NewUnboundedSlots() *Slots { return &Slots{drained: make(chan struct{})} }

// Size is the number of slots; 0 for nil or unbounded Slots.
func (s *Slots) Size() int {
	if s == nil {
		return 0
	}
	return cap(s.sem)
}

// InUse is the number of simulations holding a slot (0 when unbounded).
func (s *Slots) InUse() int {
	if s == nil {
		return 0
	}
	return len(s.sem)
}

// Drain makes every acquire from now on fail with ErrDraining; the
// simulations holding a slot go on. It may be called more than once.
func (s *Slots) Drain() {
	if s != nil {
		s.drainOnce.Do(func() { close(s.drained) })
	}
}

// Draining reports whether Drain was called.
func (s *Slots) Draining() bool {
	if s == nil {
		return false
	}
	select {
	case <-s.drained:
		return true
	default:
		return false
	}
}

// acquire waits for a slot, or for ctx to end (its error), or for Drain
// (ErrDraining).
func (s *Slots) acquire(ctx context.Context) error {
	if s == nil {
		return ctx.Err()
	}
	if s.Draining() {
		return ErrDraining
	}
	if s.sem == nil {
		return ctx.Err()
	}
	select {
	case s.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.drained:
		return ErrDraining
	}
}

// release gives a slot back.
func (s *Slots) release() {
	if s != nil && s.sem != nil {
		<-s.sem
	}
}
