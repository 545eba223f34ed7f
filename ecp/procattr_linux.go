//go:build linux

package ecp

import "syscall"

// sysProcAttr puts the agent in its own process group, killed by the
// kernel when proctor's thread that started it dies (Pdeathsig).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
