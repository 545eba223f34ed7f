package main

import (
	"os"

	"github.com/spf13/cobra"
	"go.opentelemetry.io/otel/trace"

	"github.com/proctor-eval/proctor/internal/tracing"
	"github.com/proctor-eval/proctor/skills"
)

// startTracing starts OpenTelemetry tracing as the standard OTEL_*
// environment variables ask (off when none is set): it returns the tracer
// provider, nil when tracing is off, and stop, which flushes the spans not
// yet sent within tracing.FlushTimeout. A malformed endpoint is a usage
// error; a collector that cannot be reached is said once on stderr and
// never fails the command.
func startTracing(cmd *cobra.Command) (tp trace.TracerProvider, stop func(), err error) {
	t, err := tracing.Start(cmd.Context(), tracing.Options{Getenv: os.Getenv, Stderr: cmd.ErrOrStderr(), Version: version()})
	if err != nil {
		return nil, func() {}, usageErr("%v", err)
	}
	if !t.Enabled() {
		return nil, func() {}, nil
	}
	return t.Provider(), func() { t.Shutdown(cmd.Context()) }, nil
}

// withTracing gives the service its tracer provider (nil: no tracing).
func withTracing(svc *skills.Service, tp trace.TracerProvider) *skills.Service {
	svc.TracerProvider = tp
	return svc
}
