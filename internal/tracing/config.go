// Package tracing sets up proctor's OpenTelemetry traces from the standard
// OTEL_* environment variables and holds what the instrumented packages
// share: the instrumentation scope, the W3C trace-context propagator and a
// no-op default. Nothing here is package-level mutable state: the
// trace.TracerProvider that Start returns is passed explicitly to the
// parts that make spans (evaluation.Runner, rollout.Simulator, a2aclient,
// ecp, llm).
package tracing

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Environment variables read by ConfigFromEnv, as the OpenTelemetry
// specification defines them.
const (
	EnvSDKDisabled          = "OTEL_SDK_DISABLED"
	EnvTracesExporter       = "OTEL_TRACES_EXPORTER"
	EnvEndpoint             = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint       = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol             = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol       = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvServiceName          = "OTEL_SERVICE_NAME"
	EnvBatchDelay           = "OTEL_BSP_SCHEDULE_DELAY"
	EnvExportTimeout        = "OTEL_BSP_EXPORT_TIMEOUT"
	EnvMaxQueued            = "OTEL_BSP_MAX_QUEUE_SIZE"
	EnvBatchSize            = "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"
	defaultHTTPEndpoint     = "http://localhost:4318"
	defaultGRPCEndpoint     = "http://localhost:4317"
	tracesPath              = "/v1/traces"
	exporterOTLP            = "otlp"
	exporterNone            = "none"
	maxEnvValueLen          = 4096
	defaultServiceNameValue = "proctor"
)

// Protocol is an OTLP transport, as OTEL_EXPORTER_OTLP_PROTOCOL names it.
type Protocol string

// OTLP protocols proctor exports with.
const (
	ProtocolHTTPProtobuf Protocol = "http/protobuf"
	ProtocolGRPC         Protocol = "grpc"
)

// Config is what the environment asks of tracing.
type Config struct {
	// Enabled says spans are exported; when false the provider is a
	// no-op and no traceparent is sent to agents.
	Enabled bool
	// Protocol is the OTLP transport.
	Protocol Protocol
	// EndpointURL is the full URL spans are sent to: for http/protobuf
	// the traces URL itself (…/v1/traces), for grpc the collector's
	// address as a URL.
	EndpointURL string
	// ServiceName is OTEL_SERVICE_NAME ("" leaves service.name to
	// OTEL_RESOURCE_ATTRIBUTES, else "proctor").
	ServiceName string
	// Batch is how spans are batched for export (OTEL_BSP_*).
	Batch Batch
	// Warnings are settings ConfigFromEnv ignored, each saying why; the
	// caller prints them (the specification asks for a warning, not a
	// failure, on a value it does not know).
	Warnings []string
}

// Batch is how ended spans are batched for export, as the OTEL_BSP_*
// variables set it; a zero field takes its default (BatchSize, MaxQueued,
// BatchDelay, ExportTimeout).
type Batch struct {
	// Size is how many spans one export sends at most.
	Size int
	// MaxQueued is how many spans may wait for export; more are dropped.
	MaxQueued int
	// Delay is how long a partial batch waits before it is exported.
	Delay time.Duration
	// ExportTimeout bounds one export.
	ExportTimeout time.Duration
}

// maxQueuedLimit bounds OTEL_BSP_MAX_QUEUE_SIZE: spans waiting for export
// are held in memory.
const maxQueuedLimit = 1 << 20

// withDefaults fills the zero fields and keeps Size within MaxQueued.
func (b Batch) withDefaults() Batch {
	b.Size, b.MaxQueued = cmp.Or(b.Size, BatchSize), cmp.Or(b.MaxQueued, MaxQueued)
	b.Delay, b.ExportTimeout = cmp.Or(b.Delay, BatchDelay), cmp.Or(b.ExportTimeout, ExportTimeout)
	b.Size = min(b.Size, b.MaxQueued)
	return b
}

