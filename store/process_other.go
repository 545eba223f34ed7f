//go:build !linux

package store

import "os"

// thisProcess names the current process.
func thisProcess() *Process {
	host, _ := os.Hostname()
	return &Process{Host: host, PID: os.Getpid()}
}

// Gone reports whether p has certainly exited: this system does not say
// how to tell a reused PID apart, so never.
func (p *Process) Gone() bool { return false }
