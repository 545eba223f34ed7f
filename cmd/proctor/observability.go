package main

import (
	"io"
	"log/slog"
	"net"

	"github.com/spf13/cobra"
)

// logFormat is how proctor serve writes its log.
type logFormat string

// Log formats of --log-format.
const (
	logText logFormat = "text"
	logJSON logFormat = "json"
)

// observabilityFlags are proctor serve's flags for its log and metrics.
type observabilityFlags struct {
	logFormat     string
	logLevel      string
	metricsListen string
}

func (f *observabilityFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.logFormat, "log-format", string(logText), "log format on stderr: text or json (one record per A2A request, per evaluation start and end)")
	fl.StringVar(&f.logLevel, "log-level", "info", "least level logged: debug, info, warn or error")
	fl.StringVar(&f.metricsListen, "metrics-listen", "", "serve the Prometheus metrics on this address (host:port) instead of at /metrics on --port")
}

// logger is the log the flags ask for, written to w.
func (f *observabilityFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, usageErr("--log-level %q: want debug, info, warn or error", f.logLevel)
	}
	if f.metricsListen != "" {
		if _, _, err := net.SplitHostPort(f.metricsListen); err != nil {
			return nil, usageErr("--metrics-listen %q: want host:port, e.g. 127.0.0.1:9100 (%v)", f.metricsListen, err)
		}
	}
	opts := &slog.HandlerOptions{Level: level}
	switch logFormat(f.logFormat) {
	case logText:
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case logJSON:
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usageErr("--log-format %q: want text or json", f.logFormat)
}