// batchFromEnv reads the OTEL_BSP_* variables: positive integers, the
// durations in milliseconds. A value it cannot use is a warning and leaves
// the default.
func batchFromEnv(get func(string) string) (Batch, []string) {
	var b Batch
	var warnings []string
	read := func(name string, limit int) int {
		v := get(name)
		if v == "" {
			return 0
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > limit {
			warnings = append(warnings, fmt.Sprintf("%s=%q: want a whole number from 1 to %d; using the default", name, v, limit))
			return 0
		}
		return n
	}
	const maxMillis = 24 * 60 * 60 * 1000
	b.Delay = time.Duration(read(EnvBatchDelay, maxMillis)) * time.Millisecond
	b.ExportTimeout = time.Duration(read(EnvExportTimeout, maxMillis)) * time.Millisecond
	b.MaxQueued = read(EnvMaxQueued, maxQueuedLimit)
	b.Size = read(EnvBatchSize, maxQueuedLimit)
	return b, warnings
}

// ConfigFromEnv reads the tracing configuration with getenv. Tracing is on
// when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or OTEL_TRACES_EXPORTER names otlp,
// and off when none of these is set, when OTEL_TRACES_EXPORTER is "none",
// or when OTEL_SDK_DISABLED is "true". A value it cannot use is an error
// that names the variable (a malformed endpoint) or a warning (an exporter
// or protocol proctor does not have).
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	for _, k := range []string{EnvSDKDisabled, EnvTracesExporter, EnvEndpoint, EnvTracesEndpoint, EnvProtocol, EnvTracesProtocol, EnvServiceName,
		EnvBatchDelay, EnvExportTimeout, EnvMaxQueued, EnvBatchSize} {
		if len(getenv(k)) > maxEnvValueLen {
			return Config{}, fmt.Errorf("%s is longer than %d bytes: set it to a short value or unset it", k, maxEnvValueLen)
		}
	}
	cfg := Config{ServiceName: get(EnvServiceName)}
	if strings.EqualFold(get(EnvSDKDisabled), "true") {
		return cfg, nil
	}
	otlp, warnings := exporterWanted(get(EnvTracesExporter))
	cfg.Warnings = warnings
	explicit := get(EnvTracesExporter) != ""
	if !otlp || (!explicit && get(EnvEndpoint) == "" && get(EnvTracesEndpoint) == "") {
		return cfg, nil
	}
	protocol, warning := protocolFrom(cmp.Or(get(EnvTracesProtocol), get(EnvProtocol)))
	if warning != "" {
		cfg.Warnings = append(cfg.Warnings, warning)
	}
	endpoint, err := endpointURL(protocol, get(EnvTracesEndpoint), get(EnvEndpoint))
	if err != nil {
		return Config{}, err
	}
	batch, warnings := batchFromEnv(get)
	cfg.Batch, cfg.Warnings = batch, append(cfg.Warnings, warnings...)
	cfg.Enabled, cfg.Protocol, cfg.EndpointURL = true, protocol, endpoint
	return cfg, nil
}

// exporterWanted reads OTEL_TRACES_EXPORTER, a comma-separated list:
// whether otlp is among the exporters (the default when unset), and
// warnings for names proctor has no exporter for.
func exporterWanted(v string) (bool, []string) {
	if v == "" {
		return true, nil
	}
	var warnings []string
	otlp := false
	for name := range strings.SplitSeq(v, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		switch name {
		case exporterOTLP:
			otlp = true
		case exporterNone, "":
		default:
			warnings = append(warnings, fmt.Sprintf("%s: proctor exports traces with otlp only; %q ignored", EnvTracesExporter, name))
		}
	}
	return otlp, warnings
}

// protocolFrom reads OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL; http/protobuf is
// the specification's default.
func protocolFrom(v string) (Protocol, string) {
	switch p := Protocol(strings.ToLower(v)); p {
	case "", ProtocolHTTPProtobuf:
		return ProtocolHTTPProtobuf, ""
	case ProtocolGRPC:
		return ProtocolGRPC, ""
	default:
		return ProtocolHTTPProtobuf, fmt.Sprintf("%s: protocol %q is not supported (use %s or %s); using %s",
			EnvProtocol, v, ProtocolHTTPProtobuf, ProtocolGRPC, ProtocolHTTPProtobuf)
	}
}

// endpointURL is where spans go: the traces endpoint as it is, or the
// general endpoint with /v1/traces appended for HTTP (as the
// specification says), or the default collector address.
func endpointURL(p Protocol, traces, general string) (string, error) {
	name, raw := EnvTracesEndpoint, traces
	if raw == "" {
		name, raw = EnvEndpoint, general
	}
	if raw == "" {
		if p == ProtocolGRPC {
			return defaultGRPCEndpoint, nil
		}
		return defaultHTTPEndpoint + tracesPath, nil
	}
	u, err := url.Parse(raw)
	if err != nil || !slices.Contains([]string{"http", "https"}, u.Scheme) || u.Host == "" {
		return "", fmt.Errorf("%s=%q: want an http:// or https:// URL such as %s", name, raw, defaultHTTPEndpoint)
	}
	if p == ProtocolHTTPProtobuf && name == EnvEndpoint {
		u.Path = strings.TrimRight(u.Path, "/") + tracesPath
	}
	return u.String(), nil
}
