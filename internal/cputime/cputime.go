//go:build unix

// Package cputime reads the CPU time the process has used, for benchmarks
// that report CPU per operation beside wall time (a shared machine inflates
// the one more than the other).
package cputime

import (
	"syscall"
	"testing"
	"time"
)

// Process is the CPU time, user and system, the process has used so far.
func Process(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
