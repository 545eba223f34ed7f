//go:build unix

package ecp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// maxStderrTail is how much of an agent's stderr is kept for error messages.
const maxStderrTail = 16 << 10

// stdioTransport is an agent process spoken to over its stdin and stdout.
type stdioTransport struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *tailBuffer
	frames *frameReader
	msgs   chan frameResult
	// done is closed when the reader must stop delivering.
	done      chan struct{}
	exited    chan struct{} // closed when Wait returned
	waitErr   error
	abortOnce sync.Once

	mu      sync.Mutex
	framing Framing // what the agent is written to in
}

type frameResult struct {
	msg []byte
	err error
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
	t := &stdioTransport{
		cmd:    cmd,
		stderr: newTailBuffer(maxStderrTail, opts.StderrLog),
		msgs:   make(chan frameResult, 1),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	cmd.Stderr = t.stderr
	// Killing the group closes the pipes; WaitDelay bounds the wait for a
	// descendant that left the group and kept them open.
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("ecp: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("ecp: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("ecp: start %s: %w", argv[0], err)
	}
	t.stdin = stdin
	t.framing = opts.Framing
	t.frames = newFrameReader(stdout, opts.Framing, opts.maxResponse())
	go t.read()
	go func() {
		t.waitErr = cmd.Wait()
		close(t.exited)
	}()
	return t, nil
}

// read delivers the agent's messages until the first error.
func (t *stdioTransport) read() {
	for {
		msg, err := t.frames.Next()
		if err == nil && t.framingNow() == FramingAuto {
			t.setFraming(t.frames.Framing())
		}
		select {
		case t.msgs <- frameResult{msg, err}:
		case <-t.done:
			return
		}
		if err != nil {
			return
		}
	}
}

func (t *stdioTransport) framingNow() Framing {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.framing
}

func (t *stdioTransport) setFraming(f Framing) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.framing = f
}

func (t *stdioTransport) send(ctx context.Context, msg []byte) error {
	if _, err := t.stdin.Write(appendFrame(nil, t.framingNow(), msg)); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("write to the agent's stdin: %w", err)
	}
	return nil
}

func (t *stdioTransport) recv(ctx context.Context) ([]byte, error) {
	select {
	case r := <-t.msgs:
		if r.err != nil && (errors.Is(r.err, io.EOF) || errors.Is(r.err, io.ErrUnexpectedEOF)) {
			return nil, fmt.Errorf("the agent closed its stdout: %w", r.err)
		}
		return r.msg, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
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
		close(t.done)
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
