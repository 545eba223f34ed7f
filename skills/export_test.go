package skills

import (
	"sync/atomic"

	"github.com/go-playground/validator/v10"
)

// CountEvalSetValidations counts, from now on, the validations of an
// EvalSetRequest by svc: one per check of a request's shape. Call it
// before svc serves anything.
func CountEvalSetValidations(svc *Service) *atomic.Int64 {
	n := new(atomic.Int64)
	svc.validator().RegisterStructValidation(func(validator.StructLevel) { n.Add(1) }, EvalSetRequest{})
	return n
}
