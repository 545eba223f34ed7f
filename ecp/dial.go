package ecp

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Target schemes.
const (
	SchemeStdio = "ecp+stdio:"
	SchemeWS    = "ecp+ws://"
	SchemeWSS   = "ecp+wss://"
)

// IsTarget reports whether target names an ECP agent.
func IsTarget(target string) bool {
	return strings.HasPrefix(target, SchemeStdio) || strings.HasPrefix(target, SchemeWS) || strings.HasPrefix(target, SchemeWSS)
}

// ErrNotTarget is a target that is not an ECP agent reference.
var ErrNotTarget = errors.New("ecp: not an ECP target: want ecp+stdio:COMMAND ARGS, ecp+ws://HOST:PORT/PATH or ecp+wss://HOST:PORT/PATH")

// Target is a parsed ECP agent reference.
type Target struct {
	// Command is the command line of a stdio agent, split into words.
	Command []string
	// URL is the ws:// or wss:// URL of a WebSocket agent.
	URL string
}

// ParseTarget parses an ECP agent reference.
func ParseTarget(target string) (Target, error) {
	switch {
	case strings.HasPrefix(target, SchemeStdio):
		argv, err := SplitCommand(strings.TrimPrefix(target, SchemeStdio))
		if err != nil {
			return Target{}, err
		}
		return Target{Command: argv}, nil
	case strings.HasPrefix(target, SchemeWS), strings.HasPrefix(target, SchemeWSS):
		u := strings.TrimPrefix(target, "ecp+")
		if len(u) <= len("wss://") || strings.HasSuffix(u, "://") {
			return Target{}, fmt.Errorf("ecp: %q has no host", target)
		}
		return Target{URL: u}, nil
	}
	return Target{}, ErrNotTarget
}

// Dial starts (stdio) or connects to (WebSocket) the agent target names
// and initializes it.
func Dial(ctx context.Context, target string, opts Options) (*Client, error) {
	t, err := ParseTarget(target)
	if err != nil {
		return nil, err
	}
	return t.Dial(ctx, opts)
}

// Dial starts or connects to the agent and initializes it.
func (t Target) Dial(ctx context.Context, opts Options) (*Client, error) {
	c, err := t.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	if _, err := c.Initialize(ctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// Start starts or connects to the agent without initializing it: for
// conformance checks, which look at agent/initialize themselves. Close
// the client when done.
func (t Target) Start(ctx context.Context, opts Options) (*Client, error) {
	var tr transport
	var err error
	if t.URL != "" {
		tr, err = dialWS(ctx, t.URL, &opts)
	} else {
		tr, err = startStdio(t.Command, &opts)
	}
	if err != nil {
		return nil, err
	}
	return newClient(tr, opts), nil
}
