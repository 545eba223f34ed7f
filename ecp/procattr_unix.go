//go:build unix && !linux

package ecp

import "syscall"

// sysProcAttr puts the agent in its own process group (no Pdeathsig
// outside Linux).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
