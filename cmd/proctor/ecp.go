package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/ecp"
	"github.com/proctor-eval/proctor/refagent"
	"github.com/proctor-eval/proctor/skills"
)

// maxECPConfig bounds an --ecp-config file.
const maxECPConfig = 1 << 20

// loadECPConfig reads an --ecp-config file: a JSON or YAML object.
// Secrets go in as {"$env": "NAME"} references, resolved when the agent
// starts and never stored.
func loadECPConfig(path string) (map[string]any, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--ecp-config: %w", err)
	}
	if len(b) > maxECPConfig {
		return nil, fmt.Errorf("--ecp-config %s: larger than 1 MiB", path)
	}
	var cfg map[string]any
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
		err = json.Unmarshal(t, &cfg)
	} else {
		err = yaml.Unmarshal(b, &cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("--ecp-config %s: want a JSON or YAML object: %w", path, err)
	}
	if cfg == nil {
		cfg = map[string]any{}
	}
	return cfg, nil
}

// runECPSettings are the ECP settings of proctor run: its user is the
// operator, so any command may be launched and the config may reference
// the environment.
func runECPSettings() skills.ECPSettings {
	return skills.ECPSettings{AnyCommand: true, Env: true}
}

// ecpStderrLog is --ecp-stderr's default: proctor's own stderr.
const ecpStderrLog = "stderr"

// agentStderrLog opens where --ecp-stderr sends stdio agents' stderr
// lines: proctor's stderr (under the progress display), nowhere ("none"),
// or a file, appended to. The returned function closes the file.
func agentStderrLog(dest string, prog *progress) (func(string, ecp.StderrLine), func() error, error) {
	switch dest {
	case "none":
		return nil, func() error { return nil }, nil
	case ecpStderrLog, "":
		return func(_ string, l ecp.StderrLine) { prog.logLine(formatAgentStderr(l)) }, func() error { return nil }, nil
	}
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("--ecp-stderr: %w", err)
	}
	var mu sync.Mutex
	return func(_ string, l ecp.StderrLine) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(f, formatAgentStderr(l))
	}, f.Close, nil
}

// formatAgentStderr is one line of an agent's stderr as proctor logs it:
// "ecp agent [mock-02#0 pid 4242]: the line", the simulation left out
// between simulations.
func formatAgentStderr(l ecp.StderrLine) string {
	label := fmt.Sprintf("pid %d", l.PID)
	if l.Simulation != "" {
		label = l.Simulation + " " + label
	}
	text := l.Text
	if l.Cut {
		text += " [line cut]"
	}
	return fmt.Sprintf("ecp agent [%s]: %s", label, text)
}

// serveECPSettings are proctor serve's: only allow-listed commands, no
// environment references, and the private-target guard on WebSockets.
func serveECPSettings(commands []string, denyPrivate bool, log io.Writer) skills.ECPSettings {
	var mu sync.Mutex
	return skills.ECPSettings{Commands: commands, DenyPrivateTargets: denyPrivate,
		Stderr: func(evalID string, l ecp.StderrLine) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(log, "proctor: evaluation %s: %s\n", evalID, formatAgentStderr(l))
		}}
}

// serveRefagentECP serves the reference agent for d over ECP: on stdio, or
// on a WebSocket at listen.
func serveRefagentECP(cmd *cobra.Command, d *domains.Domain, listen string) error {
	a, err := refagent.New(d)
	if err != nil {
		return usageErr("--domain %s: %v", d.Name, err)
	}
	if listen == "" {
		if err := ecp.Serve(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), a.ECP(), 0); err != nil && !errors.Is(err, context.Canceled) {
			return failErr(err)
		}
		return nil
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return failErr(fmt.Errorf("listen: %w", err))
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "proctor: reference agent for %s over ECP at ecp+ws://%s/ ; Ctrl-C stops it\n", d.Name, ln.Addr())
	srv := &http.Server{Handler: ecp.WebSocketHandler(a.ECPFactory(), 0), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return failErr(err)
	case <-cmd.Context().Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(cmd.Context()), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx)
	srv.Close()
	return nil
}
