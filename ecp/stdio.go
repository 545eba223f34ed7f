//go:build unix

package ecp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// stdioTransport is an agent process spoken to over its stdin and stdout.
// The pipes are proctor's own (os.Pipe), so that no copying goroutine
// stands between the agent and the caller, and Wait never closes stdout
// under a read: recv reads in the caller's goroutine, and abort (run on
// timeout or cancellation) kills the group and closes both pipes, which
// unblocks it.
type stdioTransport struct {
	cmd       *exec.Cmd
	stdin     *os.File
	stdout    *os.File
	stderr    *stderrSink
	frames    *frameReader
	exited    chan struct{} // closed when Wait returned
	waitErr   error
	abortOnce sync.Once

	mu      sync.Mutex
	framing Framing // what the agent is written to in
	out     []byte  // the frame being written, reused
}

// startStdio launches argv in its own process group.
func startStdio(argv []string, opts *Options) (*stdioTransport, error) {
	if len(argv) == 0 {
		return nil, errors.New("ecp: no command to launch")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = sysProcAttr()
	cmd.Dir = opts.Dir
	cmd.Env = opts.Env
	t := &stdioTransport{cmd: cmd, stderr: newStderrSink(opts.Stderr), exited: make(chan struct{})}
	cmd.Stderr = t.stderr
	// Killing the group ends the stderr copy; WaitDelay bounds the wait
	// for a descendant that left the group and kept stderr open.
	cmd.WaitDelay = 2 * time.Second
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("ecp: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("ecp: %w", err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close() // the agent's ends
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("ecp: start %s: %w", argv[0], err)
	}
	t.stdin, t.stdout = inW, outR
	t.stderr.setPID(cmd.Process.Pid)
	t.framing = opts.Framing
	t.frames = newFrameReader(outR, opts.Framing, opts.maxResponse())
	go func() {
		t.waitErr = cmd.Wait()
		t.stderr.flush() // Wait has copied all of stderr
		close(t.exited)
	}()
	return t, nil
}

func (t *stdioTransport) send(ctx context.Context, msg []byte) error {
	t.mu.Lock()
	t.out = appendFrame(t.out[:0], t.framing, msg)
	out := t.out
	t.mu.Unlock()
	// Only one call writes at a time (Client.mu), so out is not reused
	// under this write.
	if _, err := t.stdin.Write(out); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("write to the agent's stdin: %w", err)
	}
	return nil
}

// recv reads the next message in the caller's goroutine; ctx's end
// aborts the transport (see Client.Call), which ends the read.
func (t *stdioTransport) recv(ctx context.Context) ([]byte, error) {
	msg, err := t.frames.Next()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrClosed) {
			return nil, fmt.Errorf("the agent closed its stdout: %w", err)
		}
		return nil, err
	}
	t.mu.Lock()
	if t.framing == FramingAuto {
		t.framing = t.frames.Framing()
	}
	t.mu.Unlock()
	return msg, nil
}

// abort kills the agent's whole process group and closes its stdin.
func (t *stdioTransport) abort() {
	t.abortOnce.Do(func() {
		if p := t.cmd.Process; p != nil {
			// The group first (the agent's children), then the agent in
			// case it left its group.
			_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
			_ = p.Kill()
		}
		_ = t.stdin.Close()
		_ = t.stdout.Close()
	})
}

func (t *stdioTransport) close() error {
	t.abort()
	<-t.exited
	return nil
}

// exitStatus waits, for at most a moment after the agent's stdout ended,
// for the process to end on its own, and describes how it ended.
func (t *stdioTransport) exitStatus() string {
	select {
	case <-t.exited:
	default:
		return ""
	}
	var ee *exec.ExitError
	if errors.As(t.waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "killed by signal " + ws.Signal().String()
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	if t.waitErr == nil {
		return "exited with status 0"
	}
	return t.waitErr.Error()
}

func (t *stdioTransport) detail() string {
	var parts []string
	if s := t.exitStatus(); s != "" {
		parts = append(parts, "process "+s)
	}
	if tail := strings.TrimSpace(t.stderr.String()); tail != "" {
		if len(tail) > 2000 {
			tail = "..." + tail[len(tail)-2000:]
		}
		parts = append(parts, "stderr: "+tail)
	}
	return strings.Join(parts, "; ")
}

func (t *stdioTransport) settle(ctx context.Context) {
	select {
	case <-t.exited:
	case <-ctx.Done():
	}
}

func (t *stdioTransport) pid() int { return t.cmd.Process.Pid }

func (t *stdioTransport) setSimulation(id string) { t.stderr.setSimulation(id) }
