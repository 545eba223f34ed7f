package evaluation

import "context"

// Slots bounds how many simulations run at once across every Runner that
// shares it: a server's evaluations together never exceed what its machine
// can hold. A nil *Slots bounds nothing.
type Slots struct{ sem chan struct{} }

// NewSlots returns n slots (at least one).
func NewSlots(n int) *Slots { return &Slots{sem: make(chan struct{}, max(n, 1))} }

// Size is the number of slots; 0 for nil Slots.
func (s *Slots) Size() int {
	if s == nil {
		return 0
	}
	return cap(s.sem)
}

// InUse is the number of simulations holding a slot.
func (s *Slots) InUse() int {
	if s == nil {
		return 0
	}
	return len(s.sem)
}

// acquire waits for a slot, or for ctx to end (its error).
func (s *Slots) acquire(ctx context.Context) error {
	if s == nil {
		return ctx.Err()
	}
	select {
	case s.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release gives a slot back.
func (s *Slots) release() {
	if s != nil {
		<-s.sem
	}
}
