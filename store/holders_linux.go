package store

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// maxHolders bounds how many lock holders an error names.
const maxHolders = 3

// lockHolders names the processes that hold a flock on file, read from
// /proc/locks: "pid 123 (proctor serve --db x.db)". It returns nothing when
// the system does not say.
func lockHolders(file string) []string {
	fi, err := os.Stat(file)
	if err != nil {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	locks, err := os.Open("/proc/locks")
	if err != nil {
		return nil
	}
	defer locks.Close()
	suffix := ":" + strconv.FormatUint(st.Ino, 10)
	var out []string
	seen := map[int]bool{}
	sc := bufio.NewScanner(locks)
	for sc.Scan() && len(out) < maxHolders {
		// "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters
		// have "->" after the number.
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" {
			continue
		}
		pid, err := strconv.Atoi(fields[4])
		if err != nil || !strings.HasSuffix(fields[5], suffix) || seen[pid] {
			continue
		}
		seen[pid] = true
		out = append(out, describeProcess(pid))
	}
	return out
}

// describeProcess names a process by its id and command line, cut short.
func describeProcess(pid int) string {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	line := strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))
	if err != nil || line == "" {
		return fmt.Sprintf("pid %d", pid)
	}
	if r := []rune(line); len(r) > 80 {
		line = string(r[:80]) + "…"
	}
	return fmt.Sprintf("pid %d (%s)", pid, line)
}
