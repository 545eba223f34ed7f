package ecp

import (
	"bytes"
	"sync"
)

// Bounds of what a stdio agent's stderr costs proctor.
const (
	// maxStderrTail is how much of an agent's stderr is kept for error
	// messages (a crashed agent's agent_error quotes its end).
	maxStderrTail = 16 << 10
	// MaxStderrLine bounds one logged stderr line; a longer one is cut.
	MaxStderrLine = 4 << 10
	// MaxStderrLogged bounds the stderr bytes logged per agent process;
	// past it one line says the rest is not logged (its tail is still
	// kept for error messages).
	MaxStderrLogged = 1 << 20
)

// StderrLine is one line a stdio agent wrote to its stderr.
type StderrLine struct {
	// PID is the agent's process id.
	PID int
	// Simulation is the id of the simulation the agent was serving when
	// the line was read; empty before its first one and between two.
	Simulation string
	// Text is the line without its line ending, at most MaxStderrLine
	// bytes; Cut says it was longer. Dropped says this line stands for
	// the rest of the agent's stderr, past MaxStderrLogged, not logged.
	Text    string
	Cut     bool
	Dropped bool
}

// stderrSink keeps the tail of an agent's stderr and passes it on, line
// by line and bounded, to a log. It is safe for concurrent use.
type stderrSink struct {
	mu   sync.Mutex
	tail []byte
	log  func(StderrLine)
	pid  int
	sim  string
	// line is the line being read; cut says it overflowed.
	line   []byte
	cut    bool
	logged int
	muted  bool
}

func newStderrSink(log func(StderrLine)) *stderrSink { return &stderrSink{log: log} }

// Write implements io.Writer; it never fails.
func (s *stderrSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keepTail(p)
	if s.log != nil && !s.muted {
		s.logLines(p)
	}
	return len(p), nil
}

// keepTail appends p to the tail, keeping its last maxStderrTail bytes.
func (s *stderrSink) keepTail(p []byte) {
	if len(p) >= maxStderrTail {
		s.tail = append(s.tail[:0], p[len(p)-maxStderrTail:]...)
		return
	}
	if over := len(s.tail) + len(p) - maxStderrTail; over > 0 {
		s.tail = append(s.tail[:0], s.tail[over:]...)
	}
	s.tail = append(s.tail, p...)
}

// logLines passes on the complete lines of p and keeps the rest.
func (s *stderrSink) logLines(p []byte) {
	for len(p) > 0 && !s.muted {
		chunk, rest, complete := bytes.Cut(p, []byte{'\n'})
		if room := MaxStderrLine - len(s.line); len(chunk) > room {
			chunk, s.cut = chunk[:max(room, 0)], true
		}
		s.line = append(s.line, chunk...)
		if !complete {
			return
		}
		s.emit()
		p = rest
	}
}

// emit logs the line read so far, or the notice that ends logging.
func (s *stderrSink) emit() {
	text := string(bytes.TrimRight(s.line, "\r"))
	line := StderrLine{PID: s.pid, Simulation: s.sim, Text: text, Cut: s.cut}
	s.line, s.cut = s.line[:0], false
	if s.logged += len(text) + 1; s.logged > MaxStderrLogged {
		s.muted = true
		line.Text, line.Cut, line.Dropped = "(more stderr, not logged: over 1 MiB)", false, true
	}
	s.log(line)
}

// flush logs an unfinished last line (the agent ended without a newline).
func (s *stderrSink) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log != nil && !s.muted && (len(s.line) > 0 || s.cut) {
		s.emit()
	}
}

// setPID and setSimulation label the lines logged from now on.
func (s *stderrSink) setPID(pid int) {
	s.mu.Lock()
	s.pid = pid
	s.mu.Unlock()
}

func (s *stderrSink) setSimulation(id string) {
	s.mu.Lock()
	s.sim = id
	s.mu.Unlock()
}

// String returns the kept tail.
func (s *stderrSink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.tail)
}
