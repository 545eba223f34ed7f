package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/a2aclient"
	"github.com/proctor-eval/proctor/ecp"
)

// --trace-wire FILE records every exchange with the agent as JSON lines
// (a2aclient.WireRecord), one file per evaluation or eval-set run:
//
//   - FILE with "{id}" in it: the placeholder becomes the id;
//   - an existing directory (or FILE ending in "/"): DIR/<id>.wire.jsonl;
//   - else FILE itself.
//
// The file is appended to, so a resumed evaluation's trace continues its
// first part. Credentials are redacted and each body is cut to 64 KiB.

const (
	traceWireFlag    = "trace-wire"
	traceIDHolder    = "{id}"
	traceWireSuffix  = ".wire.jsonl"
	traceWireCommand = "record every exchange with the agent (requests, replies, stream events, status codes, timings; credentials redacted) as JSON lines in FILE; a directory gets <id>" + traceWireSuffix + ", and {id} in FILE becomes the evaluation's id"
)

// addTraceWireFlags registers --trace-wire on the commands that talk to
// an agent.
func addTraceWireFlags(root *cobra.Command) {
	for _, args := range [][]string{{cmdRun}, {"evalset", "run"}} {
		if c, _, err := root.Find(args); err == nil && c.Flags().Lookup(traceWireFlag) == nil {
			c.Flags().String(traceWireFlag, "", traceWireCommand)
		}
	}
}

// traceWirePath is the trace file of the run with this id.
func traceWirePath(spec, id string) string {
	if strings.Contains(spec, traceIDHolder) {
		return strings.ReplaceAll(spec, traceIDHolder, id)
	}
	if fi, err := os.Stat(spec); (err == nil && fi.IsDir()) || strings.HasSuffix(spec, string(filepath.Separator)) {
		return filepath.Join(spec, id+traceWireSuffix)
	}
	return spec
}

// wireTraces opens the trace files of a command and closes them.
type wireTraces struct {
	spec   string
	errOut io.Writer
	mu     sync.Mutex
	files  []*os.File
}

// newWireTraces reads --trace-wire; nil when it is not given. Its
// directory must exist: found out before anything runs.
func newWireTraces(cmd *cobra.Command) (*wireTraces, error) {
	spec, _ := cmd.Flags().GetString(traceWireFlag)
	if spec == "" {
		return nil, nil
	}
	if agent, _ := cmd.Flags().GetString("agent"); ecp.IsTarget(agent) {
		return nil, usageErr("--%s records A2A exchanges; an ECP agent's (%s) are not recorded", traceWireFlag, agent)
	}
	dir := filepath.Dir(traceWirePath(spec, "x"))
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, usageErr("--%s %s: directory %s does not exist", traceWireFlag, spec, dir)
	}
	return &wireTraces{spec: spec, errOut: cmd.ErrOrStderr()}, nil
}

// open opens the trace of the run with this id (skills.Service.WireTrace).
func (w *wireTraces) open(id string) (*a2aclient.WireTrace, error) {
	path := traceWirePath(w.spec, id)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", traceWireFlag, err)
	}
	w.mu.Lock()
	w.files = append(w.files, f)
	w.mu.Unlock()
	fmt.Fprintf(w.errOut, "proctor: wire trace of %s in %s\n", id, path)
	return a2aclient.NewWireTrace(f, a2aclient.WireTraceOptions{}), nil
}

// opener is the skills.Service.WireTrace of w; nil when w is.
func (w *wireTraces) opener() func(string) (*a2aclient.WireTrace, error) {
	if w == nil {
		return nil
	}
	return w.open
}

// close closes the trace files, saying on errOut if one failed.
func (w *wireTraces) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, f := range w.files {
		if err := f.Close(); err != nil {
			fmt.Fprintf(w.errOut, "proctor: wire trace %s: %v\n", f.Name(), err)
		}
	}
	w.files = nil
}
