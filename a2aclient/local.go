package a2aclient

import (
	"errors"
	"fmt"
	"syscall"
)

// ErrClassLocal is the error class of a call that failed because proctor's
// own machine ran out of something (file descriptors, socket buffers,
// memory, local ports): the agent never had a say, so the failure is
// proctor's (an infrastructure error), never the agent's.
const ErrClassLocal ErrorClass = "local_resources"

// localExhaustion lists the errors by which the local system refuses a
// call for want of resources: too many open files (EMFILE, ENFILE), no
// buffer space (ENOBUFS), no memory (ENOMEM), and no local address or port
// left to dial from (EADDRNOTAVAIL).
var localExhaustion = []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.EADDRNOTAVAIL}

// IsLocalExhaustion reports whether err is proctor's own machine running
// out of resources rather than anything the agent did.
func IsLocalExhaustion(err error) bool {
	var cerr *CallError
	if errors.As(err, &cerr) && cerr.Class == ErrClassLocal {
		return true
	}
	for _, target := range localExhaustion {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// localError is the CallError of a call that failed for want of local
// resources.
func localError(err error) *CallError {
	return &CallError{Class: ErrClassLocal, Err: fmt.Errorf("proctor ran out of local resources (not the agent's fault): %w", err)}
}
