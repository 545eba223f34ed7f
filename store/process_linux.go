package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// thisProcess names the current process; what /proc does not say is left
// empty, and a Process without it is never judged gone.
func thisProcess() *Process {
	host, _ := os.Hostname()
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	ns, _ := os.Readlink("/proc/self/ns/pid")
	start, _ := processStart(os.Getpid())
	return &Process{Host: host, Boot: strings.TrimSpace(string(boot)), PIDNamespace: ns, PID: os.Getpid(), Start: start}
}

// Gone reports whether p has certainly exited: it ran on this machine,
// since its last boot and in this pid namespace, and no process with its
// PID and start time exists now. Anything it cannot tell (another host, a
// container's own namespace, a record without a writer) is not gone.
func (p *Process) Gone() bool {
	here := thisProcess()
	if p == nil || p.PID <= 0 || p.Start == "" || p.Boot == "" || p.PIDNamespace == "" ||
		p.Host != here.Host || p.Boot != here.Boot || p.PIDNamespace != here.PIDNamespace {
		return false
	}
	start, err := processStart(p.PID)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	return err == nil && start != p.Start // the PID now names another process
}

// processStart reads a process's start time, field 22 of /proc/PID/stat
// (after the command name, which may hold spaces and parentheses).
func processStart(pid int) (string, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", err
	}
	i := strings.LastIndexByte(string(stat), ')')
	fields := strings.Fields(string(stat[i+1:]))
	if i < 0 || len(fields) < 20 {
		return "", fmt.Errorf("store: /proc/%d/stat: unexpected format", pid)
	}
	return fields[19], nil // fields[0] is field 3, the state
}
