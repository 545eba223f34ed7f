package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/proctor-eval/proctor/evaluation"
)

// progress shows finished simulations on stderr: a redrawn bar on a
// terminal, one line per simulation with --progress lines, nothing otherwise.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	mode  string
	start time.Time
	drawn bool
}

func newProgress(w io.Writer, mode string) *progress {
	if mode == "auto" {
		mode = "none"
		if isTerminal(w) {
			mode = "bar"
		}
	}
	return &progress{w: w, mode: mode, start: time.Now()}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (p *progress) update(pr evaluation.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	rate := 0.0
	if pr.Done > 0 {
		rate = float64(pr.Passed) / float64(pr.Done)
	}
	switch {
	case p.mode == "bar":
		p.bar(pr.Done, pr.Total, rate)
	case p.mode == "lines" && pr.LastCase != nil:
		last := pr.LastCase
		line := fmt.Sprintf("proctor: %d/%d %s %s", pr.Done, pr.Total, last.ID, last.FinalEvalStatus)
		if last.ErrorMessage != "" {
			line += ": " + last.ErrorMessage
		}
		fmt.Fprintf(p.w, "%s (pass %.2f)\n", line, rate)
	case p.mode == "lines":
		last := pr.Last
		fmt.Fprintf(p.w, "proctor: %d/%d %s reward %.3f %s (pass %.2f)\n", pr.Done, pr.Total, last.ID, last.Reward, last.TerminationReason, rate)
	}
}

// bar redraws the progress bar; p.mu is held.
func (p *progress) bar(done, total int, rate float64) {
	const width = 30
	filled := width * done / max(total, 1)
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d  pass %.2f  %s ", strings.Repeat("=", filled), strings.Repeat(" ", width-filled),
		done, total, rate, time.Since(p.start).Round(time.Second))
	p.drawn = true
}

// logLine writes a line of log under the display: the bar is cleared
// first (the next update draws it again).
func (p *progress) logLine(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn && p.mode == "bar" {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
	fmt.Fprintln(p.w, line)
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}
