package main

import (
	"strings"
	"testing"
)

// TestServeConnectionFlags: the connection timeouts and caps refuse
// values that would turn them off or contradict each other, saying what
// they want, before the server listens.
func TestServeConnectionFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--header-timeout", "0s"}, "--header-timeout 0s: want a positive duration"},
		{[]string{"--body-timeout", "-1s"}, "--body-timeout -1s: want a positive duration"},
		{[]string{"--idle-timeout", "0"}, "--idle-timeout 0s: want a positive duration"},
		{[]string{"--max-connections", "0"}, "--max-connections 0: want at least 1"},
		{[]string{"--max-unauthenticated-connections", "0"}, "--max-unauthenticated-connections 0: want 1..--max-connections (1024)"},
		{[]string{"--max-connections", "10", "--max-unauthenticated-connections", "11"}, "--max-unauthenticated-connections 11: want 1..--max-connections (10)"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"serve", "--host", "127.0.0.1", "--port", "0", "--grpc-port", "-1", "--db", tempDB(t)}, tc.args...)
			r := mustCLI(t, exitUsage, args...)
			if !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "serving at") {
				t.Errorf("stderr %q, want %q and no server", r.stderr, tc.want)
			}
		})
	}
}

// TestServeObservabilityFlags: a log format, level or metrics address
// proctor cannot use is refused, saying what it wants, before the server
// listens.
func TestServeObservabilityFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--log-format", "xml"}, `--log-format "xml": want text or json`},
		{[]string{"--log-level", "loud"}, `--log-level "loud": want debug, info, warn or error`},
		{[]string{"--metrics-listen", "9100"}, `--metrics-listen "9100": want host:port`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"serve", "--host", "127.0.0.1", "--port", "0", "--grpc-port", "-1", "--db", tempDB(t)}, tc.args...)
			r := mustCLI(t, exitUsage, args...)
			if !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "serving at") {
				t.Errorf("stderr %q, want %q and no server", r.stderr, tc.want)
			}
		})
	}
}
